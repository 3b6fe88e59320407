//===- SplitContractions.cpp - contractions split at whole tiles ----------===//
//
// infer-cuda-split-contractions: a float32 contraction whose m or n is not
// whole 16-tiles is split into the part that is (a tensor-core kernel) and
// the edges (SIMT kernels). k is not split: a single k dim's last 1 to 7
// elements are the tensor-core kernel's last step (kTail), and several k
// dims are whole steps, or padded to them by infer-cuda-align-contractions.
//
//===----------------------------------------------------------------------===//

#include "Analysis/KernelCandidates.h"
#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_SPLITCONTRACTIONSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct SplitContractionsPass : public infer::impl::SplitContractionsPassBase<SplitContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (tensorCoreShape(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      ContractionShape s = *tensorCoreShape(op);
      if (!coversATile(s)) // No part would be a tensor-core kernel: split, it is only more kernels.
        continue;
      SmallVector<linalg::LinalgOp> parts = {op};
      // k is not split: the kernel takes a single k dim's last elements
      // (kTail), and several k dims must be whole steps together.
      SmallVector<std::pair<unsigned, int64_t>> splits = {{s.m, kTileM}, {s.n, kTileN}};
      for (auto [dim, tile] : splits) {
        SmallVector<linalg::LinalgOp> next;
        for (linalg::LinalgOp part : parts) {
          int64_t whole = part.getStaticLoopRanges()[dim] / tile * tile;
          for (Operation *piece : splitAt(rewriter, part, dim, whole))
            next.push_back(cast<linalg::LinalgOp>(piece));
        }
        parts = std::move(next);
      }
    }
  }
};

} // namespace
