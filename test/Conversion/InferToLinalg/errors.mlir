// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg -verify-diagnostics

// Tests that an op with dynamic dims is reported, with a hint to make the
// model static.
func.func @add_dynamic(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @below {{cannot lower 'infer.add' yet: it has dynamic dims; pass --input-shape to make the model static}}
  %r = infer.add %a, %b : tensor<?x3xf32>, tensor<3xf32> -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// Tests that a reflection longer than its dim minus one (which ONNX leaves
// undefined) is reported, not read out of bounds.
func.func @pad_reflect_too_long(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %p = infer.constant dense<[0, 0, 4, 0, 0, 0, 0, 4]> : tensor<8xi64>
  %v = infer.constant dense<0.0> : tensor<f32>
  // expected-error @below {{cannot lower 'infer.pad' yet with these types or attributes}}
  %y = infer.pad %x, %p, %v {mode = "reflect"} : (tensor<1x3x4x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}

// -----

// Tests that Resize in cubic mode is reported as not lowered yet.
func.func @resize_cubic(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %s = infer.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  // expected-error @below {{cannot lower 'infer.resize' yet with these types or attributes}}
  %y = infer.resize %x scales(%s) {mode = "cubic", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// -----

// Tests that an Einsum diagonal (a label twice in one term) is reported as
// not lowered yet.
func.func @einsum_diagonal(%x: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @below {{cannot lower 'infer.einsum' yet with these types or attributes}}
  %d = infer.einsum %x {equation = "ii->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}
