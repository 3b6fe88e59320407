// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that ReduceMean with keep_dims sums into a zero-filled tensor whose
// reduced dim is 1 (constant 0 in the output map, reduction iterator), then
// divides by the reduced element count.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-LABEL: func.func @reduce_mean_keep_dims
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>
func.func @reduce_mean_keep_dims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  // CHECK-DAG: %[[COUNT:.+]] = arith.constant 3.000000e+00 : f32
  // CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x1x4xf32>)
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$KEEP]]]
  // CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x1x4xf32>)
  // CHECK: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
  // CHECK: arith.addf %[[ACC]], %[[V]] : f32
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[SUM]] : tensor<2x1x4xf32>)
  // CHECK: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.divf %[[S]], %[[COUNT]] : f32
  %y = infer.reduce_mean %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return %y : tensor<2x1x4xf32>
}

// -----

// Tests that ReduceMean without keep_dims drops the reduced dims from the
// output map and divides by the product of their sizes.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$DROP:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean_drop_dims
func.func @reduce_mean_drop_dims(%x: tensor<2x3x4xf32>) -> tensor<2xf32> {
  // CHECK-DAG: %[[COUNT:.+]] = arith.constant 1.200000e+01 : f32
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$DROP]]]
  // CHECK-SAME: iterator_types = ["parallel", "reduction", "reduction"]
  // CHECK-SAME: outs(%{{.+}} : tensor<2xf32>)
  // CHECK: arith.addf
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[SUM]] : tensor<2xf32>)
  // CHECK: arith.divf %{{.+}}, %[[COUNT]] : f32
  %y = infer.reduce_mean %x {axes = array<i64: 1, 2>, keep_dims = false} : tensor<2x3x4xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Tests that ReduceMax starts from -inf and combines with arith.maximumf.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$DROP:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_max
// CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32)
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$DROP]]]
  // CHECK-SAME: iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2xf32>)
  // CHECK: ^bb0(%[[V:.+]]: f32, %[[ACC:.+]]: f32):
  // CHECK: %[[M:.+]] = arith.maximumf %[[ACC]], %[[V]] : f32
  // CHECK: linalg.yield %[[M]] : f32
  %y = infer.reduce_max %x {axes = array<i64: 1>, keep_dims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Tests that ReduceLogSumExp shifts by the maximum (taken as 0 where it is
// infinite) before exp, so that large inputs do not overflow, adds it back
// after the log, and drops the kept unit dims last.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>
func.func @reduce_log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: %[[MAX:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x1xf32>)
  // CHECK: arith.maximumf
  // CHECK: %[[SHIFT:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[MAX]] : tensor<2x1xf32>)
  // CHECK: %[[ABS:.+]] = math.absf
  // CHECK: %[[INF:.+]] = arith.cmpf oeq, %[[ABS]]
  // CHECK: arith.select %[[INF]]
  // CHECK: %[[EXPS:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[X]], %[[SHIFT]] : tensor<2x3xf32>, tensor<2x1xf32>)
  // CHECK: %[[D:.+]] = arith.subf
  // CHECK: math.exp %[[D]]
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[EXPS]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x1xf32>)
  // CHECK: arith.addf
  // CHECK: %[[LSE:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[SUM]], %[[SHIFT]] : tensor<2x1xf32>, tensor<2x1xf32>)
  // CHECK: %[[LOG:.+]] = math.log
  // CHECK: arith.addf %[[LOG]]
  // CHECK: tensor.reshape %[[LSE]]({{.+}}) : (tensor<2x1xf32>, tensor<1xi64>) -> tensor<2xf32>
  %y = infer.reduce_log_sum_exp %x {axes = array<i64: 1>, keep_dims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// Tests that Softmax is max-reduce, subtract (max broadcast back along the
// axis), exp, sum-reduce, and divide by the broadcast sum.
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: %[[X:.+]]: tensor<2x10xf32>
func.func @softmax(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<2x1xf32>)
  // CHECK: %[[MAX:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$KEEP]]]
  // CHECK-SAME: iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: ins(%[[X]] : tensor<2x10xf32>) outs(%[[MAXINIT]] : tensor<2x1xf32>)
  // CHECK: arith.maximumf
  // CHECK: %[[SHIFTED:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$KEEP]], #[[$ID2]]]
  // CHECK-SAME: ins(%[[X]], %[[MAX]] : tensor<2x10xf32>, tensor<2x1xf32>)
  // CHECK: arith.subf
  // CHECK: %[[EXP:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[SHIFTED]] : tensor<2x10xf32>)
  // CHECK: math.exp
  // CHECK: %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x1xf32>)
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "reduction"]
  // CHECK-SAME: ins(%[[EXP]] : tensor<2x10xf32>) outs(%[[SUMINIT]] : tensor<2x1xf32>)
  // CHECK: arith.addf
  // CHECK: %[[R:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$KEEP]], #[[$ID2]]]
  // CHECK-SAME: ins(%[[EXP]], %[[SUM]] : tensor<2x10xf32>, tensor<2x1xf32>)
  // CHECK: ^bb0(%[[E:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.divf %[[E]], %[[S]] : f32
  // CHECK: return %[[R]]
  %y = infer.softmax %x {axis = 1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}

// -----

// Tests that LayerNorm computes the mean and the inverse standard deviation
// (math.rsqrt of variance + epsilon) over the dims from axis on, then
// scales and shifts with scale and bias broadcast along the trailing dim.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[$LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: %[[X:.+]]: tensor<2x4x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>
func.func @layer_norm(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // CHECK-DAG: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
  // CHECK-DAG: %[[COUNT:.+]] = arith.constant 8.000000e+00 : f32
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$KEEP]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
  // CHECK-SAME: ins(%[[X]] : tensor<2x4x8xf32>)
  // CHECK: %[[MEAN:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[SUM]] : tensor<2x4x1xf32>)
  // CHECK: arith.divf %{{.+}}, %[[COUNT]] : f32
  // CHECK: %[[CENTERED:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[X]], %[[MEAN]] : tensor<2x4x8xf32>, tensor<2x4x1xf32>)
  // CHECK: arith.subf
  // CHECK: %[[SQ:.+]] = linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
  // CHECK-SAME: ins(%[[CENTERED]] : tensor<2x4x8xf32>)
  // CHECK: ^bb0(%[[C:.+]]: f32, %[[ACC:.+]]: f32):
  // CHECK: %[[C2:.+]] = arith.mulf %[[C]], %[[C]] : f32
  // CHECK: arith.addf %[[ACC]], %[[C2]] : f32
  // CHECK: %[[INVSTD:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[SQ]] : tensor<2x4x1xf32>)
  // CHECK: %[[VAR:.+]] = arith.divf %{{.+}}, %[[COUNT]] : f32
  // CHECK: %[[VEPS:.+]] = arith.addf %[[VAR]], %[[EPS]] : f32
  // CHECK: math.rsqrt %[[VEPS]] : f32
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID3]], #[[$KEEP]], #[[$LAST]], #[[$LAST]], #[[$ID3]]]
  // CHECK-SAME: ins(%[[CENTERED]], %[[INVSTD]], %[[G]], %[[B]] : tensor<2x4x8xf32>, tensor<2x4x1xf32>, tensor<8xf32>, tensor<8xf32>)
  // CHECK: ^bb0(%[[CV:.+]]: f32, %[[IV:.+]]: f32, %[[GV:.+]]: f32, %[[BV:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[N:.+]] = arith.mulf %[[CV]], %[[IV]] : f32
  // CHECK: %[[NS:.+]] = arith.mulf %[[N]], %[[GV]] : f32
  // CHECK: arith.addf %[[NS]], %[[BV]] : f32
  %y = infer.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Tests that BatchNorm is one parallel generic reading its four parameter
