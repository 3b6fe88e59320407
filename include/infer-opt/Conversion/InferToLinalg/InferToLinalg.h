//===- InferToLinalg.h - `infer` to linalg on tensors -----------*- C++ -*-===//

#ifndef INFER_OPT_CONVERSION_INFERTOLINALG_INFERTOLINALG_H
#define INFER_OPT_CONVERSION_INFERTOLINALG_INFERTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::infer {

/// Patterns of each op family (lib/Conversion/InferToLinalg/<Family>.cpp).
void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateContractionToLinalgPatterns(RewritePatternSet &patterns);
void populateConvolutionToLinalgPatterns(RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(RewritePatternSet &patterns);
void populateTensorOpsToLinalgPatterns(RewritePatternSet &patterns);

/// All of the above.
void populateInferToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::infer

#endif // INFER_OPT_CONVERSION_INFERTOLINALG_INFERTOLINALG_H
