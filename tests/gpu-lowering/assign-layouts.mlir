// RUN: %tile-opt %s -split-input-file -tile-assign-layouts | FileCheck %s
// RUN: %tile-opt %s -split-input-file "-tile-assign-layouts=target=gfx942 num-warps=8" \
// RUN:   | FileCheck %s --check-prefix=AMD

// Blocked: runs of 16 bytes of the narrowest element accessed (bf16: 8), then
// the 32 lanes, then the 4 warps; 1024 elements fill every thread once.
// CHECK-LABEL: func.func @blocked_bf16(
// CHECK-SAME:    tile.threads = 128 : i64
// CHECK:         tile.range 0 to 1024 : tensor<1024xi32, #tile.dist<reg = [0, 1, 2], lane = [3, 4, 5, 6, 7], warp = [8, 9]>>
// 64-lane wavefronts, 8 of them: 512 threads, runs of 2.
// AMD-LABEL: func.func @blocked_bf16(
// AMD-SAME:    tile.threads = 512 : i64
// AMD:         tile.range 0 to 1024 : tensor<1024xi32, #tile.dist<reg = [0], lane = [1, 2, 3, 4, 5, 6], warp = [7, 8, 9]>>
func.func @blocked_bf16(%y: !tile.ptr<bf16>) attributes {tile.kernel} {
  %c = tile.range 0 to 1024 : tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<bf16>>
  %p = tile.addptr %ys, %c : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %v = arith.sitofp %c : tensor<1024xi32> to tensor<1024xbf16>
  tile.store %p, %v : tensor<1024x!tile.ptr<bf16>>, tensor<1024xbf16>
  return
}

// -----

// i32: runs of 4; the second run of a thread is 512 elements on (bit 9).
// CHECK-LABEL: func.func @blocked_i32(
// CHECK:         tile.range 0 to 1024 : tensor<1024xi32, #tile.dist<reg = [0, 1, 9], lane = [2, 3, 4, 5, 6], warp = [7, 8]>>
// A small tile: 64 elements over 128 threads; warps 2 and 3 hold copies.
// CHECK:         tile.range 0 to 64 : tensor<64xi32, #tile.dist<reg = [], lane = [0, 1, 2, 3, 4], warp = [5, -1]>>
func.func @blocked_i32(%y: !tile.ptr<i32>) attributes {tile.kernel} {
  %c = tile.range 0 to 1024 : tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<i32>>
  %p = tile.addptr %ys, %c : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  tile.store %p, %c : tensor<1024x!tile.ptr<i32>>, tensor<1024xi32>
  %d = tile.range 0 to 64 : tensor<64xi32>
  %zs = tile.splat %y : tensor<64x!tile.ptr<i32>>
  %q = tile.addptr %zs, %d : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %q, %d : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  return
}

// -----

// 2-D: [8, 128] f32 is blocked with the last dimension fastest (index bits
// 0-6 are the column, 7-9 the row). The row offsets arange(0, 8)[:, None] *
// 128 are recomputed in the layout their broadcast needs (the blocked
// layout of [8, 128] with the column bits dropped) instead of converted.
// Reducing along the row keeps the threads: the sum's layout is the
// source's with the column bits dropped, so its broadcast back is a copy
// between registers.
// CHECK-LABEL: func.func @rows(
// CHECK:       %[[R:.+]] = tile.range 0 to 8 : tensor<8xi32, #tile.dist<reg = [2], lane = [-1, -1, -1, -1, -1], warp = [0, 1]>>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.expand_dims %[[R]], 1
// CHECK:       tile.broadcast {{.*}} -> tensor<8x128xi32, #tile.dist<reg = [0, 1, 9], lane = [2, 3, 4, 5, 6], warp = [7, 8]>>
// CHECK:       %[[V:.+]] = tile.load
// CHECK:       %[[S:.+]] = tile.reduce sum %[[V]], 1 : {{.*}} -> tensor<8xf32, #tile.dist<reg = [2], lane = [-1, -1, -1, -1, -1], warp = [0, 1]>>
// Down the columns: the result, expanded back, is replicated over the warps.
// CHECK:       tile.reduce max %[[V]], 0 : {{.*}} -> tensor<128xf32, #tile.dist<reg = [0, 1], lane = [2, 3, 4, 5, 6], warp = [-1, -1]>>
// CHECK:       %[[SE:.+]] = tile.expand_dims %[[S]], 1
// CHECK:       tile.broadcast %[[SE]] : tensor<8x1xf32, #tile.dist<reg = [2], lane = [-1, -1, -1, -1, -1], warp = [0, 1]>> -> tensor<8x128xf32, #tile.dist<reg = [0, 1, 9], lane = [2, 3, 4, 5, 6], warp = [7, 8]>>
// CHECK-NOT:   tile.convert_layout
// CHECK:       return
func.func @rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0 to 8 : tensor<8xi32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %re = tile.expand_dims %r, 1 : tensor<8xi32> -> tensor<8x1xi32>
  %c128 = arith.constant dense<128> : tensor<8x1xi32>
  %rs = arith.muli %re, %c128 : tensor<8x1xi32>
  %rb = tile.broadcast %rs : tensor<8x1xi32> -> tensor<8x128xi32>
  %ce = tile.expand_dims %c, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %ce : tensor<1x128xi32> -> tensor<8x128xi32>
  %off = arith.addi %rb, %cb : tensor<8x128xi32>
  %xs = tile.splat %x : tensor<8x128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %off : tensor<8x128x!tile.ptr<f32>>, tensor<8x128xi32>
  %v = tile.load %p : tensor<8x128x!tile.ptr<f32>> -> tensor<8x128xf32>
  %s = tile.reduce sum %v, 1 : tensor<8x128xf32> -> tensor<8xf32>
  %t = tile.reduce max %v, 0 : tensor<8x128xf32> -> tensor<128xf32>
  %se = tile.expand_dims %s, 1 : tensor<8xf32> -> tensor<8x1xf32>
  %sb = tile.broadcast %se : tensor<8x1xf32> -> tensor<8x128xf32>
  %te = tile.expand_dims %t, 0 : tensor<128xf32> -> tensor<1x128xf32>
  %tb = tile.broadcast %te : tensor<1x128xf32> -> tensor<8x128xf32>
  %d = arith.subf %v, %sb : tensor<8x128xf32>
  %e = arith.addf %d, %tb : tensor<8x128xf32>
  %ys = tile.splat %y : tensor<8x128x!tile.ptr<f32>>
  %q = tile.addptr %ys, %off : tensor<8x128x!tile.ptr<f32>>, tensor<8x128xi32>
  tile.store %q, %e : tensor<8x128x!tile.ptr<f32>>, tensor<8x128xf32>
  return
}

