// RUN: %tile-opt %s -tile-expand-math | FileCheck %s --check-prefixes=CHECK,PORTABLE
// RUN: %tile-opt %s -tile-expand-math=native-exp2=true | FileCheck %s --check-prefixes=CHECK,NATIVE

// erfc of f32 (scalars and vectors): 1 - x Q(x^2) below |x| = 0.75, else
// t 2^(G(u) - x^2 log2 e) with t = 1 / (1 + |x|/2) from a fast reciprocal
// and one Newton step. The power of two is the target's exp2 with
// native-exp2 (NVPTX), else a polynomial with n added to the exponent bits.
// CHECK-LABEL: func.func @erfc(
// CHECK-NOT:     math.erfc
// CHECK:         arith.minimumf
// CHECK:         arith.divf {{.*}} fastmath<afn> : vector<4xf32>
// NATIVE:        math.exp2 {{.*}} : vector<4xf32>
// PORTABLE-NOT:  math.exp2
// PORTABLE:      arith.shli
// PORTABLE:      arith.addi
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK:         arith.cmpf olt
// CHECK:         arith.select
// CHECK-NOT:     math.erfc
// CHECK:         return
func.func @erfc(%x: vector<4xf32>) -> vector<4xf32> {
  %y = math.erfc %x : vector<4xf32>
  return %y : vector<4xf32>
}

// The kernel's own divisions stay correctly rounded; f64 erfc is left alone.
// CHECK-LABEL: func.func @other(
// CHECK:         arith.divf %{{[^ ]+}}, %{{[^ ]+}} : f32
// CHECK:         math.erfc %{{[^ ]+}} : f64
func.func @other(%a: f32, %b: f32, %c: f64) -> (f32, f64) {
  %q = arith.divf %a, %b : f32
  %e = math.erfc %c : f64
  return %q, %e : f32, f64
}

// The kernel's own exp2 is left to the target's exp2 (NVPTX: ex2.approx, 2
// ulp) on every target; exp is the portable polynomial.
// CHECK-LABEL: func.func @exp2(
// CHECK:         math.exp2 {{.*}} : vector<4xf32>
// CHECK-NOT:     math.exp
// CHECK:         math.floor
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @exp2(%x: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %y = math.exp2 %x : vector<4xf32>
  %z = math.exp %x : vector<4xf32>
  return %y, %z : vector<4xf32>, vector<4xf32>
}
