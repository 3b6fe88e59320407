//===- BlockReductions.h - one block per output of a reduction -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; BlockReductions.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H
#define INFER_OPT_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H

#include "Analysis/KernelCandidates.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::infer {

/// The launch of a block reduction: one block (a power of two of threads,
/// at least a warp) per output point; the parallel and reduction loop dims
/// of the op; whether partials meet by warp shuffles (32-bit types) or a
/// shared-memory tree, and the shared scratch that needs, in elements.
struct BlockReductionPlan {
  SmallVector<unsigned> parallel, reduction;
  int64_t blockSize = 0, gridSize = 0;
  bool warpShuffles = false;
  int64_t scratchSize = 0;
};

/// A plan if `op` (on memrefs) is a reduction worth a block per output.
std::optional<BlockReductionPlan> planBlockReduction(linalg::GenericOp op);

/// Emits the kernel body for `op` at `b`'s insertion point; `scratch` is a
/// workgroup buffer of plan.scratchSize elements of the output's type.
/// `output` is the linear index of the output point the block computes:
/// the block id when null (a row kernel's reductions pass 0: RowKernels.cpp).
/// A `prologue` (the op that makes the output's initial value) and an
/// `epilogue` (an elementwise op reading the output), either may be null,
/// run in thread 0 on the block's element, before and after it stores it
/// (a block group of infer-cuda-fuse-epilogues: emitElementwiseAtPoint).
LogicalResult buildBlockReductionKernel(OpBuilder &b, linalg::GenericOp op,
                                        const BlockReductionPlan &plan, Value scratch,
                                        Value output = {}, linalg::LinalgOp prologue = {},
                                        linalg::LinalgOp epilogue = {});

/// The plan for a block of `blockSize` threads (a power of two, at least a
/// warp) reducing `op` on its own, if its payload is one this file handles.
std::optional<BlockReductionPlan> planBlockReductionWith(linalg::GenericOp op,
                                                         int64_t blockSize);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_BLOCKREDUCTIONS_H
