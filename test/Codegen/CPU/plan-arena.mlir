// RUN: infer-opt %s --infer-plan-arena | FileCheck %s

// Top-level static allocations become views into one arena argument at
// liveness-planned offsets: %a dies when %c is made, so %c reuses its bytes.
// The result buffer (%out) is the caller's and is left alone.

// CHECK: module attributes {infer.arena = {buffers = 3 : i64, bytes = 8192 : i64, lower_bound = 8192 : i64, no_reuse = 12288 : i64}}
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %{{.*}}: memref<1024xf32>, %[[OUT:.*]]: memref<1024xf32>, %[[ARENA:.*]]: memref<8192xi8>)
// CHECK-NOT: memref.alloc
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK: memref.view %[[ARENA]][%[[C4096]]][] : memref<8192xi8> to memref<1024xf32>
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0B]]][] : memref<8192xi8> to memref<1024xf32>
func.func @main(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  linalg.copy ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
  %b = memref.alloc() : memref<1024xf32>
  linalg.copy ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>)
  %c = memref.alloc() : memref<1024xf32>
  %cast = memref.cast %c : memref<1024xf32> to memref<?xf32>
  linalg.copy ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>)
  %outcast = memref.cast %out : memref<1024xf32> to memref<?xf32>
  linalg.copy ins(%cast : memref<?xf32>) outs(%outcast : memref<?xf32>)
  return
}
