// RUN: %tile-opt %s -tile-guard-integer-division | FileCheck %s

// A run-time signed divisor becomes 1 where it is 0 or where the dividend is
// the minimum and the divisor -1 (x86's idiv traps on both).
// CHECK-LABEL: func.func @signed(
// CHECK-SAME:    %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG:     %[[BYZERO:.*]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i32
// CHECK-DAG:     %[[BYM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK-DAG:     %[[AMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK:         %[[OVER:.*]] = arith.andi %[[BYM1]], %[[AMIN]] : i1
// CHECK:         %[[TRAPS:.*]] = arith.ori %[[BYZERO]], %[[OVER]] : i1
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[SAFE:.*]] = arith.select %[[TRAPS]], %[[ONE]], %[[B]] : i32
// CHECK:         arith.divsi %[[A]], %[[SAFE]] : i32
func.func @signed(%a: i32, %b: i32) -> i32 {
  %q = arith.divsi %a, %b : i32
  return %q : i32
}

// Unsigned, on vectors: only the zero divisor.
// CHECK-LABEL: func.func @unsigned_vector(
// CHECK-SAME:    %[[A:.*]]: vector<4xi8>, %[[B:.*]]: vector<4xi8>)
// CHECK:         %[[BYZERO:.*]] = arith.cmpi eq, %[[B]], %{{.*}} : vector<4xi8>
// CHECK-NOT:     arith.andi
// CHECK:         %[[SAFE:.*]] = arith.select %[[BYZERO]], %{{.*}}, %[[B]] : vector<4xi1>, vector<4xi8>
// CHECK:         arith.remui %[[A]], %[[SAFE]] : vector<4xi8>
func.func @unsigned_vector(%a: vector<4xi8>, %b: vector<4xi8>) -> vector<4xi8> {
  %r = arith.remui %a, %b : vector<4xi8>
  return %r : vector<4xi8>
}

// Constant divisors: 7 (and -1 unsigned) stay as they are; a signed -1 is
// guarded against the minimum only.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME:    %[[A:.*]]: i64)
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : i64
// CHECK-DAG:     %[[CM1:.*]] = arith.constant -1 : i64
// CHECK:         arith.divsi %[[A]], %[[C7]] : i64
// CHECK:         arith.remsi %[[A]], %[[C7]] : i64
// CHECK-NOT:     arith.ori
// CHECK:         %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[CM1]] : i64
// CHECK:         arith.divsi %[[A]], %[[SAFE]] : i64
// CHECK:         arith.divui %[[A]], %[[CM1]] : i64
func.func @constants(%a: i64) -> (i64, i64, i64, i64) {
  %c7 = arith.constant 7 : i64
  %m1 = arith.constant -1 : i64
  %q7 = arith.divsi %a, %c7 : i64
  %r7 = arith.remsi %a, %c7 : i64
  %qm1 = arith.divsi %a, %m1 : i64
  %um1 = arith.divui %a, %m1 : i64
  return %q7, %r7, %qm1, %um1 : i64, i64, i64, i64
}

// index (64 bits on the host).
// CHECK-LABEL: func.func @index(
// CHECK:         arith.constant -9223372036854775808 : index
// CHECK:         %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK:         arith.remsi %{{.*}}, %[[SAFE]] : index
func.func @index(%a: index, %b: index) -> index {
  %r = arith.remsi %a, %b : index
  return %r : index
}
