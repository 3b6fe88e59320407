// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that a batched MatMul is one generic over (batch, m, n, k) into a
// zero-filled init, and that a batch dim of size 1 broadcasts (reads 0).
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK-SAME: %[[A:.+]]: tensor<1x4x8xf32>, %[[B:.+]]: tensor<3x8x5xf32>
func.func @matmul_batch_broadcast(%a: tensor<1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  // CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<3x4x5xf32>
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<3x4x5xf32>)
  // CHECK: %[[R:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
  // CHECK-SAME: ins(%[[A]], %[[B]] : tensor<1x4x8xf32>, tensor<3x8x5xf32>) outs(%[[INIT]] : tensor<3x4x5xf32>)
  // CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
  // CHECK: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
  // CHECK: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
  // CHECK: linalg.yield %[[S]] : f32
  // CHECK: return %[[R]]
  %r = infer.matmul %a, %b : tensor<1x4x8xf32>, tensor<3x8x5xf32> -> tensor<3x4x5xf32>
  return %r : tensor<3x4x5xf32>
}

// -----

// Tests that an integer MatMul whose rhs has no batch dims reads it with a
// map over (m, n, k) only and accumulates with arith.muli / arith.addi.
// CHECK-DAG: #[[$LHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$RHS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d3)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_int_rank2_rhs
func.func @matmul_int_rank2_rhs(%a: tensor<2x3x4x8xi32>, %b: tensor<8x5xi32>) -> tensor<2x3x4x5xi32> {
  // CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i32)
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
  // CHECK-SAME: outs(%[[INIT]] : tensor<2x3x4x5xi32>)
  // CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %[[ACC:.+]]: i32):
  // CHECK: %[[P:.+]] = arith.muli %[[X]], %[[Y]] : i32
  // CHECK: arith.addi %[[ACC]], %[[P]] : i32
  %r = infer.matmul %a, %b : tensor<2x3x4x8xi32>, tensor<8x5xi32> -> tensor<2x3x4x5xi32>
  return %r : tensor<2x3x4x5xi32>
}

// -----

// Tests that Gemm with trans_b reads B as (n, k), starts from beta * C
// broadcast to [M, N], and scales A by alpha before the contraction.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_b_alpha_beta
// CHECK-SAME: %[[A:.+]]: tensor<2x8xf32>, %[[B:.+]]: tensor<5x8xf32>, %[[C:.+]]: tensor<5xf32>
func.func @gemm_trans_b_alpha_beta(%a: tensor<2x8xf32>, %b: tensor<5x8xf32>, %c: tensor<5xf32>) -> tensor<2x5xf32> {
  // CHECK-DAG: %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
  // CHECK-DAG: %[[BETA:.+]] = arith.constant 5.000000e-01 : f32
  // CHECK: %[[INIT:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ROW]], #[[$ID2]]]
  // CHECK-SAME: ins(%[[C]] : tensor<5xf32>)
  // CHECK: ^bb0(%[[CV:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.mulf %[[CV]], %[[BETA]] : f32
  // CHECK: } -> tensor<2x5xf32>
  // CHECK: %[[SA:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[A]] : tensor<2x8xf32>)
  // CHECK: ^bb0(%[[AV:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.mulf %[[AV]], %[[ALPHA]] : f32
  // CHECK: } -> tensor<2x8xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$A]], #[[$BT]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
  // CHECK-SAME: ins(%[[SA]], %[[B]] : tensor<2x8xf32>, tensor<5x8xf32>) outs(%[[INIT]] : tensor<2x5xf32>)
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %r = infer.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, trans_a = false, trans_b = true} : (tensor<2x8xf32>, tensor<5x8xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// Tests that Gemm with trans_a and no C reads A as (k, m) into a zero-filled
// init, with no scaling generics for alpha = beta = 1.
// CHECK-DAG: #[[$AT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_trans_a_no_c
// CHECK-SAME: %[[A:.+]]: tensor<8x2xf32>, %[[B:.+]]: tensor<8x5xf32>
func.func @gemm_trans_a_no_c(%a: tensor<8x2xf32>, %b: tensor<8x5xf32>) -> tensor<2x5xf32> {
  // CHECK: %[[INIT:.+]] = linalg.fill
  // CHECK-NEXT: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$AT]], #[[$B]], #[[$OUT]]]
  // CHECK-SAME: ins(%[[A]], %[[B]] : tensor<8x2xf32>, tensor<8x5xf32>) outs(%[[INIT]] : tensor<2x5xf32>)
  // CHECK-NOT: linalg.generic
  %r = infer.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false} : (tensor<8x2xf32>, tensor<8x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// Tests that a MatMul with a 1-D operand multiplies it as a matrix of one
// column (B) and drops that unit dim from the product again.
// CHECK-LABEL: func.func @matmul_vector
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>
// CHECK: %[[COLUMN:.+]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK: %[[P:.+]] = linalg.generic {{.*}}ins(%[[A]], %[[COLUMN]] : tensor<4x8xf32>, tensor<8x1xf32>) outs(%{{.+}} : tensor<4x1xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: return %[[R]]
func.func @matmul_vector(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %r = infer.matmul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a vector times a vector is a rank-0 product (every unit dim
// collapsed away).
// CHECK-LABEL: func.func @dot
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [1, 8]
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [8, 1]
// CHECK: tensor.collapse_shape %{{.+}} [] : tensor<1x1xf32> into tensor<f32>
func.func @dot(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %r = infer.matmul %a, %b : tensor<8xf32>, tensor<8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Tests that Einsum is one generic over its labels, the output's first
// (parallel) and the summed ones after (reduction), each operand read
// through the map of its labels, the product added to a zero-filled output.
// CHECK-DAG: #[[$Q:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$K:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-DAG: #[[$S:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @einsum_attention
// CHECK: %[[ZERO:.+]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[$Q]], #[[$K]], #[[$S]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}{{.*}}outs(%[[ZERO]] :
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
func.func @einsum_attention(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>) -> tensor<2x3x5x7xf32> {
  %s = infer.einsum %q, %k {equation = "bhqd,bhkd->bhqk"} : (tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>) -> tensor<2x3x5x7xf32>
  return %s : tensor<2x3x5x7xf32>
}

// -----

// Tests that "..." names the same broadcast dims in every term, right-
// aligned, and that an operand's size-1 broadcast dim is read at 0.
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @einsum_ellipsis
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @einsum_ellipsis(%a: tensor<1x3x4xf32>, %b: tensor<5x4x2xf32>) -> tensor<5x3x2xf32> {
  %s = infer.einsum %a, %b {equation = "...ij,...jk->...ik"} : (tensor<1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<5x3x2xf32>
  return %s : tensor<5x3x2xf32>
}

// -----

// Tests that a dot product has a rank-0 output map (it was a null map, and
// a crash).
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @einsum_dot
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #[[$SCALAR]]], iterator_types = ["reduction"]}{{.*}}outs(%{{.+}} : tensor<f32>)
func.func @einsum_dot(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<f32> {
  %s = infer.einsum %a, %b {equation = "i,i->"} : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
