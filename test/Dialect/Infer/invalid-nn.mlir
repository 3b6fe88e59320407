// RUN: infer-opt %s -split-input-file -verify-diagnostics

// Errors of the contraction, convolution, pooling, resize and normalization
// ops (InferNNOps.td); the other ops' are in invalid.mlir and
// invalid-tensor.mlir.

// Tests that matmul rejects operands of different element types.
func.func @matmul_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @below {{operand element types differ: 'f32' vs 'f16'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that matmul rejects a rank-0 operand.
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{operands must have rank >= 1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.matmul %a, %b : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that matmul checks that the batch dims broadcast.
func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) -> tensor<?x2x4xf32> {
  // expected-error @below {{batch dimensions cannot be broadcast: 'tensor<2x2x3xf32>' x 'tensor<3x3x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x3x4xf32> -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// Tests that gemm takes 2-D A and B only.
func.func @gemm_rank(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{expects 2-D A and B, got 'tensor<3xf32>' and 'tensor<3x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that gemm rejects A and B of different element types.
func.func @gemm_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @below {{operand element types differ}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that gemm checks its inner dims after transposition.
func.func @gemm_inner(%a: tensor<2x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{inner dimensions differ: 3 vs 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x3xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that gemm's C must broadcast to [M, N].
func.func @gemm_c(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{C of type 'tensor<3xf32>' does not broadcast to [2, 4]}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that einsum wants the output made explicit (the importer does that).
func.func @einsum_implicit(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{einsum equation 'ij,jk' has no explicit output}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a, %b {equation = "ij,jk"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that einsum wants one equation term per operand.
func.func @einsum_inputs(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @below {{einsum equation has 2 inputs, the op has 1}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a {equation = "ij,jk->ik"} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that an einsum term must have one label per dim.
func.func @einsum_term_rank(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{einsum term 'ijk' does not match rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that the dims under a leading ellipsis must broadcast across terms.
func.func @einsum_ellipsis_leading(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<?x3xf32> {
  // expected-error @below {{einsum ellipsis dims do not broadcast}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a, %b {equation = "...i,...i->...i"} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests that the dims under a trailing ellipsis must broadcast across terms.
func.func @einsum_ellipsis_trailing(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<3x?xf32> {
  // expected-error @below {{einsum ellipsis dims do not broadcast}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a, %b {equation = "i...,i...->i..."} : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// Tests that einsum labels are letters.
func.func @einsum_label(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @below {{bad einsum label '1'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a {equation = "i1->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that one einsum label cannot stand for two different sizes.
func.func @einsum_label_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @below {{einsum label 'j' has sizes 3 and 4}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that every einsum output label comes from an input.
func.func @einsum_output_label(%a: tensor<2x3xf32>) -> tensor<?xf32> {
  // expected-error @below {{einsum output label 'k' appears in no input}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.einsum %a {equation = "ij->k"} : (tensor<2x3xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that conv wants one stride and dilation per spatial dim and two pads.
func.func @conv_window_counts(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{expects 2 strides and dilations and 4 pads}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that conv strides must be positive.
func.func @conv_stride_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{strides and dilations must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that pooling pads must not be negative.
func.func @pool_negative_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @below {{pads must be non-negative}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Tests that conv wants an input and a weight of one rank >= 3.
func.func @conv_rank(%x: tensor<1x3xf32>, %w: tensor<8x3xf32>) -> tensor<1x8xf32> {
  // expected-error @below {{expects input and weight of equal rank >= 3, got 'tensor<1x3xf32>' and 'tensor<8x3xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>, group = 1 : i64} : (tensor<1x3xf32>, tensor<8x3xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Tests that conv rejects an input and a weight of different element types.
func.func @conv_types(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf16>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{input and weight element types differ}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf16>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that conv's group must be positive.
func.func @conv_group_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{group must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that conv's output channels must split evenly into the groups.
func.func @conv_group_outputs(%x: tensor<1x4x8x8xf32>, %w: tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32> {
  // expected-error @below {{output channels 5 not divisible by group 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<5x2x3x3xf32>) -> tensor<1x5x6x6xf32>
  return %0 : tensor<1x5x6x6xf32>
}

// -----

// Tests that conv's bias has one value per output channel.
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @below {{bias must be 1-D of size 8, got 'tensor<3xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Tests that conv_transpose wants an input and a weight of one rank >= 3.
func.func @conv_transpose_rank(%x: tensor<1x3xf32>, %w: tensor<3x8xf32>) -> tensor<1x8xf32> {
  // expected-error @below {{expects input and weight of equal rank >= 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv_transpose %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>, output_padding = array<i64>, group = 1 : i64} : (tensor<1x3xf32>, tensor<3x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Tests that conv_transpose wants one output_padding value per spatial dim.
func.func @conv_transpose_output_padding(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @below {{expects 2 output_padding values}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// Tests that conv_transpose's group must be positive.
func.func @conv_transpose_group_zero(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @below {{group must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 0 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// Tests that conv_transpose checks the input channels against the weight's first dim.
func.func @conv_transpose_channels(%x: tensor<1x4x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @below {{input has 4 channels, weight expects 8}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// Tests that conv_transpose pads may not crop the output to nothing.
func.func @conv_transpose_output_size(%x: tensor<1x8x1x1xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x4x?x?xf32> {
  // expected-error @below {{output size -1 of spatial dim 0 is not positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x8x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

// Tests that pooling wants an input of rank >= 3.
func.func @pool_rank(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{expects an input of rank >= 3, got 'tensor<1x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.average_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>, ceil_mode = false, count_include_pad = false} : tensor<1x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that pooling wants one positive kernel extent per spatial dim.
func.func @pool_kernel(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @below {{expects 2 positive kernel_shape values}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.max_pool %x {kernel_shape = array<i64: 2, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Tests that global pooling wants an input of rank >= 3.
func.func @global_pool_rank(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{expects an input of rank >= 3, got 'tensor<1x4xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.global_max_pool %x : tensor<1x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that constant resize sizes give one size per dim.
func.func @resize_sizes_count(%x: tensor<1x1x2x2xf32>) -> tensor<?x?x?x?xf32> {
  %z = infer.constant dense<[4, 4]> : tensor<2xi64>
  // expected-error @below {{expects 4 sizes, got 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.resize %x sizes(%z) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that constant resize sizes must be positive.
func.func @resize_sizes_zero(%x: tensor<1x1x2x2xf32>) -> tensor<?x?x?x?xf32> {
  %z = infer.constant dense<[1, 1, 0, 4]> : tensor<4xi64>
  // expected-error @below {{sizes must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.resize %x sizes(%z) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that constant resize scales give one scale per dim.
func.func @resize_scales_count(%x: tensor<1x1x2x2xf32>) -> tensor<?x?x?x?xf32> {
  %s = infer.constant dense<[2.0, 2.0]> : tensor<2xf32>
  // expected-error @below {{expects 4 scales, got 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that constant resize scales must be positive.
func.func @resize_scales_zero(%x: tensor<1x1x2x2xf32>) -> tensor<?x?x?x?xf32> {
  %s = infer.constant dense<[1.0, 1.0, 0.0, 2.0]> : tensor<4xf32>
  // expected-error @below {{scales must be positive}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that resize knows its interpolation modes.
func.func @resize_mode(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @below {{unknown mode 'area'}}
  %0 = infer.resize %x scales(%s) {mode = "area", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that resize refuses tf_crop_and_resize (it needs a roi operand).
func.func @resize_coordinate_mode(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @below {{unsupported coordinate_transformation_mode 'tf_crop_and_resize'}}
  %0 = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "tf_crop_and_resize", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that resize knows its nearest rounding modes.
func.func @resize_nearest_mode(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @below {{unknown nearest_mode 'round'}}
  %0 = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "round", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x2x2xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Tests that batch_norm wants an input with a channel dim.
func.func @batch_norm_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{expects an input of rank >= 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that batch_norm wants one parameter per channel.
func.func @batch_norm_params(%x: tensor<1x4x2xf32>, %p: tensor<4xf32>, %q: tensor<3xf32>) -> tensor<1x4x2xf32> {
  // expected-error @below {{expects 1-D parameters of size 4, got 'tensor<3xf32>'}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.batch_norm %x, %p, %p, %q, %p {epsilon = 1.0e-05 : f32} : (tensor<1x4x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}

// -----

// Tests that instance_norm wants an input with spatial dims.
func.func @instance_norm_rank(%x: tensor<1x4xf32>, %p: tensor<4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{expects an input of rank >= 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.instance_norm %x, %p, %p {epsilon = 1.0e-05 : f32} : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that softmax checks its axis.
func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{axis 2 is out of range for rank 2}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.softmax %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that lp_norm takes the L1 or the L2 norm only.
func.func @lp_norm_p(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{p must be 1 or 2, got 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.lp_norm %x {axis = 1 : i64, p = 3 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that group_norm wants an input with spatial dims.
func.func @group_norm_rank(%x: tensor<1x4xf32>, %p: tensor<4xf32>) -> tensor<1x4xf32> {
  // expected-error @below {{expects an input of rank >= 3}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.group_norm %x, %p, %p {num_groups = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Tests that group_norm's channels must split evenly into the groups.
func.func @group_norm_groups(%x: tensor<1x6x4xf32>, %p: tensor<6xf32>) -> tensor<1x6x4xf32> {
  // expected-error @below {{channels 6 do not split into 4 groups}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.group_norm %x, %p, %p {num_groups = 4 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x4xf32>
  return %0 : tensor<1x6x4xf32>
}

// -----

// Tests that lrn wants a positive window size.
func.func @lrn_size(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @below {{expects an input of rank >= 3 and a positive size}}
  // expected-error @below {{failed to infer returned types}}
  %0 = infer.lrn %x {size = 0 : i64, alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}
