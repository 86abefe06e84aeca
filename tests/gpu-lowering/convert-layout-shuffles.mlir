// Layout conversions that keep every element in its warp need no shared
// memory: warp shuffles (shfl.sync.idx) bring each result register from its
// lane, and selects pick among a thread's own registers where the source
// register depends on the thread (tile-allocate-shared gives them no bytes).
// Elements that change warps still go through shared memory.
// RUN: %tile-opt %s -split-input-file -tile-allocate-shared -tile-convert-to-gpu | FileCheck %s

#lanes = #tile.dist<reg = [], lane = [0, 1, 2, 3, 4], warp = []>
#rows = #tile.dist<reg = [0, 3, 4], lane = [1, 2, -1, -1, -1], warp = []>
// One i32 a lane to 8 registers a thread: lane 4 x bit 1 + bit 0 of the
// result register and bits 1-2 of the lane number it reads from.
// CHECK-LABEL: func.func @lanes_to_registers(
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-8: nvvm.shfl.sync idx
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @lanes_to_registers(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>) attributes {tile.kernel, tile.threads = 32 : i64} {
  %i = tile.range 0 to 32 : tensor<32xi32, #lanes>
  %ps = tile.splat %p : tensor<32x!tile.ptr<i32>, #lanes>
  %pa = tile.addptr %ps, %i : tensor<32x!tile.ptr<i32>, #lanes>, tensor<32xi32, #lanes>
  %x = tile.load %pa : tensor<32x!tile.ptr<i32>, #lanes> -> tensor<32xi32, #lanes>
  %y = tile.convert_layout %x : tensor<32xi32, #lanes> -> tensor<32xi32, #rows>
  %j = tile.range 0 to 32 : tensor<32xi32, #rows>
  %qs = tile.splat %q : tensor<32x!tile.ptr<i32>, #rows>
  %qa = tile.addptr %qs, %j : tensor<32x!tile.ptr<i32>, #rows>, tensor<32xi32, #rows>
  tile.store %qa, %y : tensor<32x!tile.ptr<i32>, #rows>, tensor<32xi32, #rows>
  return
}

// -----

#lanes = #tile.dist<reg = [], lane = [0, 1, 2, 3, 4], warp = []>
#rows = #tile.dist<reg = [0, 3, 4], lane = [1, 2, -1, -1, -1], warp = []>
// 64-bit values (pointers: i64 addresses by now) move as two 32-bit halves.
// CHECK-LABEL: func.func @pointers(
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK:         %[[LO:.+]] = arith.trunci %[[V:.+]] : i64 to i32
// CHECK:         %[[HI:.+]] = arith.shrui %[[V]]
// CHECK:         nvvm.shfl.sync idx {{.*}}, %[[LO]],
// CHECK:         nvvm.shfl.sync idx {{.*}}, %{{.+}},
// CHECK-COUNT-14: nvvm.shfl.sync idx
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @pointers(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel, tile.threads = 32 : i64} {
  %i = tile.range 0 to 32 : tensor<32xi32, #lanes>
  %ps = tile.splat %p : tensor<32x!tile.ptr<f32>, #lanes>
  %pa = tile.addptr %ps, %i : tensor<32x!tile.ptr<f32>, #lanes>, tensor<32xi32, #lanes>
  %pb = tile.convert_layout %pa : tensor<32x!tile.ptr<f32>, #lanes> -> tensor<32x!tile.ptr<f32>, #rows>
  %x = tile.load %pb : tensor<32x!tile.ptr<f32>, #rows> -> tensor<32xf32, #rows>
  %j = tile.range 0 to 32 : tensor<32xi32, #rows>
  %qs = tile.splat %q : tensor<32x!tile.ptr<f32>, #rows>
  %qa = tile.addptr %qs, %j : tensor<32x!tile.ptr<f32>, #rows>, tensor<32xi32, #rows>
  tile.store %qa, %x : tensor<32x!tile.ptr<f32>, #rows>, tensor<32xf32, #rows>
  return
}

// -----

#all = #tile.dist<reg = [0, 1, 2], lane = [-1, -1, -1, -1, -1], warp = []>
#pairs = #tile.dist<reg = [0], lane = [1, 2, -1, -1, -1], warp = []>
// Every thread holds all 8 elements: the 2 it keeps are its own registers,
// which lane bits 0-1 pick (three selects each), no shuffle.
// CHECK-LABEL: func.func @own_registers(
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-COUNT-6: arith.select
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         return
func.func @own_registers(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel, tile.threads = 32 : i64} {
  %i = tile.range 0 to 8 : tensor<8xi32, #all>
  %ps = tile.splat %p : tensor<8x!tile.ptr<f32>, #all>
  %pa = tile.addptr %ps, %i : tensor<8x!tile.ptr<f32>, #all>, tensor<8xi32, #all>
  %x = tile.load %pa : tensor<8x!tile.ptr<f32>, #all> -> tensor<8xf32, #all>
  %y = tile.convert_layout %x : tensor<8xf32, #all> -> tensor<8xf32, #pairs>
  %j = tile.range 0 to 8 : tensor<8xi32, #pairs>
  %qs = tile.splat %q : tensor<8x!tile.ptr<f32>, #pairs>
  %qa = tile.addptr %qs, %j : tensor<8x!tile.ptr<f32>, #pairs>, tensor<8xi32, #pairs>
  tile.store %qa, %y : tensor<8x!tile.ptr<f32>, #pairs>, tensor<8xf32, #pairs>
  return
}

// -----

#split = #tile.dist<reg = [], lane = [0, 1, 2, 3, 4], warp = [5]>
#whole = #tile.dist<reg = [5], lane = [0, 1, 2, 3, 4], warp = [-1]>
// Half the elements change warps: shared memory, between barriers.
// CHECK-LABEL: func.func @across_warps(
// CHECK-SAME:    tile.shared_bytes = 256 : i64
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         llvm.store
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load
// CHECK:         nvvm.barrier0
func.func @across_warps(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel, tile.threads = 64 : i64} {
  %i = tile.range 0 to 64 : tensor<64xi32, #split>
  %ps = tile.splat %p : tensor<64x!tile.ptr<f32>, #split>
  %pa = tile.addptr %ps, %i : tensor<64x!tile.ptr<f32>, #split>, tensor<64xi32, #split>
  %x = tile.load %pa : tensor<64x!tile.ptr<f32>, #split> -> tensor<64xf32, #split>
  %y = tile.convert_layout %x : tensor<64xf32, #split> -> tensor<64xf32, #whole>
  %j = tile.range 0 to 64 : tensor<64xi32, #whole>
  %qs = tile.splat %q : tensor<64x!tile.ptr<f32>, #whole>
  %qa = tile.addptr %qs, %j : tensor<64x!tile.ptr<f32>, #whole>, tensor<64xi32, #whole>
  tile.store %qa, %y : tensor<64x!tile.ptr<f32>, #whole>, tensor<64xf32, #whole>
  return
}
