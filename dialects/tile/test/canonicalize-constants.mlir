// The folders that produce a constant: tile.splat of a constant and
// tile.broadcast of a splat constant fold to an attribute, which the
// canonicalizer can only use through the tile dialect's constant materializer.
// The dialect has none yet (TileBase.td lacks `hasConstantMaterializer = 1`,
// TileDialect.cpp lacks materializeConstant), so these folds never happen.
// RUN: %tile-opt %s -canonicalize -split-input-file | FileCheck %s

// A splat of a constant folds to a dense constant.
// CHECK-LABEL: func.func @splat_constant
// CHECK-DAG:     %[[F:.*]] = arith.constant dense<1.500000e+00> : tensor<4x8xf32>
// CHECK-DAG:     %[[I:.*]] = arith.constant dense<-3> : tensor<16xi32>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<true> : tensor<16xi1>
// CHECK-NOT:     tile.splat
// CHECK:         return %[[F]], %[[I]], %[[B]]
func.func @splat_constant() -> (tensor<4x8xf32>, tensor<16xi32>, tensor<16xi1>) {
  %f = arith.constant 1.5 : f32
  %i = arith.constant -3 : i32
  %b = arith.constant true
  %0 = tile.splat %f : tensor<4x8xf32>
  %1 = tile.splat %i : tensor<16xi32>
  %2 = tile.splat %b : tensor<16xi1>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<16xi32>, tensor<16xi1>
}

// -----

// A broadcast of a splat constant folds to a larger splat constant.
// CHECK-LABEL: func.func @broadcast_splat_constant
// CHECK:         %[[C:.*]] = arith.constant dense<7> : tensor<4x8xi64>
// CHECK-NOT:     tile.broadcast
// CHECK:         return %[[C]]
func.func @broadcast_splat_constant() -> tensor<4x8xi64> {
  %c = arith.constant dense<7> : tensor<1x8xi64>
  %0 = tile.broadcast %c : tensor<1x8xi64> -> tensor<4x8xi64>
  return %0 : tensor<4x8xi64>
}

// -----

// A zero offset made by a splat folds too (the splat folds first).
// CHECK-LABEL: func.func @addptr_zero_splat
// CHECK-SAME:    (%[[PS:.*]]: tensor<16x!tile.ptr<i8>>)
// CHECK-NOT:     tile.addptr
// CHECK:         return %[[PS]]
func.func @addptr_zero_splat(%ps: tensor<16x!tile.ptr<i8>>) -> tensor<16x!tile.ptr<i8>> {
  %zero = arith.constant 0 : i32
  %zeros = tile.splat %zero : tensor<16xi32>
  %0 = tile.addptr %ps, %zeros : tensor<16x!tile.ptr<i8>>, tensor<16xi32>
  return %0 : tensor<16x!tile.ptr<i8>>
}

