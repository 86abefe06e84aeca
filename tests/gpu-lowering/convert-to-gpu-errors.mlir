// What the GPU passes reject, at the offending op.
// RUN: %tile-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts \
// RUN:   -tile-allocate-shared -tile-convert-to-gpu -o /dev/null
// An unknown target fails a pass before any kernel is touched.
// RUN: not %tile-opt %s -split-input-file '-tile-convert-to-gpu=target=sm_12' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// RUN: not %tile-opt %s -split-input-file '-tile-assign-layouts=target=sm_12' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'sm_12'
// The lowering needs the layouts.
// RUN: not %tile-opt %s -split-input-file -tile-convert-to-gpu 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: internal error: the kernel has no layouts (run tile-assign-layouts and tile-allocate-shared first)

func.func @wide(%p: !tile.ptr<i64>) attributes {tile.kernel} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.splat %p : tensor<64x!tile.ptr<i64>>
  %a = tile.addptr %s, %r : tensor<64x!tile.ptr<i64>>, tensor<64xi32>
  %x = tile.load %a : tensor<64x!tile.ptr<i64>> -> tensor<64xi64>
  // expected-error @+1 {{the GPU targets reduce 32-bit or narrower elements in this version, got 'i64'}}
  %t = tile.reduce sum %x, 0 : tensor<64xi64> -> i64
  tile.store %p, %t : !tile.ptr<i64>, i64
  return
}

// -----

// expected-error @+1 {{GPU kernels take scalars and pointers, not tiles: argument 0 is 'tensor<64xf32>'}}
func.func @tile_argument(%x: tensor<64xf32>, %p: !tile.ptr<f32>) attributes {tile.kernel} {
  %t = tile.reduce sum %x, 0 : tensor<64xf32> -> f32
  tile.store %p, %t : !tile.ptr<f32>, f32
  return
}

// -----

func.func @huge(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{a tile of 524288 elements needs 4096 registers per thread with 4 warps of 32 threads; the GPU targets allow at most 1024 (use a smaller tile or more warps)}}
  %s = tile.splat %p : tensor<524288x!tile.ptr<f32>>
  %v = tile.load %s : tensor<524288x!tile.ptr<f32>> -> tensor<524288xf32>
  tile.store %s, %v : tensor<524288x!tile.ptr<f32>>, tensor<524288xf32>
  return
}
