// RUN: infer-opt %s --infer-fuse-elementwise --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// Elementwise producers fuse into their only consumer; the fused op's
// location names every ONNX node it computes.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @chain
// A bias add, a Relu and a square (of one value, read once): one generic,
// no intermediate tensors.
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SUM]]
// CHECK-NEXT: arith.mulf %[[RELU]], %[[RELU]]
// CHECK: } -> tensor<4x8xf32> loc(fused["Add_0", "Relu_1", "Mul_2"])
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32> loc("Add_0")
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32> loc("Relu_1")
  // Both operands are the Relu: still only one consumer.
  %sq = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %r : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %p = arith.mulf %in, %in2 : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32> loc("Mul_2")
  return %sq : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @not_fused
// A producer with a second user, a broadcast read and a contraction
// consumer each stay apart: five generics in, five out.
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: linalg.generic
func.func @not_fused(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  // %neg is also returned: fusing would compute it twice.
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%neg : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = math.exp %in : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  // A producer over 8 elements read as a row broadcast: would run 4 times.
  %ev = tensor.empty() : tensor<8xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}
      ins(%v : tensor<8xf32>) outs(%ev : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sq : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  // The contraction keeps its plain multiply-accumulate body.
  %mm = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scaled, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %neg, %exp, %mm : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
