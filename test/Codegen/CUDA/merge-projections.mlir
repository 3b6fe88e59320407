// RUN: infer-opt %s --infer-cuda-merge-projections | FileCheck %s

#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>

// Q, K and V: one activation projected by three constant weights, each with
// its bias as the init (as infer-cuda-adds-into-init leaves them), read by
// reshapes and transposes only. One contraction over the weights side by
// side ([4, 6]) with the biases side by side as its init; Q, K and V are
// its column slices.
// CHECK-LABEL: func.func @qkv
// CHECK: %[[B:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 5.000000e-01, 6.000000e-01]> : tensor<6xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6xf32>) outs(%{{.*}} : tensor<16x6xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 1.100000e+01, 1.200000e+01, 2.100000e+01, 2.200000e+01], [3.000000e+00, 4.000000e+00, 1.300000e+01, 1.400000e+01, 2.300000e+01, 2.400000e+01]{{.*}}> : tensor<4x6xf32>
// CHECK: %[[QKV:.*]] = linalg.generic {{.*}} ins(%arg0, %[[W]] : tensor<16x4xf32>, tensor<4x6xf32>) outs(%[[INIT]] : tensor<16x6xf32>)
// CHECK-DAG: %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0] [16, 2] [1, 1]
// CHECK-DAG: %[[K:.*]] = tensor.extract_slice %[[QKV]][0, 2] [16, 2] [1, 1]
// CHECK-DAG: %[[V:.*]] = tensor.extract_slice %[[QKV]][0, 4] [16, 2] [1, 1]
// CHECK-NOT: linalg.generic {{.*}} ins(%arg0
// CHECK: tensor.expand_shape %[[Q]]
// CHECK: linalg.transpose ins(%[[K]]
// CHECK: tensor.expand_shape %[[V]]
func.func @qkv(%x: tensor<16x4xf32>) -> (tensor<16x1x2xf32>, tensor<2x16xf32>, tensor<16x1x2xf32>) {
  %wq = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %wk = arith.constant dense<[[11.0, 12.0], [13.0, 14.0], [15.0, 16.0], [17.0, 18.0]]> : tensor<4x2xf32>
  %wv = arith.constant dense<[[21.0, 22.0], [23.0, 24.0], [25.0, 26.0], [27.0, 28.0]]> : tensor<4x2xf32>
  %bq = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %bk = arith.constant dense<[0.3, 0.4]> : tensor<2xf32>
  %bv = arith.constant dense<[0.5, 0.6]> : tensor<2xf32>
  %e = tensor.empty() : tensor<16x2xf32>
  %q0 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%bq : tensor<2xf32>) outs(%e : tensor<16x2xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<16x2xf32>
  %q = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %wq : tensor<16x4xf32>, tensor<4x2xf32>) outs(%q0 : tensor<16x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %k0 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%bk : tensor<2xf32>) outs(%e : tensor<16x2xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<16x2xf32>
  %k = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %wk : tensor<16x4xf32>, tensor<4x2xf32>) outs(%k0 : tensor<16x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %v0 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%bv : tensor<2xf32>) outs(%e : tensor<16x2xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<16x2xf32>
  %v = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %wv : tensor<16x4xf32>, tensor<4x2xf32>) outs(%v0 : tensor<16x2xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %qh = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 1, 2] : tensor<16x2xf32> into tensor<16x1x2xf32>
  %te = tensor.empty() : tensor<2x16xf32>
  %kt = linalg.transpose ins(%k : tensor<16x2xf32>) outs(%te : tensor<2x16xf32>) permutation = [1, 0]
  %vh = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 1, 2] : tensor<16x2xf32> into tensor<16x1x2xf32>
  return %qh, %kt, %vh : tensor<16x1x2xf32>, tensor<2x16xf32>, tensor<16x1x2xf32>
}

// Not merged: a projection whose result an elementwise op reads (it would
// be that op's epilogue), one of another activation, two whose inits
// compute different things, and one whose result is returned as it is.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-NOT: tensor<4x4xf32>
func.func @kept(%x: tensor<16x4xf32>, %y: tensor<16x4xf32>) -> (tensor<16x2xf32>, tensor<16x1x2xf32>, tensor<16x1x2xf32>, tensor<16x1x2xf32>, tensor<16x2xf32>) {
  %w1 = arith.constant dense<1.0> : tensor<4x2xf32>
  %w2 = arith.constant dense<2.0> : tensor<4x2xf32>
  %w3 = arith.constant dense<3.0> : tensor<4x2xf32>
  %w4 = arith.constant dense<4.0> : tensor<4x2xf32>
  %w5 = arith.constant dense<5.0> : tensor<4x2xf32>
  %b1 = arith.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %b2 = arith.constant dense<[0.3, 0.4]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x2xf32>) -> tensor<16x2xf32>
  %a = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<16x4xf32>, tensor<4x2xf32>) outs(%fill : tensor<16x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %ea = linalg.exp ins(%a : tensor<16x2xf32>) outs(%e : tensor<16x2xf32>) -> tensor<16x2xf32>
  %b = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%y, %w2 : tensor<16x4xf32>, tensor<4x2xf32>) outs(%fill : tensor<16x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %i3 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%b1 : tensor<2xf32>) outs(%e : tensor<16x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<16x2xf32>
  %c3 = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<16x4xf32>, tensor<4x2xf32>) outs(%i3 : tensor<16x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %i4 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%b2 : tensor<2xf32>) outs(%e : tensor<16x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<16x2xf32>
  %c4 = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w4 : tensor<16x4xf32>, tensor<4x2xf32>) outs(%i4 : tensor<16x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %c5 = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w5 : tensor<16x4xf32>, tensor<4x2xf32>) outs(%fill : tensor<16x2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x2xf32>
  %bh = tensor.expand_shape %b [[0], [1, 2]] output_shape [16, 1, 2] : tensor<16x2xf32> into tensor<16x1x2xf32>
  %c3h = tensor.expand_shape %c3 [[0], [1, 2]] output_shape [16, 1, 2] : tensor<16x2xf32> into tensor<16x1x2xf32>
  %c4h = tensor.expand_shape %c4 [[0], [1, 2]] output_shape [16, 1, 2] : tensor<16x2xf32> into tensor<16x1x2xf32>
  return %ea, %bh, %c3h, %c4h, %c5 : tensor<16x2xf32>, tensor<16x1x2xf32>, tensor<16x1x2xf32>, tensor<16x1x2xf32>, tensor<16x2xf32>
}
