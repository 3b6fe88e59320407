// RUN: infer-opt %s --split-input-file --infer-cuda-guarded-pad-reads | FileCheck %s

// A depthwise convolution (9 products an output) reads its zero-padded
// input: the pad is gone, and each read checks its indices against the
// unpadded input's bounds (low padding 1 subtracted, unsigned compare),
// reading at clamped indices and taking the padding value outside.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}}ins(%arg1 : tensor<4x3x3xf32>) outs(
// CHECK: linalg.index 1
// CHECK: arith.subi
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: arith.select
// CHECK: %[[READ:.*]] = tensor.extract %arg0[
// CHECK: %[[VALUE:.*]] = arith.select %{{.*}}, %[[READ]], %{{.*}} : f32
// CHECK: arith.mulf %[[VALUE]]
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
func.func @main(%x: tensor<4x8x8xf32>, %w: tensor<4x3x3xf32>, %init: tensor<4x8x8xf32>)
    -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<4x8x8xf32> to tensor<4x10x10xf32>
  %y = linalg.generic {indexing_maps = [#in, #w, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%padded, %w : tensor<4x10x10xf32>, tensor<4x3x3xf32>) outs(%init : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  return %y : tensor<4x8x8xf32>
}

// -----

// The pad is kept when any user is not a short reduction: here an im2col
// copy (no reduction, a vectorized copy on the GPU), and a reduction of 64
// (a block reduction's).
// CHECK-LABEL: func.func @main
// CHECK-COUNT-2: tensor.pad
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4, d1, d2)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<4x8x8xf32>, %col: tensor<4x3x3x8x8xf32>, %v: tensor<4x62xf32>,
                %s: tensor<4xf32>) -> (tensor<4x3x3x8x8xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 1, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<4x8x8xf32> to tensor<4x10x10xf32>
  %c = linalg.generic {indexing_maps = [#in, #col],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%padded : tensor<4x10x10xf32>) outs(%col : tensor<4x3x3x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x3x3x8x8xf32>
  %long = tensor.pad %v low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x62xf32> to tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%long : tensor<4x64xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %c, %r : tensor<4x3x3x8x8xf32>, tensor<4xf32>
}
