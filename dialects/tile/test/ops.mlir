// Every tile op and the !tile.ptr type print and parse back unchanged.
// RUN: %tile-opt %s | %tile-opt | FileCheck %s
// Generic form too: the custom printers and parsers agree with the generic ones.
// RUN: %tile-opt %s --mlir-print-op-generic | %tile-opt | FileCheck %s

// CHECK-LABEL: func.func @grid
// CHECK-SAME: -> (i32, i32, i32, i32)
func.func @grid() -> (i32, i32, i32, i32) {
  // CHECK: %{{.*}} = tile.program_id 0 : i32
  // CHECK: %{{.*}} = tile.program_id 2 : i32
  // CHECK: %{{.*}} = tile.num_programs 0 : i32
  // CHECK: %{{.*}} = tile.num_programs 1 : i32
  %0 = tile.program_id 0 : i32
  %1 = tile.program_id 2 : i32
  %2 = tile.num_programs 0 : i32
  %3 = tile.num_programs 1 : i32
  return %0, %1, %2, %3 : i32, i32, i32, i32
}

// CHECK-LABEL: func.func @range
func.func @range() -> (tensor<16xi32>, tensor<4xi32>) {
  // CHECK: tile.range 0 to 16 : tensor<16xi32>
  // CHECK: tile.range 4 to 8 : tensor<4xi32>
  %0 = tile.range 0 to 16 : tensor<16xi32>
  %1 = tile.range 4 to 8 : tensor<4xi32>
  return %0, %1 : tensor<16xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @splat
// CHECK-SAME: (%[[F:.*]]: f32, %[[P:.*]]: !tile.ptr<bf16>, %[[B:.*]]: i1)
func.func @splat(%f: f32, %p: !tile.ptr<bf16>, %b: i1)
    -> (tensor<8xf32>, tensor<2x4x!tile.ptr<bf16>>, tensor<8xi1>) {
  // CHECK: tile.splat %[[F]] : tensor<8xf32>
  // CHECK: tile.splat %[[P]] : tensor<2x4x!tile.ptr<bf16>>
  // CHECK: tile.splat %[[B]] : tensor<8xi1>
  %0 = tile.splat %f : tensor<8xf32>
  %1 = tile.splat %p : tensor<2x4x!tile.ptr<bf16>>
  %2 = tile.splat %b : tensor<8xi1>
  return %0, %1, %2 : tensor<8xf32>, tensor<2x4x!tile.ptr<bf16>>, tensor<8xi1>
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<8xf16>)
func.func @shapes(%x: tensor<8xf16>) -> (tensor<4x8xf16>, tensor<8x1xf16>) {
  // CHECK: %[[E0:.*]] = tile.expand_dims %[[X]], 0 : tensor<8xf16> -> tensor<1x8xf16>
  // CHECK: tile.broadcast %[[E0]] : tensor<1x8xf16> -> tensor<4x8xf16>
  // CHECK: tile.expand_dims %[[X]], 1 : tensor<8xf16> -> tensor<8x1xf16>
  %0 = tile.expand_dims %x, 0 : tensor<8xf16> -> tensor<1x8xf16>
  %1 = tile.broadcast %0 : tensor<1x8xf16> -> tensor<4x8xf16>
  %2 = tile.expand_dims %x, 1 : tensor<8xf16> -> tensor<8x1xf16>
  return %1, %2 : tensor<4x8xf16>, tensor<8x1xf16>
}

// CHECK-LABEL: func.func @addptr
func.func @addptr(%p: !tile.ptr<f32>, %off: i64, %ps: tensor<16x!tile.ptr<f32>>,
                  %offs: tensor<16xi32>) -> (!tile.ptr<f32>, tensor<16x!tile.ptr<f32>>) {
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f32>, i64
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %0 = tile.addptr %p, %off : !tile.ptr<f32>, i64
  %1 = tile.addptr %ps, %offs : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  return %0, %1 : !tile.ptr<f32>, tensor<16x!tile.ptr<f32>>
}

// CHECK-LABEL: func.func @load
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<i8>, %[[PS:.*]]: tensor<16x!tile.ptr<f32>>, %[[M:.*]]: tensor<16xi1>, %[[O:.*]]: tensor<16xf32>)
func.func @load(%p: !tile.ptr<i8>, %ps: tensor<16x!tile.ptr<f32>>, %m: tensor<16xi1>,
                %o: tensor<16xf32>) -> (i8, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: tile.load %[[P]] : !tile.ptr<i8> -> i8
  // CHECK: tile.load %[[PS]] : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  // CHECK: tile.load %[[PS]], mask %[[M]] : tensor<16xi1> : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  // CHECK: tile.load %[[PS]], mask %[[M]] : tensor<16xi1>, other %[[O]] : tensor<16xf32> : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %0 = tile.load %p : !tile.ptr<i8> -> i8
  %1 = tile.load %ps : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %2 = tile.load %ps, mask %m : tensor<16xi1> : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  %3 = tile.load %ps, mask %m : tensor<16xi1>, other %o : tensor<16xf32>
      : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  return %0, %1, %2, %3 : i8, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @scalar_masked_load
func.func @scalar_masked_load(%p: !tile.ptr<f16>, %m: i1, %o: f16) -> f16 {
  // CHECK: tile.load %{{.*}}, mask %{{.*}} : i1, other %{{.*}} : f16 : !tile.ptr<f16> -> f16
  %0 = tile.load %p, mask %m : i1, other %o : f16 : !tile.ptr<f16> -> f16
  return %0 : f16
}

// CHECK-LABEL: func.func @store
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<i64>, %[[V:.*]]: i64, %[[PS:.*]]: tensor<4x8x!tile.ptr<bf16>>, %[[VS:.*]]: tensor<4x8xbf16>, %[[M:.*]]: tensor<4x8xi1>)
func.func @store(%p: !tile.ptr<i64>, %v: i64, %ps: tensor<4x8x!tile.ptr<bf16>>,
                 %vs: tensor<4x8xbf16>, %m: tensor<4x8xi1>) {
  // CHECK: tile.store %[[P]], %[[V]] : !tile.ptr<i64>, i64
  // CHECK: tile.store %[[PS]], %[[VS]] : tensor<4x8x!tile.ptr<bf16>>, tensor<4x8xbf16>
  // CHECK: tile.store %[[PS]], %[[VS]], mask %[[M]] : tensor<4x8xi1> : tensor<4x8x!tile.ptr<bf16>>, tensor<4x8xbf16>
  tile.store %p, %v : !tile.ptr<i64>, i64
  tile.store %ps, %vs : tensor<4x8x!tile.ptr<bf16>>, tensor<4x8xbf16>
  tile.store %ps, %vs, mask %m : tensor<4x8xi1> : tensor<4x8x!tile.ptr<bf16>>, tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<16xf32>, %y: tensor<4x8xi32>) -> (f32, tensor<8xi32>, tensor<4xi32>) {
  // CHECK: tile.reduce sum %{{.*}}, 0 : tensor<16xf32> -> f32
  // CHECK: tile.reduce max %{{.*}}, 0 : tensor<4x8xi32> -> tensor<8xi32>
  // CHECK: tile.reduce min %{{.*}}, 1 : tensor<4x8xi32> -> tensor<4xi32>
  %0 = tile.reduce sum %x, 0 : tensor<16xf32> -> f32
  %1 = tile.reduce max %y, 0 : tensor<4x8xi32> -> tensor<8xi32>
  %2 = tile.reduce min %y, 1 : tensor<4x8xi32> -> tensor<4xi32>
  return %0, %1, %2 : f32, tensor<8xi32>, tensor<4xi32>
}

