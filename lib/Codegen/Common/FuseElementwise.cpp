//===- FuseElementwise.cpp - elementwise producers into their consumers ---===//
//
// infer-fuse-elementwise, on linalg on tensors before tiling: upstream
// linalg's elementwise fusion (linalg::fuseElementwiseOps) merges an
// all-parallel linalg.generic into the linalg.generic that consumes it, so
// chains such as Add -> Relu, the pieces of GELU or the x - mean -> x^2 ->
// ReduceMean of a LayerNorm become one loop nest that never writes the
// intermediate tensors. A producer is fused only when
//   - its results have one use each, all in that consumer (fusing would
//     otherwise compute it twice: for its other users, or once per operand
//     of the consumer that reads it; duplicate operands are merged first);
//   - the consumer reads it through a permutation, not a broadcast (which
//     would recompute each producer element many times);
//   - the consumer is not a contraction or convolution: those keep their
//     plain multiply-accumulate bodies, which the vectorizer turns into
//     vector.contract.
// The fused op's location joins both ops' locations, so its kernel lists
// every ONNX node it computes.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::infer {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "infer-opt/Codegen/Common/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

bool worthFusing(OpOperand &operand) {
  auto consumer = cast<linalg::GenericOp>(operand.getOwner());
  auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
  if (!producer || !linalg::areElementwiseOpsFusable(&operand))
    return false;
  for (Value result : producer->getResults())
    if (!result.use_empty() && (!result.hasOneUse() || *result.user_begin() != consumer))
      return false;
  if (!consumer.getMatchingIndexingMap(&operand).isPermutation())
    return false;
  return !linalg::isaContractionOpInterface(consumer) &&
         !linalg::isaConvolutionOpInterface(consumer);
}

struct FuseProducerIntoConsumer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!worthFusing(operand))
        continue;
      Operation *producer = operand.get().getDefiningOp();
      Location loc = rewriter.getFusedLoc({producer->getLoc(), consumer.getLoc()});
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      fused->fusedOp->setLoc(loc);
      // The consumer's results (and any producer result the fused op still
      // yields) now come from the fused op.
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != producer;
        });
      rewriter.eraseOp(consumer);
      return success();
    }
    return failure();
  }
};

struct FuseElementwisePass : public infer::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseProducerIntoConsumer>(&getContext());
    // Duplicate operands (Mul(x, x)) merged into one, dead results dropped.
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

