// RUN: infer-opt %s --infer-cuda-align-contractions --canonicalize | FileCheck %s

// A first convolution (3 channels, 3x3 window) contracts over c, kh, kw:
// k = 27, not a multiple of the tensor-core tile's 8, and several k dims
// cannot be split at whole tiles. The innermost k dim (kw) is padded with
// zeros to 8 (k = 72) in both inputs: the weight constant (16 output
// channels) becomes [16, 3, 3, 8] with zeros in kw 3..7, and the im2col
// copy writes a slice of a zero-filled [1, 3, 3, 8, 4, 4] tensor.

// CHECK-LABEL: func.func @stem
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<16x3x3x8xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x3x3x8x4x4xf32>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<1x3x3x8x4x4xf32>)
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[ZEROS]][0, 0, 0, 0, 0, 0] [1, 3, 3, 3, 4, 4] [1, 1, 1, 1, 1, 1]
// CHECK: %[[COLS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x3x6x6xf32>) outs(%[[SLICE]] : tensor<1x3x3x3x4x4xf32>)
// CHECK: %[[FULL:.*]] = tensor.insert_slice %[[COLS]] into %[[ZEROS]][0, 0, 0, 0, 0, 0] [1, 3, 3, 3, 4, 4]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[FULL]] {{\[}}[0], [1], [2], [3], [4, 5]] : tensor<1x3x3x8x4x4xf32> into tensor<1x3x3x8x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[FLAT]], %[[W]] : tensor<1x3x3x8x16xf32>, tensor<16x3x3x8xf32>)
#im2col_in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#im2col_out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#cols = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#weights = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @stem(%x: tensor<1x3x6x6xf32>, %init: tensor<1x16x16xf32>) -> tensor<1x16x16xf32> {
  %w = arith.constant dense<1.0> : tensor<16x3x3x3xf32>
  %e = tensor.empty() : tensor<1x3x3x3x4x4xf32>
  %c = linalg.generic {indexing_maps = [#im2col_in, #im2col_out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x3x6x6xf32>) outs(%e : tensor<1x3x3x3x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x3x4x4xf32>
  %flat = tensor.collapse_shape %c [[0], [1], [2], [3], [4, 5]] : tensor<1x3x3x3x4x4xf32> into tensor<1x3x3x3x16xf32>
  %r = linalg.generic {indexing_maps = [#cols, #weights, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%flat, %w : tensor<1x3x3x3x16xf32>, tensor<16x3x3x3xf32>) outs(%init : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16xf32>
  return %r : tensor<1x16x16xf32>
}
