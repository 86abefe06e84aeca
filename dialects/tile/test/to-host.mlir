// The host lowering: tiles become tensors + linalg, pointers become i64
// addresses, grid queries become trailing arguments.
// RUN: %tile-opt %s -tile-convert-to-host | FileCheck %s

// The affine maps of @shapes' broadcast, printed at the top.
// CHECK-DAG:   #[[BCAST:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// Kernels get six trailing i32 arguments: program ids x, y, z, then
// num_programs x, y, z. Pointers become i64 addresses.
// CHECK-LABEL: func.func @grid
// CHECK-SAME:    (%[[P:[^:]*]]: i64, %[[N:[^:]*]]: i32,
// CHECK-SAME:     %[[PIDX:[^:]*]]: i32, %[[PIDY:[^:]*]]: i32, %[[PIDZ:[^:]*]]: i32,
// CHECK-SAME:     %[[NPX:[^:]*]]: i32, %[[NPY:[^:]*]]: i32, %[[NPZ:[^:]*]]: i32)
// CHECK-SAME:    attributes {tile.kernel}
// CHECK-NOT:     tile.
// CHECK:         %[[A:.*]] = arith.addi %[[PIDY]], %[[NPZ]] : i32
// CHECK:         %[[OFF:.*]] = arith.extsi %[[PIDX]] : i32 to i64
// CHECK:         %[[BYTES:.*]] = arith.muli %[[OFF]], %{{.*}} : i64
// CHECK:         %[[ADDR:.*]] = arith.addi %[[P]], %[[BYTES]] : i64
// CHECK:         %[[LP:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr
// CHECK:         llvm.store %[[A]], %[[LP]] : i32, !llvm.ptr
// CHECK:         return
func.func @grid(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %x = tile.program_id 0 : i32
  %y = tile.program_id 1 : i32
  %z = tile.num_programs 2 : i32
  %a = arith.addi %y, %z : i32
  %q = tile.addptr %p, %x : !tile.ptr<i32>, i32
  tile.store %q, %a : !tile.ptr<i32>, i32
  return
}

// Functions without tile.kernel keep their signature.
// CHECK-LABEL: func.func @helper(%{{.*}}: i32) -> i32
func.func @helper(%a: i32) -> i32 {
  return %a : i32
}

// Offsets are scaled by the element size: 2 bytes for bf16.
// CHECK-LABEL: func.func @addptr_tile
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16xi32>)
// CHECK:           linalg.index 0 : index
// CHECK:         %[[PS:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<16xi64>) -> tensor<16xi64>
// CHECK:         %[[OFF:.*]] = arith.extsi %[[R]] : tensor<16xi32> to tensor<16xi64>
// CHECK:         %[[SIZE:.*]] = arith.constant dense<2> : tensor<16xi64>
// CHECK:         %[[BYTES:.*]] = arith.muli %[[OFF]], %[[SIZE]] : tensor<16xi64>
// CHECK:         arith.addi %[[PS]], %[[BYTES]] : tensor<16xi64>
func.func @addptr_tile(%p: !tile.ptr<bf16>) -> tensor<16xbf16> attributes {tile.kernel} {
  %r = tile.range 0 to 16 : tensor<16xi32>
  %ps = tile.splat %p : tensor<16x!tile.ptr<bf16>>
  %q = tile.addptr %ps, %r : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  %v = tile.load %q : tensor<16x!tile.ptr<bf16>> -> tensor<16xbf16>
  return %v : tensor<16xbf16>
}