// -----

// A column max (across the warps, which hold the rows) stored as it is: the
// warps' partials are read back in the blocked [128] layout, one element a
// thread, not all 128 by every warp; no conversion follows.
// CHECK-LABEL: func.func @store_col_max(
// CHECK:       tile.reduce max {{.*}} -> tensor<128xf32, #tile.dist<reg = [], lane = [0, 1, 2, 3, 4], warp = [5, 6]>>
// CHECK-NOT:   tile.convert_layout
// CHECK:       tile.store
func.func @store_col_max(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
  %xs = tile.splat %x : tensor<8x128x!tile.ptr<f32>>
  %v = tile.load %xs : tensor<8x128x!tile.ptr<f32>> -> tensor<8x128xf32>
  %t = tile.reduce max %v, 0 : tensor<8x128xf32> -> tensor<128xf32>
  %c = tile.range 0 to 128 : tensor<128xi32>
  %ys = tile.splat %y : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ys, %c : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %q, %t : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A row sum stored through pointers of the blocked [8] layout: the sum is
// loaded data, not recomputable, so it is converted.
// CHECK-LABEL: func.func @store_sums(
// CHECK:       %[[S:.+]] = tile.reduce sum
// CHECK-NEXT:  tile.convert_layout %[[S]] : tensor<8xf32, #tile.dist<reg = [2], lane = [-1, -1, -1, -1, -1], warp = [0, 1]>> -> tensor<8xf32, #tile.dist<reg = [], lane = [0, 1, 2, -1, -1], warp = [-1, -1]>>
func.func @store_sums(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
  %xs = tile.splat %x : tensor<8x128x!tile.ptr<f32>>
  %v = tile.load %xs : tensor<8x128x!tile.ptr<f32>> -> tensor<8x128xf32>
  %s = tile.reduce sum %v, 1 : tensor<8x128xf32> -> tensor<8xf32>
  %r = tile.range 0 to 8 : tensor<8xi32>
  %ys = tile.splat %y : tensor<8x!tile.ptr<f32>>
  %q = tile.addptr %ys, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %q, %s : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// -----

// Loop-carried tiles keep the layout of their initial value (256 elements: runs
// of 2 so that every thread has work); the yielded
// value is converted to it where it differs.
// CHECK-LABEL: func.func @loop(
// CHECK:       scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<256xf32, #tile.dist<reg = [0], lane = [1, 2, 3, 4, 5], warp = [6, 7]>>)
func.func @loop(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xs = tile.splat %x : tensor<256x!tile.ptr<f32>>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<256xf32>) : i32 {
    %v = tile.load %xs : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
    %a = arith.addf %acc, %v : tensor<256xf32>
    scf.yield %a : tensor<256xf32>
  }
  tile.store %xs, %sum : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// A running max over the rows of loaded [16, 64] tiles is carried in the
// layout the reduction computes it in (a slice of the tile's layout): the
// initial -inf is laid out so before the loop, and no conversion runs in it.
// CHECK-LABEL: func.func @carried_reduction(
// CHECK:         %[[INIT:.+]] = arith.constant dense<0xFF800000> : tensor<16xf32, #tile.dist<[[SLICE:.+]]>>
// CHECK:         scf.for {{.*}} iter_args(%{{.+}} = %[[INIT]]) -> (tensor<16xf32, #tile.dist<[[SLICE]]>>)
// CHECK-NOT:       tile.convert_layout
// CHECK:           tile.reduce max {{.*}} -> tensor<16xf32, #tile.dist<[[SLICE]]>>
// CHECK-NOT:       tile.convert_layout
// CHECK:           scf.yield
func.func @carried_reduction(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<16xf32>
  %r = tile.range 0 to 1024 : tensor<1024xi32>
  %p = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a2 = tile.reshape %a : tensor<1024x!tile.ptr<f32>> -> tensor<16x64x!tile.ptr<f32>>
  %m = scf.for %i = %c0 to %n step %c1 iter_args(%run = %ninf) -> (tensor<16xf32>) : i32 {
    %v = tile.load %a2 : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
    %row = tile.reduce max %v, 1 : tensor<16x64xf32> -> tensor<16xf32>
    %next = arith.maximumf %run, %row : tensor<16xf32>
    scf.yield %next : tensor<16xf32>
  }
  %r16 = tile.range 0 to 16 : tensor<16xi32>
  %o = tile.splat %out : tensor<16x!tile.ptr<f32>>
  %oa = tile.addptr %o, %r16 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %oa, %m : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  return
}

// -----

// A paged gather: rows kv[pages[j / bs] * bs + j % bs, :] of [64, 128] fp8.
// The page numbers (an index-table load) and `j % bs` (a division) are
// computed once, in the layout of `j`, and converted to the rows' layout;
// the arithmetic on them is redone there. Redone, the division cost one
// remainder per row a thread holds (4 here): paged MQA ran 22-30% slower
// (bench/RESULTS.md, runs 31 and 33).
// CHECK-LABEL: func.func @paged_rows(
// CHECK:         arith.divsi
// CHECK:         %[[PAGE:.+]] = tile.load
// CHECK:         tile.convert_layout %[[PAGE]]
// CHECK:         %[[R:.+]] = arith.remsi
// CHECK:         tile.convert_layout %[[R]]
// CHECK-NOT:     arith.remsi
// CHECK-NOT:     arith.divsi
// CHECK:         tile.load {{.*}} -> tensor<64x128xf8E4M3FN
func.func @paged_rows(%pages: !tile.ptr<i32>, %kv: !tile.ptr<f8E4M3FN>, %out: !tile.ptr<f8E4M3FN>, %bs: i32) attributes {tile.kernel} {
  %j = tile.range 0 to 64 : tensor<64xi32>
  %bsv = tile.splat %bs : tensor<64xi32>
  %q = arith.divsi %j, %bsv : tensor<64xi32>
  %pp = tile.splat %pages : tensor<64x!tile.ptr<i32>>
  %pa = tile.addptr %pp, %q : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %page = tile.load %pa : tensor<64x!tile.ptr<i32>> -> tensor<64xi32>
  %r = arith.remsi %j, %bsv : tensor<64xi32>
  %base = arith.muli %page, %bsv : tensor<64xi32>
  %slot = arith.addi %base, %r : tensor<64xi32>
  %s2 = tile.expand_dims %slot, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %off = arith.muli %s2, %c128 : tensor<64x1xi32>
  %kvs = tile.splat %kv : tensor<64x1x!tile.ptr<f8E4M3FN>>
  %rows = tile.addptr %kvs, %off : tensor<64x1x!tile.ptr<f8E4M3FN>>, tensor<64x1xi32>
  %cols = tile.range 0 to 128 : tensor<128xi32>
  %c2 = tile.expand_dims %cols, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %rows : tensor<64x1x!tile.ptr<f8E4M3FN>> -> tensor<64x128x!tile.ptr<f8E4M3FN>>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %ptrs = tile.addptr %rb, %cb : tensor<64x128x!tile.ptr<f8E4M3FN>>, tensor<64x128xi32>
  %x = tile.load %ptrs : tensor<64x128x!tile.ptr<f8E4M3FN>> -> tensor<64x128xf8E4M3FN>
  %os = tile.splat %out : tensor<64x128x!tile.ptr<f8E4M3FN>>
  %o = tile.addptr %os, %cb : tensor<64x128x!tile.ptr<f8E4M3FN>>, tensor<64x128xi32>
  tile.store %o, %x : tensor<64x128x!tile.ptr<f8E4M3FN>>, tensor<64x128xf8E4M3FN>
  return
}
