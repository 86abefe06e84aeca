// Negative values of the I32Attr attributes (range start, axes).
// ODS's I32Attr accessors return uint32_t: RangeOp::verify, ExpandDimsOp::verify
// and ReduceOp::verify read -2 as 4294967294, so `tile.range -2 to 2` fails to
// verify ("needs start < end, got 4294967294 to 2") and a negative axis is
// reported as "axis 4294967295". (tilec's arange(-2, 2) hits the same bug:
// see tests/diagnostics/arange_negative_start.tile.)
// RUN: %tile-opt %s -split-input-file -verify-diagnostics

func.func @negative_start() -> tensor<4xi32> {
  %0 = tile.range -2 to 2 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @expand_dims_negative_axis(%x: tensor<4xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 out of range for rank 1}}
  %0 = tile.expand_dims %x, -1 : tensor<4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_negative_axis(%x: tensor<4xf32>) -> f32 {
  // expected-error @+1 {{'tile.reduce' op axis -1 out of range for rank 1}}
  %0 = tile.reduce sum %x, -1 : tensor<4xf32> -> f32
  return %0 : f32
}
