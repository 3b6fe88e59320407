// RUN: infer-opt %s --split-input-file --infer-cuda-promote-accumulators | FileCheck %s

// Tests that a thread's accumulator, loaded and stored at each step of a
// 3x3 window (a depthwise convolution's), is loaded once before the loops,
// carried through both as an iter_arg and stored once after them.
// CHECK-LABEL: gpu.func @window
// CHECK-SAME: %[[IN:[^:]+]]: memref<6x6xf32>, %[[W:[^:]+]]: memref<3x3xf32>, %[[OUT:[^:]+]]: memref<4x4xf32>
// CHECK: %[[I:.+]] = gpu.thread_id x
// CHECK: %[[J:.+]] = gpu.thread_id y
// CHECK: %[[INIT:.+]] = memref.load %[[OUT]][%[[I]], %[[J]]]
// CHECK: %[[R:.+]] = scf.for %[[KH:.+]] = {{.+}} iter_args(%[[A:.+]] = %[[INIT]]) -> (f32)
// CHECK: %[[INNER:.+]] = scf.for %[[KW:.+]] = {{.+}} iter_args(%[[B:.+]] = %[[A]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: %[[S:.+]] = arith.addf %[[B]], %[[P]]
// CHECK: scf.yield %[[S]] : f32
// CHECK: scf.yield %[[INNER]] : f32
// CHECK: memref.store %[[R]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: gpu.return
gpu.module @kernels {
  gpu.func @window(%in: memref<6x6xf32>, %w: memref<3x3xf32>, %out: memref<4x4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %i = gpu.thread_id x
    %j = gpu.thread_id y
    scf.for %kh = %c0 to %c3 step %c1 {
      scf.for %kw = %c0 to %c3 step %c1 {
        %acc = memref.load %out[%i, %j] : memref<4x4xf32>
        %r = arith.addi %i, %kh : index
        %c = arith.addi %j, %kw : index
        %x = memref.load %in[%r, %c] : memref<6x6xf32>
        %f = memref.load %w[%kh, %kw] : memref<3x3xf32>
        %p = arith.mulf %x, %f : f32
        %s = arith.addf %acc, %p : f32
        memref.store %s, %out[%i, %j] : memref<4x4xf32>
      }
    }
    gpu.return
  }
}

// -----

// Tests that an accumulator indexed by an outer loop's variable is carried
// through the inner loop only, the loads and stores around it in the outer.
// CHECK-LABEL: gpu.func @row_sums
// CHECK: scf.for %[[ROW:[^ ]+]] =
// CHECK-NEXT: %[[INIT:.+]] = memref.load %{{.+}}[%[[ROW]]]
// CHECK-NEXT: %[[R:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[INIT]]) -> (f32)
// CHECK: memref.store %[[R]], %{{.+}}[%[[ROW]]]
gpu.module @kernels {
  gpu.func @row_sums(%in: memref<4x8xf32>, %out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    scf.for %row = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c8 step %c1 {
        %acc = memref.load %out[%row] : memref<4xf32>
        %x = memref.load %in[%row, %k] : memref<4x8xf32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %out[%row] : memref<4xf32>
      }
    }
    gpu.return
  }
}

// -----

// Tests that nothing changes where the loop writes memory besides the
// accumulator (ArgMax's value and index, two stores), reads the
// accumulator's memref elsewhere, or waits at a barrier: a register copy
// could then differ from what memory holds.
// CHECK-LABEL: gpu.func @two_stores
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.store
// CHECK: memref.store
// CHECK-LABEL: gpu.func @reads_its_output
// CHECK-NOT: iter_args
// CHECK-LABEL: gpu.func @barrier
// CHECK-NOT: iter_args
// CHECK: gpu.barrier
gpu.module @kernels {
  gpu.func @two_stores(%in: memref<8xf32>, %best: memref<1xf32>, %at: memref<1xindex>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %k = %c0 to %c8 step %c1 {
      %b = memref.load %best[%c0] : memref<1xf32>
      %x = memref.load %in[%k] : memref<8xf32>
      %m = arith.maximumf %b, %x : f32
      memref.store %m, %best[%c0] : memref<1xf32>
      memref.store %k, %at[%c0] : memref<1xindex>
    }
    gpu.return
  }
  gpu.func @reads_its_output(%out: memref<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %k = %c1 to %c8 step %c1 {
      %acc = memref.load %out[%c0] : memref<8xf32>
      %x = memref.load %out[%k] : memref<8xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%c0] : memref<8xf32>
    }
    gpu.return
  }
  gpu.func @barrier(%in: memref<8xf32>, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %k = %c0 to %c8 step %c1 {
      %acc = memref.load %out[%c0] : memref<1xf32>
      %x = memref.load %in[%k] : memref<8xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%c0] : memref<1xf32>
      gpu.barrier
    }
    gpu.return
  }
}

