//===- VectorAccesses.h - elementwise kernels, 4 elements a thread -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; VectorAccesses.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_VECTORACCESSES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_VECTORACCESSES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::infer {

/// How a kernel reads or writes one operand of an elementwise op whose
/// threads take `kLanes` consecutive elements of the innermost loop dim.
struct VectorAccessPlan {
  static constexpr int64_t kLanes = 4;
  enum class Access {
    Vector,    // The lanes are contiguous: one vector load or store.
    Uniform,   // The operand does not depend on the innermost dim: one load.
    Scattered, // Anything else: one scalar access per lane.
  };
  SmallVector<Access> operands; // By operand number.
  int64_t threads = 0;          // Loop iterations / kLanes.
};

/// A plan if `op` (on memrefs) is an elementwise op whose innermost loop
/// range is a multiple of kLanes and that has an operand to vectorize.
std::optional<VectorAccessPlan> planVectorAccesses(linalg::GenericOp op);

/// Emits the kernel body for `op` at `b`'s insertion point, for blocks of
/// `blockSize` threads.
void buildVectorAccessKernel(OpBuilder &b, linalg::GenericOp op, const VectorAccessPlan &plan,
                             int64_t blockSize);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_VECTORACCESSES_H
