// RUN: infer-opt %s --infer-cpu-vectorize | FileCheck %s

// A 13x17 (k = 4) contraction: no divisor of 13 near the 6-row tile, none of
// 17 near the 16-column one. The op is split at 12 rows and 16 columns, so
// that full 6x16 register tiles cover most of it, and each remainder gets a
// tile of its own size. The accumulator tile is carried through the k loop
// as a vector (hoisted while on tensors).

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @main
// CHECK:     tensor.extract_slice %arg0[0, 0] [12, 4]
// CHECK:     tensor.extract_slice %arg1[0, 0] [4, 16]
// CHECK:     scf.for %{{.*}} = %c0 to %c12 step %c6
// CHECK:       scf.for {{.*}} -> (tensor<12x16xf32>, tensor<6x16xf32>, vector<6x16xf32>)
// CHECK:         vector.multi_reduction <add>, %{{.*}} [2] : vector<6x16x1xf32> to vector<6x16xf32>
// The last column, rows 0..11: a dot product per row, vectorized along k.
// CHECK:     tensor.extract_slice %arg1[0, 16] [4, 1]
// CHECK:       vector.multi_reduction <add>, {{.*}} : vector<1x1x4xf32> to vector<1x1xf32>
// The last row.
// CHECK:     tensor.extract_slice %arg0[12, 0] [1, 4]
// CHECK:     scf.for {{.*}} -> (tensor<1x16xf32>, vector<16xf32>)
// CHECK:     return
func.func @main(%x: tensor<13x4xf32>, %w: tensor<4x17xf32>, %acc: tensor<13x17xf32>) -> tensor<13x17xf32> {
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<13x4xf32>, tensor<4x17xf32>) outs(%acc : tensor<13x17xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<13x17xf32>
  return %mm : tensor<13x17xf32>
}
