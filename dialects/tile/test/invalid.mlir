// One case per verifier error of TileOps.cpp and per ODS constraint.
// RUN: %tile-opt %s -split-input-file -verify-diagnostics

//===- tile.program_id / tile.num_programs --------------------------------===//

func.func @program_id_axis() -> i32 {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 2}}
  %0 = tile.program_id 3 : i32
  return %0 : i32
}

// -----

func.func @program_id_type() -> i64 {
  // expected-error @+1 {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = tile.program_id 0 : i64
  return %0 : i64
}

// -----

func.func @num_programs_axis() -> i32 {
  // expected-error @+1 {{'tile.num_programs' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 2}}
  %0 = tile.num_programs -1 : i32
  return %0 : i32
}

// -----

//===- tile.range ----------------------------------------------------------===//

func.func @range_empty() -> tensor<1xi32> {
  // expected-error @+1 {{'tile.range' op needs start < end, got 4 to 4}}
  %0 = tile.range 4 to 4 : tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @range_size() -> tensor<8xi32> {
  // expected-error @+1 {{'tile.range' op result has 8 elements but the range has 4}}
  %0 = tile.range 0 to 4 : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @range_rank() -> tensor<2x2xi32> {
  // expected-error @+1 {{'tile.range' op result #0 must be 1D tensor of 32-bit signless integer values, but got 'tensor<2x2xi32>'}}
  %0 = tile.range 0 to 4 : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @range_element() -> tensor<4xi64> {
  // expected-error @+1 {{'tile.range' op result #0 must be 1D tensor of 32-bit signless integer values, but got 'tensor<4xi64>'}}
  %0 = tile.range 0 to 4 : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

//===- tile.splat ----------------------------------------------------------===//

func.func @splat_element(%x: f32) -> tensor<4xf16> {
  // expected-error @+1 {{'tile.splat' op failed to verify that element type matches the scalar}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @splat_dynamic(%x: f32) -> tensor<?xf32> {
  // expected-error @+1 {{'result' must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = tile.splat %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

//===- tile.broadcast ------------------------------------------------------===//

func.func @broadcast_rank(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tile.broadcast' op source rank 1 differs from result rank 2}}
  %0 = tile.broadcast %x : tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_dim(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tile.broadcast' op dimension 1 of size 4 cannot broadcast to 8}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @broadcast_element(%x: tensor<1x4xf32>) -> tensor<2x4xf16> {
  // expected-error @+1 {{'tile.broadcast' op requires the same element type for all operands and results}}
  %0 = tile.broadcast %x : tensor<1x4xf32> -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

func.func @broadcast_dynamic(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.broadcast' op operand #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = tile.broadcast %x : tensor<?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===- tile.expand_dims ----------------------------------------------------===//

func.func @expand_dims_axis(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 out of range for rank 1}}
  %0 = tile.expand_dims %x, 2 : tensor<4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @expand_dims_shape(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'tile.expand_dims' op result shape does not insert a unit dimension at 0}}
  %0 = tile.expand_dims %x, 0 : tensor<4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @expand_dims_element(%x: tensor<4xf32>) -> tensor<1x4xi32> {
  // expected-error @+1 {{'tile.expand_dims' op requires the same element type for all operands and results}}
  %0 = tile.expand_dims %x, 0 : tensor<4xf32> -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

//===- tile.addptr ---------------------------------------------------------===//

func.func @addptr_scalar_and_tile(%p: !tile.ptr<f32>, %o: tensor<4xi32>) -> !tile.ptr<f32> {
  // expected-error @+1 {{'tile.addptr' op offset type 'tensor<4xi32>' does not have the shape of '!tile.ptr<f32>'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<4xi32>
  return %0 : !tile.ptr<f32>
}

// -----

func.func @addptr_shape(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<4xi32>) -> tensor<8x!tile.ptr<f32>> {
  // expected-error @+1 {{'tile.addptr' op offset type 'tensor<4xi32>' does not have the shape of 'tensor<8x!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, tensor<4xi32>
  return %0 : tensor<8x!tile.ptr<f32>>
}

// -----

func.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) -> !tile.ptr<f32> {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be signless integer or tensor of signless integer values, but got 'f32'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return %0 : !tile.ptr<f32>
}

// -----

func.func @addptr_not_pointer(%p: i64, %o: i64) -> i64 {
  // expected-error @+1 {{'tile.addptr' op operand #0 must be tile pointer or tensor of tile pointer values, but got 'i64'}}
  %0 = tile.addptr %p, %o : i64, i64
  return %0 : i64
}

// -----

func.func @addptr_result(%p: !tile.ptr<f32>, %o: i32) -> !tile.ptr<f16> {
  // expected-error @+1 {{'tile.addptr' op failed to verify that all of {ptr, result} have same type}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, i32) -> !tile.ptr<f16>
  return %0 : !tile.ptr<f16>
}

// -----

//===- tile.load -----------------------------------------------------------===//

// The custom syntax cannot spell 'other' without 'mask'; the generic one can.
func.func @load_other_without_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op has 'other' without a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}>
      : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_other_type(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi1>, %o: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op 'other' type 'tensor<4xf16>' differs from result type 'tensor<4xf32>'}}
  %0 = tile.load %p, mask %m : tensor<4xi1>, other %o : tensor<4xf16> : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_value_type(%p: tensor<4x!tile.ptr<f32>>) -> tensor<4xf16> {
  // expected-error @+1 {{'tile.load' op value type 'tensor<4xf16>' does not match pointer type 'tensor<4x!tile.ptr<f32>>'}}
  %0 = tile.load %p : tensor<4x!tile.ptr<f32>> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @load_value_shape(%p: tensor<4x!tile.ptr<f32>>) -> tensor<8xf32> {
  // expected-error @+1 {{'tile.load' op value type 'tensor<8xf32>' does not match pointer type 'tensor<4x!tile.ptr<f32>>'}}
  %0 = tile.load %p : tensor<4x!tile.ptr<f32>> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @load_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op mask type 'tensor<8xi1>' does not match the shape of 'tensor<4x!tile.ptr<f32>>'}}
  %0 = tile.load %p, mask %m : tensor<8xi1> : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_mask_element(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op operand #1 must be 1-bit signless integer or tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = tile.load %p, mask %m : tensor<4xi32> : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_not_pointer(%p: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op operand #0 must be tile pointer or tensor of tile pointer values, but got 'tensor<4xi64>'}}
  %0 = tile.load %p : tensor<4xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @load_segments(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.load' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}>
      : (tensor<4x!tile.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

//===- tile.store ----------------------------------------------------------===//

func.func @store_value_type(%p: !tile.ptr<bf16>, %v: f32) {
  // expected-error @+1 {{'tile.store' op value type 'f32' does not match pointer type '!tile.ptr<bf16>'}}
  tile.store %p, %v : !tile.ptr<bf16>, f32
  return
}

// -----

func.func @store_value_shape(%p: !tile.ptr<f32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'tile.store' op value type 'tensor<4xf32>' does not match pointer type '!tile.ptr<f32>'}}
  tile.store %p, %v : !tile.ptr<f32>, tensor<4xf32>
  return
}

// -----

func.func @store_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: i1) {
  // expected-error @+1 {{'tile.store' op mask type 'i1' does not match the shape of 'tensor<4x!tile.ptr<f32>>'}}
  tile.store %p, %v, mask %m : i1 : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}

// -----

func.func @store_mask_element(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi8>) {
  // expected-error @+1 {{'tile.store' op operand #2 must be 1-bit signless integer or tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  tile.store %p, %v, mask %m : tensor<4xi8> : tensor<4x!tile.ptr<f32>>, tensor<4xf32>
  return
}

// -----

func.func @store_not_pointer(%p: i64, %v: f32) {
  // expected-error @+1 {{'tile.store' op operand #0 must be tile pointer or tensor of tile pointer values, but got 'i64'}}
  tile.store %p, %v : i64, f32
  return
}

// -----

//===- tile.reduce ---------------------------------------------------------===//

func.func @reduce_axis(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.reduce' op axis 2 out of range for rank 2}}
  %0 = tile.reduce sum %x, 2 : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_element(%x: tensor<4x!tile.ptr<f32>>) -> !tile.ptr<f32> {
  // expected-error @+1 {{'tile.reduce' op cannot reduce elements of type '!tile.ptr<f32>'}}
  %0 = tile.reduce max %x, 0 : tensor<4x!tile.ptr<f32>> -> !tile.ptr<f32>
  return %0 : !tile.ptr<f32>
}

// -----

func.func @reduce_result_shape(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tile.reduce' op result type 'tensor<8xf32>' should be 'tensor<4xf32>'}}
  %0 = tile.reduce sum %x, 1 : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_result_element(%x: tensor<4xf32>) -> f16 {
  // expected-error @+1 {{'tile.reduce' op requires the same element type for all operands and results}}
  %0 = tile.reduce sum %x, 0 : tensor<4xf32> -> f16
  return %0 : f16
}

// -----

func.func @reduce_dynamic(%x: tensor<?xf32>) -> f32 {
  // expected-error @+1 {{'tile.reduce' op operand #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = tile.reduce sum %x, 0 : tensor<?xf32> -> f32
  return %0 : f32
}

// -----

func.func @reduce_kind(%x: tensor<4xf32>) -> f32 {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  %0 = tile.reduce prod %x, 0 : tensor<4xf32> -> f32
  return %0 : f32
}

// -----

//===- !tile.ptr -----------------------------------------------------------===//

// expected-error @+1 {{expected '<'}}
func.func @ptr_without_pointee(%p: !tile.ptr) {
  return
}

// -----

func.func @dot_inner(%a: tensor<16x32xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'tile.dot' op a is 16x32 but b is 16x8: the inner dimensions differ}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_types(%a: tensor<16x16xf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'tile.dot' op operands have different element types 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @dot_ranks(%a: tensor<2x16x16xf16>, %b: tensor<16x8xf16>, %c: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'tile.dot' op a, b and the accumulator have ranks 3, 2 and 3: they must be one (2, or 3 for a batch)}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<16x8xf16> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @dot_batches(%a: tensor<2x16x16xf16>, %b: tensor<4x16x8xf16>, %c: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'tile.dot' op batches of 2, 4 and 2 products: they must be one}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<4x16x8xf16> -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

func.func @dot_batch_acc(%a: tensor<2x16x16xf16>, %b: tensor<2x16x8xf16>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  // expected-error @+1 {{'tile.dot' op accumulator is 16x16, expected 16x8}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<2x16x8xf16> -> tensor<2x16x16xf32>
  return %0 : tensor<2x16x16xf32>
}

// -----

func.func @gather_table(%table: tensor<12xf32>, %i: tensor<8xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'tile.gather' op table has 12 elements; gather needs a power of two}}
  %0 = tile.gather %table, %i : tensor<12xf32>, tensor<8xi32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @gather_shape(%table: tensor<16xf32>, %i: tensor<8xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tile.gather' op result 'tensor<4xf32>' is not the indices' shape with the table's element type 'f32'}}
  %0 = tile.gather %table, %i : tensor<16xf32>, tensor<8xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'tile.reshape' op reshapes 32 elements into 16}}
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @ptr_cast_shape(%p: tensor<4x!tile.ptr<i8>>) -> tensor<8x!tile.ptr<f16>> {
  // expected-error @+1 {{'tile.ptr_cast' op changes the shape}}
  %0 = tile.ptr_cast %p : tensor<4x!tile.ptr<i8>> -> tensor<8x!tile.ptr<f16>>
  return %0 : tensor<8x!tile.ptr<f16>>
}

// -----

//===- tile.atomic_add ------------------------------------------------------===//

func.func @atomic_add_pointee(%p: !tile.ptr<f32>, %v: i32) -> i32 {
  // expected-error @+1 {{'tile.atomic_add' op adds to i32, not 'f32'}}
  %0 = tile.atomic_add %p, %v : !tile.ptr<f32>
  return %0 : i32
}
