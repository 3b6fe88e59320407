// RUN: infer-opt %s --infer-outputs-in-place | FileCheck %s

// A result returned as a reshape of its buffer (a convolution's
// [1, C, H*W] output seen as [1, C, H, W]) is computed in the output
// argument: the allocation becomes the argument, and the copy goes.
// CHECK-LABEL: func.func @reshaped_result
// CHECK-SAME: (%[[X:.*]]: memref<1x4x6xf32>, %[[OUT:.*]]: memref<1x4x2x3xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0], [1], [2, 3]]
// CHECK: linalg.exp ins(%[[X]] : memref<1x4x6xf32>) outs(%[[FLAT]] : memref<1x4x6xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @reshaped_result(%x: memref<1x4x6xf32>, %out: memref<1x4x2x3xf32>) {
  %buffer = memref.alloc() : memref<1x4x2x3xf32>
  %flat = memref.collapse_shape %buffer [[0], [1], [2, 3]] : memref<1x4x2x3xf32> into memref<1x4x6xf32>
  linalg.exp ins(%x : memref<1x4x6xf32>) outs(%flat : memref<1x4x6xf32>)
  %result = memref.expand_shape %flat [[0], [1], [2, 3]] output_shape [1, 4, 2, 3] : memref<1x4x6xf32> into memref<1x4x2x3xf32>
  memref.copy %result, %out : memref<1x4x2x3xf32> to memref<1x4x2x3xf32>
  return
}

// A result copied out of a padded home (the CUDA layouts) into a
// temporary and then into the output is copied once, into the output.
// CHECK-LABEL: func.func @padded_result
// CHECK-SAME: (%[[X:.*]]: memref<4x6xf32>, %[[OUT:.*]]: memref<4x6xf32>)
// CHECK: %[[HOME:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: %[[SLICE:.*]] = memref.subview %[[HOME]]
// CHECK: linalg.exp
// CHECK-NEXT: memref.copy %[[SLICE]], %[[OUT]]
// CHECK-NEXT: return
func.func @padded_result(%x: memref<4x6xf32>, %out: memref<4x6xf32>) {
  %home = memref.alloc() : memref<4x8xf32>
  %slice = memref.subview %home[0, 0] [4, 6] [1, 1] : memref<4x8xf32> to memref<4x6xf32, strided<[8, 1]>>
  linalg.exp ins(%x : memref<4x6xf32>) outs(%slice : memref<4x6xf32, strided<[8, 1]>>)
  %temporary = memref.alloc() : memref<4x6xf32>
  memref.copy %slice, %temporary : memref<4x6xf32, strided<[8, 1]>> to memref<4x6xf32>
  memref.copy %temporary, %out : memref<4x6xf32> to memref<4x6xf32>
  return
}

// Left alone: a copy from a view that is not a reshape (a slice), and an
// allocation of another type.
// CHECK-LABEL: func.func @left_alone
// CHECK: memref.copy %{{.*}}, %arg1 : memref<4x6xf32, strided<[8, 1]>> to memref<4x6xf32>
// CHECK: memref.alloc() : memref<24xf32>
// CHECK: memref.copy %{{.*}}, %arg2 : memref<4x6xf32> to memref<4x6xf32>
func.func @left_alone(%x: memref<4x6xf32>, %out: memref<4x6xf32>, %out2: memref<4x6xf32>) {
  %home = memref.alloc() : memref<4x8xf32>
  %slice = memref.subview %home[0, 0] [4, 6] [1, 1] : memref<4x8xf32> to memref<4x6xf32, strided<[8, 1]>>
  linalg.exp ins(%x : memref<4x6xf32>) outs(%slice : memref<4x6xf32, strided<[8, 1]>>)
  memref.copy %slice, %out : memref<4x6xf32, strided<[8, 1]>> to memref<4x6xf32>
  %flat = memref.alloc() : memref<24xf32>
  %shaped = memref.expand_shape %flat [[0, 1]] output_shape [4, 6] : memref<24xf32> into memref<4x6xf32>
  linalg.exp ins(%x : memref<4x6xf32>) outs(%shaped : memref<4x6xf32>)
  memref.copy %shaped, %out2 : memref<4x6xf32> to memref<4x6xf32>
  return
}
