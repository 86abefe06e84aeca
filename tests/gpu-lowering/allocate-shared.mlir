// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared | FileCheck %s

// Two ops need shared memory one after the other: the column max (4 warps
// hold the rows: 128 results x 4 partials x 4 bytes = 2048) and the
// conversion of the row sums to the layout of their pointers (8 x 4 = 32).
// Their lifetimes do not overlap, so both start at byte 0 and the kernel
// needs 2048 bytes, not 2080. The row sum itself needs none: its rows never
// cross warps.
// CHECK-LABEL: func.func @reuse(
// CHECK-SAME:    tile.shared_bytes = 2048 : i64
// CHECK:         tile.reduce sum %{{[^ ]+}}, 1 :
// CHECK:         tile.convert_layout %{{[^ ]+}} {tile.shared_offset = 0 : i64}
// CHECK:         tile.reduce max %{{[^ ]+}}, 0 {tile.shared_offset = 0 : i64}
func.func @reuse(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
  %xs = tile.splat %x : tensor<8x128x!tile.ptr<f32>>
  %v = tile.load %xs : tensor<8x128x!tile.ptr<f32>> -> tensor<8x128xf32>
  %s = tile.reduce sum %v, 1 : tensor<8x128xf32> -> tensor<8xf32>
  %r = tile.range 0 to 8 : tensor<8xi32>
  %ys = tile.splat %y : tensor<8x!tile.ptr<f32>>
  %q = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %q, %s : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  %t = tile.reduce max %v, 0 : tensor<8x128xf32> -> tensor<128xf32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %zs = tile.splat %y : tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %zs, %c : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %p, %t : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// No exchange between threads: no shared memory.
// CHECK-LABEL: func.func @none(
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK-NOT:     tile.shared_offset
func.func @none(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %v = tile.load %xs : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %xs, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
