// RUN: infer-opt %s --infer-cuda-fuse-rows --cse | FileCheck %s

// A softmax over rows of 128: the max, the exponentials, their sum and the
// quotients become one loop over the 48 rows, each op on one row inside it
// (the reductions with an extra unit loop instead of the constant 0 of
// their [48, 1] results). Nothing is left outside but the loop.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT: linalg.
// CHECK: scf.forall (%[[ROW:.*]]) in (48) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<48x128xf32>)
// CHECK: %[[X:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [1, 128] [1, 1]
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}} ins(%[[X]] : tensor<1x128xf32>) outs(%[[MAXINIT]] : tensor<1x1xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : tensor<1x128xf32>, tensor<1x1xf32>)
// CHECK: math.exp
// CHECK: %[[SUMINIT:.*]] = linalg.fill
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<1x128xf32>) outs(%[[SUMINIT]] : tensor<1x1xf32>)
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[OUT]][%[[ROW]], 0] [1, 128] [1, 1]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<1x128xf32>, tensor<1x1xf32>) outs(%[[SLOT]] : tensor<1x128xf32>)
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice %[[Y]] into %[[OUT]][%[[ROW]], 0] [1, 128] [1, 1]
// CHECK-NOT: linalg.
// CHECK: return
#row = affine_map<(d0, d1) -> (d0, d1)>
#stat = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @softmax(%x: tensor<48x128xf32>) -> tensor<48x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<48x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%se : tensor<48x1xf32>) -> tensor<48x1xf32>
  %max = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<48x128xf32>) outs(%minit : tensor<48x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<48x1xf32>
  %e = tensor.empty() : tensor<48x128xf32>
  %exp = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<48x128xf32>, tensor<48x1xf32>) outs(%e : tensor<48x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<48x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<48x1xf32>) -> tensor<48x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<48x128xf32>) outs(%sinit : tensor<48x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<48x1xf32>
  %y = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<48x128xf32>, tensor<48x1xf32>) outs(%e : tensor<48x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<48x128xf32>
  return %y : tensor<48x128xf32>
}

// The exponentials are also a result: an intermediate may not escape a
// group, so they end a group of their own (with the max), and the sum and
// quotients make a second one that reads them.
// CHECK-LABEL: func.func @escaping_intermediate
// CHECK: %[[EXP:.*]] = scf.forall (%{{.*}}) in (48)
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[Y:.*]] = scf.forall (%{{.*}}) in (48)
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: return %[[Y]], %[[EXP]]
func.func @escaping_intermediate(%x: tensor<48x128xf32>) -> (tensor<48x128xf32>, tensor<48x128xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<48x1xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%se : tensor<48x1xf32>) -> tensor<48x1xf32>
  %max = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<48x128xf32>) outs(%minit : tensor<48x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<48x1xf32>
  %e = tensor.empty() : tensor<48x128xf32>
  %exp = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<48x128xf32>, tensor<48x1xf32>) outs(%e : tensor<48x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<48x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<48x1xf32>) -> tensor<48x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<48x128xf32>) outs(%sinit : tensor<48x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<48x1xf32>
  %y = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<48x128xf32>, tensor<48x1xf32>) outs(%e : tensor<48x128xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<48x128xf32>
  return %y, %exp : tensor<48x128xf32>, tensor<48x128xf32>
}

// Left alone: 8,192 rows of 16 (too short for a block each, and too many
// for one wave of warps), and a contraction:
// a matmul's k is a reduction whose both inputs vary along it.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.forall
// CHECK: return
func.func @left_alone(%short: tensor<8192x16xf32>, %a: tensor<48x64xf32>,
                      %b: tensor<64x128xf32>) -> (tensor<8192x16xf32>, tensor<48x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<8192x1xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<8192x1xf32>) -> tensor<8192x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<8192x16xf32>) outs(%sinit : tensor<8192x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<8192x1xf32>
  %e = tensor.empty() : tensor<8192x16xf32>
  %y = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%short, %sum : tensor<8192x16xf32>, tensor<8192x1xf32>) outs(%e : tensor<8192x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<8192x16xf32>
  %me = tensor.empty() : tensor<48x128xf32>
  %minit = linalg.fill ins(%zero : f32) outs(%me : tensor<48x128xf32>) -> tensor<48x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x128xf32>) outs(%minit : tensor<48x128xf32>) -> tensor<48x128xf32>
  return %y, %mm : tensor<8192x16xf32>, tensor<48x128xf32>
}

