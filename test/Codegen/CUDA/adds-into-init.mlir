// RUN: infer-opt %s --infer-cuda-adds-into-init | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// The bias add after a matmul becomes the matmul's init: the fill of zeros
// is gone, and the add reads the fill's value where it read the product.
// CHECK-LABEL: func.func @bias
// CHECK-NOT: linalg.fill
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %cst, %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK: %[[Y:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<16x8xf32>, tensor<8x32xf32>) outs(%[[INIT]] : tensor<16x32xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @bias(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%fill : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %v: f32, %out: f32):
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// A residual computed after the matmul, added in a chain with the bias
// (the product on the right): the matmul moves to the add's place.
// CHECK-LABEL: func.func @residual_after
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%arg2, %[[R]] : tensor<32xf32>, tensor<16x32xf32>)
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.matmul {{.*}} outs(%[[INIT]] : tensor<16x32xf32>)
// CHECK-NEXT: return %[[Y]]
func.func @residual_after(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>,
                          %r: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%fill : tensor<16x32xf32>) -> tensor<16x32xf32>
  %er = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %v = math.exp %x : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#col, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c, %er : tensor<32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%v: f32, %x: f32, %w: f32, %out: f32):
    %s = arith.addf %v, %x : f32
    %t = arith.addf %w, %s : f32
    linalg.yield %t : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// Left alone: the product read twice (as a result too), and an activation
// of the sum (GELU-like: the product is not a term of the yielded sum).
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: math.tanh
func.func @left_alone(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>)
    -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%fill : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %v: f32, %out: f32):
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %d = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%fill : tensor<16x32xf32>) -> tensor<16x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %bias : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%x: f32, %v: f32, %out: f32):
    %s = arith.addf %x, %v : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<16x32xf32>
  return %y, %c, %g : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}

// A max reduction followed by an add keeps its fill and the add
// after it: max(bias, x...) is not max(x...) + bias. (A fuzzed model,
// ReduceMax then Add, computed the former.)
// CHECK-LABEL: func.func @max_then_add
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[M:.*]] = linalg.generic {{.*}} outs(%[[FILL]] : tensor<16xf32>)
// CHECK: arith.maximumf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[M]], %arg1 : tensor<16xf32>, tensor<16xf32>)
// CHECK: return %[[Y]]
func.func @max_then_add(%x: tensor<16x8xf32>, %bias: tensor<16xf32>) -> tensor<16xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16xf32>
  %fill = linalg.fill ins(%lowest : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x8xf32>) outs(%fill : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%m, %bias : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}
