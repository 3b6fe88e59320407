//===- GuardedPadReads.cpp - short reductions read past their input's edge ===//
//
// infer-cuda-guarded-pad-reads, on tensors, before infer-cuda-pads-in-place.
// A depthwise convolution (or a pool) reads its input through a
// tensor.pad: a padded copy that costs a fill kernel and, unless its
// producer writes into it (PadsInPlace.cpp), a copy kernel, and a buffer
// larger than the input. Such a reduction runs a thread per output
// (infer-cuda-fuse-epilogues' point groups: shorter than a block
// reduction's 64), so each thread can as well check its reads against the
// input's bounds and take the padding value outside them. The reduction
// then reads the pad's source itself (a tensor.extract in its payload, at
// clamped indices), and the pad is gone when nothing else reads it.
//
// The im2col copy of an ungrouped convolution (a copy of each window of the
// padded input, all loops parallel) reads its pad the same way: each of its
// threads already reads alone (a window is not a vector access), and the
// pad's fill and copy kernels and its buffer go.
//
//===----------------------------------------------------------------------===//

#include "Analysis/KernelCandidates.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_GUARDEDPADREADSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Whether `op` can read a padded input through bounds checks: a reduction
/// that runs a thread per output on the GPU (isSimtPointReduction), or an
/// op with parallel loops only (an im2col copy), whose threads each compute
/// their own elements.
bool readsThroughGuards(linalg::GenericOp op) {
  if (op.getNumLoops() == op.getNumParallelLoops())
    return op.hasPureTensorSemantics() && op.getNumLoops() > 0 && !op.hasDynamicShape();
  return isSimtPointReduction(op);
}

/// Whether every loop of `op` stays bounded without its operand `index`:
/// some other operand reads along it as a plain dim. linalg takes the loop
/// ranges from the operands' shapes; a reduction whose only read along its
/// reduced dim is the padded input (a cumulative sum) would lose that dim's
/// range, and the generic would be invalid.
bool loopsBoundedWithout(linalg::GenericOp op, unsigned index) {
  llvm::SmallBitVector bounded(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands())
    if (operand.getOperandNumber() != index)
      for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          bounded.set(dim.getPosition());
  return bounded.all();
}

/// `op` reading `padded` (its input operand `index`, the result of `pad`)
/// through bounds checks on the pad's source instead.
void readThroughGuards(OpBuilder &b, linalg::GenericOp op, unsigned index, tensor::PadOp pad,
                       Value padding) {
  Location loc = op.getLoc();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [i, operand] : llvm::enumerate(op.getDpsInputs()))
    if (i != index) {
      inputs.push_back(operand);
      maps.push_back(op.getIndexingMapsArray()[i]);
    }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  AffineMap readMap = op.getIndexingMapsArray()[index];
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  ArrayRef<int64_t> sizes = pad.getSourceType().getShape();
  Value source = pad.getSource();
  Block &oldBody = op.getRegion().front();
  b.setInsertionPoint(op);
  auto guarded = linalg::GenericOp::create(
      b, loc, op->getResultTypes(), inputs, op.getDpsInits(), maps, op.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> loops;
        for (unsigned d = 0; d < op.getNumLoops(); ++d)
          loops.push_back(linalg::IndexOp::create(nb, l, d));
        auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(nb, l, v); };
        // Each index into the padded tensor, less the low padding: inside
        // the source when below its size (unsigned); clamped to 0 outside.
        Value inside;
        SmallVector<Value> indices;
        for (auto [dim, expr] : llvm::enumerate(readMap.getResults())) {
          Value at = affine::expandAffineExpr(nb, l, expr, loops, {});
          if (low[dim] == 0 && high[dim] == 0) { // In bounds, as the padded read was.
            indices.push_back(at);
            continue;
          }
          if (low[dim])
            at = arith::SubIOp::create(nb, l, at, cst(low[dim]));
          Value ok = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, at, cst(sizes[dim]));
          inside = inside ? arith::AndIOp::create(nb, l, inside, ok).getResult() : ok;
          indices.push_back(arith::SelectOp::create(nb, l, ok, at, cst(0)));
        }
        Value value = tensor::ExtractOp::create(nb, l, source, indices);
        if (inside)
          value = arith::SelectOp::create(nb, l, inside, value, padding);
        IRMapping map;
        unsigned next = 0;
        for (auto [i, arg] : llvm::enumerate(oldBody.getArguments()))
          map.map(arg, i == index ? value : args[next++]);
        for (Operation &inner : oldBody.without_terminator())
          nb.clone(inner, map);
        SmallVector<Value> yields;
        for (Value v : oldBody.getTerminator()->getOperands())
          yields.push_back(map.lookupOrDefault(v));
        linalg::YieldOp::create(nb, l, yields);
      });
  guarded->setAttrs(op->getDiscardableAttrDictionary());
  op->replaceAllUsesWith(guarded->getResults());
  op->erase();
}

struct GuardedPadReadsPass : public infer::impl::GuardedPadReadsPassBase<GuardedPadReadsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    OpBuilder b(&getContext());
    for (tensor::PadOp pad : pads) {
      Value padding = pad.getConstantPaddingValue();
      if (!padding || !pad.getResultType().hasStaticShape() ||
          !pad.getSourceType().hasStaticShape() ||
          llvm::any_of(pad.getStaticLow(), ShapedType::isDynamic) ||
          llvm::any_of(pad.getStaticHigh(), ShapedType::isDynamic))
        continue;
      // Every user a short reduction or a parallel op reading it once, as
      // an input.
      SmallVector<std::pair<linalg::GenericOp, unsigned>> users;
      for (OpOperand &use : pad.getResult().getUses()) {
        auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
        if (!user || !readsThroughGuards(user) || !user.isDpsInput(&use) ||
            llvm::count(user->getOperands(), pad.getResult()) != 1 ||
            !loopsBoundedWithout(user, use.getOperandNumber())) {
          users.clear();
          break;
        }
        users.push_back({user, use.getOperandNumber()});
      }
      if (users.empty())
        continue;
      // The padding value is a constant (or defined before the pad): a
      // constant op is cloned before each user, since it may be defined
      // later or inside the pad's region.
      for (auto [user, index] : users) {
        Value value = padding;
        if (Operation *def = padding.getDefiningOp(); def && def->hasTrait<OpTrait::ConstantLike>()) {
          b.setInsertionPoint(user);
          value = b.clone(*def)->getResult(0);
        }
        readThroughGuards(b, user, index, pad, value);
      }
      pad->erase();
    }
  }
};

} // namespace