// A single row, however short (a classifier's softmax over [1, 2]), is a
// row group too: each of its ops would be a launch of one block anyway.
// Its loop is mapped to blocks so that canonicalization keeps it (it would
// inline a loop of one iteration, its per-row allocations with it).
// CHECK-LABEL: func.func @one_short_row
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
// CHECK: arith.divf
// CHECK: } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @one_short_row(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<1x1xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<1x1xf32>) -> tensor<1x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x2xf32>) outs(%sinit : tensor<1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<1x1xf32>
  %e = tensor.empty() : tensor<1x2xf32>
  %y = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<1x2xf32>, tensor<1x1xf32>) outs(%e : tensor<1x2xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// A global average pool whose sum took in the residual add and ReLU
// before it (ResNet-50's last block, after infer-fuse-elementwise): two
// inputs vary along its reduction, but both are read at every point of
// the row (not a contraction), so the fill, the sum and the division are
// one row group.
// CHECK-LABEL: func.func @pool_of_residual
// CHECK: scf.forall (%{{.*}}) in (64)
// CHECK: arith.maximumf
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.
// CHECK: return
func.func @pool_of_residual(%c: tensor<64x49xf32>, %skip: tensor<64x49xf32>) -> tensor<64x1xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 49.0 : f32
  %se = tensor.empty() : tensor<64x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%se : tensor<64x1xf32>) -> tensor<64x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%c, %skip : tensor<64x49xf32>, tensor<64x49xf32>) outs(%init : tensor<64x1xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    %v = arith.maximumf %r, %zero : f32
    %s = arith.addf %out, %v : f32
    linalg.yield %s : f32
  } -> tensor<64x1xf32>
  %e = tensor.empty() : tensor<64x1xf32>
  %mean = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<64x1xf32>) outs(%e : tensor<64x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %count : f32
    linalg.yield %q : f32
  } -> tensor<64x1xf32>
  return %mean : tensor<64x1xf32>
}

// A matmul as a generic stays out: both inputs vary along k, and each
// misses a parallel dim (A has no n, B no m).
// CHECK-LABEL: func.func @generic_matmul
// CHECK-NOT: scf.forall
// CHECK: return
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @generic_matmul(%a: tensor<48x64xf32>, %b: tensor<64x128xf32>) -> tensor<48x128xf32> {
  %zero = arith.constant 0.0 : f32
  %me = tensor.empty() : tensor<48x128xf32>
  %minit = linalg.fill ins(%zero : f32) outs(%me : tensor<48x128xf32>) -> tensor<48x128xf32>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<48x64xf32>, tensor<64x128xf32>) outs(%minit : tensor<48x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<48x128xf32>
  return %mm : tensor<48x128xf32>
}

// 48 rows of 16: short, but few (at most 4,096), so still one loop over the
// rows, a block each: one launch where the two ops were two.
// CHECK-LABEL: func.func @few_short_rows
// CHECK: scf.forall (%{{.+}}) in (48)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
func.func @few_short_rows(%short: tensor<48x16xf32>) -> tensor<48x16xf32> {
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<48x1xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%se : tensor<48x1xf32>) -> tensor<48x1xf32>
  %sum = linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<48x16xf32>) outs(%sinit : tensor<48x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<48x1xf32>
  %e = tensor.empty() : tensor<48x16xf32>
  %y = linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]}
      ins(%short, %sum : tensor<48x16xf32>, tensor<48x1xf32>) outs(%e : tensor<48x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<48x16xf32>
  return %y : tensor<48x16xf32>
}
