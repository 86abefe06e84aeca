// The folders of tile.splat, tile.broadcast and tile.addptr that need no new
// constant (those that do are in canonicalize-constants.mlir), and the loop
// that carries a splat's scalar instead of the splat.
// RUN: %tile-opt %s -canonicalize -split-input-file | FileCheck %s

// A splat of a runtime value stays.
// CHECK-LABEL: func.func @splat_runtime
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK:         %[[S:.*]] = tile.splat %[[X]] : tensor<8xf32>
// CHECK:         return %[[S]]
func.func @splat_runtime(%x: f32) -> tensor<8xf32> {
  %0 = tile.splat %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A broadcast to its own type folds away.
// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NOT:     tile.broadcast
// CHECK:         return %[[X]]
func.func @broadcast_same_type(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = tile.broadcast %x : tensor<4x8xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// A broadcast that changes the shape of a runtime tile stays.
// CHECK-LABEL: func.func @broadcast_runtime
// CHECK:         tile.broadcast %{{.*}} : tensor<1x8xf32> -> tensor<4x8xf32>
func.func @broadcast_runtime(%x: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Adding a zero offset to a pointer or a tile of pointers folds away.
// CHECK-LABEL: func.func @addptr_zero
// CHECK-SAME:    (%[[P:.*]]: !tile.ptr<f32>, %[[PS:.*]]: tensor<16x!tile.ptr<bf16>>)
// CHECK-NOT:     tile.addptr
// CHECK:         return %[[P]], %[[PS]]
func.func @addptr_zero(%p: !tile.ptr<f32>, %ps: tensor<16x!tile.ptr<bf16>>)
    -> (!tile.ptr<f32>, tensor<16x!tile.ptr<bf16>>) {
  %zero = arith.constant 0 : i64
  %zeros = arith.constant dense<0> : tensor<16xi32>
  %0 = tile.addptr %p, %zero : !tile.ptr<f32>, i64
  %1 = tile.addptr %ps, %zeros : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  return %0, %1 : !tile.ptr<f32>, tensor<16x!tile.ptr<bf16>>
}

// -----

// A non-zero offset stays.
// CHECK-LABEL: func.func @addptr_nonzero
// CHECK:         %[[C:.*]] = arith.constant 4 : i64
// CHECK:         tile.addptr %{{.*}}, %[[C]] : !tile.ptr<f32>, i64
func.func @addptr_nonzero(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c = arith.constant 4 : i64
  %0 = tile.addptr %p, %c : !tile.ptr<f32>, i64
  return %0 : !tile.ptr<f32>
}

// -----

// A loop carrying a tile that enters and is yielded as a splat carries the
// scalar, splatted where the body and the code after the loop use it; a
// carried tile yielded as anything else stays a tile.
// CHECK-LABEL: func.func @carry_splat_scalar
// CHECK-SAME:    (%[[P:.*]]: !tile.ptr<i32>, %[[N:.*]]: i32, %[[T:.*]]: tensor<8xi32>)
// CHECK:         %[[X:.*]] = tile.load %[[P]] : !tile.ptr<i32> -> i32
// CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[A:.*]] = %[[X]], %[[B:.*]] = %[[T]]) -> (i32, tensor<8xi32>)
// CHECK:           %[[S:.*]] = tile.splat %[[A]] : tensor<8xi32>
// CHECK:           %[[U:.*]] = arith.addi %[[S]], %[[B]] : tensor<8xi32>
// CHECK:           %[[Q:.*]] = tile.addptr %[[P]], %{{.*}} : !tile.ptr<i32>, i32
// CHECK:           %[[Y:.*]] = tile.load %[[Q]] : !tile.ptr<i32> -> i32
// CHECK:           scf.yield %[[Y]], %[[U]] : i32, tensor<8xi32>
// CHECK:         %[[E:.*]] = tile.splat %[[R]]#0 : tensor<8xi32>
// CHECK:         return %[[E]], %[[R]]#1
func.func @carry_splat_scalar(%p: !tile.ptr<i32>, %n: i32, %t: tensor<8xi32>)
    -> (tensor<8xi32>, tensor<8xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %x = tile.load %p : !tile.ptr<i32> -> i32
  %s = tile.splat %x : tensor<8xi32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %s, %b = %t)
      -> (tensor<8xi32>, tensor<8xi32>) : i32 {
    %u = arith.addi %a, %b : tensor<8xi32>
    %q = tile.addptr %p, %i : !tile.ptr<i32>, i32
    %y = tile.load %q : !tile.ptr<i32> -> i32
    %z = tile.splat %y : tensor<8xi32>
    scf.yield %z, %u : tensor<8xi32>, tensor<8xi32>
  }
  return %r#0, %r#1 : tensor<8xi32>, tensor<8xi32>
}
