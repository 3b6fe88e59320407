// RUN: infer-opt %s --split-input-file --infer-cuda-prepare-epilogues | FileCheck %s

// An MLP grown to whole tiles (40 rows in homes of 48), as CSE leaves it:
// the fill's home and the ReLU's share one tensor.empty, and so do x's
// padded copy and the bias + residual (the second MatMul's init).
// Afterwards:
//   - each op writing into a home has one of its own;
//   - the fill covers all of its home;
//   - bias + ReLU read and write the first MatMul's leading rows in place,
//     inserted back into its result;
//   - both MatMuls are marked read once (each result had one user).
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[XE:.*]] = tensor.empty() : tensor<48x32xf32>
// CHECK-DAG: %[[XS:.*]] = tensor.extract_slice %[[XE]][0, 0] [40, 32] [1, 1]
// CHECK-DAG: %[[XC:.*]] = linalg.copy ins(%arg0 : tensor<40x32xf32>) outs(%[[XS]] :
// CHECK-DAG: %[[XP:.*]] = tensor.insert_slice %[[XC]] into %[[XE]][0, 0] [40, 32] [1, 1]
// CHECK-DAG: %[[FE:.*]] = tensor.empty() : tensor<48x64xf32>
// CHECK-DAG: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[FE]] : tensor<48x64xf32>)
// CHECK: %[[M1:.*]] = linalg.generic {{.*}}ins(%[[XP]], %arg1 : {{.*}}outs(%[[FILL]] : tensor<48x64xf32>) attrs = {{.*}}infer.read_once
// CHECK: %[[S:.*]] = tensor.extract_slice %[[M1]][0, 0] [40, 64] [1, 1]
// CHECK: %[[R:.*]] = linalg.generic {{.*}}ins(%[[S]], %arg2 : {{.*}}outs(%[[S]] : tensor<40x64xf32>)
// CHECK: %[[RP:.*]] = tensor.insert_slice %[[R]] into %[[M1]][0, 0] [40, 64] [1, 1]
// CHECK: %[[PE:.*]] = tensor.empty() : tensor<48x32xf32>
// CHECK: %[[PS:.*]] = tensor.extract_slice %[[PE]][0, 0] [40, 32] [1, 1]
// CHECK: %[[PRO:.*]] = linalg.generic {{.*}}ins(%arg4, %arg0 : {{.*}}outs(%[[PS]] : tensor<40x32xf32>)
// CHECK: %[[PP:.*]] = tensor.insert_slice %[[PRO]] into %[[PE]][0, 0] [40, 32] [1, 1]
// CHECK: linalg.generic {{.*}}ins(%[[RP]], %arg3 : {{.*}}outs(%[[PP]] : tensor<48x32xf32>) attrs = {{.*}}infer.read_once
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<40x32xf32>, %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
                %w2: tensor<64x32xf32>, %b2: tensor<32xf32>) -> tensor<40x32xf32> {
  %zero = arith.constant 0.0 : f32
  %h = tensor.empty() : tensor<48x64xf32>
  %hs = tensor.extract_slice %h[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%hs : tensor<40x64xf32>) -> tensor<40x64xf32>
  %finit = tensor.insert_slice %f into %h[0, 0] [40, 64] [1, 1] : tensor<40x64xf32> into tensor<48x64xf32>
  %xh = tensor.empty() : tensor<48x32xf32>
  %xs = tensor.extract_slice %xh[0, 0] [40, 32] [1, 1] : tensor<48x32xf32> to tensor<40x32xf32>
  %xc = linalg.copy ins(%x : tensor<40x32xf32>) outs(%xs : tensor<40x32xf32>) -> tensor<40x32xf32>
  %xp = tensor.insert_slice %xc into %xh[0, 0] [40, 32] [1, 1] : tensor<40x32xf32> into tensor<48x32xf32>
  %m1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xp, %w1 : tensor<48x32xf32>, tensor<32x64xf32>) outs(%finit : tensor<48x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<48x64xf32>
  %m1s = tensor.extract_slice %m1[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1s, %b1 : tensor<40x64xf32>, tensor<64xf32>) outs(%hs : tensor<40x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %v = arith.maximumf %s, %zero : f32
    linalg.yield %v : f32
  } -> tensor<40x64xf32>
  %rp = tensor.insert_slice %r into %h[0, 0] [40, 64] [1, 1] : tensor<40x64xf32> into tensor<48x64xf32>
  %pro = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b2, %x : tensor<32xf32>, tensor<40x32xf32>) outs(%xs : tensor<40x32xf32>) {
  ^bb0(%b: f32, %in: f32, %out: f32):
    %s = arith.addf %b, %in : f32
    linalg.yield %s : f32
  } -> tensor<40x32xf32>
  %pp = tensor.insert_slice %pro into %xh[0, 0] [40, 32] [1, 1] : tensor<40x32xf32> into tensor<48x32xf32>
  %m2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%rp, %w2 : tensor<48x64xf32>, tensor<64x32xf32>) outs(%pp : tensor<48x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<48x32xf32>
  %y = tensor.extract_slice %m2[0, 0] [40, 32] [1, 1] : tensor<48x32xf32> to tensor<40x32xf32>
  return %y : tensor<40x32xf32>
}

