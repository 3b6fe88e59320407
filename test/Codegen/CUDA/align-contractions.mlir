// The row fixes alone: without growth (max-growth-percent=0), which would
// otherwise take these odd widths to whole tiles (grow-contractions.mlir).
// RUN: infer-opt %s --infer-cuda-align-contractions=max-growth-percent=0 --mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s

// WMMA needs rows of a multiple of 4 floats. A constant B [k=8, n=17] is
// stored transposed ([17, 8], rows of 8) and read through the transposed
// map; the output's rows (17) get a padded home: the fill and the matmul
// write into a slice of a 16x24 tensor.empty.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @odd_n
// CHECK: %[[WIDE:.*]] = tensor.empty() : tensor<16x24xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[WIDE]][0, 0] [16, 17] [1, 1] : tensor<16x24xf32> to tensor<16x17xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<16x17xf32>)
// CHECK: %[[BCST:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 1.700000e+01, 3.400000e+01, 5.100000e+01, 6.800000e+01, 8.500000e+01, 1.020000e+02, 1.190000e+02], [1.000000e+00, 1.800000e+01, {{.*}}]> : tensor<17x8xf32>
// CHECK-NOT: tensor<8x17xf32>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]]
// CHECK-SAME: ins(%arg0, %[[BCST]] : tensor<16x8xf32>, tensor<17x8xf32>) outs(%[[FILL]] : tensor<16x17xf32>)
func.func @odd_n(%a: tensor<16x8xf32>) -> tensor<16x17xf32> {
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0], [34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0], [51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0], [68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0], [85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0], [102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0], [119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0]]> : tensor<8x17xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x17xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x17xf32>) -> tensor<16x17xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x17xf32>) outs(%fill : tensor<16x17xf32>) -> tensor<16x17xf32>
  return %c : tensor<16x17xf32>
}

// Aligned rows are left alone.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.matmul
func.func @aligned(%a: tensor<16x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x16xf32>) outs(%fill : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// Too small for a single tile (n = 5): nothing to gain, left alone.
// CHECK-LABEL: func.func @no_tile
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.matmul
func.func @no_tile(%a: tensor<16x8xf32>, %b: tensor<8x5xf32>) -> tensor<16x5xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x5xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x5xf32>) -> tensor<16x5xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x5xf32>) outs(%fill : tensor<16x5xf32>) -> tensor<16x5xf32>
  return %c : tensor<16x5xf32>
}

// An output that is not built on a tensor.empty (here an argument) cannot
// be padded: the op stays on the SIMT path, and so does its constant's
// layout (a transposed B would read uncoalesced there).
// CHECK-LABEL: func.func @unpaddable_output
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor<17x8xf32>
// CHECK: linalg.matmul
func.func @unpaddable_output(%a: tensor<16x8xf32>, %acc: tensor<16x17xf32>) -> tensor<16x17xf32> {
  %b = arith.constant dense<1.0> : tensor<8x17xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x17xf32>) outs(%acc : tensor<16x17xf32>) -> tensor<16x17xf32>
  return %c : tensor<16x17xf32>
}

// A fill with other users is padded all the same: they read the same
// elements through the slice.
// CHECK-LABEL: func.func @shared_init
// CHECK: %[[WIDE:.*]] = tensor.empty() : tensor<16x24xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[WIDE]]
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<16x17xf32>)
// CHECK: %[[C:.*]] = linalg.generic
// CHECK: return %[[C]], %[[FILL]]
func.func @shared_init(%a: tensor<16x8xf32>) -> (tensor<16x17xf32>, tensor<16x17xf32>) {
  %b = arith.constant dense<1.0> : tensor<8x17xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x17xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x17xf32>) -> tensor<16x17xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x17xf32>) outs(%fill : tensor<16x17xf32>) -> tensor<16x17xf32>
  return %c, %fill : tensor<16x17xf32>, tensor<16x17xf32>
}

