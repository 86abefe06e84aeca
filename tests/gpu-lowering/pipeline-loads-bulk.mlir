// tile-pipeline-loads with bulk copies (the option tilec sets for sm_90 and
// sm_90a): a loop of 2 stages staging one load whose tile is one contiguous
// run (256 f32 from a 16-byte aligned pointer, 1 KiB) gets a bulk ring
// buffer (tile.stage_bulk: 2 x 1024 bytes and 2 x 8 of barriers), and each
// iteration, after its wait, waits on its stage's barrier for the phase of
// parity (i / 2) mod 2 (tile.stage_wait). Lowered, one thread initialises the
// barriers before the first copy and copies each stage with one
// cp.async.bulk completing on its barrier. The same load from a pointer not
// known to be aligned (@unaligned) keeps per-thread copies.
//
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts "-tile-pipeline-loads=bulk-copies=true" \
// RUN:   -tile-allocate-shared | FileCheck %s
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts "-tile-pipeline-loads=bulk-copies=true" \
// RUN:   -tile-allocate-shared -tile-convert-to-gpu | FileCheck %s --check-prefix=NVPTX

// CHECK-LABEL: func.func @aligned(
// CHECK-SAME:    tile.shared_bytes = 2064 : i64
// CHECK:         %[[BUF:.+]] = tile.stage_buffer {bytes = 2064 : i64, stages = 2 : i32, tile.shared_offset = 0 : i64, tile.stage_bulk}
// CHECK:         tile.async_copy %{{.+}} to %[[BUF]][%{{.+}}], mask
// CHECK:         scf.for
// CHECK:           %[[N:.+]] = arith.divsi
// CHECK:           %[[STAGE:.+]] = arith.remsi %[[N]], %c2_i32
// CHECK:           tile.async_wait %[[BUF]] {pending = 0 : i32, tile.shared_offset = 0 : i64}
// CHECK:           %[[ROUND:.+]] = arith.divsi %[[N]], %c2_i32
// CHECK:           %[[PHASE:.+]] = arith.remsi %[[ROUND]], %c2_i32
// CHECK:           tile.stage_wait %[[BUF]][%[[STAGE]]] phase %[[PHASE]] {tile.shared_offset = 0 : i64}
// CHECK:           tile.async_copy
// CHECK:           tile.stage_read %[[BUF]][%[[STAGE]]]

// NVPTX-LABEL: func.func @aligned
// NVPTX-COUNT-2: "mbarrier.init.shared::cta.b64 [$0], 1;"
// NVPTX:       "fence.mbarrier_init.release.cluster;"
// NVPTX:       nvvm.barrier0
// NVPTX:       mbarrier.arrive.expect_tx.shared::cta.b64 _, [$2], $3;
// NVPTX-SAME:  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $3, [$2];
// NVPTX:       nvvm.cp.async.wait.group 0
// NVPTX-NEXT:  nvvm.barrier0
// NVPTX:       mbarrier.try_wait.parity.shared::cta.b64
// NVPTX:       cp.async.bulk.shared::cluster.global

// CHECK-LABEL: func.func @unaligned(
// CHECK:         tile.stage_buffer {bytes = 2048 : i64, stages = 2 : i32, tile.shared_offset = 0 : i64}
// CHECK-NOT:     tile.stage_wait
// NVPTX-LABEL: func.func @unaligned
// NVPTX-NOT:   mbarrier
// NVPTX:       nvvm.cp.async.shared.global

module {
  func.func @aligned(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %arg2: i32) attributes {tile.kernel} {
    %0 = tile.range 0 to 256 : tensor<256xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = tile.splat %cst : tensor<256xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %2 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %1) -> (tensor<256xf32>)  : i32 {
      %c256_i32 = arith.constant 256 : i32
      %5 = arith.muli %arg3, %c256_i32 : i32
      %6 = tile.addptr %arg0, %5 : !tile.ptr<f32>, i32
      %7 = tile.splat %6 : tensor<256x!tile.ptr<f32>>
      %8 = tile.addptr %7, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
      %12 = tile.load %8 : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
      %13 = arith.addf %arg4, %12 : tensor<256xf32>
      scf.yield %13 : tensor<256xf32>
    } {tile.num_stages = 2 : i32}
    %3 = tile.splat %arg1 : tensor<256x!tile.ptr<f32>>
    %4 = tile.addptr %3, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    tile.store %4, %2 : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
    return
  }
}

// -----

module {
  func.func @unaligned(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>, %arg2: i32) attributes {tile.kernel} {
    %0 = tile.range 0 to 256 : tensor<256xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = tile.splat %cst : tensor<256xf32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %2 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %1) -> (tensor<256xf32>)  : i32 {
      %c256_i32 = arith.constant 256 : i32
      %5 = arith.muli %arg3, %c256_i32 : i32
      %6 = tile.addptr %arg0, %5 : !tile.ptr<f32>, i32
      %7 = tile.splat %6 : tensor<256x!tile.ptr<f32>>
      %8 = tile.addptr %7, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
      %12 = tile.load %8 : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
      %13 = arith.addf %arg4, %12 : tensor<256xf32>
      scf.yield %13 : tensor<256xf32>
    } {tile.num_stages = 2 : i32}
    %3 = tile.splat %arg1 : tensor<256x!tile.ptr<f32>>
    %4 = tile.addptr %3, %0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    tile.store %4, %2 : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
    return
  }
}
