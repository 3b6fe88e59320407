//===- OutputsInPlace.cpp - results computed in the caller's buffers -------===//
//
// buffer-results-to-out-params hoists a result's allocation into the
// caller's buffer only when the function returns that allocation itself.
// A result returned as a reshape of one (a convolution's [1, C, H*W]
// output expanded to [1, C, H, W]) would be computed in a temporary buffer
// and then copied out, and a result copied out of a padded home (a CUDA
// layout) copied into a temporary and then again into the caller's buffer.
//
// infer-outputs-in-place (memrefs, after out-params, before the arena):
// for each `memref.copy %src, %out` into an output argument, where %src is
// an allocation of %out's type, or collapse_shapes and expand_shapes of
// one, the allocation becomes %out itself and the copy goes (a reshape of
// a contiguous buffer keeps its elements' order, so %src is %out then). A
// temporary that only feeds the copy, written by a copy of its own
// (`memref.copy %view, %tmp`), keeps that copy with %out as its target.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_OUTPUTSINPLACEPASS
#include "infer-opt/Codegen/Common/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// The allocation `value` is, or is a chain of collapse_shapes and
/// expand_shapes of; null otherwise.
memref::AllocOp reshapedAllocation(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      return alloc;
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op))
      value = collapse.getSrc();
    else if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
      value = expand.getSrc();
    else
      return {};
  }
  return {};
}

struct OutputsInPlacePass : public infer::impl::OutputsInPlacePassBase<OutputsInPlacePass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return;
      for (BlockArgument out : func.getArguments()) {
        // An output argument: written by one copy and touched by nothing else.
        auto type = dyn_cast<MemRefType>(out.getType());
        if (!type || !type.getLayout().isIdentity() || !out.hasOneUse())
          continue;
        auto copy = dyn_cast<memref::CopyOp>(*out.getUsers().begin());
        if (!copy || copy.getTarget() != out)
          continue;
        memref::AllocOp alloc = reshapedAllocation(copy.getSource());
        if (!alloc || alloc.getType() != type)
          continue;
        alloc.getResult().replaceAllUsesWith(out);
        alloc.erase();
        copy.erase();
      }
    });
  }
};

} // namespace

