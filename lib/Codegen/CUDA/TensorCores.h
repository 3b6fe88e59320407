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

/// The TF32 WMMA tile: 16 (m) x 16 (n) x 8 (k).
inline constexpr int64_t kTileM = 16, kTileN = 16, kTileK = 8;

/// The loop dims of a float32 contraction C[batch.., m, n] += A[.., m, k] x
/// B[.., k, n] (any operand layout), with its static loop ranges.
/// Several k dims (an im2col convolution's channel, kh, kw) act as one
/// when they are contiguous in both operands; `k` is the innermost.
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

/// The shape if `op` is a candidate for the tensor cores.
std::optional<ContractionShape> tensorCoreShape(linalg::LinalgOp op);

/// Whether whole 16x16x8 tiles cover the op.
bool fitsTensorCoreTiles(const ContractionShape &shape);

/// Whether splitting the op at whole tiles leaves a part for the tensor
/// cores (infer-cuda-split-contractions splits m, n, and a single k).
bool coversATile(const ContractionShape &shape);

/// Emits the WMMA kernel body for `op` (on memrefs) at `b`'s insertion
/// point; returns {grid, block}, or failure (nothing emitted) when the
/// operands' layout does not suit WMMA.
FailureOr<std::pair<int64_t, int64_t>> buildTensorCoreKernel(OpBuilder &b, linalg::LinalgOp op,
                                                             const ContractionShape &shape);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H
