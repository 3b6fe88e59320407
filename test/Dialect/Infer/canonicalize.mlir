// RUN: infer-opt %s -split-input-file -canonicalize | FileCheck %s

// Tests that a Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain over a
// static input folds to a constant shape and a static reshape.
// CHECK-LABEL: func.func @shape_chain
func.func @shape_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %s = infer.shape %x {start = 0 : i64, end = 3 : i64} : tensor<2x3x4xf32> -> tensor<3xi64>
  %i = infer.constant dense<0> : tensor<i64>
  %b = infer.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u = infer.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %m = infer.constant dense<-1> : tensor<1xi64>
  %c = infer.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  // CHECK: %[[SHAPE:.+]] = infer.constant dense<[2, -1]> : tensor<2xi64>
  // CHECK: infer.reshape %{{.+}}, %[[SHAPE]]
  // CHECK-NOT: infer.shape
  %r = infer.reshape %x, %c {allow_zero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  return %r : tensor<2x12xf32>
}

// -----

// Tests that shape of a dynamic dim does not fold.
// CHECK-LABEL: func.func @shape_dynamic
func.func @shape_dynamic(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  // CHECK: infer.shape
  %s = infer.shape %x {start = 0 : i64, end = 2 : i64} : tensor<?x3xf32> -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// Tests that integer shape arithmetic and comparisons fold.
// CHECK-LABEL: func.func @arith
func.func @arith() -> (tensor<2xi64>, tensor<2xi1>) {
  %a = infer.constant dense<[6, 8]> : tensor<2xi64>
  %b = infer.constant dense<2> : tensor<i64>
  %d = infer.div %a, %b : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
  %e = infer.equal %d, %b : tensor<2xi64>, tensor<i64> -> tensor<2xi1>
  // CHECK-DAG: infer.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-DAG: infer.constant dense<false> : tensor<2xi1>
  return %d, %e : tensor<2xi64>, tensor<2xi1>
}

// -----

// Tests that ConstantOfShape folds to a splat and Range to its values.
// CHECK-LABEL: func.func @generators
func.func @generators() -> (tensor<2x3xf32>, tensor<4xi64>) {
  %s = infer.constant dense<[2, 3]> : tensor<2xi64>
  %z = infer.constant_of_shape %s {value = dense<1.5> : tensor<1xf32>} : tensor<2xi64> -> tensor<2x3xf32>
  %a = infer.constant dense<1> : tensor<i64>
  %b = infer.constant dense<9> : tensor<i64>
  %d = infer.constant dense<2> : tensor<i64>
  %r = infer.range %a, %b, %d : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<4xi64>
  // CHECK-DAG: infer.constant dense<1.500000e+00> : tensor<2x3xf32>
  // CHECK-DAG: infer.constant dense<[1, 3, 5, 7]> : tensor<4xi64>
  return %z, %r : tensor<2x3xf32>, tensor<4xi64>
}

// -----

// Tests that a constant transpose and slice fold, and identity ones vanish.
// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<2x3xf32>) -> (tensor<3x2xi64>, tensor<2xi64>, tensor<2x3xf32>) {
  %c = infer.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %t = infer.transpose %c {perm = array<i64: 1, 0>} : tensor<2x3xi64> -> tensor<3x2xi64>
  %st = infer.constant dense<6> : tensor<1xi64>
  %f = infer.reshape %c, %st {allow_zero = false} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<6xi64>
  %starts = infer.constant dense<1> : tensor<1xi64>
  %ends = infer.constant dense<6> : tensor<1xi64>
  %axes = infer.constant dense<0> : tensor<1xi64>
  %steps = infer.constant dense<3> : tensor<1xi64>
  %s = infer.slice %f, %starts, %ends, %axes, %steps : (tensor<6xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %id = infer.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK-DAG: infer.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
  // CHECK-DAG: infer.constant dense<[2, 5]> : tensor<2xi64>
  // CHECK-NOT: infer.transpose
  // CHECK: return
  return %t, %s, %id : tensor<3x2xi64>, tensor<2xi64>, tensor<2x3xf32>
}
