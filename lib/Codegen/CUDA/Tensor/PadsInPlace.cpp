//===- PadsInPlace.cpp - a padded tensor's producer writes its interior ---===//
//
// infer-cuda-pads-in-place, on tensors, just before bufferization. A
// convolution's zero padding is a tensor.pad of its input, which
// bufferizes to a new buffer, a fill of it, and a copy of the input into
// its interior: two kernels after the one that made the input (in a
// bottleneck block, the ReLU after a 1x1 convolution, itself an epilogue
// of the tensor-core kernel). When that producer is a linalg op whose output
// starts as a tensor.empty and whose result only the pad reads, the fill
// comes first and the producer writes straight into the interior
// (tensor.extract_slice of the filled tensor as its output, the result
// inserted back where it came from: in place after bufferization). One
// copy kernel less for each such pad.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_PADSINPLACEPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct PadsInPlacePass : public infer::impl::PadsInPlacePassBase<PadsInPlacePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads) {
      Value padding = pad.getConstantPaddingValue();
      auto source = dyn_cast<OpResult>(pad.getSource());
      auto producer = source ? dyn_cast<linalg::LinalgOp>(source.getOwner()) : linalg::LinalgOp();
      if (!padding || !producer || !producer.hasPureTensorSemantics() ||
          producer->getNumResults() != 1 || !source.hasOneUse() ||
          !pad.getResultType().hasStaticShape() || !pad.getSourceType().hasStaticShape() ||
          producer->getBlock() != pad->getBlock())
        continue;
      OpOperand &init = producer.getDpsInitsMutable()[0];
      auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || producer.payloadUsesValueFromOperand(&init))
        continue;
      // The padding value is a constant: clone it if it is defined later.
      OpBuilder b(producer);
      Location loc = pad.getLoc();
      if (Operation *def = padding.getDefiningOp();
          def && def->getBlock() == producer->getBlock() && producer->isBeforeInBlock(def))
        padding = b.clone(*def)->getResult(0);
      RankedTensorType padded = pad.getResultType();
      Value whole = tensor::EmptyOp::create(b, loc, padded.getShape(), padded.getElementType());
      Value filled = linalg::FillOp::create(b, loc, padding, whole).getResult(0);
      SmallVector<OpFoldResult> offsets = pad.getMixedLowPad();
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t size : pad.getSourceType().getShape()) {
        sizes.push_back(b.getIndexAttr(size));
        strides.push_back(b.getIndexAttr(1));
      }
      Value interior = tensor::ExtractSliceOp::create(b, loc, filled, offsets, sizes, strides);
      init.set(interior);
      if (empty->use_empty())
        empty->erase();
      b.setInsertionPoint(pad);
      Value result =
          tensor::InsertSliceOp::create(b, loc, source, filled, offsets, sizes, strides);
      pad.getResult().replaceAllUsesWith(result);
      pad->erase();
    }
  }
};

} // namespace