// -----

// The MatMul's result is read twice (bias + ReLU, and the output): not
// read once, and bias + ReLU do not write over it; they keep their own
// home. The fill still covers all of its home.
// CHECK-LABEL: func.func @main
// CHECK: %[[FE:.*]] = tensor.empty() : tensor<48x64xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[FE]] : tensor<48x64xf32>)
// CHECK: %[[M1:.*]] = linalg.generic {{.*}}outs(%[[FILL]] : tensor<48x64xf32>) {
// CHECK: %[[S:.*]] = tensor.extract_slice %[[M1]][0, 0] [40, 64] [1, 1]
// CHECK: %[[HE:.*]] = tensor.empty() : tensor<48x64xf32>
// CHECK: %[[HS:.*]] = tensor.extract_slice %[[HE]][0, 0] [40, 64] [1, 1]
// CHECK: %[[R:.*]] = linalg.generic {{.*}}ins(%[[S]], %arg2 : {{.*}}outs(%[[HS]] : tensor<40x64xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[HE]][0, 0] [40, 64] [1, 1]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<48x32xf32>, %w1: tensor<32x64xf32>, %b1: tensor<64xf32>)
    -> (tensor<48x64xf32>, tensor<48x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %h = tensor.empty() : tensor<48x64xf32>
  %hs = tensor.extract_slice %h[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%hs : tensor<40x64xf32>) -> tensor<40x64xf32>
  %finit = tensor.insert_slice %f into %h[0, 0] [40, 64] [1, 1] : tensor<40x64xf32> into tensor<48x64xf32>
  %m1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w1 : tensor<48x32xf32>, tensor<32x64xf32>) outs(%finit : tensor<48x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<48x64xf32>
  %m1s = tensor.extract_slice %m1[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1s, %b1 : tensor<40x64xf32>, tensor<64xf32>) outs(%hs : tensor<40x64xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %v = arith.maximumf %s, %zero : f32
    linalg.yield %v : f32
  } -> tensor<40x64xf32>
  %rp = tensor.insert_slice %r into %h[0, 0] [40, 64] [1, 1] : tensor<40x64xf32> into tensor<48x64xf32>
  return %rp, %m1 : tensor<48x64xf32>, tensor<48x64xf32>
}

// -----

// The split of a contraction along k leaves slices that take, or replace,
// all of a tensor; they are dropped, so that the fill of the home's
// leading rows is seen and made a fill of all of it.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[FE:.*]] = tensor.empty() : tensor<48x64xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[FE]] : tensor<48x64xf32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}}outs(%[[FILL]] : tensor<48x64xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: tensor.extract_slice %[[M]][0, 0] [40, 64] [1, 1]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%x: tensor<48x32xf32>, %w: tensor<32x64xf32>) -> tensor<40x64xf32> {
  %zero = arith.constant 0.0 : f32
  %h = tensor.empty() : tensor<48x64xf32>
  %hs = tensor.extract_slice %h[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%hs : tensor<40x64xf32>) -> tensor<40x64xf32>
  %finit = tensor.insert_slice %f into %h[0, 0] [40, 64] [1, 1] : tensor<40x64xf32> into tensor<48x64xf32>
  %all = tensor.extract_slice %finit[0, 0] [48, 64] [1, 1] : tensor<48x64xf32> to tensor<48x64xf32>
  %m = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<48x32xf32>, tensor<32x64xf32>) outs(%all : tensor<48x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<48x64xf32>
  %back = tensor.insert_slice %m into %finit[0, 0] [48, 64] [1, 1] : tensor<48x64xf32> into tensor<48x64xf32>
  %y = tensor.extract_slice %back[0, 0] [40, 64] [1, 1] : tensor<48x64xf32> to tensor<40x64xf32>
  return %y : tensor<40x64xf32>
}

