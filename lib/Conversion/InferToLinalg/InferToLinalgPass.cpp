//===- InferToLinalgPass.cpp - the --convert-infer-to-linalg pass ---------===//

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"
#include "infer-opt/Conversion/Passes.h"

#include "Infer/InferOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::infer {
#define GEN_PASS_DEF_CONVERTINFERTOLINALG
#include "infer-opt/Conversion/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

void mlir::infer::populateInferToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateContractionToLinalgPatterns(patterns);
  populateConvolutionToLinalgPatterns(patterns);
  populateReductionToLinalgPatterns(patterns);
  populateTensorOpsToLinalgPatterns(patterns);
}

namespace {
struct ConvertInferToLinalgPass
    : public mlir::infer::impl::ConvertInferToLinalgBase<ConvertInferToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateInferToLinalgPatterns(patterns);
    GreedyRewriteConfig config;
    config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    // Whatever is left could not be lowered: say which op, at which node.
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa<InferDialect>(op->getDialect()))
        return;
      failedAny = true;
      auto diag = op->emitError() << "cannot lower '" << op->getName() << "' yet";
      bool dynamic = llvm::any_of(llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
                                  [](Type t) {
                                    auto tensor = dyn_cast<RankedTensorType>(t);
                                    return tensor && !tensor.hasStaticShape();
                                  });
      if (dynamic)
        diag << ": it has dynamic dims; pass --input-shape to make the model static";
      else
        diag << " with these types or attributes";
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
