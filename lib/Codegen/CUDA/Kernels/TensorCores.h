//===- TensorCores.h - float32 contractions on TF32 tensor cores -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; TensorCores.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_TENSORCORES_H

#include "Analysis/KernelCandidates.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::infer {

/// `memref` (a kernel's operand, in the generic address space) seen in the
/// global one: WMMA's fragment loads and stores then become ld/st.global
/// (LDG/STG) instead of generic accesses, which LLVM does not infer for
/// intrinsics.
Value inGlobalMemory(OpBuilder &b, Location loc, Value memref);

/// A barrier of the whole warp (`__syncwarp()`): the lanes' shared-memory
/// accesses before it are seen by the warp's after it.
void emitSyncWarp(OpBuilder &b, Location loc);

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
