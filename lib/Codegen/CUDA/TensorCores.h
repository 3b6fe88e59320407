//===- TensorCores.h - float32 contractions on TF32 tensor cores -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; TensorCores.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::infer {

/// On a contraction (infer-cuda-prepare-epilogues): its result has one
/// user, which alone reads it.
inline constexpr llvm::StringLiteral kReadOnceAttr = "infer.read_once";

/// On a reduction that runs a thread per output (isPointReduction; set by
/// infer-cuda-prepare-epilogues): the next op may join its kernel (a point
/// group), so the arena planner keeps its operands alive until that op, as
/// for kReadOnceAttr (else the epilogue's output may be placed over the
/// reduction's input, and the two cannot share a kernel).
inline constexpr llvm::StringLiteral kPointReductionAttr = "infer.point_reduction";

/// On a generic that makes one input of a tensor-core candidate and
/// nothing else (an im2col copy, an elementwise op; set by
/// infer-cuda-prepare-epilogues): its result has one user, that
/// contraction, which may compute the operand's elements itself where it
/// would load them (OperandProducers.h). The arena planner then keeps the
/// generic's operands alive as long as the contraction's, since they are
/// read by the contraction's kernel.
inline constexpr llvm::StringLiteral kOperandProducerAttr = "infer.operand_producer";

/// The TF32 WMMA tile: 16 (m) x 16 (n) x 8 (k).
inline constexpr int64_t kTileM = 16, kTileN = 16, kTileK = 8;

/// The loop dims of a float32 contraction C[batch.., m, n] += A[.., m, k] x
/// B[.., k, n] (any operand layout), with its static loop ranges.
/// Several k dims (an im2col convolution's channel, kh, kw) act as one
/// when they are contiguous in both operands; `k` is the innermost. Of
/// several m (or n) dims, the innermost is `m` (`n`) and the others are
/// batch dims that one input does not index (a batch of images).
struct ContractionShape {
  SmallVector<unsigned> batch, ks;
  unsigned m = 0, n = 0, k = 0;
  SmallVector<int64_t> ranges;
  int64_t kRange() const {
    int64_t r = 1;
    for (unsigned d : ks)
      r *= ranges[d];
    return r;
  }
};

/// The number of points of the batch loops (1 without).
int64_t batchCount(const ContractionShape &shape);

/// The shape if `op` is a candidate for the tensor cores.
std::optional<ContractionShape> tensorCoreShape(linalg::LinalgOp op);

/// How a contraction's operands lie in memory, as the tensor cores take
/// them: which inputs play A and B, the m and n dims as A and B see them,
/// each operand's strides per loop dim, and whether A (B) is stored
/// column-major (m, or k, contiguous).
struct TensorCoreOperands {
  unsigned aIndex = 0, bIndex = 1;
  unsigned m = 0, n = 0;
  SmallVector<int64_t> a, b, c;
  bool transposeA = false, transposeB = false;
};

/// The operands' layout if `op` (on memrefs) meets WMMA's rules: A with m
/// or k contiguous, B with k or n, C with n (or m, computing C^T = B^T A^T
/// with A and B, m and n swapped); k dims that act as one; lead dims a
/// multiple of 4 elements and every tile 32-byte aligned.
std::optional<TensorCoreOperands> checkTensorCoreLayout(linalg::LinalgOp op,
                                                        const ContractionShape &shape);

/// `memref` (a kernel's operand, in the generic address space) seen in the
/// global one: WMMA's fragment loads and stores then become ld/st.global
/// (LDG/STG) instead of generic accesses, which LLVM does not infer for
/// intrinsics.
Value inGlobalMemory(OpBuilder &b, Location loc, Value memref);

/// The last k elements past whole 8-wide steps (1 to 7) that the WMMA
/// kernel takes in one more step through shared memory, zero-padded there:
/// for a single k dim of 8 or more (PP-OCR det's 1x1 convolutions over 12,
/// 18 and 42 channels). 0 when k is whole steps or is several dims.
int64_t kTail(const ContractionShape &shape);

/// A barrier of the whole warp (`__syncwarp()`): the lanes' shared-memory
/// accesses before it are seen by the warp's after it.
void emitSyncWarp(OpBuilder &b, Location loc);

/// Whether whole 16x16 tiles cover the op's m and n, and whole 8-wide
/// steps its k, but for a kTail.
bool fitsTensorCoreTiles(const ContractionShape &shape);

/// Whether splitting the op at whole tiles leaves a part for the tensor
/// cores (infer-cuda-split-contractions splits m and n; a single k keeps
/// its kTail).
bool coversATile(const ContractionShape &shape);

/// Whether `op` (on tensors) will run a thread per output on the SIMT path
/// (a point group's center): a short reduction (isPointReduction) that is
/// not a tensor-core candidate.
bool isSimtPointReduction(linalg::LinalgOp op);

/// How a WMMA kernel spreads the work of one op. A block has 4 warps.
/// With few output tiles (too few warps to hide memory latency) `kSplit`
/// warps share one tile, each taking a slice of k; their partial sums meet
/// in shared memory. Each warp's k loop is unrolled `unroll` times so that
/// the fragment loads of several steps are in flight together.
struct TensorCorePlan {
  int64_t kSplit = 1, unroll = 1;
};
TensorCorePlan planTensorCoreKernel(const ContractionShape &shape);

struct TensorCoreFusion;

/// The shared memory the kernel of `plan` for `shape` with `fusion` needs
/// (a 16x16 float tile a warp), or null when it needs none.
MemRefType tensorCoreScratchType(MLIRContext *ctx, const ContractionShape &shape,
                                 const TensorCorePlan &plan, const TensorCoreFusion &fusion);

/// Emits the WMMA kernel body for `op` (on memrefs), with the prologue
/// and epilogue of `fusion` (TensorCoreFusion.h), at `b`'s insertion
/// point; `scratch` is the kernel's workgroup buffer of
/// tensorCoreScratchType (null when that is null). Returns {grid, block},
/// or failure (nothing emitted) when the operands' layout does not suit
/// WMMA.
FailureOr<std::pair<int64_t, int64_t>>
buildTensorCoreKernel(OpBuilder &b, linalg::LinalgOp op, const ContractionShape &shape,
                      const TensorCorePlan &plan, Value scratch, const TensorCoreFusion &fusion);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H
