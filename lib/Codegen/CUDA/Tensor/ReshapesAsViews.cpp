//===- ReshapesAsViews.cpp - static tensor.reshape as expand or collapse ---===//
//
// infer-cuda-reshapes-as-views, on tensors, first in the CUDA pipeline. The
// ONNX Reshape lowers to tensor.reshape with a constant shape operand,
// which bufferizes to memref.reshape: that needs a contiguous source, so a
// strided one is copied first. A fused Q/K/V projection split into three
// column slices of a [64, 2304] result, each reshaped to heads, would be
// three copy kernels a layer. When the reshape only splits dims
// (or only merges them), tensor.expand_shape (tensor.collapse_shape) says
// the same, and bufferizes to a view of the slice: [64, 768] of row stride
// 2304 is [64, 12, 64] with strides [2304, 64, 1]. (A collapse of dims
// that are not contiguous still gets its copy, from bufferization.)
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_RESHAPESASVIEWSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct ReshapesAsViewsPass : public infer::impl::ReshapesAsViewsPassBase<ReshapesAsViewsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<tensor::ReshapeOp> reshapes;
    getOperation().walk([&](tensor::ReshapeOp op) { reshapes.push_back(op); });
    for (tensor::ReshapeOp op : reshapes) {
      auto source = cast<RankedTensorType>(op.getSource().getType());
      auto result = cast<RankedTensorType>(op.getResult().getType());
      if (!source.hasStaticShape() || !result.hasStaticShape() ||
          source.getRank() == result.getRank() || source.getRank() == 0 || result.getRank() == 0)
        continue;
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(source, result);
      if (!groups)
        continue;
      OpBuilder b(op);
      Value view;
      if (result.getRank() > source.getRank())
        view = tensor::ExpandShapeOp::create(b, op.getLoc(), result, op.getSource(), *groups);
      else
        view = tensor::CollapseShapeOp::create(b, op.getLoc(), result, op.getSource(), *groups);
      op.getResult().replaceAllUsesWith(view);
      op.erase();
    }
  }
};

} // namespace

