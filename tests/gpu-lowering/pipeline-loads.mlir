// tile-pipeline-loads on a loop with num_stages = 3 and two loads: the one
// whose address comes from the induction variable gets a ring buffer of 3
// stages (3 x 1 KiB), copies for iterations 0 and 1 before the loop, and in
// the loop a wait (one group may stay in flight), the copy for iteration
// i + 2 into stage (i + 2) mod 3, masked past the end, and the read of stage
// i mod 3 before its user; a wait for every group (pending 0) follows the
// loop. The load through a carried pointer is left alone.
// Lowered for sm_90a the copies are cp.async (here 4 bytes, .ca: nothing
// proves the pointers aligned or the mask constant over longer runs; a false
// mask copies 0 bytes, zero-filling); for gfx942 they are loads and LDS stores.
//
// RUN: %tile-opt %s -tile-assign-layouts -tile-pipeline-loads -tile-allocate-shared | FileCheck %s
// RUN: %tile-opt %s -tile-assign-layouts -tile-pipeline-loads -tile-allocate-shared \
// RUN:   -tile-convert-to-gpu | FileCheck %s --check-prefix=NVPTX
// RUN: %tile-opt %s "-tile-assign-layouts=target=gfx942" -tile-pipeline-loads \
// RUN:   -tile-allocate-shared -tile-convert-to-gpu=target=gfx942 | FileCheck %s --check-prefix=AMD

// CHECK-LABEL: func.func @staged(
// CHECK-SAME:    tile.shared_bytes = 3072 : i64
// CHECK:         %[[BUF:.+]] = tile.stage_buffer {bytes = 3072 : i64, stages = 3 : i32, tile.shared_offset = 0 : i64}
// CHECK:         tile.async_copy %{{.+}} to %[[BUF]][%{{.+}}], mask
// CHECK-NEXT:    tile.async_commit
// CHECK:         tile.async_copy %{{.+}} to %[[BUF]][%{{.+}}], mask
// CHECK-NEXT:    tile.async_commit
// CHECK:         scf.for %[[IV:.+]] = {{.*}} iter_args
// CHECK:           %[[N:.+]] = arith.divsi
// CHECK:           %[[STAGE:.+]] = arith.remsi %[[N]], %c3_i32
// CHECK:           tile.async_wait %[[BUF]] {pending = 1 : i32, tile.shared_offset = 0 : i64}
// CHECK:           %[[AHEAD:.+]] = arith.addi %[[IV]],
// CHECK:           arith.cmpi slt, %[[AHEAD]], %arg2 : i32
// CHECK:           tile.async_copy %{{.+}} to %[[BUF]][%{{.+}}], mask
// CHECK-NEXT:      tile.async_commit
// CHECK-NEXT:      %[[TILE:.+]] = tile.stage_read %[[BUF]][%[[STAGE]]] {tile.shared_offset = 0 : i64}
// CHECK-NEXT:      arith.addf %{{.+}}, %[[TILE]]
// CHECK:           tile.load
// CHECK:         } {tile.num_stages = 3 : i32}
// CHECK-NEXT:    tile.async_wait %[[BUF]] {pending = 0 : i32, tile.shared_offset = 0 : i64}

// NVPTX:       nvvm.cp.async.shared.global {{.*}}, 4, cache =  ca
// NVPTX:       nvvm.cp.async.commit.group
// NVPTX:       scf.for
// NVPTX:         nvvm.cp.async.wait.group 1
// NVPTX-NEXT:    nvvm.barrier0
// NVPTX:         nvvm.cp.async.shared.global {{.*}}, 4, cache =  ca
// NVPTX:         nvvm.cp.async.commit.group
// NVPTX:         llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xf32>
// NVPTX:       nvvm.cp.async.wait.group 0
// NVPTX-NEXT:  nvvm.barrier0

// AMD-NOT:     cp.async
// AMD:         llvm.store {{.*}} !llvm.ptr<3>
// AMD:         scf.for
// AMD:           rocdl.s.barrier
// AMD:           llvm.load {{.*}} : !llvm.ptr<3>

module {
  func.func @staged(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>, %arg2: i32) attributes {tile.kernel} {
    %0 = tile.range 0 to 256 : tensor<256xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = tile.splat %cst : tensor<256xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %2:2 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %1, %arg5 = %arg0) -> (tensor<256xf32>, !tile.ptr<f32>)  : i32 {
      %c256_i32 = arith.constant 256 : i32
      %5 = arith.muli %arg3, %c256_i32 : i32
      %6 = tile.addptr %arg0, %5 : !tile.ptr<f32>, i32
      %7 = tile.splat %6 : tensor<256x!tile.ptr<f32>>
      %8 = tile.addptr %7, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
      %9 = tile.splat %arg2 : tensor<256xi32>
      %10 = arith.cmpi slt, %0, %9 : tensor<256xi32>
      %cst_0 = arith.constant 0.000000e+00 : f32
      %11 = tile.splat %cst_0 : tensor<256xf32>
      %12 = tile.load %8, mask %10 : tensor<256xi1>, other %11 : tensor<256xf32> : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
      %13 = arith.addf %arg4, %12 : tensor<256xf32>
      %14 = tile.splat %arg5 : tensor<256x!tile.ptr<f32>>
      %15 = tile.addptr %14, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
      %16 = tile.load %15 : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
      %17 = arith.addf %13, %16 : tensor<256xf32>
      %c256_i32_1 = arith.constant 256 : i32
      %18 = tile.addptr %arg5, %c256_i32_1 : !tile.ptr<f32>, i32
      scf.yield %17, %18 : tensor<256xf32>, !tile.ptr<f32>
    } {tile.num_stages = 3 : i32}
    %3 = tile.splat %arg1 : tensor<256x!tile.ptr<f32>>
    %4 = tile.addptr %3, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    tile.store %4, %2#0 : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
    return
  }
}
