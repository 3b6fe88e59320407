// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that Conv pads the spatial dims with zeros (begin pads low, end pads
// high), copies the padded input im2col-style (col[n, c, k0, k1, o0, o1] =
// padded[n, c, o * stride + k * dilation]), and contracts col with the
// weight into the bias broadcast along the channel dim, over the output
// positions flattened into one dim (o0 * 4 + o1).
// CHECK-DAG: #[[$BIAS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$COLREAD:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 2 + d3)>
// CHECK-DAG: #[[$ID6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5, d2)>
// CHECK-DAG: #[[$WK:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
// CHECK-DAG: #[[$FLAT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @conv_pads_strides_dilations_bias
// CHECK-SAME: %[[X:.+]]: tensor<1x3x9x9xf32>, %[[W:.+]]: tensor<8x3x3x3xf32>, %[[B:.+]]: tensor<8xf32>
func.func @conv_pads_strides_dilations_bias(%x: tensor<1x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  // CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 0]
  // CHECK: tensor.yield %[[ZERO]] : f32
  // CHECK: } : tensor<1x3x9x9xf32> to tensor<1x3x11x9xf32>
  // CHECK: %[[INIT:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$BIAS]], #[[$ID4]]]
  // CHECK-SAME: ins(%[[B]] : tensor<8xf32>)
  // CHECK: %[[COL:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$COLREAD]], #[[$ID6]]]
  // CHECK-SAME: ins(%[[PAD]] : tensor<1x3x11x9xf32>) outs(%{{.+}} : tensor<1x3x3x3x4x4xf32>)
  // CHECK: %[[COLFLAT:.+]] = tensor.collapse_shape %[[COL]] {{\[}}[0], [1], [2], [3], [4, 5]] : tensor<1x3x3x3x4x4xf32> into tensor<1x3x3x3x16xf32>
  // CHECK: %[[INITFLAT:.+]] = tensor.collapse_shape %[[INIT]] {{\[}}[0], [1], [2, 3]] : tensor<1x8x4x4xf32> into tensor<1x8x16xf32>
  // CHECK: %[[R:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$COL]], #[[$WK]], #[[$FLAT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
  // CHECK-SAME: ins(%[[COLFLAT]], %[[W]] : tensor<1x3x3x3x16xf32>, tensor<8x3x3x3xf32>) outs(%[[INITFLAT]] : tensor<1x8x16xf32>)
  // CHECK: ^bb0(%[[I:.+]]: f32, %[[K:.+]]: f32, %[[ACC:.+]]: f32):
  // CHECK: %[[P:.+]] = arith.mulf %[[I]], %[[K]] : f32
  // CHECK: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
  // CHECK: linalg.yield %[[S]] : f32
  // CHECK: %[[OUT:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 4, 4]
  // CHECK: return %[[OUT]]
  %y = infer.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 2, 1>, group = 1 : i64} : (tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// Tests that a depthwise Conv (group = C, two outputs per channel) reads
// input channel m floordiv 2, needs no tensor.pad without pads, and starts
// from a zero fill without bias.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 floordiv 2 + d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME: %[[X:.+]]: tensor<1x4x8x8xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK-NOT: tensor.pad
  // CHECK: %[[INIT:.+]] = linalg.fill
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$IN]], #[[$W]], #{{.+}}]
  // CHECK-SAME: ins(%[[X]], %[[W]] : tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) outs(%[[INIT]] : tensor<1x8x6x6xf32>)
  %y = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}

// -----

// Tests that a grouped Conv (2 groups, 3 outputs and 2 inputs per group)
// reads input channel (m floordiv 3) * 2 + c.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 3) * 2 + d4, d2 + d5, d3 + d6)>
// CHECK-LABEL: func.func @conv_grouped
func.func @conv_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$IN]],
  %y = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}

// -----