// A load of a tile is a linalg.generic over the addresses; a masked one
// guards llvm.load with scf.if and yields 'other' where the mask is false.
// CHECK-LABEL: func.func @load
// CHECK-SAME:    (%[[P:[^:]*]]: tensor<16xi64>, %[[M:[^:]*]]: tensor<16xi1>, %[[O:[^:]*]]: tensor<16xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<16xi64>) outs(%{{.*}} : tensor<16xf32>)
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: i64, %{{.*}}: f32):
// CHECK-NOT:       scf.if
// CHECK:           %[[LP0:.*]] = llvm.inttoptr %[[A0]] : i64 to !llvm.ptr
// CHECK:           %[[V0:.*]] = llvm.load %[[LP0]] : !llvm.ptr -> f32
// CHECK:           linalg.yield %[[V0]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[M]], %[[O]] : tensor<16xi64>, tensor<16xi1>, tensor<16xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK-NEXT:    ^bb0(%[[A1:[^:]*]]: i64, %[[M1:[^:]*]]: i1, %[[O1:[^:]*]]: f32, %{{.*}}: f32):
// CHECK:           %[[V1:.*]] = scf.if %[[M1]] -> (f32) {
// CHECK:             %[[LP1:.*]] = llvm.inttoptr %[[A1]] : i64 to !llvm.ptr
// CHECK:             %[[L1:.*]] = llvm.load %[[LP1]] : !llvm.ptr -> f32
// CHECK:             scf.yield %[[L1]] : f32
// CHECK:           } else {
// CHECK:             scf.yield %[[O1]] : f32
// CHECK:           }
// CHECK:           linalg.yield %[[V1]] : f32
// Without 'other', masked-off lanes take zero.
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %[[M]] : tensor<16xi64>, tensor<16xi1>)
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           scf.if %{{.*}} -> (f32) {
// CHECK:             llvm.load
// CHECK:           } else {
// CHECK:             scf.yield %[[Z]] : f32
func.func @load(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<16xi1>, %o: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) attributes {tile.kernel} {
  %0 = tile.load %p : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %1 = tile.load %p, mask %m : tensor<16xi1>, other %o : tensor<16xf32> : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %2 = tile.load %p, mask %m : tensor<16xi1> : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  return %0, %1, %2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// A scalar masked load is an scf.if; fp8 is loaded as i8 and bitcast.
// CHECK-LABEL: func.func @load_scalar
// CHECK-SAME:    (%[[P:[^:]*]]: i64, %[[M:[^:]*]]: i1, %[[O:[^:]*]]: f8E4M3FN
// CHECK:         scf.if %[[M]] -> (f8E4M3FN) {
// CHECK:           %[[LP:.*]] = llvm.inttoptr %[[P]] : i64 to !llvm.ptr
// CHECK:           %[[B:.*]] = llvm.load %[[LP]] : !llvm.ptr -> i8
// CHECK:           %[[F:.*]] = arith.bitcast %[[B]] : i8 to f8E4M3FN
// CHECK:           scf.yield %[[F]] : f8E4M3FN
// CHECK:         } else {
// CHECK:           scf.yield %[[O]] : f8E4M3FN
func.func @load_scalar(%p: !tile.ptr<f8E4M3FN>, %m: i1, %o: f8E4M3FN) -> f8E4M3FN
    attributes {tile.kernel} {
  %0 = tile.load %p, mask %m : i1, other %o : f8E4M3FN : !tile.ptr<f8E4M3FN> -> f8E4M3FN
  return %0 : f8E4M3FN
}

// A store of a tile loops over bufferization.to_buffer views of the
// addresses, values and mask, with llvm.store under scf.if when masked.
// CHECK-LABEL: func.func @store
// CHECK-SAME:    (%[[P:[^:]*]]: tensor<4x8xi64>, %[[V:[^:]*]]: tensor<4x8xf16>, %[[M:[^:]*]]: tensor<4x8xi1>
// CHECK:         %[[PB:.*]] = bufferization.to_buffer %[[P]] read_only : tensor<4x8xi64> to memref<4x8xi64, strided<[?, ?], offset: ?>>
// CHECK:         %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only : tensor<4x8xf16> to memref<4x8xf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[MB:.*]] = bufferization.to_buffer %[[M]] read_only : tensor<4x8xi1> to memref<4x8xi1, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[C4]]
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %[[C8]]
// CHECK:             %[[A:.*]] = memref.load %[[PB]][%[[I]], %[[J]]]
// CHECK:             %[[X:.*]] = memref.load %[[VB]][%[[I]], %[[J]]]
// CHECK:             %[[K:.*]] = memref.load %[[MB]][%[[I]], %[[J]]]
// CHECK:             scf.if %[[K]] {
// CHECK:               %[[LP:.*]] = llvm.inttoptr %[[A]] : i64 to !llvm.ptr
// CHECK:               llvm.store %[[X]], %[[LP]] : f16, !llvm.ptr
// Unmasked: no scf.if around the store.
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:         scf.if
// CHECK:             llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr
func.func @store(%p: tensor<4x8x!tile.ptr<f16>>, %v: tensor<4x8xf16>, %m: tensor<4x8xi1>)
    attributes {tile.kernel} {
  tile.store %p, %v, mask %m : tensor<4x8xi1> : tensor<4x8x!tile.ptr<f16>>, tensor<4x8xf16>
  tile.store %p, %v : tensor<4x8x!tile.ptr<f16>>, tensor<4x8xf16>
  return
}

// Reductions become linalg.reduce over an identity-filled init; a 1-D tile
// reduces to a rank-0 tensor and then a scalar.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<16xf32>, %[[Y:[^:]*]]: tensor<4x8xi32>
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[I0:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK:         %[[S:.*]] = linalg.reduce { arith.addf } ins(%[[X]] : tensor<16xf32>) outs(%[[I0]] : tensor<f32>) dimensions = [0]
// CHECK:         %[[SS:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK:         %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[I1:.*]] = linalg.fill ins(%[[MIN]] : i32) outs(%{{.*}} : tensor<4xi32>) -> tensor<4xi32>
// CHECK:         %[[MX:.*]] = linalg.reduce { arith.maxsi } ins(%[[Y]] : tensor<4x8xi32>) outs(%[[I1]] : tensor<4xi32>) dimensions = [1]
// CHECK:         %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         linalg.fill ins(%[[INF]] : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK:         linalg.reduce { arith.minimumf } ins(%[[X]] : tensor<16xf32>)
// CHECK:         return %[[SS]], %[[MX]], %{{.*}} : f32, tensor<4xi32>, f32
func.func @reduce(%x: tensor<16xf32>, %y: tensor<4x8xi32>) -> (f32, tensor<4xi32>, f32)
    attributes {tile.kernel} {
  %0 = tile.reduce sum %x, 0 : tensor<16xf32> -> f32
  %1 = tile.reduce max %y, 1 : tensor<4x8xi32> -> tensor<4xi32>
  %2 = tile.reduce min %x, 0 : tensor<16xf32> -> f32
  return %0, %1, %2 : f32, tensor<4xi32>, f32
}

// Splats are linalg.fill, expand_dims is tensor.expand_shape and broadcasts
// are linalg.generic reading index 0 of the size-1 dimensions.
// CHECK-LABEL: func.func @shapes
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<8xf32>, %[[S:[^:]*]]: f32
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[BCAST]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[E]] : tensor<1x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:         tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK:         linalg.fill ins(%[[S]] : f32) outs(%{{.*}} : tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @shapes(%x: tensor<8xf32>, %s: f32) -> (tensor<4x8xf32>, tensor<8x1xf32>, tensor<4x8xf32>)
    attributes {tile.kernel} {
  %0 = tile.expand_dims %x, 0 : tensor<8xf32> -> tensor<1x8xf32>
  %1 = tile.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  %2 = tile.expand_dims %x, 1 : tensor<8xf32> -> tensor<8x1xf32>
  %3 = tile.splat %s : tensor<4x8xf32>
  return %1, %2, %3 : tensor<4x8xf32>, tensor<8x1xf32>, tensor<4x8xf32>
}

// gather: table[index mod 16] by tensor.extract in a linalg.generic over the
// indices; reshape collapses to one dimension and expands; ptr_cast leaves the
// i64 addresses as they are.
// CHECK-LABEL: func.func @lookups(
// CHECK-SAME:    %[[T:[^:]+]]: tensor<16xf32>, %[[C:[^:]+]]: tensor<4x8xi8>, %[[P:[^:]+]]: tensor<32xi64>
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<4x8xi8>)
// CHECK:           %[[MOD:[^ ]+]] = arith.andi %{{.*}}, %{{.*}} : i8
// CHECK-NEXT:      %[[IDX:[^ ]+]] = arith.index_castui %[[MOD]] : i8 to index
// CHECK-NEXT:      %[[E:[^ ]+]] = tensor.extract %[[T]][%[[IDX]]] : tensor<16xf32>
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         %[[FLAT:[^ ]+]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1]] : tensor<4x8xi8> into tensor<32xi8>
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xi8> into tensor<2x16xi8>
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<32xi64>)
// CHECK:           llvm.load %{{.*}} : !llvm.ptr -> f16
func.func @lookups(%t: tensor<16xf32>, %c: tensor<4x8xi8>, %p: tensor<32x!tile.ptr<i8>>)
    -> (tensor<4x8xf32>, tensor<2x16xi8>, tensor<32xf16>) attributes {tile.kernel} {
  %0 = tile.gather %t, %c : tensor<16xf32>, tensor<4x8xi8> -> tensor<4x8xf32>
  %1 = tile.reshape %c : tensor<4x8xi8> -> tensor<2x16xi8>
  %2 = tile.ptr_cast %p : tensor<32x!tile.ptr<i8>> -> tensor<32x!tile.ptr<f16>>
  %3 = tile.load %2 : tensor<32x!tile.ptr<f16>> -> tensor<32xf16>
  return %0, %1, %3 : tensor<4x8xf32>, tensor<2x16xi8>, tensor<32xf16>
}