// vectors along the channel dim (d1).
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: %[[X:.+]]: tensor<1x3x4x4xf32>, %[[S:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<3xf32>, %[[M:.+]]: tensor<3xf32>, %[[V:.+]]: tensor<3xf32>
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  // CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID4]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID4]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
  // CHECK-SAME: ins(%[[X]], %[[S]], %[[B]], %[[M]], %[[V]] :
  // CHECK: ^bb0(%[[XV:.+]]: f32, %[[SV:.+]]: f32, %[[BV:.+]]: f32, %[[MV:.+]]: f32, %[[VV:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[VEPS:.+]] = arith.addf %[[VV]], %[[EPS]] : f32
  // CHECK: %[[INV:.+]] = math.rsqrt %[[VEPS]] : f32
  // CHECK: %[[SCALE:.+]] = arith.mulf %[[SV]], %[[INV]] : f32
  // CHECK: %[[CENTERED:.+]] = arith.subf %[[XV]], %[[MV]] : f32
  // CHECK: %[[Y:.+]] = arith.mulf %[[CENTERED]], %[[SCALE]] : f32
  // CHECK: arith.addf %[[Y]], %[[BV]] : f32
  %y = infer.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Tests that InstanceNormalization reduces each (n, c) over the spatial dims
// (kept as 1s) and reads its scale and bias along dim 1, as [C, 1, 1].
// CHECK-DAG: #[[$KEEP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-DAG: #[[$CHANNEL:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func.func @instance_norm
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4x5xf32>, %[[S:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%[[X]] : tensor<2x3x4x5xf32>) outs(%{{.+}} : tensor<2x3x1x1xf32>)
// CHECK: math.rsqrt
// CHECK-DAG: %[[B3:.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1, 2]] output_shape [3, 1, 1]
// CHECK-DAG: %[[S3:.+]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1, 2]] output_shape [3, 1, 1]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$KEEP]], #[[$CHANNEL]], #[[$CHANNEL]], #{{.+}}]{{.*}} ins(%{{.+}}, %{{.+}}, %[[S3]], %[[B3]] :
func.func @instance_norm(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
  %y = infer.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}

// -----

// Tests that ArgMax reduces its axis into two outputs, the best value so far
// (from -inf) and its index (from 0), replacing them only on a strictly
// greater element (the first of equals wins); the index is the result.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @arg_max
// CHECK-DAG: %[[NEG_INF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: %[[BEST:.+]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.+}} : tensor<3xf32>)
// CHECK: %[[INDEX:.+]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.+}} : tensor<3xi64>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#{{.+}}, #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}{{.*}}outs(%[[BEST]], %[[INDEX]] :
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: f32, %[[OUT_I:.+]]: i64):
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[OUT]] : f32
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[V:.+]] = arith.select %[[GT]], %[[IN]], %[[OUT]] : f32
// CHECK: %[[J:.+]] = arith.select %[[GT]], %[[I64]], %[[OUT_I]] : i64
// CHECK: linalg.yield %[[V]], %[[J]] : f32, i64
// CHECK: return %[[R]]#1 : tensor<3xi64>
func.func @arg_max(%x: tensor<3x5xf32>) -> tensor<3xi64> {
  %i = infer.arg_max %x {axis = 1 : i64, keep_dims = false, select_last_index = false} : tensor<3x5xf32> -> tensor<3xi64>
  return %i : tensor<3xi64>
}

// -----

// Tests that ArgMin with select_last_index on integers starts from the
// type's largest value and takes an equal element too (the last wins).
// CHECK-LABEL: func.func @arg_min_last
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.cmpi sle
func.func @arg_min_last(%x: tensor<3x5xi32>) -> tensor<1x5xi64> {
  %i = infer.arg_min %x {axis = 0 : i64, keep_dims = true, select_last_index = true} : tensor<3x5xi32> -> tensor<1x5xi64>
  return %i : tensor<1x5xi64>
}

// -----

