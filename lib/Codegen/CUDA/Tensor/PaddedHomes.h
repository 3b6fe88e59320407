//===- PaddedHomes.h - tensors written into larger ones, for WMMA -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: infer-cuda-align-contractions gives a
// contraction's operands homes larger than themselves, for aligned rows
// (AlignContractions.cpp) and for loops grown to whole tiles
// (GrowContractions.cpp). A home is a tensor.empty; the value lives in its
// leading slice, where its producer writes it in place.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_PADDEDHOMES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_PADDEDHOMES_H

#include "Analysis/KernelCandidates.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::infer {

inline constexpr int64_t kRowAlignment = 4; // floats: WMMA's 16-byte row stride.
inline constexpr int64_t kPaddedRow = 8;    // floats: 32-byte rows, as tiles want.

inline bool aligned(int64_t elements) { return elements % kRowAlignment == 0; }

/// How one operand's misaligned rows are fixed: a 2-D constant is stored
/// transposed; anything else gets a padded home, given to the tensor.empty
/// (`padRoot`) that its producer writes into.
struct RowFix {
  unsigned operand = 0;                  // 0, 1: the inputs; 2: the output.
  RankedTensorType rowsType;             // The operand's type; its last dim is padded.
  DenseElementsAttr transpose;           // Set: store this constant transposed.
  OpOperand *padRoot = nullptr;          // Else: point this init at the padded home,
  SmallVector<ReassociationIndices> expand; // expanded like this when a
                                         // collapse_shape lies in between;
                                         // without a root, copy the input there.
  bool done = false;                     // Padded already (for an earlier op),
  tensor::EmptyOp home;                  // in this home.
};

/// How operand `index` of `op` can get a home (AlignContractions.cpp
/// says which operands can), if it can.
std::optional<RowFix> planRowFix(linalg::LinalgOp op, unsigned index);

/// `shape` with its last dim rounded up to kPaddedRow when it is misaligned.
SmallVector<int64_t> alignedRows(ArrayRef<int64_t> shape);

/// Gives the value of `fix` a home of shape `homeShape` (its producer
/// writes into the leading slice; without one, it is copied there).
/// Returns the home.
Value makeHome(RewriterBase &rewriter, linalg::LinalgOp op, const RowFix &fix,
               ArrayRef<int64_t> homeShape);

/// The offsets, sizes and strides of the slice of type `type` at the
/// origin of a larger tensor.
struct LeadingSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  LeadingSlice(Builder &b, RankedTensorType type)
      : offsets(type.getRank(), b.getIndexAttr(0)), strides(type.getRank(), b.getIndexAttr(1)) {
    for (int64_t size : type.getShape())
      sizes.push_back(b.getIndexAttr(size));
  }
};

// GrowContractions.cpp.

/// `op` with several m (or n) loops collapsed into one; returns the op now
/// in its place.
linalg::LinalgOp collapseSeveralLoops(RewriterBase &rewriter, linalg::LinalgOp op);

/// The most growToWholeTiles lets a loop grow by default, in percent: any
/// range that covers a tile (GrowContractions.cpp says why).
inline constexpr int64_t kDefaultMaxGrowthPercent = 100;

/// Grows the m and n loops of `op` that are short of whole tiles to them,
/// when that adds at most `maxGrowthPercent` to their range, replacing `op`
/// by the grown op.
void growToWholeTiles(RewriterBase &rewriter, linalg::LinalgOp &op, const ContractionShape &s,
                      int64_t maxGrowthPercent = kDefaultMaxGrowthPercent);

/// Whether `value` is read from the home of a grown op, with aligned rows.
bool inAlignedHome(Value value);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_PADDEDHOMES_H
