// The three GPU passes through tile-opt on small kernels: scalars, splats,
// masked vector accesses.
//
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -tile-convert-to-gpu | FileCheck %s
// RUN: %tile-opt %s -split-input-file "-tile-assign-layouts=target=sm_80 num-warps=8" -tile-allocate-shared -tile-convert-to-gpu=target=sm_80 \
// RUN:   | FileCheck %s --check-prefix=EIGHT

// Scalars: pointers are i64 addresses (offsets scaled by the element size),
// masked accesses are scf.if (a load yields `other` when masked off),
// tile.divisibility stays on its argument.
// CHECK-LABEL: func.func @scalars(
// CHECK-SAME:    %[[P:[^:]+]]: i64, %[[Q:[^:]+]]: i64 {tile.divisibility = 16 : i64}, %[[I:[^:]+]]: i32, %[[M:[^:]+]]: i1, %[[O:[^:]+]]: bf16)
// CHECK-SAME:    attributes {tile.kernel, tile.shared_bytes = 0 : i64, tile.threads = 128 : i64}
// CHECK:         %[[I64:[^ ]+]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:    %[[TWO:[^ ]+]] = arith.constant 2 : i64
// CHECK-NEXT:    %[[OFF:[^ ]+]] = arith.muli %[[I64]], %[[TWO]] : i64
// CHECK-NEXT:    %[[A:[^ ]+]] = arith.addi %[[P]], %[[OFF]] : i64
// CHECK-NEXT:    %[[V:[^ ]+]] = scf.if %[[M]] -> (bf16) {
// CHECK-NEXT:      %[[AP:[^ ]+]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:      %[[RAW:[^ ]+]] = llvm.load %[[AP]] {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK-NEXT:      %[[BF:[^ ]+]] = llvm.bitcast %[[RAW]] : i16 to bf16
// CHECK-NEXT:      scf.yield %[[BF]] : bf16
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[O]] : bf16
// CHECK-NEXT:    }
// i8: no scaling.
// CHECK-NEXT:    %[[J64:[^ ]+]] = arith.extsi %[[I]] : i32 to i64
// CHECK-NEXT:    %[[B:[^ ]+]] = arith.addi %[[Q]], %[[J64]] : i64
// CHECK-NEXT:    %[[BP:[^ ]+]] = llvm.inttoptr %[[B]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:    %[[W:[^ ]+]] = llvm.load %[[BP]] {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-NEXT:    scf.if %[[M]] {
// CHECK-NEXT:      %[[BP2:[^ ]+]] = llvm.inttoptr %[[B]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:      llvm.store %[[W]], %[[BP2]] {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[VB:[^ ]+]] = llvm.bitcast %[[V]] : bf16 to i16
// CHECK-NEXT:    %[[AP2:[^ ]+]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr<1>
// CHECK-NEXT:    llvm.store %[[VB]], %[[AP2]] {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK-NEXT:    return
// EIGHT-LABEL: func.func @scalars(
// EIGHT-SAME:    attributes {tile.kernel, tile.shared_bytes = 0 : i64, tile.threads = 256 : i64}
func.func @scalars(%p: !tile.ptr<bf16>, %q: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                   %i: i32, %m: i1, %o: bf16) attributes {tile.kernel} {
  %a = tile.addptr %p, %i : !tile.ptr<bf16>, i32
  %v = tile.load %a, mask %m : i1, other %o : bf16 : !tile.ptr<bf16> -> bf16
  %b = tile.addptr %q, %i : !tile.ptr<i8>, i32
  %w = tile.load %b : !tile.ptr<i8> -> i8
  tile.store %b, %w, mask %m : i1 : !tile.ptr<i8>, i8
  tile.store %a, %v : !tile.ptr<bf16>, bf16
  return
}

// Functions without tile.kernel are left alone.
// CHECK-LABEL: func.func @helper(%{{[^:]+}}: i32) -> i32 {
// CHECK-NEXT:    return
// CHECK-NOT:     tile.
func.func @helper(%a: i32) -> i32 {
  return %a : i32
}

// -----

// A 1024-element tile over 128 threads (4 warps) is a vector<8x..> in each
// thread; 256 threads (8 warps): vector<4x..>. Splats are vector.broadcast;
// elementwise arith is the same op on the vectors; the unproven accesses are
// scalar, one per register.
// CHECK-LABEL: func.func @splats(
// CHECK-SAME:    %[[P:[^:]+]]: i64, %[[F:[^:]+]]: f32)
// CHECK:         %[[PS:[^ ]+]] = vector.broadcast %[[P]] : i64 to vector<8xi64>
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:         %[[V:[^ ]+]] = vector.from_elements %{{.*}} : vector<8xbf16>
// CHECK-NEXT:    %[[FS:[^ ]+]] = vector.broadcast %[[F]] : f32 to vector<8xf32>
// CHECK-NEXT:    %[[E:[^ ]+]] = arith.extf %[[V]] : vector<8xbf16> to vector<8xf32>
// CHECK-NEXT:    %[[S:[^ ]+]] = arith.addf %[[E]], %[[FS]] : vector<8xf32>
// CHECK-NEXT:    arith.truncf %[[S]] : vector<8xf32> to vector<8xbf16>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK-NOT:     llvm.store
// EIGHT-LABEL: func.func @splats(
// EIGHT-SAME:    tile.threads = 256 : i64
// EIGHT:         vector.broadcast %{{.*}} : i64 to vector<4xi64>
// EIGHT-COUNT-4: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// EIGHT:         vector.broadcast %{{.*}} : f32 to vector<4xf32>
// EIGHT-COUNT-4: llvm.store
// EIGHT-NOT:     llvm.store
func.func @splats(%p: !tile.ptr<bf16>, %f: f32) attributes {tile.kernel} {
  %s = tile.splat %p : tensor<1024x!tile.ptr<bf16>>
  %v = tile.load %s : tensor<1024x!tile.ptr<bf16>> -> tensor<1024xbf16>
  %fs = tile.splat %f : tensor<1024xf32>
  %e = arith.extf %v : tensor<1024xbf16> to tensor<1024xf32>
  %a = arith.addf %e, %fs : tensor<1024xf32>
  %t = arith.truncf %a : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %s, %t : tensor<1024x!tile.ptr<bf16>>, tensor<1024xbf16>
  return
}
