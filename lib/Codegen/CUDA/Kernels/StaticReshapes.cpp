//===- StaticReshapes.cpp - memref.reshape to a static shape as a view ----===//
//
// infer-static-reshapes: memref.reshape of a contiguous buffer to a static
// shape is a reinterpret_cast, a view, which kernels can recompute, unlike
// a reshape that reads its shape from memory.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_STATICRESHAPESPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct StaticReshapesPass : public infer::impl::StaticReshapesPassBase<StaticReshapesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::ReshapeOp> reshapes;
    getOperation().walk([&](memref::ReshapeOp op) { reshapes.push_back(op); });
    for (memref::ReshapeOp op : reshapes) {
      auto source = cast<MemRefType>(op.getSource().getType());
      auto result = cast<MemRefType>(op.getResult().getType());
      if (!source.getLayout().isIdentity() || !result.getLayout().isIdentity() ||
          !result.hasStaticShape())
        continue;
      SmallVector<int64_t> strides(result.getRank(), 1);
      for (int64_t i = result.getRank() - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * result.getDimSize(i + 1);
      OpBuilder b(op);
      auto cast = memref::ReinterpretCastOp::create(b, op.getLoc(), result, op.getSource(), 0,
                                                    result.getShape(), strides);
      op.replaceAllUsesWith(cast.getResult());
      op.erase();
    }
  }
};

} // namespace
