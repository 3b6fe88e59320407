//===- ParallelLoops.h - an op's parallel loops spread over threads -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: the SIMT and row kernels give threads the
// parallel dims of an op (as an scf.parallel) and leave its reductions as
// loops inside each.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_PARALLELLOOPS_H
#define INFER_OPT_LIB_CODEGEN_CUDA_PARALLELLOOPS_H

#include "Kernels/Delinearize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

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

/// Constant bounds of a normalized-or-not parallel loop: trip count per dim.
inline std::optional<SmallVector<int64_t>> tripCounts(scf::ParallelOp loop) {
  SmallVector<int64_t> counts;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    counts.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
  }
  return counts;
}

/// Clones `loop`'s body at `b`'s insertion point for the iteration whose
/// linear number is `linear` (delinearized over `counts`, its trip counts,
/// innermost fastest). The caller erases `loop`.
inline void cloneIteration(OpBuilder &b, scf::ParallelOp loop, Value linear,
                           ArrayRef<int64_t> counts) {
  Location loc = loop.getLoc();
  IRMapping map;
  SmallVector<Value> indices = delinearize(b, loc, linear, counts);
  for (size_t d = 0; d < counts.size(); ++d) {
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound()[d],
        arith::MulIOp::create(b, loc, indices[d], loop.getStep()[d]));
    map.map(loop.getInductionVars()[d], iv);
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
}

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_PARALLELLOOPS_H