// Tests that an ungrouped ConvTranspose whose windows overlap (kernel 3,
// stride 2) spreads the input by the stride into a zero tensor (strided
// tensor.insert_slice at offset (k - 1) - pad; output_padding adds to the
// end), flips the weight with its channel dims swapped into a copy, and is
// then a stride-1 convolution like any other (im2col, flattened
// contraction).
// CHECK-DAG: #[[$FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @conv_transpose_strided
// CHECK-SAME: %[[X:.+]]: tensor<1x8x4x4xf32>, %[[W:.+]]: tensor<8x4x3x3xf32>, %[[B:.+]]: tensor<4xf32>
func.func @conv_transpose_strided(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x8x10x10xf32>)
  // CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 1, 1] [1, 8, 4, 4] [1, 1, 2, 2] : tensor<1x8x4x4xf32> into tensor<1x8x10x10xf32>
  // CHECK: %[[FLIPPED:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$FLIP]], #{{.+}}]
  // CHECK-SAME: ins(%[[W]] : tensor<8x4x3x3xf32>) outs(%{{.+}} : tensor<4x8x3x3xf32>)
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[B]] : tensor<4xf32>)
  // CHECK: %[[COL:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[SPREAD]] : tensor<1x8x10x10xf32>) outs(%{{.+}} : tensor<1x8x3x3x8x8xf32>)
  // CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[COL]]
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[FLAT]], %[[FLIPPED]] : tensor<1x8x3x3x64xf32>, tensor<4x8x3x3xf32>) outs(%{{.+}} : tensor<1x4x64xf32>)
  // CHECK: tensor.expand_shape
  %y = infer.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Tests that a ConvTranspose whose windows tile its output (kernel = stride
// = 2, no pads) is a contraction over the input channels alone, into the
// output viewed as [n, m, i, a, j, b] (i, j input positions, a, b taps):
// no spread input, no flipped weight, no im2col copy.
// CHECK-DAG: #[[$X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d6, d2, d4)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d6, d1, d3, d5)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @conv_transpose_tiled
// CHECK-SAME: %[[X:.+]]: tensor<1x8x4x4xf32>, %[[W:.+]]: tensor<8x4x2x2xf32>, %[[B:.+]]: tensor<4xf32>
func.func @conv_transpose_tiled(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK-NOT: tensor.insert_slice
  // CHECK: %[[BIAS:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[B]] : tensor<4xf32>) outs(%{{.+}} : tensor<1x4x8x8xf32>)
  // CHECK: %[[INIT:.+]] = tensor.expand_shape %[[BIAS]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 4, 4, 2, 4, 2]
  // CHECK: %[[T:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$X]], #[[$W]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]
  // CHECK-SAME: ins(%[[X]], %[[W]] : tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) outs(%[[INIT]] : tensor<1x4x4x2x4x2xf32>)
  // CHECK: tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x4x4x2x4x2xf32> into tensor<1x4x8x8xf32>
  %y = infer.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// Tests that a grouped ConvTranspose (2 groups of 4 input and 4 output
// channels) is one loop nest reading the weight flipped with its channel
// dims swapped; an unused [C/G, k...] operand gives the reduction loops
// their bounds.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 4) * 4 + d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ((d1 floordiv 4) * 4 + d4, d1 mod 4, -d5 + 1, -d6 + 1)>
// CHECK-DAG: #[[$EXTENT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_transpose_grouped
// CHECK-SAME: %[[X:.+]]: tensor<1x8x4x4xf32>, %[[W:.+]]: tensor<8x4x2x2xf32>
func.func @conv_transpose_grouped(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x2x2xf32>) -> tensor<1x8x8x8xf32> {
  // CHECK: %[[SPREAD:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 0, 1, 1] [1, 8, 4, 4] [1, 1, 2, 2]
  // CHECK: %[[EXT:.+]] = tensor.empty() : tensor<4x2x2xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$IN]], #[[$W]], #[[$EXTENT]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
  // CHECK-SAME: ins(%[[SPREAD]], %[[W]], %[[EXT]] : tensor<1x8x9x9xf32>, tensor<8x4x2x2xf32>, tensor<4x2x2xf32>)
  // CHECK: ^bb0(%[[I:.+]]: f32, %[[K:.+]]: f32, %{{.+}}: f32, %[[ACC:.+]]: f32):
  // CHECK: %[[P:.+]] = arith.mulf %[[I]], %[[K]] : f32
  // CHECK: arith.addf %[[ACC]], %[[P]] : f32
  %y = infer.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// Tests that MaxPool with ceil_mode pads the end with -inf so that the last
// window is in bounds, starts from -inf, and takes arith.maximumf over a
// window operand of the kernel's shape.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK-SAME: %[[X:.+]]: tensor<1x2x5x5xf32>
func.func @max_pool_ceil_mode(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
  // CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
  // CHECK: tensor.yield %[[NINF]] : f32
  // CHECK: } : tensor<1x2x5x5xf32> to tensor<1x2x6x6xf32>
  // CHECK: %[[WINDOW:.+]] = tensor.empty() : tensor<2x2xf32>
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NINF]] : f32)
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$IN]], #[[$WIN]], #[[$OUT]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
  // CHECK-SAME: ins(%[[PAD]], %[[WINDOW]] : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%[[INIT]] : tensor<1x2x3x3xf32>)
  // CHECK: ^bb0(%[[I:.+]]: f32, %{{.+}}: f32, %[[ACC:.+]]: f32):
  // CHECK: arith.maximumf %[[ACC]], %[[I]] : f32
  %y = infer.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// Tests that AveragePool without count_include_pad sums a zero-padded
