// RUN: infer-opt %s --infer-cuda-pads-in-place | FileCheck %s

// A ReLU whose result only the zero padding of the next convolution reads:
// the padded tensor is filled first and the ReLU writes its interior
// (after bufferization: in place, no copy).
// CHECK-LABEL: func.func @relu_then_pad
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x10x10xf32>
// CHECK: %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<1x4x10x10xf32>)
// CHECK: %[[INTERIOR:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} outs(%[[INTERIOR]] : tensor<1x4x8x8xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %[[RELU]] into %[[FILLED]][0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[PADDED]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @relu_then_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  return %p : tensor<1x4x10x10xf32>
}

// The padded value is read elsewhere too (the residual of a block), or is
// a function argument: the pads stay.
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-2: tensor.pad
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared(%x: tensor<8x8xf32>) -> (tensor<10x10xf32>, tensor<8x8xf32>, tensor<10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %p = tensor.pad %relu low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %q = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  return %p, %relu, %q : tensor<10x10xf32>, tensor<8x8xf32>, tensor<10x10xf32>
}
