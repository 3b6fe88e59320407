// RUN: infer-opt %s --infer-cpu-lower-vectors | FileCheck %s

// infer-cpu-lower-vectors first folds subviews into the accesses that read
// through them (hoisting then sees loop-invariant accumulators), but not an
// expand_shape into a vector.transfer_read: MLIR 22's fold keeps the
// vector's shape and gives it the default map of the collapsed memref, so
// this read of 16 channels would read 16 elements along the leading dim of
// 1 instead, out of bounds (a global average pool over a 7x7 map whose
// rows of 49 live in rows of 56 read NaNs).

// CHECK-LABEL: func.func @channels_of_a_padded_map
// CHECK: %[[MAP:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 7, 7]
// CHECK-NOT: memref.subview %[[MAP]]
// CHECK: vector.transfer_read %[[MAP]][%c0, %arg1, %arg2, %arg3]{{.*}} : memref<1x32x7x7xf32, strided<[1792, 56, 7, 1]>>, vector<16x1x1xf32>
func.func @channels_of_a_padded_map(%v: memref<1x32x56xf32>, %i: index, %j: index, %k: index) -> vector<16x1x1xf32> {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %s = memref.subview %v[0, 0, 0] [1, 32, 49] [1, 1, 1] : memref<1x32x56xf32> to memref<1x32x49xf32, strided<[1792, 56, 1]>>
  %e = memref.expand_shape %s [[0], [1], [2, 3]] output_shape [1, 32, 7, 7] : memref<1x32x49xf32, strided<[1792, 56, 1]>> into memref<1x32x7x7xf32, strided<[1792, 56, 7, 1]>>
  %t = memref.subview %e[0, %i, %j, %k] [1, 16, 1, 1] [1, 1, 1, 1] : memref<1x32x7x7xf32, strided<[1792, 56, 7, 1]>> to memref<1x16x1x1xf32, strided<[1792, 56, 7, 1], offset: ?>>
  %r = vector.transfer_read %t[%c0, %c0, %c0, %c0], %f {in_bounds = [true, true, true]} : memref<1x16x1x1xf32, strided<[1792, 56, 7, 1], offset: ?>>, vector<16x1x1xf32>
  return %r : vector<16x1x1xf32>
}

// A subview alone is folded: the read addresses the buffer itself (and,
// in bounds and contiguous, becomes a vector.load).
// CHECK-LABEL: func.func @row_of_a_tile
// CHECK-NOT: memref.subview
// CHECK: vector.load %arg0[%arg1, %arg2] : memref<64x64xf32>, vector<16xf32>
func.func @row_of_a_tile(%v: memref<64x64xf32>, %i: index, %j: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %t = memref.subview %v[%i, %j] [1, 16] [1, 1] : memref<64x64xf32> to memref<1x16xf32, strided<[64, 1], offset: ?>>
  %r = vector.transfer_read %t[%c0, %c0], %f {in_bounds = [true]} : memref<1x16xf32, strided<[64, 1], offset: ?>>, vector<16xf32>
  return %r : vector<16xf32>
}
