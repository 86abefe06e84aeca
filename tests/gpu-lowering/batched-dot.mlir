// RUN: %tile-opt %s "-tile-assign-layouts=num-warps=8" | FileCheck %s --check-prefix=W8
// RUN: %tile-opt %s "-tile-assign-layouts=num-warps=4" | FileCheck %s --check-prefix=W4
// RUN: %tile-opt %s "-tile-assign-layouts=target=gfx942 num-warps=8" | FileCheck %s --check-prefix=AMD
// A batched dot's layouts (batchLayout): each batch element's are the 2-D
// dot's on its share of the warps, with the batch's index bits (8-10 of the
// [8, 16, 16] tiles) on further warps, then on the highest registers.
// 8 problems on 8 warps: a warp each, two mma.sync m16n8k16 tiles along N.
// W8: tile.dot
// W8-SAME: tensor<8x16x16xf16, #tile.dist<reg = [0, 7, 3], lane = [1, 2, 4, 5, 6], warp = [8, 9, 10]>>
// W8-SAME: tensor<8x16x16xf16, #tile.dist<reg = [4, 7, 3], lane = [5, 6, 0, 1, 2], warp = [8, 9, 10]>>
// W8-SAME: -> tensor<8x16x16xf32, #tile.dist<reg = [0, 7, 3], lane = [1, 2, 4, 5, 6], warp = [8, 9, 10]>>
// 8 problems on 4 warps: two a warp, the batch's high bit the highest register bit.
// W4: tile.dot
// W4-SAME: tensor<8x16x16xf16, #tile.dist<reg = [0, 7, 3, 10], lane = [1, 2, 4, 5, 6], warp = [8, 9]>>
// W4-SAME: tensor<8x16x16xf16, #tile.dist<reg = [4, 7, 3, 10], lane = [5, 6, 0, 1, 2], warp = [8, 9]>>
// W4-SAME: -> tensor<8x16x16xf32, #tile.dist<reg = [0, 7, 3, 10], lane = [1, 2, 4, 5, 6], warp = [8, 9]>>
// MFMA 16x16x16 on 8 wavefronts: one problem each.
// AMD: tile.dot
// AMD-SAME: tensor<8x16x16xf16, #tile.dist<reg = [0, 1], lane = [4, 5, 6, 7, 2, 3], warp = [8, 9, 10]>>
// AMD-SAME: tensor<8x16x16xf16, #tile.dist<reg = [4, 5], lane = [0, 1, 2, 3, 6, 7], warp = [8, 9, 10]>>
// AMD-SAME: -> tensor<8x16x16xf32, #tile.dist<reg = [4, 5], lane = [0, 1, 2, 3, 6, 7], warp = [8, 9, 10]>>
func.func @batched(%y: !tile.ptr<f32>) attributes {tile.kernel} {
  %h = arith.constant 1.0 : f16
  %zero = arith.constant 0.0 : f32
  %a = tile.splat %h : tensor<8x16x16xf16>
  %b = tile.splat %h : tensor<8x16x16xf16>
  %acc = tile.splat %zero : tensor<8x16x16xf32>
  %d = tile.dot %a, %b, %acc : tensor<8x16x16xf16>, tensor<8x16x16xf16> -> tensor<8x16x16xf32>
  %c = tile.range 0 to 2048 : tensor<2048xi32>
  %r = tile.reshape %c : tensor<2048xi32> -> tensor<8x16x16xi32>
  %ys = tile.splat %y : tensor<8x16x16x!tile.ptr<f32>>
  %p = tile.addptr %ys, %r : tensor<8x16x16x!tile.ptr<f32>>, tensor<8x16x16xi32>
  tile.store %p, %d : tensor<8x16x16x!tile.ptr<f32>>, tensor<8x16x16xf32>
  return
}
