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

/// The row stride WMMA would load operand `index` of `op` with, were it a
/// contiguous (row-major) tensor: the stride of whichever of its two tile
/// dims is not the contiguous one. Nullopt when neither is contiguous (no
/// layout fix helps then).
std::optional<int64_t> contiguousRowStride(linalg::LinalgOp op, const ContractionShape &s,
                                           unsigned index) {
  auto type = cast<RankedTensorType>(op->getOperand(index).getType());
  AffineMap map = op.getIndexingMapsArray()[index];
  SmallVector<int64_t> perLoop(map.getNumDims(), 0);
  int64_t stride = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    perLoop[cast<AffineDimExpr>(map.getResult(i)).getPosition()] += stride;
    stride *= type.getDimSize(i);
  }
  unsigned first = index == 1 ? s.k : s.m, second = index == 0 ? s.k : s.n;
  if (perLoop[first] == 1)
    return perLoop[second];
  if (perLoop[second] == 1)
    return perLoop[first];
  return std::nullopt;
}

/// How one operand's misaligned rows are fixed: a 2-D constant is stored
/// transposed; anything else gets a padded home, given to the tensor.empty
/// (`padRoot`) that its producer writes into.
struct RowFix {
  unsigned operand = 0;                  // 0, 1: the inputs; 2: the output.
  RankedTensorType rowsType;             // The operand's type; its last dim is padded.
  DenseElementsAttr transpose;           // Set: store this constant transposed.
  OpOperand *padRoot = nullptr;          // Else: point this init at the padded home,
  SmallVector<ReassociationIndices> expand; // expanded like this when a
                                         // collapse_shape lies in between;
                                         // without a root, copy the input there.
  bool done = false;                     // Padded already (for an earlier op).
};

/// Whether `home` is a padded home that padRows made: a slice, maybe
/// expanded, of a tensor.empty with aligned rows.
bool isPaddedHome(Value home) {
  if (auto expand = home.getDefiningOp<tensor::ExpandShapeOp>())
    home = expand.getSrc();
  auto slice = home.getDefiningOp<tensor::ExtractSliceOp>();
  auto empty = slice ? slice.getSource().getDefiningOp<tensor::EmptyOp>() : tensor::EmptyOp();
  return empty && aligned(empty.getType().getShape().back());
}

/// The fix for operand `index` of `op` (whose last dim is misaligned), if
/// there is one:
///   - a 2-D constant whose first dim is aligned: transposed;
///   - a value written by a single-init op (a fill, a broadcast bias, an
///     im2col copy, an activation) into a tensor.empty, or a tensor.empty
///     itself, with at most one collapse_shape (a convolution's spatial dims
///     flattened) before or after the producer: padded. Other users of the
///     value read the same elements through the slice.
std::optional<RowFix> planRowFix(linalg::LinalgOp op, unsigned index) {
  OpOperand &use = op->getOpOperand(index);
  RowFix fix;
  fix.operand = index;
  fix.rowsType = cast<RankedTensorType>(use.get().getType());
  if (auto constant = use.get().getDefiningOp<arith::ConstantOp>()) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!value || index == 2 || fix.rowsType.getRank() != 2 || !aligned(fix.rowsType.getDimSize(0)))
      return std::nullopt;
    fix.transpose = value;
    return fix;
  }
  // At most one collapse_shape, before the producer or after it.
  auto throughCollapse = [&](OpOperand *operand) -> OpOperand * {
    auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse)
      return operand;
    if (!fix.expand.empty())
      return nullptr;
    fix.expand = collapse.getReassociationIndices();
    return &collapse.getSrcMutable();
  };
  OpOperand *at = throughCollapse(&use);
  if (!at)
    return std::nullopt;
  if (at->get().getDefiningOp<tensor::EmptyOp>()) {
    fix.padRoot = at;
    return fix;
  }
  auto producer = at->get().getDefiningOp<DestinationStyleOpInterface>();
  if (!producer || producer->getNumResults() != 1 || producer.getNumDpsInits() != 1 ||
      producer.getDpsInitOperand(0)->get().getType() != at->get().getType())
    return std::nullopt;
  OpOperand *root = throughCollapse(producer.getDpsInitOperand(0));
  if (root && isPaddedHome(root->get())) { // A value two contractions read.
    fix.done = true;
    return fix;
  }
  if (!root || !root->get().getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  fix.padRoot = root;
  return fix;
}