// -----

// Two 1x1 convolutions on a 3 x 4 map grown to 16 positions, as a ResNet
// block leaves them: 4-D ops write their homes' 3-D leading slices through
// reshapes, and CSE merged all the homes into one. Afterwards:
//   - the reshapes around the fill undo each other and are dropped: the
//     fill covers all of its home;
//   - the bias (the second convolution's init) has a home of its own,
//     seen through the reshapes;
//   - the residual add reads the ReLU's result from the home it was
//     inserted into (after the insert, so one-shot bufferization needs no
//     copy of the home);
//   - the ReLU, then read once, writes over the first convolution's slice,
//     inserted back into its result.
// CHECK-LABEL: func.func @main
// CHECK: %[[FE:.*]] = tensor.empty() : tensor<1x16x16xf32>
// CHECK-NEXT: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[FE]] : tensor<1x16x16xf32>)
// CHECK-NEXT: %[[C1:.*]] = linalg.generic {{.*}}outs(%[[FILL]] : tensor<1x16x16xf32>) attrs = {infer.read_once}
// CHECK: %[[S:.*]] = tensor.extract_slice %[[C1]][0, 0, 0] [1, 16, 12] [1, 1, 1]
// CHECK-NEXT: %[[S4:.*]] = tensor.expand_shape %[[S]]
// CHECK-NEXT: %[[R:.*]] = linalg.generic {{.*}}ins(%[[S4]] : tensor<1x16x3x4xf32>) outs(%[[S4]] : tensor<1x16x3x4xf32>)
// CHECK: %[[R3:.*]] = tensor.collapse_shape %[[R]]
// CHECK-NEXT: %[[RP:.*]] = tensor.insert_slice %[[R3]] into %[[C1]][0, 0, 0] [1, 16, 12] [1, 1, 1]
// CHECK-NEXT: %[[RS:.*]] = tensor.extract_slice %[[RP]][0, 0, 0] [1, 16, 12] [1, 1, 1]
// CHECK-NEXT: %[[R4:.*]] = tensor.expand_shape %[[RS]]
// CHECK-NEXT: %[[BE:.*]] = tensor.empty() : tensor<1x16x16xf32>
// CHECK-NEXT: %[[BS:.*]] = tensor.extract_slice %[[BE]][0, 0, 0] [1, 16, 12] [1, 1, 1]
// CHECK-NEXT: %[[B4:.*]] = tensor.expand_shape %[[BS]]
// CHECK-NEXT: %[[BIAS:.*]] = linalg.generic {{.*}}ins(%arg3 : tensor<16xf32>) outs(%[[B4]] : tensor<1x16x3x4xf32>)
// CHECK: %[[B3:.*]] = tensor.collapse_shape %[[BIAS]]
// CHECK-NEXT: %[[BP:.*]] = tensor.insert_slice %[[B3]] into %[[BE]]
// CHECK-NEXT: linalg.generic {{.*}}ins(%[[RP]], %arg2 : {{.*}}outs(%[[BP]] : tensor<1x16x16xf32>) attrs = {infer.read_once}
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[R4]] : tensor<1x16x3x4xf32>, tensor<1x16x3x4xf32>)
#in = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @main(%x: tensor<1x8x16xf32>, %w1: tensor<16x8xf32>, %w2: tensor<16x16xf32>,
                %b2: tensor<16xf32>) -> tensor<1x16x3x4xf32> {
  %zero = arith.constant 0.0 : f32
  %h = tensor.empty() : tensor<1x16x16xf32>
  %hs = tensor.extract_slice %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %h4 = tensor.expand_shape %hs [[0], [1], [2, 3]] output_shape [1, 16, 3, 4] : tensor<1x16x12xf32> into tensor<1x16x3x4xf32>
  %h3 = tensor.collapse_shape %h4 [[0], [1], [2, 3]] : tensor<1x16x3x4xf32> into tensor<1x16x12xf32>
  %f = linalg.fill ins(%zero : f32) outs(%h3 : tensor<1x16x12xf32>) -> tensor<1x16x12xf32>
  %finit = tensor.insert_slice %f into %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x12xf32> into tensor<1x16x16xf32>
  %c1 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w1 : tensor<1x8x16xf32>, tensor<16x8xf32>) outs(%finit : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16xf32>
  %c1s = tensor.extract_slice %c1[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %c14 = tensor.expand_shape %c1s [[0], [1], [2, 3]] output_shape [1, 16, 3, 4] : tensor<1x16x12xf32> into tensor<1x16x3x4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c14 : tensor<1x16x3x4xf32>) outs(%h4 : tensor<1x16x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<1x16x3x4xf32>
  %r3 = tensor.collapse_shape %r [[0], [1], [2, 3]] : tensor<1x16x3x4xf32> into tensor<1x16x12xf32>
  %rp = tensor.insert_slice %r3 into %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x12xf32> into tensor<1x16x16xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b2 : tensor<16xf32>) outs(%h4 : tensor<1x16x3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x16x3x4xf32>
  %b3 = tensor.collapse_shape %bias [[0], [1], [2, 3]] : tensor<1x16x3x4xf32> into tensor<1x16x12xf32>
  %bp = tensor.insert_slice %b3 into %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x12xf32> into tensor<1x16x16xf32>
  %c2 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%rp, %w2 : tensor<1x16x16xf32>, tensor<16x16xf32>) outs(%bp : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16xf32>
  %c2s = tensor.extract_slice %c2[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %c24 = tensor.expand_shape %c2s [[0], [1], [2, 3]] output_shape [1, 16, 3, 4] : tensor<1x16x12xf32> into tensor<1x16x3x4xf32>
  %e = tensor.empty() : tensor<1x16x3x4xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c24, %r : tensor<1x16x3x4xf32>, tensor<1x16x3x4xf32>) outs(%e : tensor<1x16x3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x16x3x4xf32>
  return %y : tensor<1x16x3x4xf32>
}

// -----

// A grown result's leading slice copied into the same slice of an empty
// home of the same shape (the next contraction's operand) is the result
// itself: both paddings were undefined. The copy, the home and the insert
// are gone, and the residual add still reads the slice.
// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.copy
// CHECK: %[[R:.*]] = linalg.generic {{.*}}outs(%{{.*}} : tensor<1x16x16xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 16, 12] [1, 1, 1]
// CHECK-NOT: linalg.copy
// CHECK: linalg.generic {{.*}}ins(%[[R]], %arg2 : tensor<1x16x16xf32>, tensor<16x16xf32>)
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[S]] : tensor<1x16x12xf32>, tensor<1x16x12xf32>)
#in = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#w = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @main(%x: tensor<1x8x16xf32>, %w1: tensor<16x8xf32>, %w2: tensor<16x16xf32>,
                %init: tensor<1x16x16xf32>, %init2: tensor<1x16x16xf32>) -> tensor<1x16x12xf32> {
  %c1 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w1 : tensor<1x8x16xf32>, tensor<16x8xf32>) outs(%init : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16xf32>
  %c1s = tensor.extract_slice %c1[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %h = tensor.empty() : tensor<1x16x16xf32>
  %hs = tensor.extract_slice %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %copy = linalg.copy ins(%c1s : tensor<1x16x12xf32>) outs(%hs : tensor<1x16x12xf32>) -> tensor<1x16x12xf32>
  %hp = tensor.insert_slice %copy into %h[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x12xf32> into tensor<1x16x16xf32>
  %c2 = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%hp, %w2 : tensor<1x16x16xf32>, tensor<16x16xf32>) outs(%init2 : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16xf32>
  %c2s = tensor.extract_slice %c2[0, 0, 0] [1, 16, 12] [1, 1, 1] : tensor<1x16x16xf32> to tensor<1x16x12xf32>
  %e = tensor.empty() : tensor<1x16x12xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c2s, %c1s : tensor<1x16x12xf32>, tensor<1x16x12xf32>) outs(%e : tensor<1x16x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<1x16x12xf32>
  return %y : tensor<1x16x12xf32>
}

// -----

// Two elementwise ops write into one tensor.empty (CSE merged theirs):
// each gets its own, just before it, so that bufferization does not put
// the second's result over the first's (the arena planner places them).
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}}outs(%[[E1]] : tensor<8x16xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK-NEXT: linalg.generic {{.*}}ins(%[[A]] : tensor<8x16xf32>) outs(%[[E2]] : tensor<8x16xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// The ReLU's home (60 by 48: the next MatMul reads its 60 rows as k) is not
// the first MatMul's (64 by 48: its m grown to whole tiles), as after PP-OCR
// rec's 1x3 convolution: the ReLU cannot write in place into that result
// (the insert back would change the home's type), so it keeps its home.
// CHECK-LABEL: func.func @main
// CHECK: %[[M1:.*]] = linalg.generic {{.*}}outs(%{{.*}} : tensor<64x48xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[M1]][0, 0] [60, 40] [1, 1]
// CHECK: %[[RE:.*]] = tensor.empty() : tensor<60x48xf32>
// CHECK: %[[RS:.*]] = tensor.extract_slice %[[RE]][0, 0] [60, 40] [1, 1]
// CHECK: %[[R:.*]] = linalg.generic {{.*}}ins(%[[S]] : tensor<60x40xf32>) outs(%[[RS]] : tensor<60x40xf32>)
// CHECK: %[[RP:.*]] = tensor.insert_slice %[[R]] into %[[RE]][0, 0] [60, 40] [1, 1]
// CHECK: linalg.generic {{.*}}ins(%arg2, %[[RP]] :
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%w1: tensor<64x32xf32>, %x: tensor<32x48xf32>, %w2: tensor<16x60xf32>) -> tensor<16x40xf32> {
  %zero = arith.constant 0.0 : f32
  %h = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%h : tensor<64x48xf32>) -> tensor<64x48xf32>
  %m1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w1, %x : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  %m1s = tensor.extract_slice %m1[0, 0] [60, 40] [1, 1] : tensor<64x48xf32> to tensor<60x40xf32>
  %rh = tensor.empty() : tensor<60x48xf32>
  %rs = tensor.extract_slice %rh[0, 0] [60, 40] [1, 1] : tensor<60x48xf32> to tensor<60x40xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1s : tensor<60x40xf32>) outs(%rs : tensor<60x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.maximumf %in, %zero : f32
    linalg.yield %v : f32
  } -> tensor<60x40xf32>
  %rp = tensor.insert_slice %r into %rh[0, 0] [60, 40] [1, 1] : tensor<60x40xf32> into tensor<60x48xf32>
  %h2 = tensor.empty() : tensor<16x48xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%h2 : tensor<16x48xf32>) -> tensor<16x48xf32>
  %m2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w2, %rp : tensor<16x60xf32>, tensor<60x48xf32>) outs(%f2 : tensor<16x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x48xf32>
  %y = tensor.extract_slice %m2[0, 0] [16, 40] [1, 1] : tensor<16x48xf32> to tensor<16x40xf32>
  return %y : tensor<16x40xf32>
}

