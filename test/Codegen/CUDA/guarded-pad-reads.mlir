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

// The im2col copy of an ungrouped convolution (parallel loops only) reads
// through guards too: it has no input left, and its payload reads x.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: %[[READ:.*]] = tensor.extract %arg0[
// CHECK: %[[VALUE:.*]] = arith.select %{{.*}}, %[[READ]], %{{.*}} : f32
// CHECK: linalg.yield %[[VALUE]]
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4, d1, d2)>
func.func @main(%x: tensor<4x8x8xf32>, %col: tensor<4x3x3x8x8xf32>) -> tensor<4x3x3x8x8xf32> {
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
  return %c : tensor<4x3x3x8x8xf32>
}

// -----

// The pad is kept when any user is a reduction of 64 (a block
// reduction's, whose threads share an output), even if another user is
// a short one (a window of 3).
// CHECK-LABEL: func.func @main
// CHECK: tensor.pad
// CHECK-NOT: tensor.extract %
#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
#window = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#taps = affine_map<(d0, d1, d2) -> (d2)>
#slide = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%v: tensor<4x62xf32>, %s: tensor<4xf32>, %w: tensor<3xf32>, %t: tensor<4x62xf32>)
    -> (tensor<4xf32>, tensor<4x62xf32>) {
  %zero = arith.constant 0.0 : f32
  %long = tensor.pad %v low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x62xf32> to tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%long : tensor<4x64xf32>) outs(%s : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t0 = arith.addf %acc, %a : f32
    linalg.yield %t0 : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [#window, #taps, #slide],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%long, %w : tensor<4x64xf32>, tensor<3xf32>) outs(%t : tensor<4x62xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t1 = arith.addf %acc, %m : f32
    linalg.yield %t1 : f32
  } -> tensor<4x62xf32>
  return %r, %q : tensor<4xf32>, tensor<4x62xf32>
}

// -----

// A cumulative sum of a padded vector: its reduced dim is read along by the
// padded input alone, so without that operand linalg could not bound it.
// The pad stays (a fuzzed model made this generic invalid).
// CHECK-LABEL: func.func @cumsum_of_padded
// CHECK: %[[P:.+]] = tensor.pad
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<49xf32>)
#cs_in = affine_map<(d0, d1) -> (d1)>
#cs_out = affine_map<(d0, d1) -> (d0)>
func.func @cumsum_of_padded(%x: tensor<48xf32>) -> tensor<49xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[1] high[0] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<48xf32> to tensor<49xf32>
  %e = tensor.empty() : tensor<49xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<49xf32>) -> tensor<49xf32>
  %sum = linalg.generic {indexing_maps = [#cs_in, #cs_out], iterator_types = ["parallel", "reduction"]}
      ins(%padded : tensor<49xf32>) outs(%fill : tensor<49xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi sle, %j, %i : index
    %t = arith.select %keep, %in, %zero : f32
    %s = arith.addf %out, %t : f32
    linalg.yield %s : f32
  } -> tensor<49xf32>
  return %sum : tensor<49xf32>
}
