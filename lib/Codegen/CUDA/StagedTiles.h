//===- StagedTiles.h - tensor-core contractions through shared memory -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; StagedTiles.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H

#include "TensorCoreFusion.h"
#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include <string>

namespace mlir::infer {

/// How the shared-memory kernel spreads one contraction. A group of 4
/// warps (2 x 2) computes a blockM() x blockN() tile of C, each warp
/// fragM x fragN WMMA fragments of 16 x 16, and stages stepK of k a round,
/// in `stages` buffers (the copies of stages - 1 rounds in flight while one
/// is multiplied). A block has `groups` groups, each summing a slice of k;
/// their partial sums meet in shared memory.
/// With mmaSync (the heuristic's choice), the warps multiply with mma.sync
/// (MmaSync.h) instead of WMMA.
struct StagedTilePlan {
  int64_t fragM = 1, fragN = 1, stepK = kTileK, groups = 1, stages = 2;
  bool mmaSync = false;
  int64_t blockM() const { return 2 * kTileM * fragM; }
  int64_t blockN() const { return 2 * kTileN * fragN; }
};

/// The plan for a contraction whole 16x16x8 tiles cover, or nothing when
/// its block tiles would waste too much work past m or n (the kernel of
/// buildTensorCoreKernel, a warp a 16x16 tile, serves it then). The parts
/// that `choice` fixes are taken where they suit the contraction; where
/// they do not, the heuristic's plan is.
std::optional<StagedTilePlan> planStagedTiles(const ContractionShape &shape,
                                              const TensorCoreOperands &layout,
                                              const TilePlanChoice &choice = {});

/// `plan` in TilePlanChoice's text form, every part given.
std::string describeStagedTilePlan(const StagedTilePlan &plan);

/// The contraction's key in TunedTilePlans (CUDALaunch::contraction).
std::string describeStagedContraction(const ContractionShape &shape,
                                      const TensorCoreOperands &layout);

/// The kernel's shared memory: one float buffer, each group's A and B tiles
/// (later its partial sums, and group 0's warps' 16x16 tiles for `fusion`);
/// it must be 32-byte aligned.
MemRefType stagedTilesScratchType(MLIRContext *ctx, const StagedTilePlan &plan,
                                  const TensorCoreOperands &layout,
                                  const TensorCoreFusion &fusion);

/// Emits the kernel body for `op` (on memrefs, with `layout`) and its
/// `fusion` (TensorCoreFusion.h: the sums start from the prologue's values,
/// the epilogue gets them instead of C) at `b`'s insertion point; `scratch`
/// is the workgroup buffer of stagedTilesScratchType. Returns {grid, block}.
std::pair<int64_t, int64_t> buildStagedTileKernel(OpBuilder &b, linalg::LinalgOp op,
                                                  const ContractionShape &shape,
                                                  const TensorCoreOperands &layout,
                                                  const StagedTilePlan &plan, Value scratch,
                                                  const TensorCoreFusion &fusion);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_STAGEDTILES_H
