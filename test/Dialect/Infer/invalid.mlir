// RUN: infer-opt %s -split-input-file -verify-diagnostics

// Tests that broadcasting incompatible shapes is rejected.
func.func @add_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{operand shapes cannot be broadcast together}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.add %a, %b : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that mixed element types are rejected.
func.func @add_types(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  // expected-error @below {{operand element types differ}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.add %a, %b : tensor<3xf32>, tensor<3xi64> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that a declared result type that contradicts inference is rejected.
func.func @add_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that matmul checks its inner dimensions.
func.func @matmul_inner(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{inner dimensions differ}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that transpose needs a permutation.
func.func @transpose_perm(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @below {{perm axis 0 is repeated}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.transpose %a {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Tests that conv checks channels against the weight and group.
func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{input has 4 channels, weight expects 3 x group 1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that a pooling window larger than the padded input is rejected.
func.func @pool_window(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @below {{window of extent 3 is larger than the padded input (2)}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// Tests that reshape checks the element count against a constant shape.
func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %s = infer.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @below {{cannot reshape 'tensor<2x3xf32>' (6 elements) into 8 elements}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Tests that reshape refuses two inferred dims.
func.func @reshape_two_minus_one(%x: tensor<2x3xf32>) -> tensor<?x?xf32> {
  %s = infer.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @below {{shape has more than one -1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Tests that squeeze refuses a dim that is not 1.
func.func @squeeze_not_one(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @below {{cannot squeeze dim 0 of size 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.squeeze %x {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that split sizes must add up to the dim.
func.func @split_sizes(%x: tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @below {{split sizes add up to 4, dim 0 is 6}}
  // expected-error @below {{failed to infer returned types}}
  %0:2 = infer.split %x {axis = 0 : i64, sizes = array<i64: 2, 2>} : tensor<6xf32> -> tensor<2xf32>, tensor<2xf32>
  return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests that concat checks the non-axis dims.
func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @below {{inputs differ in dim 1: 3 vs 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that gather checks its axis.
func.func @gather_axis(%a: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @below {{axis 2 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gather %a, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that clip wants scalar bounds of the input's element type.
func.func @clip_bounds(%x: tensor<4xf32>, %lo: tensor<1xf32>, %hi: tensor<f32>) -> tensor<4xf32> {
  // expected-error @below {{expects rank-0 min and max of the input's element type 'f32'}}
  %0 = infer.clip %x, %lo, %hi : tensor<4xf32>, tensor<1xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that pad knows its modes.
func.func @pad_mode(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<6xf32> {
  %p = infer.constant dense<[1, 1]> : tensor<2xi64>
  // expected-error @below {{unknown mode 'mirror'}}
  %0 = infer.pad %x, %p, %v {mode = "mirror"} : (tensor<4xf32>, tensor<2xi64>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// Tests that resize takes exactly one of scales and sizes.
func.func @resize_both(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>, %z: tensor<4xi64>) -> tensor<?x?x?x?xf32> {
  // expected-error @below {{expects exactly one of scales and sizes}}
  %0 = infer.resize %x scales(%s) sizes(%z) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that constant_of_shape refuses negative dims.
func.func @cos_negative() -> tensor<?xf32> {
  %s = infer.constant dense<[-3]> : tensor<1xi64>
  // expected-error @below {{shape has a negative dim -3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.constant_of_shape %s {value = dense<0.0> : tensor<1xf32>} : tensor<1xi64> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that range refuses a zero step.
func.func @range_zero_delta() -> tensor<?xi64> {
  %a = infer.constant dense<0> : tensor<i64>
  %b = infer.constant dense<4> : tensor<i64>
  %d = infer.constant dense<0> : tensor<i64>
  // expected-error @below {{delta must not be zero}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.range %a, %b, %d : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// Tests that where's condition must broadcast with the broadcast values.
func.func @where_condition(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{condition shape cannot be broadcast with the values}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.where %c, %a, %b : tensor<3xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that cast only converts to integer and float element types.
func.func @cast_to_index(%x: tensor<4xf32>) -> tensor<4xindex> {
  // expected-error @below {{cannot cast to 'index'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.cast %x {to = index, saturate = true} : tensor<4xf32> -> tensor<4xindex>
  return %0 : tensor<4xindex>
}

