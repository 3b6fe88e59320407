// RUN: infer-opt %s --infer-hoist-weights | FileCheck %s
// RUN: infer-opt %s --infer-hoist-weights=min-bytes=4 | FileCheck %s --check-prefix=SMALL

// Large non-splat constants become read-only arguments after the inputs,
// equal ones share one argument, and the module records them in argument
// order; splats and small constants stay in the code.

// CHECK: module attributes {infer.weights = [dense<{{\[}}[1.000000e+00, 2.000000e+00{{.*}}]> : tensor<8x8xf32>]}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<8x8xf32> {bufferization.writable = false})
// CHECK: arith.constant dense<[1, 2]> : tensor<2xi32>
// CHECK: arith.constant dense<3.000000e+00> : tensor<8x8xf32>
// CHECK-NOT: arith.constant dense<{{\[\[}}
// CHECK: arith.addf %[[X]], %[[W]]
// CHECK: arith.mulf {{.*}}, %[[W]]

// SMALL: func.func @main({{.*}}: tensor<8x8xf32>, {{.*}}: tensor<8x8xf32> {bufferization.writable = false}, {{.*}}: tensor<2xi32> {bufferization.writable = false})
func.func @main(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<2xi32>, tensor<8x8xf32>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<8x8xf32>
  %same = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<8x8xf32>
  %small = arith.constant dense<[1, 2]> : tensor<2xi32>
  %splat = arith.constant dense<3.0> : tensor<8x8xf32>
  %a = arith.addf %x, %w : tensor<8x8xf32>
  %b = arith.mulf %a, %same : tensor<8x8xf32>
  return %b, %small, %splat : tensor<8x8xf32>, tensor<2xi32>, tensor<8x8xf32>
}
