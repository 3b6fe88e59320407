//===- KernelCandidates.h - which ops become which kernels ------*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA, read by every phase: the tensor rewrites
// shape ops for the kernels these predicates accept, and the kernel
// builders build them. A float32 contraction is a tensor-core candidate
// (its ContractionShape and, on memrefs, its operands' layout); a short
// reduction with one output a point runs a thread an output.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_ANALYSIS_KERNELCANDIDATES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_ANALYSIS_KERNELCANDIDATES_H

#include "infer-opt/Codegen/Common/FusionMarkers.h"
#include "infer-opt/Plan/KernelPlan.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::infer {

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

/// What one tensor-core instruction of a warp multiplies: A (m x k) of
/// `operand` elements times B (k x n) into C (m x n) of `accumulator`
/// elements. `rounding` says how a float32 operand becomes the tensor
/// cores' type (TF32: rounded to nearest, ties away, as cuBLAS does).
struct MmaShape {
  Type operand, accumulator;
  int64_t m = 0, n = 0, k = 0;
  /// Operands are float32 computed in TF32 (10-bit mantissas).
  bool tf32 = false;
};

/// The product of `kind` for a contraction of `operand` elements, or
/// nothing if the tensor cores have none. Today: float32 as TF32, m16n8k8
/// with mma.sync, 16x16x8 (as two of those) with WMMA.
std::optional<MmaShape> mmaShapeFor(Type operand, MmaKind kind);

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

/// The last k elements past whole 8-wide steps (1 to 7) that the WMMA
/// kernel takes in one more step through shared memory, zero-padded there:
/// for a single k dim of 8 or more (a 1x1 convolution over 12 channels).
/// 0 when k is whole steps or is several dims.
int64_t kTail(const ContractionShape &shape);

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

/// The shortest reduction (iterations an output) planBlockReduction takes.
inline constexpr int64_t kMinBlockReductionLength = 64;

/// Whether `op` (on tensors or memrefs) is a reduction that runs a thread
/// per output on the SIMT path: static, shorter than a block reduction,
/// with one output indexed by all its parallel loops (at least one). A
/// depthwise convolution, a pool.
bool isPointReduction(linalg::LinalgOp op);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_ANALYSIS_KERNELCANDIDATES_H
