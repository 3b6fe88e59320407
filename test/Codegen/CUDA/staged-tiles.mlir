// RUN: infer-opt %s -split-input-file --infer-outline-kernels=root-arguments=true "--infer-cuda-map-to-gpu=stage-tiles=true tile-plan=mma=wmma" | FileCheck %s
// (WMMA asked for: these check its IR; mma.sync, the default, is checked by
// tile-plan.test and test/python/test_tensor_core_kernels.py.)

// With stage-tiles, a tensor-core contraction stages its tiles in shared
// memory (StagedTiles.cpp). [128, 96] x [96, 256]: too few blocks for
// bigger warp tiles, so 32 x 32 blocks (4 x 8 = 32 of them), one group of
// 4 warps, k in 3 rounds of 32, each in a stage of its own. A stage: A's
// 32 x 32 tile with rows of 36, B's 32 x 32 with rows of 40 (rows of k),
// 2432 floats; 3 of them. The copies of the first 2 rounds go out (cp.async,
// 16 bytes, a commit group each) before the loop; each round waits until at
// most 1 younger group is in flight, synchronizes the block, issues the
// copies 2 rounds ahead (if any are left) as one more group, and makes 4
// products from its stage.
// CHECK: plan.launches = [#plan.launch<kernel = "kernel_0", grid = 32, block = 128, args = [0, 1, 2], strategy = staged_tiles, tile = <warp_m = 1, warp_n = 1, step = 32, stages = 3, groups = 1, mma = wmma>, contraction = <batch = 1, m = 128, n = 256, k = 96, a = row, b = row>>]
// CHECK: gpu.func @kernel_0
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<7296xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-SAME: plan.strategy = #plan.strategy<staged_tiles>
// The operands are read as flat arrays in the global address space.
// CHECK: %[[GA:.*]] = memref.memory_space_cast %arg0 : memref<128x96xf32> to memref<128x96xf32, #gpu.address_space<global>>
// CHECK: memref.reinterpret_cast %[[GA]] to offset: [0], sizes: [12288], strides: [1]
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 256 : index} : memref<32768xf32, strided<[1]>, #gpu.address_space<global>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: nvgpu.device_async_copy {{.*}}, %[[SMEM]][{{.*}}], 4 {bypassL1} : memref<12288xf32, strided<[1]>, #gpu.address_space<global>> to memref<7296xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3{{.*}} step
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK-COUNT-4: gpu.subgroup_mma_compute
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix
func.func @main(%a: memref<128x96xf32>, %b: memref<96x256xf32>, %c: memref<128x256xf32>) {
  linalg.matmul ins(%a, %b : memref<128x96xf32>, memref<96x256xf32>) outs(%c : memref<128x256xf32>)
  return
}

// -----

// One 32 x 32 block tile and k of 1024: 4 groups (512 threads) each sum a
// quarter of k, in rounds of 16 through 2 stages (2560 floats a group: 3
// stages, or rounds of 32, would pass 48 KiB). After the rounds, a barrier;
// groups 1..3 leave their sums where their tiles were, and group 0 adds
// them to C after another barrier.
// CHECK: plan.launches = [#plan.launch<kernel = "kernel_0", grid = 1, block = 512, args = [0, 1, 2], strategy = staged_tiles, tile = <warp_m = 1, warp_n = 1, step = 16, stages = 2, groups = 4, mma = wmma>, contraction = <batch = 1, m = 32, n = 32, k = 1024, a = row, b = row>>]
// CHECK: gpu.func @kernel_0
// CHECK-SAME: memref<10240xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %{{.*}}[%{{.*}}] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<10240xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-3: gpu.subgroup_mma_elementwise  addf
func.func @main(%a: memref<32x1024xf32>, %b: memref<1024x32xf32>, %c: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x1024xf32>, memref<1024x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// 16 rows would leave half of every 32-row block tile empty: the
// warp-a-tile kernel of TensorCores.cpp instead.
// CHECK: strategy = tensor_cores>
// CHECK: gpu.func @kernel_0
// CHECK-SAME: plan.strategy = #plan.strategy<tensor_cores>
func.func @main(%a: memref<16x8xf32>, %b: memref<8x256xf32>, %c: memref<16x256xf32>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x256xf32>) outs(%c : memref<16x256xf32>)
  return
}
