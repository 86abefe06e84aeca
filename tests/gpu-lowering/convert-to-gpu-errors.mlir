// What tile-convert-to-gpu rejects in this version, at the offending op.
// RUN: %tile-opt %s -split-input-file -verify-diagnostics -tile-convert-to-gpu -o /dev/null
// An unknown target fails the pass before any kernel is touched.
// RUN: not %tile-opt %s -split-input-file '-tile-convert-to-gpu=target=sm_12' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'sm_12'

func.func @two_d(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{the GPU targets support 1-D tiles in this version, got 'tensor<4x8x!tile.ptr<f32>>'}}
  %s = tile.splat %p : tensor<4x8x!tile.ptr<f32>>
  %v = tile.load %s : tensor<4x8x!tile.ptr<f32>> -> tensor<4x8xf32>
  tile.store %s, %v : tensor<4x8x!tile.ptr<f32>>, tensor<4x8xf32>
  return
}

// -----

func.func @wide(%x: tensor<64xi64>, %p: !tile.ptr<i64>) attributes {tile.kernel} {
  // expected-error @+1 {{the GPU targets reduce 32-bit or narrower elements in this version, got 'i64'}}
  %s = tile.reduce sum %x, 0 : tensor<64xi64> -> i64
  tile.store %p, %s : !tile.ptr<i64>, i64
  return
}
