// RUN: infer-opt %s --infer-cuda-align-contractions | FileCheck %s
// RUN: infer-opt %s --infer-cuda-align-contractions=max-growth-percent=25 | FileCheck %s --check-prefix=LIMIT

// 70 rows are grown to 80 (5 whole tiles) instead of split at 64 with a
// 6-row edge. A's producer writes into the leading slice of an 80-row
// tensor.empty, and both matmuls read the whole of it through one
// insert_slice. The output's fill is grown with them: each matmul's a fill
// of a whole 80-row tensor.empty (CSE makes them one later), so that no
// slice lies between the fill and the matmul that it starts. Their users
// read the first 70 rows of each result.
// CHECK-LABEL: func.func @grow_rows
// CHECK: %[[AHOME:.*]] = tensor.empty() : tensor<80x32xf32>
// CHECK: %[[ASLICE:.*]] = tensor.extract_slice %[[AHOME]][0, 0] [70, 32] [1, 1]
// CHECK: %[[A:.*]] = linalg.exp ins(%arg0 : tensor<70x32xf32>) outs(%[[ASLICE]] : tensor<70x32xf32>)
// CHECK: %[[AWHOLE:.*]] = tensor.insert_slice %[[A]] into %[[AHOME]][0, 0] [70, 32] [1, 1] : tensor<70x32xf32> into tensor<80x32xf32>
// CHECK: %[[CHOME:.*]] = tensor.empty() : tensor<80x48xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CHOME]] : tensor<80x48xf32>)
// CHECK: %[[CHOME2:.*]] = tensor.empty() : tensor<80x48xf32>
// CHECK: %[[FILL2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CHOME2]] : tensor<80x48xf32>)
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[AWHOLE]], %arg1 : tensor<80x32xf32>, tensor<32x48xf32>) outs(%[[FILL]] : tensor<80x48xf32>)
// CHECK: %[[R1:.*]] = tensor.extract_slice %[[M1]][0, 0] [70, 48] [1, 1] : tensor<80x48xf32> to tensor<70x48xf32>
// CHECK: %[[M2:.*]] = linalg.matmul ins(%[[AWHOLE]], %arg1 : tensor<80x32xf32>, tensor<32x48xf32>) outs(%[[FILL2]] : tensor<80x48xf32>)
// CHECK: %[[R2:.*]] = tensor.extract_slice %[[M2]][0, 0] [70, 48] [1, 1] : tensor<80x48xf32> to tensor<70x48xf32>
// CHECK: linalg.add ins(%[[R1]], %[[R2]] : tensor<70x48xf32>, tensor<70x48xf32>)
func.func @grow_rows(%x: tensor<70x32xf32>, %b: tensor<32x48xf32>) -> tensor<70x48xf32> {
  %e = tensor.empty() : tensor<70x32xf32>
  %a = linalg.exp ins(%x : tensor<70x32xf32>) outs(%e : tensor<70x32xf32>) -> tensor<70x32xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<70x48xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<70x48xf32>) -> tensor<70x48xf32>
  %c = linalg.matmul ins(%a, %b : tensor<70x32xf32>, tensor<32x48xf32>) outs(%fill : tensor<70x48xf32>) -> tensor<70x48xf32>
  %d = linalg.matmul ins(%a, %b : tensor<70x32xf32>, tensor<32x48xf32>) outs(%fill : tensor<70x48xf32>) -> tensor<70x48xf32>
  %s = linalg.add ins(%c, %d : tensor<70x48xf32>, tensor<70x48xf32>) outs(%ce : tensor<70x48xf32>) -> tensor<70x48xf32>
  return %s : tensor<70x48xf32>
}