// A convolution over a 7x7 map (ResNet-50's layer4) contracts over 49
// flattened positions: its im2col input and its output both have rows of
// 49. Each producer writes into a padded home (rows of 56), expanded back
// to its own 7x7 shape; the collapse_shapes read through the slices.
// CHECK-LABEL: func.func @conv_positions
// CHECK: %[[WIDE_IN:.*]] = tensor.empty() : tensor<8x56xf32>
// CHECK: %[[SLICE_IN:.*]] = tensor.extract_slice %[[WIDE_IN]][0, 0] [8, 49] [1, 1]
// CHECK: %[[HOME_IN:.*]] = tensor.expand_shape %[[SLICE_IN]] {{\[\[}}0], [1, 2]] output_shape [8, 7, 7]
// CHECK: linalg.generic {{.*}} outs(%[[HOME_IN]] : tensor<8x7x7xf32>)
// CHECK: %[[WIDE_OUT:.*]] = tensor.empty() : tensor<16x56xf32>
// CHECK: %[[SLICE_OUT:.*]] = tensor.extract_slice %[[WIDE_OUT]][0, 0] [16, 49] [1, 1]
// CHECK: %[[HOME_OUT:.*]] = tensor.expand_shape %[[SLICE_OUT]] {{\[\[}}0], [1, 2]] output_shape [16, 7, 7]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[HOME_OUT]] : tensor<16x7x7xf32>)
func.func @conv_positions(%x: tensor<8x7x7xf32>, %w: tensor<16x8xf32>) -> tensor<16x49xf32> {
  %empty_in = tensor.empty() : tensor<8x7x7xf32>
  %col = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<8x7x7xf32>) outs(%empty_in : tensor<8x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x7x7xf32>
  %col_flat = tensor.collapse_shape %col [[0], [1, 2]] : tensor<8x7x7xf32> into tensor<8x49xf32>
  %zero = arith.constant 0.0 : f32
  %empty_out = tensor.empty() : tensor<16x7x7xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty_out : tensor<16x7x7xf32>) -> tensor<16x7x7xf32>
  %init = tensor.collapse_shape %fill [[0], [1, 2]] : tensor<16x7x7xf32> into tensor<16x49xf32>
  %c = linalg.matmul ins(%w, %col_flat : tensor<16x8xf32>, tensor<8x49xf32>) outs(%init : tensor<16x49xf32>) -> tensor<16x49xf32>
  return %c : tensor<16x49xf32>
}

// A tensor.empty that other ops also write into (PP-OCR rec's classifier
// and its bias add share one) stays theirs; the fill gets a new padded one.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<16x17xf32>
// CHECK: %[[WIDE:.*]] = tensor.empty() : tensor<16x24xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[WIDE]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<16x17xf32>)
// CHECK: arith.constant dense<1.000000e+00> : tensor<17x8xf32>
// CHECK: linalg.generic
// CHECK: linalg.add ins(%{{.*}}, %{{.*}} : tensor<16x17xf32>, tensor<16x17xf32>) outs(%[[EMPTY]] : tensor<16x17xf32>)
func.func @shared_empty(%a: tensor<16x8xf32>, %bias: tensor<16x17xf32>) -> tensor<16x17xf32> {
  %b = arith.constant dense<1.0> : tensor<8x17xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x17xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x17xf32>) -> tensor<16x17xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x17xf32>) outs(%fill : tensor<16x17xf32>) -> tensor<16x17xf32>
  %d = linalg.add ins(%c, %bias : tensor<16x17xf32>, tensor<16x17xf32>) outs(%empty : tensor<16x17xf32>) -> tensor<16x17xf32>
  return %d : tensor<16x17xf32>
}

// An input that nothing writes in place (here an argument; in ResNet-50 a
// stride-2 slice) is copied into a padded home.
// CHECK-LABEL: func.func @copied_input
// CHECK: %[[WIDE:.*]] = tensor.empty() : tensor<16x24xf32>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[WIDE]][0, 0] [16, 17] [1, 1]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%arg0 : tensor<16x17xf32>) outs(%[[SLICE]] : tensor<16x17xf32>)
// CHECK: linalg.matmul ins(%[[COPY]], %arg1 : tensor<16x17xf32>, tensor<17x16xf32>)
func.func @copied_input(%a: tensor<16x17xf32>, %b: tensor<17x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<16x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x17xf32>, tensor<17x16xf32>) outs(%fill : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// A value that two contractions read is padded once: the second finds the
// padded home and needs no copy.
// CHECK-LABEL: func.func @two_readers
// CHECK: tensor.empty() : tensor<16x24xf32>
// CHECK-NOT: tensor.empty() : tensor<16x24xf32>
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @two_readers(%x: tensor<16x17xf32>, %b: tensor<17x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty_a = tensor.empty() : tensor<16x17xf32>
  %a = linalg.exp ins(%x : tensor<16x17xf32>) outs(%empty_a : tensor<16x17xf32>) -> tensor<16x17xf32>
  %empty = tensor.empty() : tensor<16x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x17xf32>, tensor<17x16xf32>) outs(%fill : tensor<16x16xf32>) -> tensor<16x16xf32>
  %empty2 = tensor.empty() : tensor<16x16xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%empty2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %d = linalg.matmul ins(%a, %b : tensor<16x17xf32>, tensor<17x16xf32>) outs(%fill2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %c, %d : tensor<16x16xf32>, tensor<16x16xf32>
}
