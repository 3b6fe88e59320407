//===- AlignContractions.cpp - WMMA-ready layouts for odd-sized contractions -===//
//
// WMMA wants every operand's rows 16-byte aligned: a row stride that is a
// multiple of 4 floats. A contraction over an odd n, such as GPT-2's
// lm_head (50257 vocabulary entries), has a B constant [k, n] and an output
// [m, n] whose rows break that rule, so the whole op stayed on the SIMT path
// (5.9 ms of GPT-2's 10.3 on an H100). infer-cuda-align-contractions runs on
// tensors, before infer-cuda-split-contractions, and for each tensor-core
// candidate with at least one whole tile:
//
//   - stores a 2-D constant operand transposed when its rows are misaligned
//     and its columns are not; the indexing map is transposed with it, so
//     the op reads the same values. (GPT-2's folded Transpose of its tied
//     embedding becomes the embedding itself again, so the two constants
//     are one after CSE.)
//   - gives an output with misaligned rows a padded home: the op and the
//     op that initializes it (a fill, a broadcast bias) write into a slice
//     of a tensor.empty whose last dim is rounded up to 8, so that the rows
//     of the bufferized output are 32-byte aligned. Its users read the slice
//     (the function's output is copied out of it, as before).
//
//===----------------------------------------------------------------------===//

#include "TensorCores.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <cstring>

using namespace mlir;
using namespace mlir::infer;

namespace {

constexpr int64_t kRowAlignment = 4; // floats: WMMA's 16-byte row stride.
constexpr int64_t kPaddedRow = 8;    // floats: 32-byte rows, as tiles want.

bool aligned(int64_t elements) { return elements % kRowAlignment == 0; }

/// The transpose of a 2-D float32 constant.
DenseElementsAttr transpose2D(DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto transposed = RankedTensorType::get({cols, rows}, type.getElementType());
  if (value.isSplat())
    return DenseElementsAttr::get(transposed, value.getSplatValue<Attribute>());
  ArrayRef<char> in = value.getRawData();
  std::vector<char> out(in.size());
  constexpr size_t width = sizeof(float);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&out[(c * rows + r) * width], &in[(r * cols + c) * width], width);
  return DenseElementsAttr::getFromRawBuffer(transposed, out);
}

/// The constant of input `index` if storing it transposed aligns its rows.
DenseElementsAttr misalignedConstant(linalg::LinalgOp op, unsigned index) {
  Value input = op.getDpsInputs()[index];
  auto constant = input.getDefiningOp<arith::ConstantOp>();
  auto value = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : DenseElementsAttr();
  if (!value)
    return {};
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() != 2 || aligned(type.getDimSize(1)) || !aligned(type.getDimSize(0)))
    return {};
  return value;
}

/// The operand to give a padded home when `op`'s output rows are
/// misaligned: the output itself when it is a tensor.empty, else the init of
/// the single-init op that produces it (a fill, a broadcast bias) when that
/// is a tensor.empty. Null when the rows are aligned or nothing qualifies.
OpOperand *outputRoot(linalg::LinalgOp op) {
  OpOperand *init = op.getDpsInitOperand(0);
  if (init->get().getDefiningOp<tensor::EmptyOp>())
    return init;
  auto producer = init->get().getDefiningOp<DestinationStyleOpInterface>();
  if (!producer || !init->get().hasOneUse() || producer->getNumResults() != 1 ||
      producer.getNumDpsInits() != 1)
    return nullptr;
  OpOperand *root = producer.getDpsInitOperand(0);
  if (!root->get().getDefiningOp<tensor::EmptyOp>() || root->get().getType() != init->get().getType())
    return nullptr;
  return root;
}

bool misalignedRows(linalg::LinalgOp op) {
  auto type = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  return !aligned(type.getShape().back());
}

/// Points `operand` (a tensor.empty) at a slice of a new tensor.empty whose
/// last dim is padded; other users of the old one keep it.
void padRows(RewriterBase &rewriter, OpOperand &operand) {
  auto type = cast<RankedTensorType>(operand.get().getType());
  SmallVector<int64_t> padded(type.getShape());
  padded.back() = (padded.back() + kPaddedRow - 1) / kPaddedRow * kPaddedRow;
  Operation *user = operand.getOwner();
  rewriter.setInsertionPoint(user);
  Location loc = operand.get().getLoc();
  Value wide = tensor::EmptyOp::create(rewriter, loc, padded, type.getElementType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
      ones(rank, rewriter.getIndexAttr(1)), sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, type, wide, zeros, sizes, ones);
  rewriter.modifyOpInPlace(user, [&] { operand.set(slice); });
}

struct AlignContractionsPass
    : public PassWrapper<AlignContractionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AlignContractionsPass)
  StringRef getArgument() const final { return "infer-cuda-align-contractions"; }
  StringRef getDescription() const final {
    return "Give float32 contractions with misaligned rows WMMA-ready layouts: odd constants "
           "stored transposed, odd outputs in padded buffers";
  }
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      std::optional<ContractionShape> shape = tensorCoreShape(op);
      if (shape && op.hasPureTensorSemantics() && coversATile(*shape))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      // All or nothing: an op whose output cannot be padded stays on the
      // SIMT path, where a transposed constant would read uncoalesced.
      OpOperand *root = nullptr;
      if (misalignedRows(op) && !(root = outputRoot(op)))
        continue;
      if (root)
        padRows(rewriter, *root);
      for (unsigned index : {0u, 1u}) {
        DenseElementsAttr value = misalignedConstant(op, index);
        if (!value)
          continue;
        rewriter.setInsertionPoint(op);
        auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        if (!generic)
          generic = *linalg::generalizeNamedOp(rewriter, op);
        op = generic;
        rewriter.setInsertionPoint(generic);
        Value transposed = arith::ConstantOp::create(rewriter, op.getLoc(), transpose2D(value));
        SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
        AffineMap map = maps[index];
        maps[index] = AffineMap::get(map.getNumDims(), 0, {map.getResult(1), map.getResult(0)},
                                     &getContext());
        Operation *old = generic->getOperand(index).getDefiningOp();
        rewriter.modifyOpInPlace(generic, [&] {
          generic->setOperand(index, transposed);
          generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        });
        if (old->use_empty()) // Else it would still be hoisted as a weight.
          rewriter.eraseOp(old);
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::infer::createAlignContractionsPass() {
  return std::make_unique<AlignContractionsPass>();
}