/// Points the fix's root (a tensor.empty operand) at a slice of a new
/// tensor.empty whose last dim is padded (expanded back to the root's shape
/// when a collapse_shape lies in between); other users of the old
/// tensor.empty keep it.
void padRows(RewriterBase &rewriter, linalg::LinalgOp op, const RowFix &fix) {
  RankedTensorType type = fix.rowsType;
  SmallVector<int64_t> padded(type.getShape());
  padded.back() = (padded.back() + kPaddedRow - 1) / kPaddedRow * kPaddedRow;
  OpOperand &root = fix.padRoot ? *fix.padRoot : op->getOpOperand(fix.operand);
  Operation *user = root.getOwner();
  rewriter.setInsertionPoint(user);
  Location loc = root.get().getLoc();
  Value wide = tensor::EmptyOp::create(rewriter, loc, padded, type.getElementType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
      ones(rank, rewriter.getIndexAttr(1)), sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  Value home = tensor::ExtractSliceOp::create(rewriter, loc, type, wide, zeros, sizes, ones);
  if (!fix.padRoot) // An input nothing writes in place: copied there.
    home = linalg::CopyOp::create(rewriter, loc, root.get(), home).getResult(0);
  else if (!fix.expand.empty())
    home = tensor::ExpandShapeOp::create(rewriter, loc, root.get().getType(), home, fix.expand);
  rewriter.modifyOpInPlace(user, [&] { root.set(home); });
}

/// Stores input `index` of `op` (a 2-D constant) transposed and transposes
/// its indexing map; returns the op (generalized if it was a named op).
linalg::GenericOp transposeConstant(RewriterBase &rewriter, linalg::LinalgOp op, unsigned index,
                                    DenseElementsAttr value) {
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    generic = *linalg::generalizeNamedOp(rewriter, op);
  rewriter.setInsertionPoint(generic);
  Value transposed = arith::ConstantOp::create(rewriter, generic.getLoc(), transpose2D(value));
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap map = maps[index];
  maps[index] = AffineMap::get(map.getNumDims(), 0, {map.getResult(1), map.getResult(0)},
                               rewriter.getContext());
  Operation *old = generic->getOperand(index).getDefiningOp();
  rewriter.modifyOpInPlace(generic, [&] {
    generic->setOperand(index, transposed);
    generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  if (old->use_empty()) // Else it would still be hoisted as a weight.
    rewriter.eraseOp(old);
  return generic;
}

struct AlignContractionsPass
    : public PassWrapper<AlignContractionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AlignContractionsPass)
  StringRef getArgument() const final { return "infer-cuda-align-contractions"; }
  StringRef getDescription() const final {
    return "Give float32 contractions with misaligned rows WMMA-ready layouts: odd 2-D "
           "constants stored transposed, other odd operands in padded buffers";
  }
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, ContractionShape>> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      std::optional<ContractionShape> shape = tensorCoreShape(op);
      if (shape && op.hasPureTensorSemantics() && coversATile(*shape))
        candidates.push_back({op, *shape});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, shape] : candidates) {
      // All or nothing: an op with an operand that cannot be fixed stays on
      // the SIMT path, where a transposed constant would read uncoalesced.
      SmallVector<RowFix> fixes;
      bool fixable = true;
      for (unsigned index : {0u, 1u, 2u}) {
        std::optional<int64_t> rowStride = contiguousRowStride(op, shape, index);
        if (!rowStride) {
          fixable = false;
          break;
        }
        if (aligned(*rowStride))
          continue;
        std::optional<RowFix> fix = planRowFix(op, index);
        if (!fix && index < 2 && !op->getOperand(index).getDefiningOp<arith::ConstantOp>()) {
          // An input (a function argument, a strided slice: ResNet-50's
          // stride-2 downsample) is copied into a padded home: reading it
          // once costs far less than the contraction on SIMT.
          fix = RowFix();
          fix->operand = index;
          fix->rowsType = cast<RankedTensorType>(op->getOperand(index).getType());
        }
        fixable = fixable && fix;
        if (fix)
          fixes.push_back(*fix);
      }
      if (!fixable)
        continue;
      // Pads first: their roots may be operands of `op`, which a transpose
      // replaces by its generalized form.
      for (const RowFix &fix : fixes)
        if (!fix.transpose && !fix.done)
          padRows(rewriter, op, fix);
      for (const RowFix &fix : fixes)
        if (fix.transpose)
          op = transposeConstant(rewriter, op, fix.operand, fix.transpose);
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::infer::createAlignContractionsPass() {
  return std::make_unique<AlignContractionsPass>();
}
