// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that Reshape becomes tensor.reshape to a constant holding the static
// result shape.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // CHECK: %[[SHAPE:.+]] = arith.constant dense<[6, 4]> : tensor<2xi64>
  // CHECK: %[[R:.+]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  // CHECK: return %[[R]]
  %s = infer.constant dense<[6, -1]> : tensor<2xi64>
  %y = infer.reshape %x, %s {allow_zero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// Tests that Flatten becomes tensor.reshape to the 2-D result shape.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  // CHECK: %[[SHAPE:.+]] = arith.constant dense<[2, 12]> : tensor<2xi64>
  // CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %y = infer.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %y : tensor<2x12xf32>
}

// -----

// Tests that Squeeze and Unsqueeze become tensor.reshape.
// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK-SAME: %[[X:.+]]: tensor<1x3x4xf32>, %[[Y:.+]]: tensor<3x4xf32>
func.func @squeeze_unsqueeze(%x: tensor<1x3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x1x4xf32>) {
  // CHECK-DAG: %[[SQ:.+]] = arith.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK-DAG: %[[UNSQ:.+]] = arith.constant dense<[3, 1, 4]> : tensor<3xi64>
  // CHECK: tensor.reshape %[[X]](%[[SQ]]) : (tensor<1x3x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  // CHECK: tensor.reshape %[[Y]](%[[UNSQ]]) : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x4xf32>
  %s = infer.squeeze %x {axes = array<i64: 0>} : tensor<1x3x4xf32> -> tensor<3x4xf32>
  %u = infer.unsqueeze %y {axes = array<i64: 1>} : tensor<3x4xf32> -> tensor<3x1x4xf32>
  return %s, %u : tensor<3x4xf32>, tensor<3x1x4xf32>
}

// -----

// Tests that Transpose becomes linalg.transpose with the same permutation.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  // CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x2x3xf32>
  // CHECK: linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %y = infer.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %y : tensor<4x2x3xf32>
}

// -----

// Tests that Concat inserts each input into an empty tensor at the running
// offset along the axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<2x8xf32>
  // CHECK: %[[FIRST:.+]] = tensor.insert_slice %[[A]] into %[[EMPTY]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
  // CHECK: %[[BOTH:.+]] = tensor.insert_slice %[[B]] into %[[FIRST]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
  // CHECK: return %[[BOTH]]
  %y = infer.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// Tests that Split extracts one slice per result at the running offset.
// CHECK-LABEL: func.func @split
// CHECK-SAME: %[[X:.+]]: tensor<2x9xf32>
func.func @split(%x: tensor<2x9xf32>) -> (tensor<2x3xf32>, tensor<2x6xf32>) {
  // CHECK: %[[A:.+]] = tensor.extract_slice %[[X]][0, 0] [2, 3] [1, 1] : tensor<2x9xf32> to tensor<2x3xf32>
  // CHECK: %[[B:.+]] = tensor.extract_slice %[[X]][0, 3] [2, 6] [1, 1] : tensor<2x9xf32> to tensor<2x6xf32>
  // CHECK: return %[[A]], %[[B]]
  %a, %b = infer.split %x {axis = 1 : i64, sizes = array<i64: 3, 6>} : tensor<2x9xf32> -> tensor<2x3xf32>, tensor<2x6xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x6xf32>
}

// -----

// Tests that a Slice with positive steps is one strided tensor.extract_slice.
// CHECK-LABEL: func.func @slice_positive_step
// CHECK-SAME: %[[X:.+]]: tensor<4x10xf32>
func.func @slice_positive_step(%x: tensor<4x10xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[R:.+]] = tensor.extract_slice %[[X]][0, 1] [4, 3] [1, 3] : tensor<4x10xf32> to tensor<4x3xf32>
  // CHECK: return %[[R]]
  %st = infer.constant dense<1> : tensor<1xi64>
  %en = infer.constant dense<8> : tensor<1xi64>
  %ax = infer.constant dense<1> : tensor<1xi64>
  %sp = infer.constant dense<3> : tensor<1xi64>
  %y = infer.slice %x, %st, %en, %ax, %sp : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// Tests that a Slice with a negative step is an output-only generic reading
