// RUN: infer-opt %s --infer-cuda-reshapes-as-views | FileCheck %s

// A column slice of a fused projection, reshaped to heads: the reshape only
// splits the last dim, so it is an expand_shape (a view of the strided
// slice after bufferization, where memref.reshape would need a copy).
// CHECK-LABEL: func.func @heads
// CHECK: %[[SLICE:.*]] = tensor.extract_slice
// CHECK: tensor.expand_shape %[[SLICE]] {{\[}}[0], [1], [2, 3]] output_shape [1, 64, 12, 64] : tensor<1x64x768xf32> into tensor<1x64x12x64xf32>
// CHECK-NOT: tensor.reshape
func.func @heads(%qkv: tensor<1x64x2304xf32>) -> tensor<1x64x12x64xf32> {
  %shape = arith.constant dense<[1, 64, 12, 64]> : tensor<4xi64>
  %q = tensor.extract_slice %qkv[0, 0, 768] [1, 64, 768] [1, 1, 1] : tensor<1x64x2304xf32> to tensor<1x64x768xf32>
  %r = tensor.reshape %q(%shape) : (tensor<1x64x768xf32>, tensor<4xi64>) -> tensor<1x64x12x64xf32>
  return %r : tensor<1x64x12x64xf32>
}

// Merging the heads back is a collapse_shape.
// CHECK-LABEL: func.func @merge
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<1x64x12x64xf32> into tensor<1x64x768xf32>
func.func @merge(%x: tensor<1x64x12x64xf32>) -> tensor<1x64x768xf32> {
  %shape = arith.constant dense<[1, 64, 768]> : tensor<3xi64>
  %r = tensor.reshape %x(%shape) : (tensor<1x64x12x64xf32>, tensor<3xi64>) -> tensor<1x64x768xf32>
  return %r : tensor<1x64x768xf32>
}

// Neither a split nor a merge ([6, 4] as [4, 6]; [2, 3, 4] as [3, 8]): the
// reshapes stay.
// CHECK-LABEL: func.func @other
// CHECK-COUNT-2: tensor.reshape
func.func @other(%x: tensor<6x4xf32>, %y: tensor<2x3x4xf32>) -> (tensor<4x6xf32>, tensor<3x8xf32>) {
  %s1 = arith.constant dense<[4, 6]> : tensor<2xi64>
  %s2 = arith.constant dense<[3, 8]> : tensor<2xi64>
  %a = tensor.reshape %x(%s1) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %b = tensor.reshape %y(%s2) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>
  return %a, %b : tensor<4x6xf32>, tensor<3x8xf32>
}
