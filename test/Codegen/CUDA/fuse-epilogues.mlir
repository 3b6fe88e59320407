// RUN: infer-opt %s --split-input-file --infer-cuda-fuse-epilogues | FileCheck %s

// The MLP pattern after bufferization: a fill of C, the MatMul into C (read
// once: infer-cuda-prepare-epilogues marked it), and bias + ReLU reading C.
// All three become one region, where the epilogue was.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}ins(%[[C:.*]], %arg2 :
// CHECK: arith.maximumf
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: memref<32x64xf32>, %w: memref<64x32xf32>, %bias: memref<32xf32>,
                %y: memref<32x32xf32>, %arena: memref<8192xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x64xf32>, memref<64x32xf32>) outs(%t : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<32x32xf32>, memref<32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The epilogue writes where A lies in the arena (the planner may reuse A's
// bytes: A dies at the MatMul). In one kernel, warps still reading A would
// see it overwritten, so only the fill joins the MatMul.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic {{.*}}ins(%{{.*}}, %arg1 :
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%w: memref<32x32xf32>, %bias: memref<32xf32>, %arena: memref<8192xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %x = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  %t = memref.view %arena[%c4096][] : memref<8192xi8> to memref<32x32xf32>
  %y = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%t : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<32x32xf32>, memref<32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not marked read once: C may be read later, so the kernel must store it,
// and the epilogue stays a kernel of its own.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %y: memref<32x32xf32>,
                %arena: memref<8192xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%t : memref<32x32xf32>) {
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

// -----

// Bias + residual written over the residual, which is C's buffer (the
// output, accumulated in place): an in-place prologue, each element read
// before the kernel stores it. It joins; so does an epilogue that writes
// over all of C in place (then C need not be read once).
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg2, %arg3 : {{.*}}outs(%arg3 :
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}ins(%arg3 : {{.*}}outs(%arg3 :
// CHECK: scf.yield
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %bias: memref<32xf32>,
                %y: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %y : memref<32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%b: f32, %r: f32, %out: f32):
    %s = arith.addf %b, %r : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A prologue that reads C at other elements (its transpose): not grouped.
// A MatMul whose k (4) is less than one step of 8 is not for the tensor
// cores, but its k is short: it runs a thread an output, and its fill joins
// it as a point group.
// CHECK-LABEL: func.func @main
// CHECK-NOT: scf.execute_region
// CHECK: linalg.generic {{.*}}ins(%arg2 : memref<32x32xf32>) outs(%arg2
// CHECK-NOT: scf.execute_region
// CHECK: linalg.generic {{.*}}ins(%arg0, %arg1 :
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%arg5
// CHECK-NEXT: linalg.generic
// CHECK: scf.yield
// CHECK-NEXT: } {infer.point_group}
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %y: memref<32x32xf32>,
                %x2: memref<32x4xf32>, %w2: memref<4x32xf32>, %y2: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%r: f32, %out: f32):
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%y2 : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<32x4xf32>, memref<4x32xf32>) outs(%y2 : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A MatMul whose k (12) is one step of 8 and 4 more is for the tensor
// cores (the kernel takes the last 4 through shared memory): its fill joins
// it as its prologue, not as a point group.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg0, %arg1 : memref<32x12xf32>, memref<12x32xf32>)
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: infer.point_group
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%x: memref<32x12xf32>, %w: memref<12x32xf32>, %y: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x12xf32>, memref<12x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An epilogue that reads C twice, once through a transposed view: at a
// loop point the two are different elements, and a lane owns only one,
// so only the fill joins the MatMul.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %y: memref<32x32xf32>,
                %arena: memref<8192xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  %tt = memref.transpose %t (i, j) -> (j, i) : memref<32x32xf32> to memref<32x32xf32, strided<[1, 32]>>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%t : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %tt : memref<32x32xf32>, memref<32x32xf32, strided<[1, 32]>>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_t: f32, %out: f32):
    %s = arith.addf %in, %in_t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The fill, then a weight copied into its home, then the MatMul: the copy
// touches neither the fill's output nor anything the fill reads, so the
// fill moves down into the group. The bias-add prologue of the second
// MatMul reads %b, which the kernel in between writes: it stays.
// CHECK-LABEL: func.func @main
// CHECK: linalg.copy ins(%arg1 : {{.*}}) outs(%[[HOME:.*]] :
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg0, %[[HOME]] :
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg3 :
// CHECK: linalg.copy ins(%arg0 : {{.*}}) outs(%arg3 :
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %y: memref<32x32xf32>,
                %b: memref<32x32xf32>, %y2: memref<32x32xf32>, %arena: memref<8192xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %home = memref.view %arena[%c0][] : memref<8192xi8> to memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<32x32xf32>)
  linalg.copy ins(%w : memref<32x32xf32>) outs(%home : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %home : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<32x32xf32>) outs(%y2 : memref<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.copy ins(%x : memref<32x32xf32>) outs(%b : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%y2 : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Between the MatMul and its epilogue, the fill of the padded buffer whose
// interior the epilogue writes (infer-cuda-pads-in-place): it touches
// nothing of the MatMul's, so the MatMul moves down past it to the
// epilogue. A second MatMul (the residual branch, on other operands) sits
// between the first and the add that reads both: the add joins the first,
// which moves down past the second, and the second keeps its fill only (no
// group inside another).
// CHECK-LABEL: func.func @main
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[PADDED:.*]] : memref<34x34xf32>)
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}outs(%[[INTERIOR:.*]] : memref<32x32xf32, strided<[34, 1], offset: 35>>)
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg6, %arg2 :
// CHECK-NOT: scf.execute_region
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg0, %arg1 :
// CHECK-NOT: scf.execute_region
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : memref<32x32xf32>, memref<32x32xf32>) outs(%arg4 :
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<32x32xf32>, %w: memref<32x32xf32>, %w2: memref<32x32xf32>,
                %padded: memref<34x34xf32>, %y: memref<32x32xf32>, %arena: memref<16384xi8>,
                %x2: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4096 = arith.constant 4096 : index
  %c8192 = arith.constant 8192 : index
  %t = memref.view %arena[%c0][] : memref<16384xi8> to memref<32x32xf32>
  %interior = memref.subview %padded[1, 1] [32, 32] [1, 1] : memref<34x34xf32> to memref<32x32xf32, strided<[34, 1], offset: 35>>
  linalg.fill ins(%zero : f32) outs(%t : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%t : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%padded : memref<34x34xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x32xf32>) outs(%interior : memref<32x32xf32, strided<[34, 1], offset: 35>>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  %t1 = memref.view %arena[%c4096][] : memref<16384xi8> to memref<32x32xf32>
  %t2 = memref.view %arena[%c8192][] : memref<16384xi8> to memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%t1 : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32x32xf32>, memref<32x32xf32>) outs(%t1 : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%t2 : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x2, %w2 : memref<32x32xf32>, memref<32x32xf32>) outs(%t2 : memref<32x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t1, %t2 : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A contraction grown to whole tiles: C is a home of 48 rows whose leading
// 40 are the op's. Bias + residual write those 40 rows, and a copy takes
// them to the model output. Both join (the kernel loads C's 8 padding rows
// for the prologue and stores them after the epilogue); the copy becomes
// a generic.
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg2, %arg3 :
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}outs(%arg4 :
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: memref<48x32xf32>, %w: memref<32x32xf32>, %bias: memref<32xf32>,
                %r: memref<40x32xf32>, %y: memref<40x32xf32>, %arena: memref<6144xi8>) {
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<6144xi8> to memref<48x32xf32>
  %s = memref.subview %t[0, 0] [40, 32] [1, 1] : memref<48x32xf32> to memref<40x32xf32, strided<[32, 1]>>
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %r : memref<32xf32>, memref<40x32xf32>) outs(%s : memref<40x32xf32, strided<[32, 1]>>) {
  ^bb0(%b: f32, %in: f32, %out: f32):
    %v = arith.addf %b, %in : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<48x32xf32>, memref<32x32xf32>) outs(%t : memref<48x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %v = arith.addf %out, %m : f32
    linalg.yield %v : f32
  }
  linalg.copy ins(%s : memref<40x32xf32, strided<[32, 1]>>) outs(%y : memref<40x32xf32>)
  return
}