// The pointer type nests any element type, pointers included.
// CHECK-LABEL: func.func @types
// CHECK-SAME: !tile.ptr<f8E4M3FN>, %{{.*}}: !tile.ptr<!tile.ptr<i32>>, %{{.*}}: tensor<2x2x2x2x!tile.ptr<i1>>
func.func @types(%a: !tile.ptr<f8E4M3FN>, %b: !tile.ptr<!tile.ptr<i32>>,
                 %c: tensor<2x2x2x2x!tile.ptr<i1>>) {
  return
}

// CHECK-LABEL: func.func @lookups
func.func @lookups(%table: tensor<16xf32>, %codes: tensor<4x8xi32>, %p: tensor<4x!tile.ptr<i8>>)
    -> (tensor<4x8xf32>, tensor<32xi32>, tensor<4x!tile.ptr<f16>>) {
  // CHECK: tile.gather %{{.*}}, %{{.*}} : tensor<16xf32>, tensor<4x8xi32> -> tensor<4x8xf32>
  // CHECK: tile.reshape %{{.*}} : tensor<4x8xi32> -> tensor<32xi32>
  // CHECK: tile.ptr_cast %{{.*}} : tensor<4x!tile.ptr<i8>> -> tensor<4x!tile.ptr<f16>>
  %0 = tile.gather %table, %codes : tensor<16xf32>, tensor<4x8xi32> -> tensor<4x8xf32>
  %1 = tile.reshape %codes : tensor<4x8xi32> -> tensor<32xi32>
  %2 = tile.ptr_cast %p : tensor<4x!tile.ptr<i8>> -> tensor<4x!tile.ptr<f16>>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<32xi32>, tensor<4x!tile.ptr<f16>>
}

// CHECK-LABEL: func.func @atomic_add
func.func @atomic_add(%p: !tile.ptr<i32>, %v: i32) -> i32 {
  // CHECK: %{{.*}} = tile.atomic_add %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %0 = tile.atomic_add %p, %v : !tile.ptr<i32>
  return %0 : i32
}
