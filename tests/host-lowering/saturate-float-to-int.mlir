// RUN: %tile-opt %s -tile-saturate-float-to-int | FileCheck %s

// f32 -> i32: past 2^31 (as f32 rounds it) the maximum, at -2^31 or below
// the minimum, NaN 0; the conversion stays for the values in range.
// CHECK-LABEL: func.func @signed(
// CHECK-SAME:    %[[X:.*]]: f32)
// CHECK:         %[[CONV:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK:         %[[HIGH:.*]] = arith.cmpf oge, %[[X]], %{{.*}} : f32
// CHECK:         %[[LOW:.*]] = arith.cmpf ole, %[[X]], %{{.*}} : f32
// CHECK:         %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[A:.*]] = arith.select %[[LOW]], %[[MIN]], %[[CONV]] : i32
// CHECK:         %[[B:.*]] = arith.select %[[HIGH]], %[[MAX]], %[[A]] : i32
// CHECK:         %[[C:.*]] = arith.select %[[NAN]], %{{.*}}, %[[B]] : i32
// CHECK:         return %[[C]] : i32
func.func @signed(%x: f32) -> i32 {
  %r = arith.fptosi %x : f32 to i32
  return %r : i32
}

// f16 vectors -> u8: 256 and above 255, -1 and below 0.
// CHECK-LABEL: func.func @unsigned_vector(
// CHECK:         arith.fptoui %{{.*}} : vector<4xf16> to vector<4xi8>
// CHECK:         arith.constant dense<2.560000e+02> : vector<4xf16>
// CHECK:         arith.constant dense<-1.000000e+00> : vector<4xf16>
// CHECK:         arith.select
// CHECK:         arith.select
// CHECK:         arith.select
func.func @unsigned_vector(%x: vector<4xf16>) -> vector<4xi8> {
  %r = arith.fptoui %x : vector<4xf16> to vector<4xi8>
  return %r : vector<4xi8>
}

// f16 -> i32: 2^31 is past f16's range, so only +inf reaches the maximum
// (and only -inf the minimum).
// CHECK-LABEL: func.func @narrow_float(
// CHECK:         arith.constant 0x7C00 : f16
// CHECK:         arith.constant 0xFC00 : f16
func.func @narrow_float(%x: f16) -> i32 {
  %r = arith.fptosi %x : f16 to i32
  return %r : i32
}
