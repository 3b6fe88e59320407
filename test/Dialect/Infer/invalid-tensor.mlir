// RUN: infer-opt %s -split-input-file -verify-diagnostics

// Errors of the constant, shape, data movement, reduction and scatter/gather
// ops (InferTensorOps.td); the other ops' are in invalid.mlir and
// invalid-nn.mlir.

// Tests that shape checks its dim range against the input's rank.
func.func @shape_range(%x: tensor<2x3xf32>) -> tensor<3xi64> {
  // expected-error @below {{bad dim range [0, 3) for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.shape %x {start = 0 : i64, end = 3 : i64} : tensor<2x3xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Tests that constant_of_shape fills with exactly one value.
func.func @cos_value(%s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @below {{value must hold exactly one element}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.constant_of_shape %s {value = dense<[0.0, 1.0]> : tensor<2xf32>} : tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that a shape operand must have a static length (it is the result's rank).
func.func @cos_shape_length(%s: tensor<?xi64>) -> tensor<?xf32> {
  // expected-error @below {{shape must be a 1-D tensor of static length, got 'tensor<?xi64>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.constant_of_shape %s {value = dense<0.0> : tensor<1xf32>} : tensor<?xi64> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that range's operands are scalars of one element type.
func.func @range_types(%a: tensor<i64>, %b: tensor<f32>, %d: tensor<i64>) -> tensor<?xi64> {
  // expected-error @below {{start, limit and delta must be scalars of one type}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.range %a, %b, %d : tensor<i64>, tensor<f32>, tensor<i64> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Tests that a reshape shape entry below -1 is rejected.
func.func @reshape_invalid_dim(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = infer.constant dense<[-2, 3]> : tensor<2xi64>
  // expected-error @below {{shape has an invalid dim -2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that a reshape 0 cannot copy a dim the input does not have.
func.func @reshape_copy_missing_dim(%x: tensor<2x3xf32>) -> tensor<2x3x?xf32> {
  %s = infer.constant dense<[2, 3, 0]> : tensor<3xi64>
  // expected-error @below {{shape copies dim 2 of a rank-2 input}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3x?xf32>
  return %0 : tensor<2x3x?xf32>
}

// -----

// Tests that a reshape -1 must come out whole.
func.func @reshape_minus_one(%x: tensor<2x3xf32>) -> tensor<4x?xf32> {
  %s = infer.constant dense<[4, -1]> : tensor<2xi64>
  // expected-error @below {{cannot reshape 'tensor<2x3xf32>' into a shape with 4 elements per -1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Tests that transpose wants one perm entry per dim.
func.func @transpose_perm_length(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{perm has 1 entries for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.transpose %x {perm = array<i64: 0>} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that squeeze checks its axes against the rank.
func.func @squeeze_axis(%x: tensor<2x1xf32>) -> tensor<2xf32> {
  // expected-error @below {{squeeze axis 2 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.squeeze %x {axes = array<i64: 2>} : tensor<2x1xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that flatten's axis may be the rank but not more.
func.func @flatten_axis(%x: tensor<2x3xf32>) -> tensor<6x1xf32> {
  // expected-error @below {{axis 3 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.flatten %x {axis = 3 : i64} : tensor<2x3xf32> -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// -----

// Tests that concat needs at least one input.
func.func @concat_empty() -> tensor<0xf32> {
  // expected-error @below {{expects at least one input}}
  %0 = infer.concat {axis = 0 : i64} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// Tests that concat inputs share rank and element type.
func.func @concat_types(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<4xf32> {
  // expected-error @below {{inputs differ in rank or element type: 'tensor<2xf32>' vs 'tensor<2xi64>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<2xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that split sizes may not be negative.
func.func @split_negative(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<7xf32>) {
  // expected-error @below {{split sizes must be non-negative and non-empty}}
  // expected-error @below {{failed to infer returned types}}
  %0:2 = infer.split %x {axis = 0 : i64, sizes = array<i64: -1, 7>} : tensor<6xf32> -> tensor<?xf32>, tensor<7xf32>
  return %0#0, %0#1 : tensor<?xf32>, tensor<7xf32>
}

// -----

// Tests that constant slice operands have one length.
func.func @slice_lengths(%x: tensor<4x4xf32>) -> tensor<?x?xf32> {
  %starts = infer.constant dense<[0]> : tensor<1xi64>
  %ends = infer.constant dense<[2, 2]> : tensor<2xi64>
  %axes = infer.constant dense<[0]> : tensor<1xi64>
  %steps = infer.constant dense<[1]> : tensor<1xi64>
  // expected-error @below {{starts, ends, axes and steps differ in length}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.slice %x, %starts, %ends, %axes, %steps : (tensor<4x4xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that slice checks its axes against the rank.
func.func @slice_axis(%x: tensor<4x4xf32>) -> tensor<?x?xf32> {
  %starts = infer.constant dense<[0]> : tensor<1xi64>
  %ends = infer.constant dense<[2]> : tensor<1xi64>
  %axes = infer.constant dense<[3]> : tensor<1xi64>
  %steps = infer.constant dense<[1]> : tensor<1xi64>
  // expected-error @below {{slice axis 3 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.slice %x, %starts, %ends, %axes, %steps : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that a slice step may not be zero.
func.func @slice_step_zero(%x: tensor<4x4xf32>) -> tensor<?x?xf32> {
  %starts = infer.constant dense<[0]> : tensor<1xi64>
  %ends = infer.constant dense<[2]> : tensor<1xi64>
  %axes = infer.constant dense<[0]> : tensor<1xi64>
  %steps = infer.constant dense<[0]> : tensor<1xi64>
  // expected-error @below {{slice step must not be zero}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.slice %x, %starts, %ends, %axes, %steps : (tensor<4x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that gather indices are integers.
func.func @gather_float_indices(%x: tensor<4x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{indices must be integers, got 'f32'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather %x, %i {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that gather_elements indices have the data's rank.
func.func @gather_elements_rank(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @below {{data and indices must have the same rank}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather_elements %x, %i {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that expand checks that the input broadcasts to the constant shape.
func.func @expand_shape(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %s = infer.constant dense<[4, 3]> : tensor<2xi64>
  // expected-error @below {{cannot expand 'tensor<2x3xf32>' to the requested shape}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.expand %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that tile wants one repeat per dim.
func.func @tile_count(%x: tensor<2x3xf32>, %r: tensor<1xi64>) -> tensor<?x?xf32> {
  // expected-error @below {{expects 2 repeats, got 1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.tile %x, %r : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that constant tile repeats may not be negative.
func.func @tile_negative(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %r = infer.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @below {{repeats must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that pad wants a begin and an end pad per dim.
func.func @pad_count(%x: tensor<2x3xf32>, %p: tensor<2xi64>, %v: tensor<f32>) -> tensor<?x?xf32> {
  // expected-error @below {{expects 4 pads, got 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.pad %x, %p, %v {mode = "constant"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that negative pads may crop a dim to zero but not below.
func.func @pad_crop(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<?xf32> {
  %p = infer.constant dense<[-3, -3]> : tensor<2xi64>
  // expected-error @below {{pads crop dim 0 below zero}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.pad %x, %p, %v {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that pad's value is a scalar of the input's element type.
func.func @pad_value(%x: tensor<4xf32>, %p: tensor<2xi64>, %v: tensor<1xf32>) -> tensor<?xf32> {
  // expected-error @below {{expects a rank-0 padding value of the input's element type}}
  %0 = infer.pad %x, %p, %v {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>, tensor<1xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that top_k cannot take more elements than the dim holds.
func.func @top_k_k(%x: tensor<2x4xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>) {
  // expected-error @below {{k = 5 is out of range for dim of size 4}}
  // expected-error @below {{failed to infer returned types}}
  %v, %i = infer.top_k %x {k = 5 : i64, axis = 1 : i64, largest = true, sorted = true} : tensor<2x4xf32> -> tensor<2x5xf32>, tensor<2x5xi64>
  return %v, %i : tensor<2x5xf32>, tensor<2x5xi64>
}

// -----

// Tests that trilu wants at least a matrix.
func.func @trilu_rank(%x: tensor<4xf32>, %k: tensor<i64>) -> tensor<4xf32> {
  // expected-error @below {{expects an input of rank >= 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.trilu %x, %k {upper = true} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that depth_to_space wants a 4-D input.
func.func @depth_to_space_rank(%x: tensor<1x8x2xf32>) -> tensor<1x2x4xf32> {
  // expected-error @below {{expects a 4-D NCHW input and a positive block size}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.depth_to_space %x {block_size = 2 : i64, mode = "DCR"} : tensor<1x8x2xf32> -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

// Tests that depth_to_space's channels fill whole blocks.
func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @below {{channels 6 not divisible by 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.depth_to_space %x {block_size = 2 : i64, mode = "DCR"} : tensor<1x6x2x2xf32> -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Tests that depth_to_space knows its modes.
func.func @depth_to_space_mode(%x: tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @below {{mode must be DCR or CRD, got 'RCD'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.depth_to_space %x {block_size = 2 : i64, mode = "RCD"} : tensor<1x8x2x2xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// Tests that space_to_depth's spatial dims split into whole blocks.
func.func @space_to_depth_spatial(%x: tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32> {
  // expected-error @below {{spatial dim 2 not divisible by 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.space_to_depth %x {block_size = 2 : i64} : tensor<1x1x3x4xf32> -> tensor<1x4x1x2xf32>
  return %0 : tensor<1x4x1x2xf32>
}

// -----

// Tests that gather_nd's batch_dims leaves a dim of both operands.
func.func @gather_nd_batch_dims(%x: tensor<2x2xf32>, %i: tensor<2x1xi64>) -> tensor<2xf32> {
  // expected-error @below {{batch_dims 2 is out of range}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather_nd %x, %i {batch_dims = 2 : i64} : (tensor<2x2xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that gather_nd needs the length of its index tuples.
func.func @gather_nd_dynamic_depth(%x: tensor<2x2xf32>, %i: tensor<2x?xi64>) -> tensor<2xf32> {
  // expected-error @below {{the last dim of indices must be static}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x?xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that gather_nd's index tuples cannot be longer than the data's rank.
func.func @gather_nd_depth(%x: tensor<2x2xf32>, %i: tensor<2x3xi64>) -> tensor<2xf32> {
  // expected-error @below {{index tuples of length 3 do not fit 'tensor<2x2xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that scatter knows its reductions.
func.func @scatter_nd_reduction(%x: tensor<8xf32>, %i: tensor<4x1xi64>, %u: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @below {{unknown reduction 'sum'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.scatter_nd %x, %i, %u {reduction = "sum"} : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that scatter_nd's updates have the data's element type.
func.func @scatter_nd_updates(%x: tensor<8xf32>, %i: tensor<4x1xi64>, %u: tensor<4xf16>) -> tensor<8xf32> {
  // expected-error @below {{updates must have the data's element type}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.scatter_nd %x, %i, %u {reduction = "none"} : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf16>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that scatter_elements' indices have the data's rank.
func.func @scatter_elements_rank(%x: tensor<2x4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{indices must have the data's rank}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<2x4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
