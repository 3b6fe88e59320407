//===- WarpMma.h - one warp's tensor-core products, whatever the kind -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA. The staged-tiles kernel (StagedTiles.cpp)
// is written against WarpMma: a warp's 16x16 tiles of C (its fragments),
// loaded, stored, filled and added, and its A and B operands for one step
// of k, loaded from the shared tiles and multiplied. Each way to multiply
// is one implementation: WMMA (gpu.subgroup_mma_*, WmmaFragments here) and
// mma.sync on ldmatrix fragments (MmaSync.h). What a product computes in is
// an MmaShape: the operand and accumulator element types and the shape of
// one instruction. Another element type (f16, bf16 with m16n8k16; i8 or
// fp8 with m16n8k32) is one more case of mmaShapeFor and of the
// implementations' fragment types, not another kernel builder.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_KERNELS_WARPMMA_H
#define INFER_OPT_LIB_CODEGEN_CUDA_KERNELS_WARPMMA_H

#include "Analysis/KernelCandidates.h"
#include "Kernels/IndexMath.h"

#include "mlir/IR/BuiltinTypes.h"

#include <memory>
#include <optional>

namespace mlir::infer {

/// One warp's fragments and products.
class WarpMma {
public:
  /// A 16x16 tile of C: one WMMA matrix, or two mma.sync accumulators.
  using Fragment = SmallVector<Value, 2>;
  /// A warp's A (16 x step) or B (step x 16) for one step of k.
  using Operand = SmallVector<Value, 2>;

  virtual ~WarpMma() = default;

  /// The types of a Fragment's values (for the results of an scf.if).
  virtual SmallVector<Type> fragmentTypes() const = 0;
  /// The tile whose element (0, 0) `memref` holds at `at`, rows `lead`
  /// apart, elements contiguous.
  virtual Fragment load(Value memref, ValueRange at, int64_t lead) = 0;
  virtual void store(const Fragment &tile, Value memref, ValueRange at, int64_t lead) = 0;
  virtual Fragment splat(Value scalar) = 0;
  virtual Fragment add(const Fragment &x, const Fragment &y) = 0;
  /// A's step at `at` of the shared `tiles`, rows `ld` apart: rows of m
  /// (k contiguous) or, with `rowsAreK`, rows of k.
  virtual Operand loadA(Value tiles, Value at, int64_t ld, bool rowsAreK) = 0;
  /// B's step at `at`, rows `ld` apart: rows of k (n contiguous) or, with
  /// `rowsAreN`, rows of n.
  virtual Operand loadB(Value tiles, Value at, int64_t ld, bool rowsAreN) = 0;
  /// acc + a x b.
  virtual Fragment multiply(const Operand &a, const Operand &b, const Fragment &acc) = 0;

  /// The warp's fragments for `kind`, for the thread `thread` of a group
  /// of warps (its lane is thread mod 32). `transposeA` (A's tiles are rows
  /// of k) and `transposeB` (B's are rows of n) describe the shared tiles
  /// the operands are loaded from.
  static std::unique_ptr<WarpMma> create(MmaKind kind, const MmaShape &shape, IndexMath &e,
                                         Value thread, bool transposeA, bool transposeB);
};

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_KERNELS_WARPMMA_H