// -----

// One fill of zeros (CSE merged two) starts a row reduction (a pool) and a
// matrix-vector product (a thread an output), as in PP-OCR cls's
// squeeze-and-excitation blocks: each gets its own fill, which its kernel
// makes itself. Shared, bufferization filled one buffer and copied it into
// the other's, two more kernels.
// CHECK-LABEL: func.func @main
// CHECK: %[[F1:.*]] = linalg.fill
// CHECK-NEXT: %[[POOL:.*]] = linalg.generic {{.*}}outs(%[[F1]] : tensor<8xf32>)
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg1, %[[POOL]] : {{.*}}outs(%[[F2]] : tensor<8xf32>)
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<8x64xf32>, %w: tensor<8x8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %pool = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %fc = linalg.generic {indexing_maps = [#rows, #vec, #row], iterator_types = ["parallel", "reduction"]}
      ins(%w, %pool : tensor<8x8xf32>, tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %fc : tensor<8xf32>
}

// -----

// Two layers' MLPs at batch 2: each contraction reads its init through a
// collapse_shape of the one fill CSE left (zeros of [2, 16, 64]). Each gets
// a fill and a collapse_shape of its own; the shared ones are gone.
// CHECK-LABEL: func.func @main
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK: %[[C1:.*]] = tensor.collapse_shape %[[F1]] {{\[\[}}0, 1], [2]]
// CHECK: linalg.generic {{.*}}outs(%[[C1]] : tensor<32x64xf32>)
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x16x64xf32>)
// CHECK: %[[C2:.*]] = tensor.collapse_shape %[[F2]] {{\[\[}}0, 1], [2]]
// CHECK: linalg.generic {{.*}}outs(%[[C2]] : tensor<32x64xf32>)
// CHECK-NOT: linalg.fill
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%x: tensor<32x32xf32>, %y: tensor<32x32xf32>, %w1: tensor<32x64xf32>,
                %w2: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %init = tensor.collapse_shape %f [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %m1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w1 : tensor<32x32xf32>, tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %m2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y, %w2 : tensor<32x32xf32>, tensor<32x64xf32>) outs(%init : tensor<32x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  return %m1, %m2 : tensor<32x64xf32>, tensor<32x64xf32>
}