// input, then divides by a constant tensor counting each window's cells
// inside the input (4, 6, 6 and 9 here), broadcast over batch and channel.
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$SPATIAL:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @average_pool_exclude_pad
// CHECK-SAME: %[[X:.+]]: tensor<1x2x4x4xf32>
func.func @average_pool_exclude_pad(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK-DAG: %[[COUNTS:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
  // CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
  // CHECK: tensor.yield %[[ZERO]] : f32
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32)
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: ins(%[[PAD]], %{{.+}} : tensor<1x2x6x6xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x2x2x2xf32>)
  // CHECK: ^bb0(%[[I:.+]]: f32, %{{.+}}: f32, %[[ACC:.+]]: f32):
  // CHECK: arith.addf %[[ACC]], %[[I]] : f32
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID4]], #[[$SPATIAL]], #[[$ID4]]]
  // CHECK-SAME: ins(%[[SUM]], %[[COUNTS]] : tensor<1x2x2x2xf32>, tensor<2x2xf32>)
  // CHECK: ^bb0(%[[S:.+]]: f32, %[[N:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.divf %[[S]], %[[N]] : f32
  %y = infer.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Tests that with count_include_pad every window counts its full 3x3 cells.
// CHECK-LABEL: func.func @average_pool_include_pad
func.func @average_pool_include_pad(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: arith.constant dense<9.000000e+00> : tensor<2x2xf32>
  %y = infer.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// Tests that GlobalAveragePool sums every spatial dim into the size-1 dims
// of the result (constant 0 in the output map) and divides by H * W.
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$RED:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME: %[[X:.+]]: tensor<1x2x4x4xf32>
func.func @global_average_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x1x1xf32> {
  // CHECK-DAG: %[[AREA:.+]] = arith.constant 1.600000e+01 : f32
  // CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32)
  // CHECK: %[[SUM:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID4]], #[[$RED]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
  // CHECK-SAME: ins(%[[X]] : tensor<1x2x4x4xf32>) outs(%[[INIT]] : tensor<1x2x1x1xf32>)
  // CHECK: arith.addf
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%[[SUM]] : tensor<1x2x1x1xf32>)
  // CHECK: ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.divf %[[S]], %[[AREA]] : f32
  %y = infer.global_average_pool %x : tensor<1x2x4x4xf32> -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

// Tests that nearest Resize (asymmetric, floor) is an output-only generic
// whose body computes floor(out / scale) per resized dim, clamps it into the
// input, and reads the input with tensor.extract; unresized dims read the
// loop index directly.
// CHECK-LABEL: func.func @resize_nearest
// CHECK-SAME: %[[X:.+]]: tensor<1x2x4x4xf32>
func.func @resize_nearest(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  // CHECK-DAG: %[[LAST:.+]] = arith.constant 3 : index
  // CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
  // CHECK-DAG: %[[SCALE:.+]] = arith.constant 2.000000e+00 : f32
  // CHECK: linalg.generic
  // CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
  // CHECK-SAME: outs(%{{.+}} : tensor<1x2x8x8xf32>)
  // CHECK: %[[C:.+]] = linalg.index 1 : index
  // CHECK: %[[H:.+]] = linalg.index 2 : index
  // CHECK: linalg.index 3 : index
  // CHECK: %[[HI:.+]] = arith.index_cast %[[H]] : index to i64
  // CHECK: %[[HF:.+]] = arith.sitofp %[[HI]] : i64 to f32
  // CHECK: %[[HS:.+]] = arith.divf %[[HF]], %[[SCALE]] : f32
  // CHECK: %[[HR:.+]] = math.floor %[[HS]] : f32
  // CHECK: %[[HN:.+]] = arith.fptosi %[[HR]] : f32 to i64
  // CHECK: %[[HX:.+]] = arith.index_cast %[[HN]] : i64 to index
  // CHECK: %[[HLO:.+]] = arith.maxsi %[[HX]], %[[C0]] : index
  // CHECK: %[[HIN:.+]] = arith.minsi %[[HLO]], %[[LAST]] : index
  // CHECK: math.floor
  // CHECK: %[[WIN:.+]] = arith.minsi %{{.+}}, %[[LAST]] : index
  // CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[C0]], %[[C]], %[[HIN]], %[[WIN]]] : tensor<1x2x4x4xf32>
  // CHECK: linalg.yield %[[V]] : f32
  %s = infer.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %y = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false} : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// -----

// Tests that a 1x1 stride-1 Conv has no window loops and flattens its
// spatial dims: a contraction over the input channels whose vector dim is
// h*w (35 here).
// CHECK-DAG: #[[$IN1:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$W1:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[$OUT1:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @conv_1x1
// CHECK: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : tensor<1x16x5x7xf32> into tensor<1x16x35xf32>
// CHECK: %[[W:.+]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : tensor<8x16x1x1xf32> into tensor<8x16xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [#[[$IN1]], #[[$W1]], #[[$OUT1]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[W]] :
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 5, 7] : tensor<1x8x35xf32> into tensor<1x8x5x7xf32>
func.func @conv_1x1(%x: tensor<1x16x5x7xf32>, %w: tensor<8x16x1x1xf32>) -> tensor<1x8x5x7xf32> {
  %y = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x16x5x7xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x5x7xf32>
  return %y : tensor<1x8x5x7xf32>
}

