// RUN: infer-opt %s --infer-cuda-contract-multiply-adds | FileCheck %s

// Tests that the kernels' float products, sums and differences may contract
// into fma (fastmath<contract>, other flags kept), and that host code and
// other ops are left alone.
// CHECK-LABEL: gpu.func @window
// CHECK: arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK: arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK: arith.subf %{{.+}}, %{{.+}} fastmath<nnan,contract> : f32
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-LABEL: func.func @host
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
gpu.module @kernels {
  gpu.func @window(%a: f32, %b: f32, %c: f32, %out: memref<f32>) kernel {
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    %d = arith.subf %s, %a fastmath<nnan> : f32
    %q = arith.divf %d, %b : f32
    memref.store %q, %out[] : memref<f32>
    gpu.return
  }
}
func.func @host(%a: f32, %b: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  return %p : f32
}
