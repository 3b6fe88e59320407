// RUN: infer-opt %s --split-input-file --infer-outline-kernels=root-arguments=true --infer-cuda-map-to-gpu=allow-tf32=false | FileCheck %s

// An elementwise op whose innermost dim is a multiple of 4: each thread
// takes 4 consecutive elements (8 x 64 / 4 = 128 threads). The input and
// the bias are contiguous along that dim (one vector.load each), the
// per-row scale does not depend on it (one memref.load), the output is one
// vector.store. The vector path runs when the operands' starts are 16-byte
// aligned, checked once from the pointers; otherwise the same work with
// scalar accesses.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @kernel_0(%[[IN:.*]]: memref<8x64xf32>, %[[BIAS:.*]]: memref<64xf32>, %[[SCALE:.*]]: memref<8xf32>, %[[ARENA:.*]]: memref<4096xi8>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: plan.strategy = #plan.strategy<vector>
// CHECK: %[[OUT:.*]] = memref.view %[[ARENA]]
// CHECK: memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: memref.extract_aligned_pointer_as_index %[[BIAS]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[SCALE]]
// CHECK: scf.if
// CHECK: scf.if %{{.*}} {
// CHECK: vector.load %[[IN]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: vector.load %[[BIAS]][%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: memref.load %[[SCALE]]
// CHECK-NOT: memref.load
// CHECK-COUNT-4: arith.mulf
// CHECK: vector.from_elements
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-NOT: vector.
// CHECK-COUNT-4: memref.load %[[IN]]
// CHECK-COUNT-4: memref.load %[[BIAS]]
// CHECK: memref.load %[[SCALE]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[OUT]]
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#per_row = affine_map<(d0, d1) -> (d0)>
func.func @main(%in: memref<8x64xf32>, %bias: memref<64xf32>, %scale: memref<8xf32>,
                %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x64xf32>
  linalg.generic {indexing_maps = [#row, #col, #per_row, #row],
                  iterator_types = ["parallel", "parallel"]}
      ins(%in, %bias, %scale : memref<8x64xf32>, memref<64xf32>, memref<8xf32>)
      outs(%out : memref<8x64xf32>) {
  ^bb0(%x: f32, %b: f32, %s: f32, %o: f32):
    %sum = arith.addf %x, %b : f32
    %y = arith.mulf %sum, %s : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A transposed read is scattered (4 scalar loads, 16 rows apart); the
// output is still one vector store.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @kernel_0(%[[IN:.*]]: memref<16x8xf32>, %[[ARENA:.*]]: memref<4096xi8>) kernel
// CHECK-SAME: plan.strategy = #plan.strategy<vector>
// CHECK-NOT: memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: memref.load %[[IN]]
// CHECK: vector.store
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%in: memref<16x8xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x16xf32>
  linalg.generic {indexing_maps = [#transposed, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<16x8xf32>) outs(%out : memref<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// Rows of 6 floats: a row stride that is not a multiple of 4, so a
// 4-element group can straddle 16 bytes: the input is scattered, but the
// innermost dim of 8 still gives 4 elements a thread.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @kernel_0(%[[IN:.*]]: memref<8x6xf32>, %[[ARENA:.*]]: memref<4096xi8>) kernel
// CHECK: %[[SLICE:.*]] = memref.subview %[[IN]]
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: memref.load %[[SLICE]]
// CHECK: vector.store
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%in: memref<8x6xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %slice = memref.subview %in[0, 0] [8, 4] [1, 1] : memref<8x6xf32> to memref<8x4xf32, strided<[6, 1]>>
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x4xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%slice : memref<8x4xf32, strided<[6, 1]>>) outs(%out : memref<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// An innermost dim of 6: one element a thread, as before.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @kernel_0
// CHECK-NOT: plan.strategy = #plan.strategy<vector>
// CHECK-NOT: vector.
// CHECK: gpu.return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%in: memref<8x6xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x6xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<8x6xf32>) outs(%out : memref<8x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A fill: its value is a scalar operand, used by every lane; 4 elements a
// thread, one vector store.

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @kernel_0(%[[ARENA:.*]]: memref<4096xi8>) kernel
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK-SAME: plan.strategy = #plan.strategy<vector>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: load
// CHECK: vector.from_elements %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : vector<4xf32>
// CHECK: vector.store
func.func @main(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<8x16xf32>)
  return
}