// Attention scores over 70 tokens: m and n both grow to 80. K^T's
// transpose writes into an 80-column home; Q, a function argument, is
// copied into an 80-row one; the scores' home is 80x80.
// CHECK-LABEL: func.func @grow_scores
// CHECK: %[[KHOME:.*]] = tensor.empty() : tensor<2x16x80xf32>
// CHECK: %[[KT:.*]] = linalg.transpose
// CHECK: %[[KWHOLE:.*]] = tensor.insert_slice %[[KT]] into %[[KHOME]]
// CHECK: %[[CHOME:.*]] = tensor.empty() : tensor<2x80x80xf32>
// CHECK: %[[QHOME:.*]] = tensor.empty() : tensor<2x80x16xf32>
// CHECK: %[[QSLICE:.*]] = tensor.extract_slice %[[QHOME]][0, 0, 0] [2, 70, 16] [1, 1, 1]
// CHECK: %[[Q:.*]] = linalg.copy ins(%arg0 : tensor<2x70x16xf32>) outs(%[[QSLICE]] : tensor<2x70x16xf32>)
// CHECK: %[[QWHOLE:.*]] = tensor.insert_slice %[[Q]] into %[[QHOME]]
// CHECK: %[[S:.*]] = linalg.batch_matmul ins(%[[QWHOLE]], %[[KWHOLE]] : tensor<2x80x16xf32>, tensor<2x16x80xf32>) outs(%{{.*}} : tensor<2x80x80xf32>)
// CHECK: tensor.extract_slice %[[S]][0, 0, 0] [2, 70, 70] [1, 1, 1] : tensor<2x80x80xf32> to tensor<2x70x70xf32>
func.func @grow_scores(%q: tensor<2x70x16xf32>, %k: tensor<2x70x16xf32>) -> tensor<2x70x70xf32> {
  %e = tensor.empty() : tensor<2x16x70xf32>
  %kt = linalg.transpose ins(%k : tensor<2x70x16xf32>) outs(%e : tensor<2x16x70xf32>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x70x70xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x70x70xf32>) -> tensor<2x70x70xf32>
  %c = linalg.batch_matmul ins(%q, %kt : tensor<2x70x16xf32>, tensor<2x16x70xf32>) outs(%fill : tensor<2x70x70xf32>) -> tensor<2x70x70xf32>
  return %c : tensor<2x70x70xf32>
}

// Probabilities x V over 75 tokens: m grows to 80, k (75) does not (it is
// split at whole tiles later). P's rows of 75 are misaligned for WMMA, so
// its 80-row home also has rows of 80: nothing is left for the row
// alignment to fix.
// CHECK-LABEL: func.func @grown_misaligned_rows
// CHECK: %[[PHOME:.*]] = tensor.empty() : tensor<80x80xf32>
// CHECK: %[[PSLICE:.*]] = tensor.extract_slice %[[PHOME]][0, 0] [75, 75] [1, 1]
// CHECK: %[[P:.*]] = linalg.exp ins(%arg0 : tensor<75x75xf32>) outs(%[[PSLICE]] : tensor<75x75xf32>)
// CHECK: %[[PWHOLE:.*]] = tensor.insert_slice %[[P]] into %[[PHOME]][0, 0] [75, 75] [1, 1] : tensor<75x75xf32> into tensor<80x80xf32>
// CHECK: %[[PCUT:.*]] = tensor.extract_slice %[[PWHOLE]][0, 0] [80, 75] [1, 1] : tensor<80x80xf32> to tensor<80x75xf32>
// CHECK-NOT: linalg.copy
// CHECK: linalg.matmul ins(%[[PCUT]], %arg1 : tensor<80x75xf32>, tensor<75x16xf32>) outs(%{{.*}} : tensor<80x16xf32>)
func.func @grown_misaligned_rows(%s: tensor<75x75xf32>, %v: tensor<75x16xf32>) -> tensor<75x16xf32> {
  %e = tensor.empty() : tensor<75x75xf32>
  %p = linalg.exp ins(%s : tensor<75x75xf32>) outs(%e : tensor<75x75xf32>) -> tensor<75x75xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<75x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<75x16xf32>) -> tensor<75x16xf32>
  %c = linalg.matmul ins(%p, %v : tensor<75x75xf32>, tensor<75x16xf32>) outs(%fill : tensor<75x16xf32>) -> tensor<75x16xf32>
  return %c : tensor<75x16xf32>
}