// -----

// Tests that a value stored to the element just before the loops (a point
// group's bias) starts the accumulator itself, that store gone, and that
// loads of the element after the final store (the epilogue's) take the
// sum, but not past a store that may change it.
// CHECK-LABEL: gpu.func @bias_and_epilogue
// CHECK-SAME: %[[BIAS:[^:]+]]: memref<4xf32>, %{{[^:]+}}: memref<4x8xf32>, %[[OUT:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4xf32>
// CHECK: %[[B:.+]] = memref.load %[[BIAS]]
// CHECK-NOT: memref.store
// CHECK: %[[R:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[B]]) -> (f32)
// CHECK: memref.store %[[R]], %[[OUT]]
// CHECK: %[[RELU:.+]] = arith.maximumf %[[R]]
// CHECK: memref.store %[[RELU]], %[[Y]]
// CHECK: %[[AGAIN:.+]] = memref.load %[[OUT]]
// CHECK: memref.store %[[AGAIN]], %[[Y]]
gpu.module @kernels {
  gpu.func @bias_and_epilogue(%bias: memref<4xf32>, %in: memref<4x8xf32>, %out: memref<4xf32>,
                              %y: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %i = gpu.thread_id x
    %b = memref.load %bias[%i] : memref<4xf32>
    memref.store %b, %out[%i] : memref<4xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %acc = memref.load %out[%i] : memref<4xf32>
      %x = memref.load %in[%i, %k] : memref<4x8xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%i] : memref<4xf32>
    }
    %sum = memref.load %out[%i] : memref<4xf32>
    %relu = arith.maximumf %sum, %zero : f32
    memref.store %relu, %y[%i] : memref<4xf32>
    %again = memref.load %out[%i] : memref<4xf32>
    memref.store %again, %y[%i] : memref<4xf32>
    gpu.return
  }
}

// -----

// Tests that an scf.if that may store between the final store and a load
// of the element stops the forwarding (its nested store counts), and that
// one inside the loops stops the promotion.
// CHECK-LABEL: gpu.func @guarded_store_after
// CHECK: %[[R:.+]] = scf.for {{.+}} iter_args
// CHECK: memref.store %[[R]], %[[OUT:[^\[]+]]
// CHECK: scf.if
// CHECK: %[[AFTER:.+]] = memref.load %[[OUT]]
// CHECK: memref.store %[[AFTER]]
// CHECK-LABEL: gpu.func @guarded_store_inside
// CHECK-NOT: iter_args
gpu.module @kernels {
  gpu.func @guarded_store_after(%in: memref<8xf32>, %out: memref<1xf32>, %y: memref<1xf32>,
                                %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    scf.for %k = %c0 to %c8 step %c1 {
      %acc = memref.load %out[%c0] : memref<1xf32>
      %x = memref.load %in[%k] : memref<8xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%c0] : memref<1xf32>
    }
    scf.if %flag {
      memref.store %zero, %out[%c0] : memref<1xf32>
    }
    %after = memref.load %out[%c0] : memref<1xf32>
    memref.store %after, %y[%c0] : memref<1xf32>
    gpu.return
  }
  gpu.func @guarded_store_inside(%in: memref<8xf32>, %out: memref<1xf32>, %y: memref<1xf32>,
                                 %flag: i1) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %k = %c0 to %c8 step %c1 {
      %acc = memref.load %out[%c0] : memref<1xf32>
      %x = memref.load %in[%k] : memref<8xf32>
      %s = arith.addf %acc, %x : f32
      scf.if %flag {
        memref.store %x, %y[%c0] : memref<1xf32>
      }
      memref.store %s, %out[%c0] : memref<1xf32>
    }
    gpu.return
  }
}