// input[i, j * step + start] (start -1 normalized to 9) with tensor.extract.
// CHECK-LABEL: func.func @slice_negative_step
// CHECK-SAME: %[[X:.+]]: tensor<4x10xf32>
func.func @slice_negative_step(%x: tensor<4x10xf32>) -> tensor<4x5xf32> {
  // CHECK-DAG: %[[START:.+]] = arith.constant 9 : index
  // CHECK-DAG: %[[STEP:.+]] = arith.constant -2 : index
  // CHECK-NOT: tensor.extract_slice
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel"]
  // CHECK-SAME: outs(%{{.+}} : tensor<4x5xf32>)
  // CHECK: %[[I:.+]] = linalg.index 0 : index
  // CHECK: %[[J:.+]] = linalg.index 1 : index
  // CHECK: %[[JS:.+]] = arith.muli %[[J]], %[[STEP]] : index
  // CHECK: %[[COL:.+]] = arith.addi %[[JS]], %[[START]] : index
  // CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[COL]]] : tensor<4x10xf32>
  // CHECK: linalg.yield %[[V]] : f32
  %st = infer.constant dense<-1> : tensor<1xi64>
  %en = infer.constant dense<-11> : tensor<1xi64>
  %ax = infer.constant dense<1> : tensor<1xi64>
  %sp = infer.constant dense<-2> : tensor<1xi64>
  %y = infer.slice %x, %st, %en, %ax, %sp : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// Tests that Gather iterates the result, reads the indices through a map
// over the gathered dims, wraps negative indices, clamps into range, and
// reads the data with tensor.extract.
// CHECK-DAG: #[[$IDX:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: %[[DATA:.+]]: tensor<4x10x8xf32>, %[[IDS:.+]]: tensor<3xi64>
func.func @gather(%t: tensor<4x10x8xf32>, %i: tensor<3xi64>) -> tensor<4x3x8xf32> {
  // CHECK-DAG: %[[LAST:.+]] = arith.constant 9 : index
  // CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : index
  // CHECK-DAG: %[[DIM:.+]] = arith.constant 10 : index
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$IDX]], #[[$ID3]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
  // CHECK-SAME: ins(%[[IDS]] : tensor<3xi64>)
  // CHECK: ^bb0(%[[ID:.+]]: i64, %{{.+}}: f32):
  // CHECK: %[[IX:.+]] = arith.index_cast %[[ID]] : i64 to index
  // CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[IX]], %[[ZERO]] : index
  // CHECK: %[[WRAPPED:.+]] = arith.addi %[[IX]], %[[DIM]] : index
  // CHECK: %[[SEL:.+]] = arith.select %[[NEG]], %[[WRAPPED]], %[[IX]] : index
  // CHECK: %[[LO:.+]] = arith.maxsi %[[SEL]], %[[ZERO]] : index
  // CHECK: %[[IN:.+]] = arith.minsi %[[LO]], %[[LAST]] : index
  // CHECK: %[[D0:.+]] = linalg.index 0 : index
  // CHECK: %[[D2:.+]] = linalg.index 2 : index
  // CHECK: %[[V:.+]] = tensor.extract %[[DATA]][%[[D0]], %[[IN]], %[[D2]]] : tensor<4x10x8xf32>
  // CHECK: linalg.yield %[[V]] : f32
  %y = infer.gather %t, %i {axis = 1 : i64} : (tensor<4x10x8xf32>, tensor<3xi64>) -> tensor<4x3x8xf32>
  return %y : tensor<4x3x8xf32>
}

// -----

// Tests that constant Pad becomes tensor.pad with the begin pads low, the
// end pads high, yielding the scalar read from the value operand.
// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME: %[[X:.+]]: tensor<1x3x4x4xf32>, %[[V:.+]]: tensor<f32>
func.func @pad_constant(%x: tensor<1x3x4x4xf32>, %v: tensor<f32>) -> tensor<1x3x6x7xf32> {
  // CHECK: %[[SCALAR:.+]] = tensor.extract %[[V]][] : tensor<f32>
  // CHECK: %[[R:.+]] = tensor.pad %[[X]] low[0, 0, 1, 2] high[0, 0, 1, 1]
  // CHECK: tensor.yield %[[SCALAR]] : f32
  // CHECK: } : tensor<1x3x4x4xf32> to tensor<1x3x6x7xf32>
  // CHECK: return %[[R]]
  %p = infer.constant dense<[0, 0, 1, 2, 0, 0, 1, 1]> : tensor<8xi64>
  %y = infer.pad %x, %p, %v {mode = "constant"} : (tensor<1x3x4x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x6x7xf32>
  return %y : tensor<1x3x6x7xf32>
}

// -----

// Tests that Expand is a copying generic whose input map reads index 0 in
// the stretched dims.
// CHECK-DAG: #[[$BCAST:.+]] = affine_map<(d0, d1, d2) -> (0, 0, d2)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand
// CHECK-SAME: %[[X:.+]]: tensor<1x1x5xf32>
func.func @expand(%x: tensor<1x1x5xf32>) -> tensor<4x3x5xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$BCAST]], #[[$ID3]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
  // CHECK-SAME: ins(%[[X]] : tensor<1x1x5xf32>)
  // CHECK: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
  // CHECK-NEXT: linalg.yield %[[V]] : f32
  %s = infer.constant dense<[4, 3, 5]> : tensor<3xi64>
  %y = infer.expand %x, %s : (tensor<1x1x5xf32>, tensor<3xi64>) -> tensor<4x3x5xf32>
  return %y : tensor<4x3x5xf32>
}