// 20 rows become 32 (60% more tensor-core work, still cheaper than a
// 4-row SIMT edge). A constant A read by this op alone is stored grown,
// its new rows zero; one that another op reads too (GPT-2's tied
// embedding) is left as it is, and its op keeps an edge.
// CHECK-LABEL: func.func @grown_and_not
// CHECK: linalg.matmul ins(%{{.*}}, %arg1 : tensor<32x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
// ones (0x3F800000) where A was, then zeros:
// CHECK: %[[W:.*]] = arith.constant dense<"0x{{(0000803F)+(00000000)+}}"> : tensor<32x32xf32>
// CHECK: linalg.matmul ins(%[[W]], %arg1 : tensor<32x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<32x16xf32>)
// CHECK: %[[SHARED:.*]] = arith.constant dense<2.000000e+00> : tensor<70x32xf32>
// CHECK: linalg.matmul ins(%[[SHARED]], %arg1 : tensor<70x32xf32>, tensor<32x16xf32>)
// CHECK: linalg.exp ins(%[[SHARED]] : tensor<70x32xf32>)
// LIMIT-LABEL: func.func @grown_and_not
// LIMIT-NOT: tensor<32x32xf32>
// LIMIT: linalg.matmul ins(%arg0, %arg1 : tensor<20x32xf32>, tensor<32x16xf32>)
func.func @grown_and_not(%a: tensor<20x32xf32>, %b: tensor<32x16xf32>) -> (tensor<20x16xf32>, tensor<20x16xf32>, tensor<70x16xf32>, tensor<70x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x16xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<20x16xf32>) -> tensor<20x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x16xf32>) outs(%fill : tensor<20x16xf32>) -> tensor<20x16xf32>
  %w = arith.constant dense<1.0> : tensor<20x32xf32>
  %e1 = tensor.empty() : tensor<20x16xf32>
  %fill1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<20x16xf32>) -> tensor<20x16xf32>
  %d = linalg.matmul ins(%w, %b : tensor<20x32xf32>, tensor<32x16xf32>) outs(%fill1 : tensor<20x16xf32>) -> tensor<20x16xf32>
  %shared = arith.constant dense<2.0> : tensor<70x32xf32>
  %e2 = tensor.empty() : tensor<70x16xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<70x16xf32>) -> tensor<70x16xf32>
  %f = linalg.matmul ins(%shared, %b : tensor<70x32xf32>, tensor<32x16xf32>) outs(%fill2 : tensor<70x16xf32>) -> tensor<70x16xf32>
  %e3 = tensor.empty() : tensor<70x32xf32>
  %g = linalg.exp ins(%shared : tensor<70x32xf32>) outs(%e3 : tensor<70x32xf32>) -> tensor<70x32xf32>
  return %c, %d, %f, %g : tensor<20x16xf32>, tensor<20x16xf32>, tensor<70x16xf32>, tensor<70x32xf32>
}

// An output without a home of its own (an argument) cannot grow: the op
// is left as it is.
// CHECK-LABEL: func.func @output_without_home
// CHECK-NOT: tensor.empty() : tensor<80x
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<70x32xf32>, tensor<32x16xf32>) outs(%arg2 : tensor<70x16xf32>)
func.func @output_without_home(%a: tensor<70x32xf32>, %b: tensor<32x16xf32>, %acc: tensor<70x16xf32>) -> tensor<70x16xf32> {
  %c = linalg.matmul ins(%a, %b : tensor<70x32xf32>, tensor<32x16xf32>) outs(%acc : tensor<70x16xf32>) -> tensor<70x16xf32>
  return %c : tensor<70x16xf32>
}

// A projection at batch 2 has two m loops (batch, tokens): they become one
// of 2 x 70 = 140 rows (collapse_shapes of the activations and the
// output, an expand_shape of the result), grown to 144. (70 tokens grown
// to 80 each would waste more than 1/8.)
// CHECK-LABEL: func.func @batched_projection
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x70x32xf32> into tensor<140x32xf32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %arg1 : tensor<144x32xf32>, tensor<32x48xf32>) outs(%{{.*}} : tensor<144x48xf32>)
// CHECK: %[[R:.*]] = tensor.extract_slice %[[M]][0, 0] [140, 48] [1, 1] : tensor<144x48xf32> to tensor<140x48xf32>
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 70, 48] : tensor<140x48xf32> into tensor<2x70x48xf32>
#a = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (k, n)>
#c = affine_map<(b, s, n, k) -> (b, s, n)>
func.func @batched_projection(%x: tensor<2x70x32xf32>, %w: tensor<32x48xf32>) -> tensor<2x70x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x70x48xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<2x70x48xf32>) -> tensor<2x70x48xf32>
  %y = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x70x32xf32>, tensor<32x48xf32>) outs(%fill : tensor<2x70x48xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %p = arith.mulf %in, %in2 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x70x48xf32>
  return %y : tensor<2x70x48xf32>
}

