// dot on sm_90a takes wgmma: tile-assign-layouts leaves B in its own layout
// and asks for a 1024-byte aligned staging buffer of B's bytes (64 x 128
// f16: 16384); tile-allocate-shared places it and raises the kernel's
// alignment. When B is trans(a staged load of 128-byte rows),
// tile-pipeline-loads puts the tile in a swizzled ring buffer (1024-byte
// aligned) and the dot reads the stage instead of staging B itself; the
// waits fence the copies for the matrix unit. sm_90 (mma.sync) converts B
// into its operand layout and needs no staging.
//
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared | FileCheck %s
// RUN: %tile-opt %s -split-input-file "-tile-assign-layouts=target=sm_90" -tile-allocate-shared \
// RUN:   | FileCheck %s --check-prefix=SM90
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loads \
// RUN:   -tile-allocate-shared | FileCheck %s --check-prefix=STAGED
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-pipeline-loads \
// RUN:   -tile-allocate-shared -tile-convert-to-gpu | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: func.func @dot(
// CHECK-SAME:    tile.shared_alignment = 1024 : i64
// CHECK-NOT:     tile.convert_layout {{.*}} tensor<64x128xf16
// CHECK:         tile.dot {{.*}}tile.dot_staging = array<i64: 16384, 1024>, tile.shared_offset = {{[0-9]+}} : i64
// SM90-LABEL:  func.func @dot(
// SM90-NOT:      tile.shared_alignment
// SM90:          tile.convert_layout {{.*}} tensor<64x128xf16
// SM90:          tile.dot
// SM90-NOT:      tile.dot_staging
func.func @dot(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %s = tile.range 0 to 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %s0 = tile.expand_dims %s, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %ra = arith.muli %r1, %c64 : tensor<64x1xi32>
  %rb = arith.muli %r1, %c128 : tensor<64x1xi32>
  %r64 = tile.broadcast %ra : tensor<64x1xi32> -> tensor<64x64xi32>
  %r128 = tile.broadcast %rb : tensor<64x1xi32> -> tensor<64x128xi32>
  %cols = tile.broadcast %s0 : tensor<1x128xi32> -> tensor<64x128xi32>
  %ia = tile.range 0 to 64 : tensor<64xi32>
  %ia0 = tile.expand_dims %ia, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %acols = tile.broadcast %ia0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %offa = arith.addi %r64, %acols : tensor<64x64xi32>
  %offb = arith.addi %r128, %cols : tensor<64x128xi32>
  %pa0 = tile.splat %a : tensor<64x64x!tile.ptr<f16>>
  %pa = tile.addptr %pa0, %offa : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %pb0 = tile.splat %b : tensor<64x128x!tile.ptr<f16>>
  %pb = tile.addptr %pb0, %offb : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
  %x = tile.load %pa : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %y = tile.load %pb : tensor<64x128x!tile.ptr<f16>> -> tensor<64x128xf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
  %pc0 = tile.splat %c : tensor<64x128x!tile.ptr<f32>>
  %pc = tile.addptr %pc0, %offb : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  tile.store %pc, %d : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xf32>
  return
}

// -----

// STAGED-LABEL: func.func @staged_dot(
// STAGED-SAME:    tile.shared_alignment = 1024 : i64
// STAGED:         %[[BUF:.+]] = tile.stage_buffer {bytes = 32768 : i64, stages = 2 : i32, swizzled, tile.shared_offset = 0 : i64}
// STAGED:         scf.for
// STAGED:           %[[T:.+]] = tile.stage_read %[[BUF]]
// STAGED-NEXT:      %[[B:.+]] = tile.trans %[[T]]
// STAGED-NEXT:      tile.dot %{{.+}}, %[[B]], %{{.+}} {tile.dot_reads_stage}
// STAGED-NOT:       tile.dot_staging
// NVVM-LABEL:   @staged_dot
// NVVM:           scf.for
// NVVM:             nvvm.cp.async.wait.group 0
// NVVM-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM-NEXT:        nvvm.barrier0
// NVVM:             nvvm.wgmma.fence.aligned
// NVVM-COUNT-4:     wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// NVVM:             nvvm.wgmma.commit.group.sync.aligned
// NVVM:             wgmma.wait_group.sync.aligned 0;
func.func @staged_dot(%q: !tile.ptr<f16>, %kv: !tile.ptr<f16>, %out: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.range 0 to 64 : tensor<64xi32>
  %r1 = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %r0 = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rq = arith.muli %r1, %c64 : tensor<64x1xi32>
  %rows = tile.broadcast %rq : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.broadcast %r0 : tensor<1x64xi32> -> tensor<64x64xi32>
  %offq = arith.addi %rows, %cols : tensor<64x64xi32>
  %pq0 = tile.splat %q : tensor<64x64x!tile.ptr<f16>>
  %pq = tile.addptr %pq0, %offq : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %qt = tile.load %pq : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %res = scf.for %j = %c0 to %n step %c128 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %t = tile.range 0 to 128 : tensor<128xi32>
    %js = tile.splat %j : tensor<128xi32>
    %jt = arith.addi %js, %t : tensor<128xi32>
    %jt1 = tile.expand_dims %jt, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %c64b = arith.constant dense<64> : tensor<128x1xi32>
    %rk = arith.muli %jt1, %c64b : tensor<128x1xi32>
    %krows = tile.broadcast %rk : tensor<128x1xi32> -> tensor<128x64xi32>
    %kcols = tile.broadcast %r0 : tensor<1x64xi32> -> tensor<128x64xi32>
    %offk = arith.addi %krows, %kcols : tensor<128x64xi32>
    %pk0 = tile.splat %kv : tensor<128x64x!tile.ptr<f16>>
    %pk = tile.addptr %pk0, %offk : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
    %k = tile.load %pk : tensor<128x64x!tile.ptr<f16>> -> tensor<128x64xf16>
    %kt = tile.trans %k : tensor<128x64xf16> -> tensor<64x128xf16>
    %d = tile.dot %qt, %kt, %acc : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  } {tile.num_stages = 2 : i32}
  %s = tile.range 0 to 128 : tensor<128xi32>
  %s0 = tile.expand_dims %s, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %c128t = arith.constant dense<128> : tensor<64x1xi32>
  %ro = arith.muli %r1, %c128t : tensor<64x1xi32>
  %orows = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
  %ocols = tile.broadcast %s0 : tensor<1x128xi32> -> tensor<64x128xi32>
  %offo = arith.addi %orows, %ocols : tensor<64x128xi32>
  %po0 = tile.splat %out : tensor<64x128x!tile.ptr<f32>>
  %po = tile.addptr %po0, %offo : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  tile.store %po, %res : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xf32>
  return
}
