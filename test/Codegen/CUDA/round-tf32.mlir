// RUN: infer-opt %s --infer-nvvm-round-tf32 | FileCheck %s

// The A and B fragments of a TF32 product: every register rounded to
// nearest (cvt.rna.tf32.f32) before anything reads the fragment. The
// accumulator's float32 fragment and a float16 fragment are left alone.
// CHECK-LABEL: llvm.func @fragments
// CHECK: %[[A:.*]] = nvvm.wmma.load %{{.*}} {eltype = #nvvm.mma_type<tf32>, frag = #nvvm.mma_frag<a>
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[A]][0]
// CHECK: %[[F0:.*]] = llvm.bitcast %[[A0]] : i32 to f32
// CHECK: %[[T0:.*]] = nvvm.convert.float.to.tf32 %[[F0]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: %[[R0:.*]] = llvm.insertvalue %[[T0]], %[[A]][0]
// CHECK-COUNT-3: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: %[[RA:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3]
// CHECK: %[[B:.*]] = nvvm.wmma.load %{{.*}} {eltype = #nvvm.mma_type<tf32>, frag = #nvvm.mma_frag<b>
// CHECK-COUNT-4: nvvm.convert.float.to.tf32
// CHECK: %[[RB:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[3]
// CHECK: %[[C:.*]] = nvvm.wmma.load %{{.*}} {eltype = #nvvm.mma_type<f32>, frag = #nvvm.mma_frag<c>
// CHECK-NEXT: %[[H:.*]] = nvvm.wmma.load %{{.*}} {eltype = #nvvm.mma_type<f16>, frag = #nvvm.mma_frag<a>
// CHECK-NOT: nvvm.convert.float.to.tf32
// CHECK: llvm.call @use(%[[RA]], %[[RB]], %[[C]], %[[H]])
llvm.func @use(!llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(i32, i32, i32, i32)>,
               !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>,
               !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>)
llvm.func @fragments(%p: !llvm.ptr, %stride: i32) {
  %a = nvvm.wmma.load %p, %stride {eltype = #nvvm.mma_type<tf32>, frag = #nvvm.mma_frag<a>, k = 8 : i32, layout = #nvvm.mma_layout<row>, m = 16 : i32, n = 16 : i32} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  %b = nvvm.wmma.load %p, %stride {eltype = #nvvm.mma_type<tf32>, frag = #nvvm.mma_frag<b>, k = 8 : i32, layout = #nvvm.mma_layout<row>, m = 16 : i32, n = 16 : i32} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  %c = nvvm.wmma.load %p, %stride {eltype = #nvvm.mma_type<f32>, frag = #nvvm.mma_frag<c>, k = 8 : i32, layout = #nvvm.mma_layout<row>, m = 16 : i32, n = 16 : i32} : (!llvm.ptr) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  %h = nvvm.wmma.load %p, %stride {eltype = #nvvm.mma_type<f16>, frag = #nvvm.mma_frag<a>, k = 16 : i32, layout = #nvvm.mma_layout<row>, m = 16 : i32, n = 16 : i32} : (!llvm.ptr) -> !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>
  llvm.call @use(%a, %b, %c, %h) : (!llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>) -> ()
  llvm.return
}