// Over 75 tokens the tokens grow to 80 for each sequence instead (1/15
// more work), and the rows keep their [2, 80] layout (heads can be viewed
// in it, as at batch 1). Then the 2 x 80 rows are collapsed into one m of
// 160, whole tiles: the block tiles may span sequences (ViT at batch 8: an
// m of 1664, not 8 of 208, which no block taller than 32 rows suited).
// The output's fill is grown too, and collapsed with it.
// CHECK-LABEL: func.func @batched_projection_grown_each_sequence
// CHECK: %[[CHOME:.*]] = tensor.empty() : tensor<2x80x48xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[CHOME]] : tensor<2x80x48xf32>)
// CHECK: %[[AHOME:.*]] = tensor.empty() : tensor<2x80x32xf32>
// CHECK: %[[AWHOLE:.*]] = tensor.insert_slice %{{.*}} into %[[AHOME]][0, 0, 0] [2, 75, 32] [1, 1, 1]
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[AWHOLE]] {{\[\[}}0, 1], [2]] : tensor<2x80x32xf32> into tensor<160x32xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[FILL]] {{\[\[}}0, 1], [2]] : tensor<2x80x48xf32> into tensor<160x48xf32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[A]], %arg1 : tensor<160x32xf32>, tensor<32x48xf32>) outs(%[[C]] : tensor<160x48xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [2, 80, 48]
// CHECK: tensor.extract_slice %[[E]][0, 0, 0] [2, 75, 48] [1, 1, 1] : tensor<2x80x48xf32> to tensor<2x75x48xf32>
func.func @batched_projection_grown_each_sequence(%x: tensor<2x75x32xf32>, %w: tensor<32x48xf32>) -> tensor<2x75x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x75x48xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<2x75x48xf32>) -> tensor<2x75x48xf32>
  %y = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x75x32xf32>, tensor<32x48xf32>) outs(%fill : tensor<2x75x48xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %p = arith.mulf %in, %in2 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x75x48xf32>
  return %y : tensor<2x75x48xf32>
}

// One constant read as both A and B: stored grown once for each role (20
// rows -> 32 as A, 20 columns -> 32 as B), and the original erased, so
// that the weight store does not keep it too.
// CHECK-LABEL: func.func @a_is_b
// CHECK-NOT: arith.constant dense<1.000000e+00> : tensor<20x20xf32>
// CHECK: %[[A:.*]] = arith.constant dense<{{.*}}> : tensor<32x20xf32>
// CHECK: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<20x32xf32>
// CHECK-NOT: arith.constant dense<1.000000e+00> : tensor<20x20xf32>
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<32x20xf32>, tensor<20x32xf32>)
func.func @a_is_b() -> tensor<20x20xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<20x20xf32>
  %e = tensor.empty() : tensor<20x20xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<20x20xf32>) -> tensor<20x20xf32>
  %c = linalg.matmul ins(%w, %w : tensor<20x20xf32>, tensor<20x20xf32>) outs(%fill : tensor<20x20xf32>) -> tensor<20x20xf32>
  return %c : tensor<20x20xf32>
}

// 12 output channels (PP-OCR det's 1x1 convolution to 12) are short of one
// tile: grown to 16 rows (33% more work), the whole op runs on the tensor
// cores instead of on SIMT. The weight, read by this op alone, is stored
// grown; the output's fill writes the leading rows of a 16-row home.
// CHECK-LABEL: func.func @grow_short_of_a_tile
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<16x48xf32>
// CHECK: %[[CHOME:.*]] = tensor.empty() : tensor<16x64xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[W]], %arg0 : tensor<16x48xf32>, tensor<48x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK: tensor.extract_slice %[[M]][0, 0] [12, 64] [1, 1] : tensor<16x64xf32> to tensor<12x64xf32>
// With at most 25% growth, 12 rows stay as they are.
// LIMIT-LABEL: func.func @grow_short_of_a_tile
// LIMIT: linalg.matmul ins(%{{.*}}, %arg0 : tensor<12x48xf32>, tensor<48x64xf32>)
func.func @grow_short_of_a_tile(%x: tensor<48x64xf32>) -> tensor<12x64xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<0.5> : tensor<12x48xf32>
  %e = tensor.empty() : tensor<12x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<12x64xf32>) -> tensor<12x64xf32>
  %c = linalg.matmul ins(%w, %x : tensor<12x48xf32>, tensor<48x64xf32>) outs(%fill : tensor<12x64xf32>) -> tensor<12x64xf32>
  return %c : tensor<12x64xf32>
}

