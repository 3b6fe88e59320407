// RUN: timeout 5 infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that f16 AveragePool sums the window and divides by an f16 count
// tensor.
// CHECK-LABEL: func.func @average_pool_f16
func.func @average_pool_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  // CHECK: %[[COUNTS:.+]] = arith.constant dense<4.000000e+00> : tensor<2x2xf16>
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK: arith.addf %{{.+}}, %{{.+}} : f16
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[SUM]], %[[COUNTS]] : tensor<1x2x2x2xf16>, tensor<2x2xf16>)
  // CHECK: arith.divf %{{.+}}, %{{.+}} : f16
  %y = infer.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : tensor<1x2x4x4xf16> -> tensor<1x2x2x2xf16>
  return %y : tensor<1x2x2x2xf16>
}
