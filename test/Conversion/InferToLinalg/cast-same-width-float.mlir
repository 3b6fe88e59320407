// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that Cast f16 -> bf16 widens to f32 and then truncates.
// CHECK-LABEL: func.func @cast_f16_to_bf16
func.func @cast_f16_to_bf16(%x: tensor<4xf16>) -> tensor<4xbf16> {
  // CHECK: ^bb0(%[[V:.+]]: f16, %{{.+}}: bf16):
  // CHECK: %[[W:.+]] = arith.extf %[[V]] : f16 to f32
  // CHECK: %[[N:.+]] = arith.truncf %[[W]] : f32 to bf16
  // CHECK: linalg.yield %[[N]] : bf16
  %0 = infer.cast %x {to = bf16, saturate = true} : tensor<4xf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Tests that Cast bf16 -> f16 widens to f32 and then truncates.
// CHECK-LABEL: func.func @cast_bf16_to_f16
func.func @cast_bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  // CHECK: ^bb0(%[[V:.+]]: bf16, %{{.+}}: f16):
  // CHECK: %[[W:.+]] = arith.extf %[[V]] : bf16 to f32
  // CHECK: %[[N:.+]] = arith.truncf %[[W]] : f32 to f16
  // CHECK: linalg.yield %[[N]] : f16
  %0 = infer.cast %x {to = f16, saturate = true} : tensor<4xbf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