// 15 columns short of a tile, read from an argument (V through a view, in
// PP-OCR rec's attention): growing would copy B into a home, which costs
// about what the small op costs on SIMT. Nothing grows.
// CHECK-LABEL: func.func @short_of_a_tile_without_a_home
// CHECK-NOT: tensor.empty() : tensor<48
// CHECK: linalg.matmul ins(%{{.*}}, %arg0 : tensor<40x32xf32>, tensor<32x15xf32>) outs(%{{.*}} : tensor<40x15xf32>)
func.func @short_of_a_tile_without_a_home(%v: tensor<32x15xf32>, %x: tensor<40x32xf32>) -> tensor<40x15xf32> {
  %zero = arith.constant 0.0 : f32
  %ae = tensor.empty() : tensor<40x32xf32>
  %a = linalg.exp ins(%x : tensor<40x32xf32>) outs(%ae : tensor<40x32xf32>) -> tensor<40x32xf32>
  %e = tensor.empty() : tensor<40x15xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<40x15xf32>) -> tensor<40x15xf32>
  %c = linalg.matmul ins(%a, %v : tensor<40x32xf32>, tensor<32x15xf32>) outs(%fill : tensor<40x15xf32>) -> tensor<40x15xf32>
  return %c : tensor<40x15xf32>
}

// Attention over 70 tokens after infer-cuda-fold-transposes: Q and K are
// the first 70 rows of 80-row projections (grown already), split into 2
// heads of 16 and read through permuted maps. The grown scores read the
// projections whole, split into heads the same way: no copies, no homes.
// CHECK-LABEL: func.func @heads_cut_from_grown
// CHECK-NOT: linalg.copy
// CHECK-DAG: %[[Q:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [80, 2, 16] : tensor<80x32xf32> into tensor<80x2x16xf32>
// CHECK-DAG: %[[K:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [80, 2, 16] : tensor<80x32xf32> into tensor<80x2x16xf32>
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[K]] : tensor<80x2x16xf32>, tensor<80x2x16xf32>) outs(%{{.*}} : tensor<2x80x80xf32>)
// CHECK: tensor.extract_slice %[[S]][0, 0, 0] [2, 70, 70] [1, 1, 1] : tensor<2x80x80xf32> to tensor<2x70x70xf32>
#q = affine_map<(h, m, n, k) -> (m, h, k)>
#k = affine_map<(h, m, n, k) -> (n, h, k)>
#s = affine_map<(h, m, n, k) -> (h, m, n)>
func.func @heads_cut_from_grown(%qp: tensor<80x32xf32>, %kp: tensor<80x32xf32>) -> tensor<2x70x70xf32> {
  %qs = tensor.extract_slice %qp[0, 0] [70, 32] [1, 1] : tensor<80x32xf32> to tensor<70x32xf32>
  %q = tensor.expand_shape %qs [[0], [1, 2]] output_shape [70, 2, 16] : tensor<70x32xf32> into tensor<70x2x16xf32>
  %ks = tensor.extract_slice %kp[0, 0] [70, 32] [1, 1] : tensor<80x32xf32> to tensor<70x32xf32>
  %k = tensor.expand_shape %ks [[0], [1, 2]] output_shape [70, 2, 16] : tensor<70x32xf32> into tensor<70x2x16xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x70x70xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x70x70xf32>) -> tensor<2x70x70xf32>
  %c = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<70x2x16xf32>, tensor<70x2x16xf32>) outs(%fill : tensor<2x70x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x70x70xf32>
  return %c : tensor<2x70x70xf32>
}

