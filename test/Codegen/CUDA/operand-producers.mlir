// RUN: infer-opt %s --split-input-file --infer-cuda-prepare-epilogues --infer-cuda-fuse-epilogues | FileCheck %s

// On tensors: the im2col copy of a 3x3 convolution, read by the
// contraction alone (through a collapse), is marked as its operand's
// producer; the bias written into C is not (C is not an input).
// CHECK-LABEL: func.func @mark
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<1x32x20x20xf32>) {
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : tensor<1x16x3x3x20x20xf32>) attrs = {infer.operand_producer}
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#col = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#c = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @mark(%x: tensor<1x16x22x22xf32>, %b: tensor<32xf32>, %w: tensor<32x16x3x3xf32>)
    -> tensor<1x32x400xf32> {
  %e = tensor.empty() : tensor<1x32x20x20xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x20x20xf32>
  %ce = tensor.empty() : tensor<1x16x3x3x20x20xf32>
  %col = linalg.generic {indexing_maps = [#window, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x16x22x22xf32>) outs(%ce : tensor<1x16x3x3x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x3x3x20x20xf32>
  %colv = tensor.collapse_shape %col [[0], [1], [2], [3], [4, 5]] : tensor<1x16x3x3x20x20xf32> into tensor<1x16x3x3x400xf32>
  %cv = tensor.collapse_shape %init [[0], [1], [2, 3]] : tensor<1x32x20x20xf32> into tensor<1x32x400xf32>
  %y = linalg.generic {indexing_maps = [#col, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%colv, %w : tensor<1x16x3x3x400xf32>, tensor<32x16x3x3xf32>) outs(%cv : tensor<1x32x400xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %m = arith.mulf %in, %in_2 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x400xf32>
  return %y : tensor<1x32x400xf32>
}

// -----

// A copy that is also returned is read twice: not marked.
// CHECK-LABEL: func.func @read_twice
// CHECK-NOT: infer.operand_producer
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#col = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#c = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @read_twice(%x: tensor<1x16x22x22xf32>, %w: tensor<32x16x3x3xf32>, %init: tensor<1x32x400xf32>)
    -> (tensor<1x32x400xf32>, tensor<1x16x3x3x20x20xf32>) {
  %ce = tensor.empty() : tensor<1x16x3x3x20x20xf32>
  %col = linalg.generic {indexing_maps = [#window, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x16x22x22xf32>) outs(%ce : tensor<1x16x3x3x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x3x3x20x20xf32>
  %colv = tensor.collapse_shape %col [[0], [1], [2], [3], [4, 5]] : tensor<1x16x3x3x20x20xf32> into tensor<1x16x3x3x400xf32>
  %y = linalg.generic {indexing_maps = [#col, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%colv, %w : tensor<1x16x3x3x400xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<1x32x400xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %m = arith.mulf %in, %in_2 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x400xf32>
  return %y, %col : tensor<1x32x400xf32>, tensor<1x16x3x3x20x20xf32>
}

// -----

// On memrefs: the marked copy (its zero padding read through bounds
// checks), the bias written into C, the convolution and its ReLU become
// one region: the copy first, then the prologue, the contraction and the
// epilogue. 32 output channels are 2 tiles: each column element is
// computed twice.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.generic {{.*}}outs(%[[COL:.*]] : memref<1x16x3x3x20x20xf32>) attrs = {infer.operand_producer}
// CHECK: memref.load %arg0
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<32xf32>)
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %arg1 : memref<1x16x3x3x400xf32>, memref<32x16x3x3xf32>)
// CHECK: arith.maximumf
// CHECK: scf.yield
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @main(%arg0: memref<1x16x20x20xf32>, %arg1: memref<32x16x3x3xf32>, %bias: memref<32xf32>,
                %arg2: memref<1x32x20x20xf32>, %arg3: memref<281600xi8>) {
  %c20 = arith.constant 20 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c230400 = arith.constant 230400 : index
  %cst = arith.constant 0.000000e+00 : f32
  %view = memref.view %arg3[%c230400][] : memref<281600xi8> to memref<1x32x20x20xf32>
  %view_0 = memref.view %arg3[%c0][] : memref<281600xi8> to memref<1x16x3x3x20x20xf32>
  %collapse_shape = memref.collapse_shape %view_0 [[0], [1], [2], [3], [4, 5]] : memref<1x16x3x3x20x20xf32> into memref<1x16x3x3x400xf32>
  %collapse_shape_1 = memref.collapse_shape %view [[0], [1], [2, 3]] : memref<1x32x20x20xf32> into memref<1x32x400xf32>
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%view_0 : memref<1x16x3x3x20x20xf32>) attrs =  {infer.operand_producer} {
  ^bb0(%out: f32):
    %1 = linalg.index 1 : index
    %2 = linalg.index 2 : index
    %3 = linalg.index 3 : index
    %4 = linalg.index 4 : index
    %5 = linalg.index 5 : index
    %6 = arith.addi %2, %4 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.cmpi ult, %7, %c20 : index
    %9 = arith.select %8, %7, %c0 : index
    %10 = arith.addi %3, %5 : index
    %11 = arith.subi %10, %c1 : index
    %12 = arith.cmpi ult, %11, %c20 : index
    %13 = arith.andi %8, %12 : i1
    %14 = arith.select %12, %11, %c0 : index
    %15 = memref.load %arg0[%c0, %1, %9, %14] : memref<1x16x20x20xf32>
    %16 = arith.select %13, %15, %cst : f32
    linalg.yield %16 : f32
  }
  linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : memref<32xf32>) outs(%view : memref<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%collapse_shape, %arg1 : memref<1x16x3x3x400xf32>, memref<32x16x3x3xf32>) outs(%collapse_shape_1 : memref<1x32x400xf32>) attrs =  {infer.read_once} {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %1 = arith.mulf %in, %in_2 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%view : memref<1x32x20x20xf32>) outs(%arg2 : memref<1x32x20x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %cst : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// 64 output channels are 4 tiles, each of which would compute every column
// element again (kMaxOperandRecomputes is 2): the copy stays a kernel of
// its own, and the fill joins the contraction.
// CHECK-LABEL: func.func @main
// CHECK: linalg.generic {{.*}}attrs = {infer.operand_producer}
// CHECK: memref.load %arg0
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%{{.*}}, %arg1 : memref<1x16x3x3x400xf32>, memref<64x16x3x3xf32>)
// CHECK: scf.yield
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @main(%arg0: memref<1x16x20x20xf32>, %arg1: memref<64x16x3x3xf32>,
                %arg2: memref<1x64x400xf32>, %arg3: memref<230400xi8>) {
  %c20 = arith.constant 20 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %view_0 = memref.view %arg3[%c0][] : memref<230400xi8> to memref<1x16x3x3x20x20xf32>
  %collapse_shape = memref.collapse_shape %view_0 [[0], [1], [2], [3], [4, 5]] : memref<1x16x3x3x20x20xf32> into memref<1x16x3x3x400xf32>
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%view_0 : memref<1x16x3x3x20x20xf32>) attrs =  {infer.operand_producer} {
  ^bb0(%out: f32):
    %1 = linalg.index 1 : index
    %2 = linalg.index 2 : index
    %3 = linalg.index 3 : index
    %4 = linalg.index 4 : index
    %5 = linalg.index 5 : index
    %6 = arith.addi %2, %4 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.cmpi ult, %7, %c20 : index
    %9 = arith.select %8, %7, %c0 : index
    %10 = arith.addi %3, %5 : index
    %11 = arith.subi %10, %c1 : index
    %12 = arith.cmpi ult, %11, %c20 : index
    %13 = arith.andi %8, %12 : i1
    %14 = arith.select %12, %11, %c0 : index
    %15 = memref.load %arg0[%c0, %1, %9, %14] : memref<1x16x20x20xf32>
    %16 = arith.select %13, %15, %cst : f32
    linalg.yield %16 : f32
  }
  linalg.fill ins(%cst : f32) outs(%arg2 : memref<1x64x400xf32>)
  linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%collapse_shape, %arg1 : memref<1x16x3x3x400xf32>, memref<64x16x3x3xf32>) outs(%arg2 : memref<1x64x400xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %1 = arith.mulf %in, %in_2 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A kernel between the copy and the contraction writes the image the copy
// reads (in its payload): the copy cannot move down to the contraction.
// CHECK-LABEL: func.func @main
// CHECK: linalg.generic {{.*}}attrs = {infer.operand_producer}
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg0
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%arg2
// CHECK-NEXT: linalg.generic {{.*}}ins(%{{.*}}, %arg1 : memref<1x16x3x3x400xf32>, memref<32x16x3x3xf32>)
// CHECK: scf.yield
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
func.func @main(%arg0: memref<1x16x20x20xf32>, %arg1: memref<32x16x3x3xf32>,
                %arg2: memref<1x32x400xf32>, %arg3: memref<230400xi8>) {
  %c20 = arith.constant 20 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %view_0 = memref.view %arg3[%c0][] : memref<230400xi8> to memref<1x16x3x3x20x20xf32>
  %collapse_shape = memref.collapse_shape %view_0 [[0], [1], [2], [3], [4, 5]] : memref<1x16x3x3x20x20xf32> into memref<1x16x3x3x400xf32>
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%view_0 : memref<1x16x3x3x20x20xf32>) attrs =  {infer.operand_producer} {
  ^bb0(%out: f32):
    %1 = linalg.index 1 : index
    %2 = linalg.index 2 : index
    %3 = linalg.index 3 : index
    %4 = linalg.index 4 : index
    %5 = linalg.index 5 : index
    %6 = arith.addi %2, %4 : index
    %7 = arith.subi %6, %c1 : index
    %8 = arith.cmpi ult, %7, %c20 : index
    %9 = arith.select %8, %7, %c0 : index
    %10 = arith.addi %3, %5 : index
    %11 = arith.subi %10, %c1 : index
    %12 = arith.cmpi ult, %11, %c20 : index
    %13 = arith.andi %8, %12 : i1
    %14 = arith.select %12, %11, %c0 : index
    %15 = memref.load %arg0[%c0, %1, %9, %14] : memref<1x16x20x20xf32>
    %16 = arith.select %13, %15, %cst : f32
    linalg.yield %16 : f32
  }
  linalg.fill ins(%cst : f32) outs(%arg0 : memref<1x16x20x20xf32>)
  linalg.fill ins(%cst : f32) outs(%arg2 : memref<1x32x400xf32>)
  linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%collapse_shape, %arg1 : memref<1x16x3x3x400xf32>, memref<32x16x3x3xf32>) outs(%arg2 : memref<1x32x400xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %1 = arith.mulf %in, %in_2 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}