// -----

// Tests that Constant becomes arith.constant with the same value.
// CHECK-LABEL: func.func @constant
func.func @constant() -> tensor<2x2xf32> {
  // CHECK: %[[C:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK-NOT: infer.constant
  // CHECK: return %[[C]]
  %c = infer.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// -----

// Tests that edge Pad reads the input at indices clamped into it; a dim
// without pads is read as it is.
// CHECK-LABEL: func.func @pad_edge
// CHECK-SAME: %[[X:.+]]: tensor<3x4xf32>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<5x4xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[J:.+]] = arith.subi %[[I]], %[[C1]] : index
// CHECK: %[[LO:.+]] = arith.maxsi %[[J]], %[[C0]] : index
// CHECK: %[[ROW:.+]] = arith.minsi %[[LO]], %[[C2]] : index
// CHECK: %[[E:.+]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @pad_edge(%x: tensor<3x4xf32>, %v: tensor<f32>) -> tensor<5x4xf32> {
  %p = infer.constant dense<[1, 0, 1, 0]> : tensor<4xi64>
  %y = infer.pad %x, %p, %v {mode = "edge"} : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<5x4xf32>
  return %y : tensor<5x4xf32>
}

// -----

// Tests that reflect Pad folds an index before the start (|j|) and one past
// the end (2(n-1) - j) back into the input.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[J:.+]] = arith.subi %[[I]], %[[C2]] : index
// CHECK: %[[NEG:.+]] = arith.subi %[[C0]], %[[J]] : index
// CHECK: %[[ABS:.+]] = arith.maxsi %[[J]], %[[NEG]] : index
// CHECK: %[[BACK:.+]] = arith.subi %[[C6]], %[[ABS]] : index
// CHECK: arith.minsi %[[ABS]], %[[BACK]] : index
func.func @pad_reflect(%x: tensor<2x4xf32>, %v: tensor<f32>) -> tensor<2x9xf32> {
  %p = infer.constant dense<[0, 2, 0, 3]> : tensor<4xi64>
  %y = infer.pad %x, %p, %v {mode = "reflect"} : (tensor<2x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// -----

// Tests that wrap Pad lifts the index by whole periods before the remainder
// (remsi keeps the dividend's sign) and that a crop by constant Pad selects
// the padding value outside the input instead of reading there.
// CHECK-LABEL: func.func @pad_wrap
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[J:.+]] = arith.subi %[[I]], %[[C4]] : index
// CHECK: %[[UP:.+]] = arith.addi %[[J]], %[[C6]] : index
// CHECK: arith.remsi %[[UP]], %[[C3]] : index
func.func @pad_wrap(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<2x8xf32> {
  %p = infer.constant dense<[0, 4, 0, 1]> : tensor<4xi64>
  %y = infer.pad %x, %p, %v {mode = "wrap"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @pad_crop
// CHECK-SAME: %[[X:.+]]: tensor<3x4xf32>, %[[V:.+]]: tensor<f32>
// CHECK: %[[IN:.+]] = arith.andi
// CHECK: %[[E:.+]] = tensor.extract %[[X]]
// CHECK: %[[PV:.+]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: %[[S:.+]] = arith.select %[[IN]], %[[E]], %[[PV]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @pad_crop(%x: tensor<3x4xf32>, %v: tensor<f32>) -> tensor<3x4xf32> {
  %p = infer.constant dense<[0, -1, 0, 1]> : tensor<4xi64>
  %y = infer.pad %x, %p, %v {mode = "constant"} : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// Tests that Trilu keeps x where column - row >= k (upper) and yields 0
// elsewhere.
// CHECK-LABEL: func.func @trilu_upper
// CHECK-DAG: %[[K:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[OFF:.+]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK: %[[KEEP:.+]] = arith.cmpi sge, %[[OFF]], %[[K]] : index
// CHECK: arith.select %[[KEEP]], %[[IN]], %[[ZERO]] : f32
func.func @trilu_upper(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %k = infer.constant dense<1> : tensor<i64>
  %y = infer.trilu %x, %k {upper = true} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

// Tests that GatherElements reads the data at the index from `indices` along
// the axis (wrapped when negative, clamped into the data) and at its own
// index elsewhere.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x2xi64>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK: linalg.generic {{.*}}ins(%[[I]] : tensor<2x2xi64>)
// CHECK: ^bb0(%[[IN:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[IDX:.+]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[IDX]], %[[C0]] : index
// CHECK: %[[UP:.+]] = arith.addi %[[IDX]], %[[C3]] : index
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[IDX]] : index
// CHECK: %[[LO:.+]] = arith.maxsi %[[W]], %[[C0]] : index
// CHECK: %[[COL:.+]] = arith.minsi %[[LO]], %[[C2]] : index
// CHECK: %[[ROW:.+]] = linalg.index 0 : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<2x3xf32>
func.func @gather_elements(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %y = infer.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Tests that DepthToSpace (DCR) reads channel bh*bs*C' + bw*C' + c at
// [h / bs, w / bs], bh = h mod bs, bw = w mod bs (bs = 2, C' = 2).
// CHECK-LABEL: func.func @depth_to_space
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x2x3xf32>
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[W:.+]] = linalg.index 3 : index
// CHECK: %[[BH:.+]] = arith.remui %[[H]], %[[C2]] : index
// CHECK: %[[BW:.+]] = arith.remui %[[W]], %[[C2]] : index
// CHECK: %[[BWC:.+]] = arith.muli %[[BW]], %[[C2]] : index
// CHECK: %[[BHC:.+]] = arith.muli %[[BH]], %[[C4]] : index
// CHECK: %[[SUM:.+]] = arith.addi %[[BHC]], %[[BWC]] : index
// CHECK: %[[CH:.+]] = arith.addi %[[SUM]], %[[C]] : index
// CHECK: %[[IH:.+]] = arith.divui %[[H]], %[[C2]] : index
// CHECK: %[[IW:.+]] = arith.divui %[[W]], %[[C2]] : index
// CHECK: tensor.extract %[[X]][%{{.+}}, %[[CH]], %[[IH]], %[[IW]]]
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %y = infer.depth_to_space %x {block_size = 2 : i64, mode = "DCR"} : tensor<1x8x2x3xf32> -> tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

// Tests that Tile reads index mod n in each repeated dim and the index
// itself in the others.
// CHECK-LABEL: func.func @tile
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[R:.+]] = linalg.index 0 : index
// CHECK: %[[C:.+]] = linalg.index 1 : index
// CHECK: %[[WRAP:.+]] = arith.remui %[[R]], %[[C2]] : index
// CHECK: tensor.extract %[[X]][%[[WRAP]], %[[C]]] : tensor<2x3xf32>
func.func @tile(%x: tensor<2x3xf32>) -> tensor<6x3xf32> {
  %r = infer.constant dense<[3, 1]> : tensor<2xi64>
  %y = infer.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<6x3xf32>
  return %y : tensor<6x3xf32>
}

// -----

// Tests that GatherND reads each index of a tuple from `indices` (at the
// output's position and the tuple's place), wraps and clamps it, and reads
// the data's trailing dims at the output's own indices.
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: %[[D:[^:]+]]: tensor<4x5x3xf32>, %[[I:[^:]+]]: tensor<2x2xi64>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK: %[[P:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[I]][%[[P]], %[[C0]]] : tensor<2x2xi64>
// CHECK: %[[A:.+]] = arith.minsi
// CHECK: tensor.extract %[[I]][%[[P]], %[[C1]]] : tensor<2x2xi64>
// CHECK: %[[B:.+]] = arith.minsi
// CHECK: tensor.extract %[[D]][%[[A]], %[[B]], %[[J]]] : tensor<4x5x3xf32>
func.func @gather_nd(%d: tensor<4x5x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %y = infer.gather_nd %d, %i {batch_dims = 0 : i64} : (tensor<4x5x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
