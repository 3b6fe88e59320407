//===- MmaSync.h - a warp's TF32 fragments for mma.sync -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: the staged-tiles kernel's mma.sync way to
// multiply (WarpMma.h; TilePlan::mma is MmaKind::Sync, the heuristic's).
//
// WMMA's fragments (gpu.subgroup_mma_*) leave their registers' layout to
// the compiler, and ptxas makes each 16x16x8 TF32 product four HMMA.1684.
// mma.sync (nvgpu.mma.sync, m16n8k8) is one HMMA.1688, on registers whose
// elements the PTX ISA names ("Matrix Fragments for mma.m16n8k8"): lane l
// of a warp, in row group g = l / 4 at t = l % 4, holds
//   - A (16 x 8, m x k): (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4);
//   - B (8 x 8, k x n): (t, g), (t + 4, g);
//   - C (16 x 8): (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
// A 16x16 tile of C (what a WMMA fragment is) is two of those, columns
// 0-7 and 8-15. Operand tiles whose k is contiguous in shared memory are
// loaded with ldmatrix (one instruction for 4 registers a lane: lanes
// 8q..8q+7 give the rows of matrix q, 4 floats each, and lane l gets float
// l % 4 of row l / 4 of each); A's other tiles a float at a time. A and B
// are rounded to TF32 as they are loaded (cvt.rna.tf32.f32), once, as
// withTF32Rounding does for WMMA's loads.
//
// A B whose n is contiguous (a MatMul's [k, n] weight, the usual case) has
// paired columns instead: the two 8-wide products of a 16x16 tile take the
// even and the odd columns (product h's column j is the tile's 2j + h), so
// a lane's B elements of both, (t, 2g) and (t, 2g + 1), are adjacent: one
// 8-byte load for two. C's columns follow: a lane holds columns 4t..4t+3
// of rows g and g + 8, one 16-byte access each.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_MMASYNC_H
#define INFER_OPT_LIB_CODEGEN_CUDA_MMASYNC_H

#include "Kernels/WarpMma.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::infer {

/// The fragment ops of one warp, for the lane `lane` (0..31).
class MmaSyncFragments : public WarpMma {
public:
  /// `pairedColumns`: B's n is contiguous in shared memory (above).
  MmaSyncFragments(const MmaShape &shape, IndexMath &e, Value lane, bool pairedColumns);

  /// A 16x16 tile of C is two accumulators (vector<2x2xf32>): columns 0-7
  /// and 8-15, or the even and the odd ones with paired columns. A memref
  /// of rank 1 is indexed at + row * lead + column; a higher rank at its
  /// last two indices plus (row, column) (then `lead` must be its rows'
  /// length).
  SmallVector<Type> fragmentTypes() const override { return {typeC, typeC}; }
  Fragment load(Value memref, ValueRange at, int64_t lead) override;
  void store(const Fragment &tile, Value memref, ValueRange at, int64_t lead) override;
  Fragment splat(Value scalar) override;
  Fragment add(const Fragment &x, const Fragment &y) override;
  /// A's 16 x 8: one value.
  Operand loadA(Value tiles, Value at, int64_t ld, bool rowsAreK) override;
  /// B's 8 x 16: its two 8 x 8 halves (as C's columns are split). Rows of
  /// k (n contiguous) with paired columns, else rows of n.
  Operand loadB(Value tiles, Value at, int64_t ld, bool rowsAreN) override;
  /// Two m16n8k8 products, one a half of C's tile.
  Fragment multiply(const Operand &a, const Operand &b, const Fragment &acc) override;

private:
  SmallVector<Value> elementIndices(Value memref, ValueRange at, Value row, Value col,
                                    int64_t lead);
  Value loadFloat(Value tiles, Value index);
  SmallVector<Value> loadMatrices(Value tiles, Value address);
  Value roundToTF32(Value x);
  Value gather(VectorType type, ArrayRef<Value> elements);

  MmaShape shape;
  IndexMath &e;
  Value lane, group, inGroup; // l, g = l / 4, t = l % 4.
  bool paired;
  VectorType typeA, typeB, typeC, pair, quad;
};

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_MMASYNC_H