// Tests that LRN sums the squares over a window of `size` channels of the
// squares padded with (size-1)/2 zero channels before and size/2 after
// (the window iterated through an operand of its shape), then divides x by
// (bias + alpha / size * sum)^beta.
// CHECK-DAG: #[[$WINDOW_IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4, d2, d3)>
// CHECK-DAG: #[[$WINDOW:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-LABEL: func.func @lrn
// CHECK: %[[SQ:.+]] = linalg.generic
// CHECK: arith.mulf %[[A:.+]], %[[A]] : f32
// CHECK: %[[PAD:.+]] = tensor.pad %[[SQ]] low[0, 2, 0, 0] high[0, 2, 0, 0]
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<5xf32>
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$WINDOW_IN]], #[[$WINDOW]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[PAD]], %[[WIN]] :
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[SUM]] :
// CHECK: math.powf
// CHECK: arith.divf
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %y = infer.lrn %x {size = 5 : i64, alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32} : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// Tests that GroupNormalization normalizes [N, C, H, W] as [N, G, C/G, H, W]
// over its last three dims, collapses it back and applies the per-channel
// scale and bias as [C, 1, 1].
// CHECK-LABEL: func.func @group_norm
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x4x4xf32>
// CHECK: %[[G:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 4, 4, 4]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]{{.*}} ins(%[[G]] :
// CHECK: math.rsqrt
// CHECK: %[[N:.+]] = linalg.generic {{.*}}outs(%{{.+}} : tensor<1x2x4x4x4xf32>)
// CHECK: %[[BACK:.+]] = tensor.collapse_shape %[[N]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x4x4x4xf32> into tensor<1x8x4x4xf32>
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1, 2]] output_shape [8, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[BACK]], %{{.+}}, %{{.+}} : tensor<1x8x4x4xf32>, tensor<8x1x1xf32>, tensor<8x1x1xf32>)
func.func @group_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = infer.group_norm %x, %s, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// Tests that Hardmax is 1 where the axis index equals ArgMax's (kept dims),
// else 0.
// CHECK-LABEL: func.func @hardmax
// CHECK: %[[ARG:.+]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: linalg.generic {{.*}} ins(%[[ARG]]#1 : tensor<2x1xi64>)
// CHECK: ^bb0(%[[FIRST:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[I64]], %[[FIRST]] : i64
// CHECK: arith.select %[[HIT]]
func.func @hardmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = infer.hardmax %x {axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Tests that LpNormalization with p = 2 divides x by the square root of its
// sum of squares along the axis.
// CHECK-LABEL: func.func @lp_norm
// CHECK: %[[SS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[SS]] : tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK: %[[NORM:.+]] = math.sqrt
// CHECK: arith.divf %{{.+}}, %[[NORM]] : f32
func.func @lp_norm(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = infer.lp_norm %x {axis = 1 : i64, p = 2 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Tests that CumSum reads the axis a second time as a reduction dim j and
// adds x at j only where j <= i (inclusive, forward).
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cum_sum
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[J:.+]] = linalg.index 2 : index
// CHECK: %[[KEEP:.+]] = arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK: %[[T:.+]] = arith.select %[[KEEP]], %[[X]], %{{.+}} : f32
// CHECK: arith.addf %[[ACC]], %[[T]] : f32
func.func @cum_sum(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = infer.cum_sum %x {axis = 1 : i64, exclusive = false, reverse = false} : tensor<2x5xf32> -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// Tests that TopK ranks each element along the axis (how many come before
// it: larger, or equal with a lower index), then gathers the element of
// rank r, and its index, into output r.
// CHECK-DAG: #[[$I:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$J:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x10xf32>
// CHECK: %[[RANKS:.+]] = linalg.generic {indexing_maps = [#[[$I]], #[[$J]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[X]] : {{.*}}) outs(%{{.+}} : tensor<2x10xi64>)
// CHECK: ^bb0(%[[XI:.+]]: f32, %[[XJ:.+]]: f32, %[[N:.+]]: i64):
// CHECK: arith.cmpf ogt, %[[XJ]], %[[XI]] : f32
// CHECK: arith.cmpf oeq, %[[XJ]], %[[XI]] : f32
// CHECK: arith.cmpi ult
// CHECK: %[[TOP:.+]]:2 = linalg.generic {indexing_maps = [#[[$J]], #[[$J]], #[[$I]], #[[$I]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[RANKS]] : {{.*}}) outs(%{{.+}}, %{{.+}} : tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK: arith.cmpi eq
// CHECK: return %[[TOP]]#0, %[[TOP]]#1
func.func @top_k(%x: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = infer.top_k %x {k = 3 : i64, axis = 1 : i64, largest = true, sorted = true} : tensor<2x10xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}
