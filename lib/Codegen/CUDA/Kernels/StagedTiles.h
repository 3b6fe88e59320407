//===- StagedTiles.h - tensor-core contractions through shared memory -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; StagedTiles.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H

#include "Kernels/TensorCoreFusion.h"
#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Plan/KernelPlan.h"

#include <string>

namespace mlir::infer {

/// A block's tile of C under `plan` (TilePlan: a group of 2 x 2 warps,
/// each warpM x warpN fragments of 16 x 16).
inline int64_t blockM(const TilePlan &plan) { return 2 * kTileM * plan.warpM; }
inline int64_t blockN(const TilePlan &plan) { return 2 * kTileN * plan.warpN; }

/// The plan for a contraction whole 16x16x8 tiles cover, or nothing when
/// its block tiles would waste too much work past m or n (the kernel of
/// buildTensorCoreKernel, a warp a 16x16 tile, serves it then). The parts
/// that `choice` fixes are taken where they suit the contraction; where
/// they do not, the heuristic's plan is.
std::optional<TilePlan> planStagedTiles(const ContractionShape &shape,
                                        const TensorCoreOperands &layout,
                                        const TilePlanChoice &choice = {});

/// The contraction as a tuning key (KernelConfig::contraction).
ContractionKey contractionKey(const ContractionShape &shape, const TensorCoreOperands &layout);

/// The kernel's shared memory: one float buffer, each group's A and B tiles
/// (later its partial sums, and group 0's warps' 16x16 tiles for `fusion`);
/// it must be 32-byte aligned.
MemRefType stagedTilesScratchType(MLIRContext *ctx, const TilePlan &plan,
                                  const TensorCoreOperands &layout,
                                  const TensorCoreFusion &fusion);

/// Emits the kernel body for `op` (on memrefs, with `layout`) and its
/// `fusion` (TensorCoreFusion.h: the sums start from the prologue's values,
/// the epilogue gets them instead of C) at `b`'s insertion point; `scratch`
/// is the workgroup buffer of stagedTilesScratchType. Returns {grid, block}.
std::pair<int64_t, int64_t> buildStagedTileKernel(OpBuilder &b, linalg::LinalgOp op,
                                                  const ContractionShape &shape,
                                                  const TensorCoreOperands &layout,
                                                  const TilePlan &plan, Value scratch,
                                                  const TensorCoreFusion &fusion);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H
