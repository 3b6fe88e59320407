//===- ParallelFirst.h - a linalg op as a generic, parallel dims first -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: the SIMT and row kernels give threads the
// parallel dims of an op and leave its reductions as loops inside each.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_PARALLELFIRST_H
#define INFER_OPT_LIB_CODEGEN_CUDA_PARALLELFIRST_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::infer {

/// `op` generalized with its parallel dims first, then its reductions, in
/// their order: the reductions become loops inside each thread.
inline FailureOr<linalg::GenericOp> parallelFirst(RewriterBase &rewriter, linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  if (!isa<linalg::GenericOp>(op)) {
    FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return op->emitError("internal: cannot generalize for the GPU");
    op = *generic;
  }
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] == utils::IteratorType::parallel)
      order.push_back(i);
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      order.push_back(i);
  auto generic = cast<linalg::GenericOp>(op.getOperation());
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return generic;
  FailureOr<linalg::GenericOp> swapped = linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(swapped))
    return op->emitError("internal: cannot interchange loops for the GPU");
  return *swapped;
}

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_PARALLELFIRST_H
