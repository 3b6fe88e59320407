//===- AddsIntoInit.cpp - an add after a contraction becomes its init -----===//
//
// infer-cuda-adds-into-init runs on linalg on tensors, before the
// contractions are aligned and split. A MatMul followed by its bias Add
// (and, in a transformer's output projections, the residual Add fused with
// it) was three kernels on the GPU: the fill of the result with zeros, the
// contraction, and the elementwise op that reads the whole result back to
// add the bias. The contraction accumulates onto whatever its init holds,
// so
//
//   %c = contraction(A, B) outs(fill(0))
//   %y = generic(%c, %bias, ...) { yield (c + bias) + ... }
//
// becomes
//
//   %init = generic(%bias, ...) { yield (0 + bias) + ... }
//   %y = contraction(A, B) outs(%init)
//
// two kernels, and the result is written once. It applies when %c has no
// other user, the generic is elementwise with one result of %c's type, reads
// %c through its own output map, and its payload is a chain of additions
// that uses %c once, at any place in the chain (float addition is then
// reordered: the bias is added first, as TensorRT's fused epilogues and
// cuBLAS's beta = 1 do). The reduction must accumulate by addition (its
// payload yields out + something that does not read out): a max or a
// product does not distribute over the added terms.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_ADDSINTOINITPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Whether `value` is `c` plus terms that do not depend on it: `c` itself,
/// or an addf of such a value and anything else. `c` has one use, so the
/// other terms cannot read it.
bool isSumWith(Value value, BlockArgument c) {
  if (value == c)
    return true;
  auto add = value.getDefiningOp<arith::AddFOp>();
  return add && (isSumWith(add.getLhs(), c) || isSumWith(add.getRhs(), c));
}

/// Whether `op` sums into its output: its payload yields `out + term`
/// (either order) where `out` is used nowhere else.
bool accumulatesBySum(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  BlockArgument out = body->getArgument(body->getNumArguments() - 1);
  auto add = cast<linalg::YieldOp>(body->getTerminator()).getOperand(0).getDefiningOp<arith::AddFOp>();
  return add && out.hasOneUse() && (add.getLhs() == out || add.getRhs() == out);
}

/// The operand of `consumer` that reads `contraction`'s result, if the
/// pair is one this pass rewrites.
OpOperand *foldableUse(linalg::LinalgOp contraction, linalg::GenericOp consumer) {
  if (consumer.getNumDpsInits() != 1 || consumer.getNumParallelLoops() != consumer.getNumLoops() ||
      consumer->getResult(0).getType() != contraction->getResult(0).getType())
    return nullptr;
  OpOperand *use = nullptr;
  for (OpOperand *input : consumer.getDpsInputOperands())
    if (input->get() == contraction->getResult(0)) {
      if (use)
        return nullptr; // Read twice.
      use = input;
    }
  if (!use || consumer.getMatchingIndexingMap(use) !=
                  consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0)))
    return nullptr;
  BlockArgument c = consumer.getMatchingBlockArgument(use);
  auto yield = cast<linalg::YieldOp>(consumer.getRegion().front().getTerminator());
  if (!c.hasOneUse() || !isSumWith(yield.getOperand(0), c))
    return nullptr;
  return use;
}

struct AddsIntoInitPass : public infer::impl::AddsIntoInitPassBase<AddsIntoInitPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0 &&
          op.getNumDpsInits() == 1 && op->getNumResults() == 1 && op->getResult(0).hasOneUse() &&
          op.getDpsInits()[0].getDefiningOp<linalg::FillOp>() && accumulatesBySum(op))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp contraction : contractions) {
      auto consumer = dyn_cast<linalg::GenericOp>(*contraction->getResult(0).getUsers().begin());
      OpOperand *use = consumer ? foldableUse(contraction, consumer) : nullptr;
      if (!use)
        continue;
      auto fill = contraction.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
      // The new init: the consumer without its contraction operand, which
      // reads the fill's value instead.
      unsigned position = use->getOperandNumber();
      SmallVector<Value> inputs;
      SmallVector<AffineMap> maps;
      for (OpOperand *input : consumer.getDpsInputOperands())
        if (input != use) {
          inputs.push_back(input->get());
          maps.push_back(consumer.getMatchingIndexingMap(input));
        }
      maps.push_back(consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0)));
      // At the consumer: what it reads may be computed after the
      // contraction, which moves there too (its own operands came before).
      rewriter.setInsertionPoint(consumer);
      auto init = linalg::GenericOp::create(rewriter, consumer.getLoc(),
                                            consumer->getResultTypes(), inputs,
                                            consumer.getDpsInits(), maps,
                                            consumer.getIteratorTypesArray());
      rewriter.inlineRegionBefore(consumer.getRegion(), init.getRegion(), init.getRegion().begin());
      Block &body = init.getRegion().front();
      body.getArgument(position).replaceAllUsesWith(fill.getInputs()[0]);
      body.eraseArgument(position);
      // The contraction accumulates onto it, in the consumer's place.
      rewriter.modifyOpInPlace(contraction, [&] {
        contraction.getDpsInitsMutable()[0].set(init->getResult(0));
        contraction->moveBefore(consumer);
      });
      contraction->setLoc(rewriter.getFusedLoc({contraction.getLoc(), consumer.getLoc()}));
      rewriter.replaceOp(consumer, contraction->getResults());
      if (fill->use_empty())
        rewriter.eraseOp(fill);
    }
  }
};

} // namespace

