// RUN: infer-opt %s --infer-outline-kernels=root-arguments=true --infer-cuda-map-to-gpu=allow-tf32=false | FileCheck %s

// Each outlined kernel becomes a gpu.func of one GPU module taking whole
// buffers (the view is cloned into the kernel); its parallel loop is spread
// over threads, linear id = block id x 256 + thread id, with a bounds check.
// The host functions are gone: the launches are data on the module.
// (999 elements: not a multiple of 4, so one element a thread; see
// vector-accesses.mlir for 4.)

// CHECK: module attributes {gpu.container_module
// CHECK-SAME: plan.launches = [#plan.launch<kernel = "kernel_0", grid = 4, block = 256, args = [0, 1], strategy = simt>]
// CHECK-NOT: func.func
// CHECK: gpu.module @kernels
// CHECK: gpu.func @kernel_0(%[[IN:.*]]: memref<999xf32>, %[[ARENA:.*]]: memref<4096xi8>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[VIEW:.*]] = memref.view %[[ARENA]]
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: scf.if
// CHECK: memref.load %[[IN]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[VIEW]]
#id = affine_map<(d0) -> (d0)>
func.func @main(%in: memref<999xf32>, %arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %view = memref.view %arena[%c0][] : memref<4096xi8> to memref<999xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<999xf32>) outs(%view : memref<999xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}
