// RUN: infer-opt %s -split-input-file --infer-cuda-fuse-epilogues --infer-outline-kernels=root-arguments=true "--infer-cuda-map-to-gpu=stage-tiles=true tile-plan=mma=wmma" | FileCheck %s
// (WMMA asked for: these check its IR; mma.sync, the default, is checked by
// tile-plan.test and test/python/test_tensor_core_kernels.py.)

// A staged-tile kernel (StagedTiles.cpp) with its prologue and epilogue
// (TensorCoreFusion.h). The MLP pattern: the fill makes the sums start
// from zeros (no barrier needed: it touches no shared memory); after the
// rounds and a barrier, each warp stores its fragment into its own 16x16
// floats at the start of the scratch (group 0's staged tiles, free by
// then), and its lanes apply bias + ReLU, writing y, not C.
// CHECK: plan.launches = [#plan.launch<kernel = "kernel_0", grid = 32, block = 128, args = [4, 0, 1, 2, 3], strategy = staged_tiles, tile = <warp_m = 1, warp_n = 1, step = 32, stages = 3, groups = 1, mma = wmma>, contraction = <batch = 1, m = 128, n = 256, k = 96, a = row, b = row>>]
// CHECK: gpu.func @kernel_0
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<7296xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TILES:.*]] = memref.reinterpret_cast %[[SMEM]] to offset: [0], sizes: [4, 16, 16], strides: [256, 16, 1]
// CHECK: scf.if
// CHECK-NEXT: gpu.subgroup_mma_constant_matrix
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: arith.constant -1
// CHECK-NEXT: nvvm.bar.warp.sync
// CHECK-NEXT: gpu.subgroup_mma_store_matrix %{{.*}}, %[[TILES]]
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.for
// CHECK: memref.load %[[TILES]]
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %arg4
// CHECK-NOT: gpu.subgroup_mma_store_matrix
// CHECK: gpu.return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: memref<128x96xf32>, %w: memref<96x256xf32>, %bias: memref<256xf32>,
                %y: memref<128x256xf32>, %arena: memref<131072xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<131072xi8> to memref<128x256xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<128x256xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<128x96xf32>, memref<96x256xf32>) outs(%t : memref<128x256xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<128x256xf32>, memref<256xf32>) outs(%y : memref<128x256xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}


// -----

// A residual plus bias as C's start, and 4 groups splitting k of 1024.
// Group 0's warps run the prologue through their tiles and load the
// fragment from there; a block barrier follows, since the first rounds'
// copies go over those floats. At the end groups 1.. publish their
// sums past group 0's floats (at 2560 floats a group), and group 0 adds
// them and runs the ReLU.
// CHECK: strategy = staged_tiles
// CHECK: gpu.func @kernel_0
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<10240xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TILES:.*]] = memref.reinterpret_cast %[[SMEM]] to offset: [0], sizes: [4, 16, 16]
// CHECK: scf.if
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[TILES]]
// CHECK: nvvm.bar.warp.sync
// CHECK-NEXT: gpu.subgroup_mma_load_matrix %[[TILES]]
// CHECK: } else {
// CHECK-NEXT: gpu.subgroup_mma_constant_matrix
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-COUNT-3: gpu.subgroup_mma_elementwise  addf
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[TILES]]
// CHECK: arith.maximumf

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: memref<32x1024xf32>, %w: memref<1024x32xf32>, %bias: memref<32xf32>,
                %res: memref<32x32xf32>, %y: memref<32x32xf32>, %arena: memref<4096xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<4096xi8> to memref<32x32xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%res, %bias : memref<32x32xf32>, memref<32xf32>) outs(%t : memref<32x32xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x1024xf32>, memref<1024x32xf32>) outs(%t : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}