// -----

// The epilogue reads 40 rows of C from row 8 on: not a box from C's first
// element, so it stays a kernel of its own (and so does the copy).
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NOT: linalg.copy
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.copy
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @main(%x: memref<48x32xf32>, %w: memref<32x32xf32>, %y: memref<40x32xf32>,
                %arena: memref<6144xi8>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<6144xi8> to memref<48x32xf32>
  %s = memref.subview %t[8, 0] [40, 32] [1, 1] : memref<48x32xf32> to memref<40x32xf32, strided<[32, 1], offset: 256>>
  linalg.fill ins(%zero : f32) outs(%t : memref<48x32xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<48x32xf32>, memref<32x32xf32>) outs(%t : memref<48x32xf32>) attrs = {infer.read_once} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %v = arith.addf %out, %m : f32
    linalg.yield %v : f32
  }
  linalg.copy ins(%s : memref<40x32xf32, strided<[32, 1], offset: 256>>) outs(%y : memref<40x32xf32>)
  return
}

// -----

// A depthwise convolution (3x3, a thread an output): the bias written into
// C before it and batch norm + ReLU over C after it join it as a point
// group. A reduction of 64 or more, which runs a block per output, takes
// its fill as a block group (thread 0 of each block runs it).
// CHECK-LABEL: func.func @main
// CHECK: scf.execute_region no_inline {
// CHECK-NEXT: linalg.generic {{.*}}ins(%arg2 : memref<8xf32>) outs(%arg3 :
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: linalg.generic {{.*}}ins(%arg3, %arg2 : {{.*}}outs(%arg3 :
// CHECK: scf.yield
// CHECK-NEXT: } {infer.point_group}
// CHECK-NEXT: scf.execute_region no_inline {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: scf.yield
// CHECK-NEXT: } {infer.block_group}
// CHECK-NEXT: return
#bias = affine_map<(d0, d1, d2) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d2 + d4)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: memref<8x10x10xf32>, %w: memref<8x3x3xf32>, %b: memref<8xf32>,
                %y: memref<8x8x8xf32>, %long: memref<8x64xf32>, %s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : memref<8xf32>) outs(%y : memref<8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<8x10x10xf32>, memref<8x3x3xf32>) outs(%y : memref<8x8x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %v = arith.addf %out, %m : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<8x8x8xf32>, memref<8xf32>) outs(%y : memref<8x8x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %m = arith.mulf %in, %in_0 : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.generic {indexing_maps = [#rows, #sum], iterator_types = ["parallel", "reduction"]}
      ins(%long : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %out, %in : f32
    linalg.yield %v : f32
  }
  return
}
