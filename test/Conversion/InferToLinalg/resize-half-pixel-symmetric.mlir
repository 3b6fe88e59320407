// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that half_pixel_symmetric adds the symmetric offset (alone, or
// folded into the -0.5 shift) to the source coordinate.
// CHECK-LABEL: func.func @resize_half_pixel_symmetric
func.func @resize_half_pixel_symmetric(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x6x6xf32> {
  // CHECK: arith.constant {{0\.2352941[0-9]*|-?0\.2647058[0-9]*}} : f32
  // CHECK: linalg.generic
  %s = infer.constant dense<[1.0, 1.0, 1.7, 1.7]> : tensor<4xf32>
  %y = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "half_pixel_symmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x1x4x4xf32>, tensor<4xf32>) -> tensor<1x1x6x6xf32>
  return %y : tensor<1x1x6x6xf32>
}