// -----

// Tests that a 1x1 stride-2 Conv (ResNet's projections) takes every other
// input row and column with one strided slice, then is the same
// contraction as a stride-1 one.
// CHECK-LABEL: func.func @conv_1x1_strided
// CHECK: %[[SUB:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 16, 3, 4] [1, 1, 2, 2] : tensor<1x16x5x7xf32> to tensor<1x16x3x4xf32>
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[SUB]] {{\[}}[0], [1], [2, 3]] : tensor<1x16x3x4xf32> into tensor<1x16x12xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[FLAT]],
func.func @conv_1x1_strided(%x: tensor<1x16x5x7xf32>, %w: tensor<8x16x1x1xf32>) -> tensor<1x8x3x4xf32> {
  %y = infer.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x16x5x7xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x3x4xf32>
  return %y : tensor<1x8x3x4xf32>
}

// -----

// Tests that a Conv with a unit window dim (1x3, as PP-OCR rec has) reads
// its weight [m, c, 1, 3] collapsed to [m, c, 3]: the contraction's maps
// are then projected permutations (no constant 0 for kh), which both back
// ends need to treat it as a contraction.
// CHECK-DAG: #[[$W13:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-LABEL: func.func @conv_unit_window_dim
// CHECK-SAME: %[[X:.+]]: tensor<1x4x1x8xf32>, %[[W:.+]]: tensor<6x4x1x3xf32>
func.func @conv_unit_window_dim(%x: tensor<1x4x1x8xf32>, %w: tensor<6x4x1x3xf32>) -> tensor<1x6x1x8xf32> {
  // CHECK: %[[WF:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2], [3]] : tensor<6x4x1x3xf32> into tensor<6x4x3xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#{{.+}}, #[[$W13]], #{{.+}}]
  // CHECK-SAME: ins(%{{.+}}, %[[WF]] : tensor<1x4x3x8xf32>, tensor<6x4x3xf32>)
  %y = infer.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x1x8xf32>, tensor<6x4x1x3xf32>) -> tensor<1x6x1x8xf32>
  return %y : tensor<1x6x1x8xf32>
}
