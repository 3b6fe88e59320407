// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg -verify-diagnostics

// Tests that Cast from float to an unsigned type is reported as not lowered
// yet.
func.func @cast_f32_to_ui8(%x: tensor<4xf32>) -> tensor<4xui8> {
  // expected-error @below {{cannot lower 'infer.cast' yet with these types or attributes}}
  %0 = infer.cast %x {to = ui8, saturate = true} : tensor<4xf32> -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Tests that Cast from a signless integer to an unsigned type is reported
// as not lowered yet.
func.func @cast_i64_to_ui32(%x: tensor<4xi64>) -> tensor<4xui32> {
  // expected-error @below {{cannot lower 'infer.cast' yet with these types or attributes}}
  %0 = infer.cast %x {to = ui32, saturate = true} : tensor<4xi64> -> tensor<4xui32>
  return %0 : tensor<4xui32>
}