// Heads merged back (P·V written as [70, 2, 16]), cut from an 80-row
// result and collapsed to [70, 32] for the output projection: the grown
// projection reads the 80 rows collapsed. A cut whose rows are merged
// with another dim ([70, 2] of [80, 2] collapsed into one) cannot be read
// whole: that input is copied into a home.
// CHECK-LABEL: func.func @merged_heads_cut_from_grown
// CHECK: %[[WHOLE:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<80x2x16xf32> into tensor<80x32xf32>
// CHECK: linalg.matmul ins(%[[WHOLE]], %arg1 : tensor<80x32xf32>, tensor<32x48xf32>)
// CHECK: %[[MERGED:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<70x2x16xf32> into tensor<140x16xf32>
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[MERGED]] : tensor<140x16xf32>)
// CHECK: %[[HOME:.*]] = tensor.insert_slice %[[COPY]] into %{{.*}} : tensor<140x16xf32> into tensor<144x16xf32>
// CHECK: linalg.matmul ins(%[[HOME]], %arg2 : tensor<144x16xf32>, tensor<16x48xf32>)
func.func @merged_heads_cut_from_grown(%pv: tensor<80x2x16xf32>, %w: tensor<32x48xf32>, %w2: tensor<16x48xf32>) -> (tensor<70x48xf32>, tensor<140x48xf32>) {
  %cut = tensor.extract_slice %pv[0, 0, 0] [70, 2, 16] [1, 1, 1] : tensor<80x2x16xf32> to tensor<70x2x16xf32>
  %x = tensor.collapse_shape %cut [[0], [1, 2]] : tensor<70x2x16xf32> into tensor<70x32xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<70x48xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<70x48xf32>) -> tensor<70x48xf32>
  %y = linalg.matmul ins(%x, %w : tensor<70x32xf32>, tensor<32x48xf32>) outs(%fill : tensor<70x48xf32>) -> tensor<70x48xf32>
  %rows = tensor.collapse_shape %cut [[0, 1], [2]] : tensor<70x2x16xf32> into tensor<140x16xf32>
  %ce2 = tensor.empty() : tensor<140x48xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%ce2 : tensor<140x48xf32>) -> tensor<140x48xf32>
  %z = linalg.matmul ins(%rows, %w2 : tensor<140x16xf32>, tensor<16x48xf32>) outs(%fill2 : tensor<140x48xf32>) -> tensor<140x48xf32>
  return %y, %z : tensor<70x48xf32>, tensor<140x48xf32>
}

// Q and K as column slices of one grown projection [80, 96] (Q, K and V
// side by side), cut to its first 70 rows: the cuts are widened to 80 rows
// at the same columns.
// CHECK-LABEL: func.func @heads_cut_from_columns
// CHECK-NOT: linalg.copy
// CHECK-DAG: %[[QCUT:.*]] = tensor.extract_slice %arg0[0, 0] [80, 32] [1, 1] : tensor<80x96xf32> to tensor<80x32xf32>
// CHECK-DAG: %[[KCUT:.*]] = tensor.extract_slice %arg0[0, 32] [80, 32] [1, 1] : tensor<80x96xf32> to tensor<80x32xf32>
// CHECK-DAG: %[[Q:.*]] = tensor.expand_shape %[[QCUT]] {{\[}}[0], [1, 2]] output_shape [80, 2, 16]
// CHECK-DAG: %[[K:.*]] = tensor.expand_shape %[[KCUT]] {{\[}}[0], [1, 2]] output_shape [80, 2, 16]
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[K]] : tensor<80x2x16xf32>, tensor<80x2x16xf32>) outs(%{{.*}} : tensor<2x80x80xf32>)
func.func @heads_cut_from_columns(%qkv: tensor<80x96xf32>) -> tensor<2x70x70xf32> {
  %rows = tensor.extract_slice %qkv[0, 0] [70, 96] [1, 1] : tensor<80x96xf32> to tensor<70x96xf32>
  %qs = tensor.extract_slice %rows[0, 0] [70, 32] [1, 1] : tensor<70x96xf32> to tensor<70x32xf32>
  %q = tensor.expand_shape %qs [[0], [1, 2]] output_shape [70, 2, 16] : tensor<70x32xf32> into tensor<70x2x16xf32>
  %ks = tensor.extract_slice %rows[0, 32] [70, 32] [1, 1] : tensor<70x96xf32> to tensor<70x32xf32>
  %k = tensor.expand_shape %ks [[0], [1, 2]] output_shape [70, 2, 16] : tensor<70x32xf32> into tensor<70x2x16xf32>
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<2x70x70xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%ce : tensor<2x70x70xf32>) -> tensor<2x70x70xf32>
  %c = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<70x2x16xf32>, tensor<70x2x16xf32>) outs(%fill : tensor<2x70x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x70x70xf32>
  return %c : tensor<2x70x70xf32>
}
