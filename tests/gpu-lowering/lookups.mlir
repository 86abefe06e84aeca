// gather, reshape and ptr_cast through the GPU passes: the table is written to
// the gather's shared buffer by the threads holding it, then each thread reads
// table[index mod 16] for its indices between two barriers; reshape and
// ptr_cast keep the layout and move no data (a pointer cast to a wider element
// keeps byte alignment but loses contiguity: 2-byte loads one at a time).
// A table of N 32-bit elements with N | 32 (the warp size) is read from the
// buffer once instead, each lane taking element lane mod N, and each lookup
// is a warp shuffle from lane index mod 32 (no mask, no address).
// A table defined outside a loop around the gather is written once, before
// the loop, and stays in its buffer through the loop: the gather in the loop
// only reads (no barrier), and a barrier after the loop frees the bytes.
//
// RUN: %tile-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -tile-convert-to-gpu \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @lookups(
// CHECK-SAME:    tile.shared_bytes = 256 : i64
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         %[[I:[^ ]+]] = arith.extui %{{.*}} : i8 to i32
// CHECK-NEXT:    %[[M:[^ ]+]] = arith.andi %[[I]], %{{.*}} : i32
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NOT:     llvm.ptr<3>
// CHECK:         llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:         llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK-NOT:     tile.
func.func @lookups(%table: !tile.ptr<f32>, %codes: !tile.ptr<i8>, %out: !tile.ptr<f32>, %half: !tile.ptr<f16>) attributes {tile.kernel} {
  %r64 = tile.range 0 to 64 : tensor<64xi32>
  %tp = tile.splat %table : tensor<64x!tile.ptr<f32>>
  %ta = tile.addptr %tp, %r64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %t = tile.load %ta : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %r = tile.range 0 to 256 : tensor<256xi32>
  %cp = tile.splat %codes : tensor<256x!tile.ptr<i8>>
  %ca = tile.addptr %cp, %r : tensor<256x!tile.ptr<i8>>, tensor<256xi32>
  %c = tile.load %ca : tensor<256x!tile.ptr<i8>> -> tensor<256xi8>
  %c2 = tile.reshape %c : tensor<256xi8> -> tensor<16x16xi8>
  %g = tile.gather %t, %c2 : tensor<64xf32>, tensor<16x16xi8> -> tensor<16x16xf32>
  %g1 = tile.reshape %g : tensor<16x16xf32> -> tensor<256xf32>
  %op = tile.splat %out : tensor<256x!tile.ptr<f32>>
  %oa = tile.addptr %op, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %oa, %g1 : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  %hp = tile.ptr_cast %ca : tensor<256x!tile.ptr<i8>> -> tensor<256x!tile.ptr<f16>>
  %h = tile.load %hp : tensor<256x!tile.ptr<f16>> -> tensor<256xf16>
  %sp = tile.splat %half : tensor<256x!tile.ptr<f16>>
  %sa = tile.addptr %sp, %r : tensor<256x!tile.ptr<f16>>, tensor<256xi32>
  tile.store %sa, %h : tensor<256x!tile.ptr<f16>>, tensor<256xf16>
  return
}

// -----

// CHECK-LABEL: func.func @lookup_loop(
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         %[[LANE:[^ ]+]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NEXT:    scf.for
// CHECK-NOT:       nvvm.barrier0
// CHECK-NOT:       llvm.ptr<3>
// CHECK:           nvvm.shfl.sync  idx %{{.*}}, %[[LANE]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:      arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT:       nvvm.barrier0
// CHECK-NOT:       llvm.ptr<3>
// CHECK:         {{^    }$}}
// CHECK-NEXT:    nvvm.barrier0
func.func @lookup_loop(%table: !tile.ptr<f32>, %codes: !tile.ptr<i8>, %out: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r16 = tile.range 0 to 16 : tensor<16xi32>
  %tp = tile.splat %table : tensor<16x!tile.ptr<f32>>
  %ta = tile.addptr %tp, %r16 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %t = tile.load %ta : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %r = tile.range 0 to 256 : tensor<256xi32>
    %base = tile.addptr %codes, %i : !tile.ptr<i8>, i32
    %cp = tile.splat %base : tensor<256x!tile.ptr<i8>>
    %ca = tile.addptr %cp, %r : tensor<256x!tile.ptr<i8>>, tensor<256xi32>
    %c = tile.load %ca : tensor<256x!tile.ptr<i8>> -> tensor<256xi8>
    %g = tile.gather %t, %c : tensor<16xf32>, tensor<256xi8> -> tensor<256xf32>
    %op = tile.splat %out : tensor<256x!tile.ptr<f32>>
    %oa = tile.addptr %op, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    tile.store %oa, %g : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  }
  return
}
