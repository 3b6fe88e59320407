// RUN: infer-opt %s --infer-cuda-fold-transposes | FileCheck %s

// Q [1, 64, 4, 32] and K split into heads: the batched MatMul reads both
// through their transposes, which are gone; its maps say where.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG: #[[MERGED:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @heads
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[K]], #{{.*}}]{{.*}} ins(%arg0, %arg1 : tensor<1x64x4x32xf32>, tensor<1x64x4x32xf32>)
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#c = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @heads(%q: tensor<1x64x4x32xf32>, %k: tensor<1x64x4x32xf32>) -> tensor<1x4x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %qe = tensor.empty() : tensor<1x4x64x32xf32>
  %qt = linalg.transpose ins(%q : tensor<1x64x4x32xf32>) outs(%qe : tensor<1x4x64x32xf32>) permutation = [0, 2, 1, 3]
  %ke = tensor.empty() : tensor<1x4x32x64xf32>
  %kt = linalg.transpose ins(%k : tensor<1x64x4x32xf32>) outs(%ke : tensor<1x4x32x64xf32>) permutation = [0, 2, 3, 1]
  %e = tensor.empty() : tensor<1x4x64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %s = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %kt : tensor<1x4x64x32xf32>, tensor<1x4x32x64xf32>) outs(%fill : tensor<1x4x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x64x64xf32>
  return %s : tensor<1x4x64x64xf32>
}

// A transpose that something else reads too is kept (the copy is made
// anyway), and so is one feeding an elementwise op.
// CHECK-LABEL: func.func @kept
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%[[T]], %[[T]] :
// CHECK: return
func.func @kept(%q: tensor<1x64x4x32xf32>) -> (tensor<1x4x64x64xf32>, tensor<1x4x64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %qe = tensor.empty() : tensor<1x4x64x32xf32>
  %qt = linalg.transpose ins(%q : tensor<1x64x4x32xf32>) outs(%qe : tensor<1x4x64x32xf32>) permutation = [0, 2, 1, 3]
  %e = tensor.empty() : tensor<1x4x64x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %s = linalg.generic {indexing_maps = [#a, #a, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %qt : tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>) outs(%fill : tensor<1x4x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x64x64xf32>
  return %s, %qt : tensor<1x4x64x64xf32>, tensor<1x4x64x32xf32>
}

// P·V followed by the merge of heads: the MatMul writes [1, 64, 4, 32]
// itself (its output map permuted, its fill made in that shape).
// CHECK-LABEL: func.func @merge_heads
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x64x4x32xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x64x4x32xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[MERGED]]]{{.*}} outs(%[[F]] : tensor<1x64x4x32xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[Y]]
func.func @merge_heads(%p: tensor<1x4x64x64xf32>, %v: tensor<1x4x64x32xf32>) -> tensor<1x64x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x64x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32>
  %c = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<1x4x64x64xf32>, tensor<1x4x64x32xf32>) outs(%fill : tensor<1x4x64x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x64x32xf32>
  %te = tensor.empty() : tensor<1x64x4x32xf32>
  %t = linalg.transpose ins(%c : tensor<1x4x64x32xf32>) outs(%te : tensor<1x64x4x32xf32>) permutation = [0, 2, 1, 3]
  return %t : tensor<1x64x4x32xf32>
}

// 70 tokens: not whole tiles, but infer-cuda-align-contractions grows m
// and n to 80 and reads the grown projections whole through these maps
// (ViT's 197 tokens), so the transposes fold as at 64. With 12 tokens
// (short of a tile: not grown) they stay, for a SIMT loop to read copies.
// CHECK-LABEL: func.func @heads_to_grow
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[K]], #{{.*}}]{{.*}} ins(%arg0, %arg1 : tensor<1x70x4x32xf32>, tensor<1x70x4x32xf32>)
// CHECK-LABEL: func.func @heads_short_of_a_tile
// CHECK-COUNT-2: linalg.transpose
func.func @heads_to_grow(%q: tensor<1x70x4x32xf32>, %k: tensor<1x70x4x32xf32>) -> tensor<1x4x70x70xf32> {
  %zero = arith.constant 0.0 : f32
  %qe = tensor.empty() : tensor<1x4x70x32xf32>
  %qt = linalg.transpose ins(%q : tensor<1x70x4x32xf32>) outs(%qe : tensor<1x4x70x32xf32>) permutation = [0, 2, 1, 3]
  %ke = tensor.empty() : tensor<1x4x32x70xf32>
  %kt = linalg.transpose ins(%k : tensor<1x70x4x32xf32>) outs(%ke : tensor<1x4x32x70xf32>) permutation = [0, 2, 3, 1]
  %e = tensor.empty() : tensor<1x4x70x70xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x70x70xf32>) -> tensor<1x4x70x70xf32>
  %s = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %kt : tensor<1x4x70x32xf32>, tensor<1x4x32x70xf32>) outs(%fill : tensor<1x4x70x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x70x70xf32>
  return %s : tensor<1x4x70x70xf32>
}
func.func @heads_short_of_a_tile(%q: tensor<1x12x4x32xf32>, %k: tensor<1x12x4x32xf32>) -> tensor<1x4x12x12xf32> {
  %zero = arith.constant 0.0 : f32
  %qe = tensor.empty() : tensor<1x4x12x32xf32>
  %qt = linalg.transpose ins(%q : tensor<1x12x4x32xf32>) outs(%qe : tensor<1x4x12x32xf32>) permutation = [0, 2, 1, 3]
  %ke = tensor.empty() : tensor<1x4x32x12xf32>
  %kt = linalg.transpose ins(%k : tensor<1x12x4x32xf32>) outs(%ke : tensor<1x4x32x12xf32>) permutation = [0, 2, 3, 1]
  %e = tensor.empty() : tensor<1x4x12x12xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
  %s = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%qt, %kt : tensor<1x4x12x32xf32>, tensor<1x4x32x12xf32>) outs(%fill : tensor<1x4x12x12xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x12x12xf32>
  return %s : tensor<1x4x12x12xf32>
}
