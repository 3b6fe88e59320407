//===- PrepareEpilogues.cpp - what fuse-epilogues needs from the tensors ---===//
//
// infer-cuda-prepare-epilogues, on tensors, just before bufferization: two
// facts that are plain on tensors and lost on memrefs, for
// infer-cuda-fuse-epilogues (FuseEpilogues.cpp).
//
//   1. A fill per tensor-core candidate. CSE merges equal fills (every
//      layer's "zeros of [1, 128, 3072]" before its MatMul) into one fill
//      with many users; each user then accumulates into the same tensor,
//      so bufferization fills one buffer once and copies it for every
//      user: a copy kernel where a fill kernel was, and a contraction whose
//      initial value comes from a copy, which its kernel cannot make
//      itself. A fill per contraction (with its own tensor.empty) has
//      neither problem; elsewhere one fill shared by readers is cheaper.
//   2. `infer.read_once` on a contraction whose result has one user: after
//      that user nothing reads the result, so a kernel that feeds it to
//      the user from registers need not store it.
//
//===----------------------------------------------------------------------===//

#include "TensorCores.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Gives each tensor-core candidate accumulating into `fill` its own.
void untie(linalg::FillOp fill) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : fill->getResult(0).getUses()) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (user && user.isDpsInit(&use) && tensorCoreShape(user))
      uses.push_back(&use);
  }
  auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
  for (OpOperand *use : uses) {
    OpBuilder b(use->getOwner());
    IRMapping map;
    if (empty)
      map.map(empty.getResult(), b.clone(*empty)->getResult(0));
    Operation *clone = b.clone(*fill, map);
    clone->setLoc(use->getOwner()->getLoc()); // Its node is the user's now.
    use->set(clone->getResult(0));
  }
  if (fill->use_empty()) // Left as is, bufferization would keep a fill kernel.
    fill->erase();
  if (empty && empty->use_empty())
    empty->erase();
}

struct PrepareEpiloguesPass
    : public PassWrapper<PrepareEpiloguesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareEpiloguesPass)
  StringRef getArgument() const final { return "infer-cuda-prepare-epilogues"; }
  StringRef getDescription() const final {
    return "Give each tensor-core candidate its own fill and mark those whose result is read "
           "once (infer.read_once), for infer-cuda-fuse-epilogues";
  }

  void runOnOperation() override {
    SmallVector<linalg::FillOp> shared;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).hasOneUse() &&
          !fill->getResult(0).use_empty())
        shared.push_back(fill);
    });
    for (linalg::FillOp fill : shared)
      untie(fill);
    Builder b(&getContext());
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
          op->getResult(0).hasOneUse() && tensorCoreShape(op))
        op->setAttr(kReadOnceAttr, b.getUnitAttr());
    });
  }
};

} // namespace

std::unique_ptr<Pass> mlir::infer::createPrepareEpiloguesPass() {
  return std::make_unique<PrepareEpiloguesPass>();
}
