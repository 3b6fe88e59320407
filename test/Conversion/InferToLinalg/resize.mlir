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

// -----

// Tests that linear Resize reads the two elements around the source
// coordinate in each resized dim, clamped into the input, weighted by
// 1 - frac and frac; an unresized dim is read as it is.
// CHECK-LABEL: func.func @resize_linear
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x2x4x4xf32>
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[COORD:.+]] = arith.divf %{{.+}}, %[[TWO]] : f32
// CHECK: %[[FLOOR:.+]] = math.floor %[[COORD]] : f32
// CHECK: %[[LO:.+]] = arith.minsi %{{.+}}, %[[C3]] : index
// CHECK: %[[NEXT:.+]] = arith.addf %[[FLOOR]], %[[ONE]] : f32
// CHECK: %[[HI:.+]] = arith.minsi %{{.+}}, %[[C3]] : index
// CHECK: %[[FRAC:.+]] = arith.subf %[[COORD]], %[[FLOOR]] : f32
// CHECK: %[[REST:.+]] = arith.subf %[[ONE]], %[[FRAC]] : f32
// CHECK: %[[A:.+]] = tensor.extract %[[X]][%[[C0]], %[[C]], %[[H]], %[[LO]]]
// CHECK: %[[WA:.+]] = arith.mulf %[[A]], %[[REST]] : f32
// CHECK: %[[B:.+]] = tensor.extract %[[X]][%[[C0]], %[[C]], %[[H]], %[[HI]]]
// CHECK: %[[WB:.+]] = arith.mulf %[[B]], %[[FRAC]] : f32
// CHECK: %[[SUM:.+]] = arith.addf %[[WA]], %[[WB]] : f32
// CHECK: linalg.yield %[[SUM]] : f32
func.func @resize_linear(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32> {
  %s = infer.constant dense<[1.0, 1.0, 1.0, 2.0]> : tensor<4xf32>
  %y = infer.resize %x scales(%s) {mode = "linear", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x8xf32>
  return %y : tensor<1x2x4x8xf32>
}