// dot: the operands widened to f32 (exact), then linalg.matmul into the
// accumulator; a batch of products, linalg.batch_matmul.
// CHECK-LABEL: func.func @dots(
// CHECK:         %[[A:[^ ]+]] = arith.extf %{{.*}} : tensor<16x32xf16> to tensor<16x32xf32>
// CHECK:         %[[B:[^ ]+]] = arith.extf %{{.*}} : tensor<32x8xf16> to tensor<32x8xf32>
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK:         %[[BA:[^ ]+]] = arith.extf %{{.*}} : tensor<4x16x32xbf16> to tensor<4x16x32xf32>
// CHECK:         %[[BB:[^ ]+]] = arith.extf %{{.*}} : tensor<4x32x8xbf16> to tensor<4x32x8xf32>
// CHECK:         linalg.batch_matmul ins(%[[BA]], %[[BB]] : tensor<4x16x32xf32>, tensor<4x32x8xf32>) outs(%{{.*}} : tensor<4x16x8xf32>)
func.func @dots(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>,
                %ba: tensor<4x16x32xbf16>, %bb: tensor<4x32x8xbf16>, %bc: tensor<4x16x8xf32>)
    -> (tensor<16x8xf32>, tensor<4x16x8xf32>) attributes {tile.kernel} {
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  %1 = tile.dot %ba, %bb, %bc : tensor<4x16x32xbf16>, tensor<4x32x8xbf16> -> tensor<4x16x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<4x16x8xf32>
}
