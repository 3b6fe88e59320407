//===- AlignContractions.cpp - WMMA-ready layouts for odd-sized contractions -===//
//
// WMMA wants every operand's rows 16-byte aligned: a row stride that is a
// multiple of 4 floats. A contraction over an odd n, such as an lm_head
// over 50257 vocabulary entries, has a B constant [k, n] and an output
// [m, n] whose rows break that rule, so the whole op would stay on the SIMT
// path. infer-cuda-align-contractions runs on tensors, before
// infer-cuda-split-contractions, and for each tensor-core candidate with at
// least one whole tile:
//
//   - stores a 2-D constant operand transposed when its rows are misaligned
//     and its columns are not; the indexing map is transposed with it, so
//     the op reads the same values. (The folded Transpose of a tied
//     embedding becomes the embedding itself again, so the two constants
//     are one after CSE.)
//   - gives an output with misaligned rows a padded home: the op and the
//     op that initializes it (a fill, a broadcast bias) write into a slice
//     of a tensor.empty whose last dim is rounded up to 8, so that the rows
//     of the bufferized output are 32-byte aligned. Its users read the slice
//     (the function's output is copied out of it, as before).
//
// Before the row fixes, several m (or n) loops are collapsed into one, and
// m and n ranges a little short of whole tiles are grown to them
// (GrowContractions.cpp).
//
// Before all that, a contraction over several k dims whose product is not a
// multiple of 8 (a network's first convolution: 3 channels x 7 x 7 = 147,
// or 3 x 3 x 3 = 27) has its innermost k dim padded
// with zeros until it is (7 -> 8: k = 168), in both inputs: a constant
// weight is padded, an im2col copy writes into a slice of a zero-filled
// tensor. The extra products are 0 x 0, and the whole op fits the tensor
// cores instead of running on SIMT.
//
//===----------------------------------------------------------------------===//

#include "Tensor/PaddedHomes.h"
#include "Analysis/KernelCandidates.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

#include <cstring>

namespace mlir::infer {
#define GEN_PASS_DEF_ALIGNCONTRACTIONSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

constexpr int64_t kMaxPaddedBytes = int64_t(256) << 20; // As the lowering's im2col copies.

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

/// The tensor.empty whose leading slice `home` is, when `home` is a padded
/// home that makeHome made (a slice, maybe expanded, of a tensor.empty with
/// aligned rows); else null.
tensor::EmptyOp paddedHomeOf(Value home) {
  if (auto expand = home.getDefiningOp<tensor::ExpandShapeOp>())
    home = expand.getSrc();
  auto slice = home.getDefiningOp<tensor::ExtractSliceOp>();
  auto empty = slice ? slice.getSource().getDefiningOp<tensor::EmptyOp>() : tensor::EmptyOp();
  return empty && aligned(empty.getType().getShape().back()) ? empty : tensor::EmptyOp();
}

} // namespace

/// The fix for operand `index` of `op` (whose last dim is misaligned), if
/// there is one:
///   - a 2-D constant whose first dim is aligned: transposed;
///   - a value written by a single-init op (a fill, a broadcast bias, an
///     im2col copy, an activation) into a tensor.empty, or a tensor.empty
///     itself, with at most one collapse_shape (a convolution's spatial dims
///     flattened) before or after the producer: padded. Other users of the
///     value read the same elements through the slice.
std::optional<RowFix> mlir::infer::planRowFix(linalg::LinalgOp op, unsigned index) {
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
  if (root && (fix.home = paddedHomeOf(root->get()))) { // A value two contractions read.
    fix.done = true;
    return fix;
  }
  if (!root || !root->get().getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  fix.padRoot = root;
  return fix;
}

/// `shape` with its last dim rounded up to kPaddedRow when it is
/// misaligned: the shape of a home whose rows suit WMMA.
SmallVector<int64_t> mlir::infer::alignedRows(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> padded(shape);
  if (!aligned(padded.back()))
    padded.back() = llvm::alignTo(padded.back(), kPaddedRow);
  return padded;
}

/// Points the fix's root (a tensor.empty operand) at the leading slice of
/// a new tensor.empty of shape `homeShape` (expanded back to the root's
/// shape when a collapse_shape lies in between); other users of the old
/// tensor.empty keep it. Without a root, the operand is copied there.
/// Returns the new tensor.empty.
Value mlir::infer::makeHome(RewriterBase &rewriter, linalg::LinalgOp op, const RowFix &fix,
                            ArrayRef<int64_t> homeShape) {
  RankedTensorType type = fix.rowsType;
  OpOperand &root = fix.padRoot ? *fix.padRoot : op->getOpOperand(fix.operand);
  Operation *user = root.getOwner();
  rewriter.setInsertionPoint(user);
  Location loc = root.get().getLoc();
  Value wide = tensor::EmptyOp::create(rewriter, loc, homeShape, type.getElementType());
  LeadingSlice at(rewriter, type);
  Value home =
      tensor::ExtractSliceOp::create(rewriter, loc, type, wide, at.offsets, at.sizes, at.strides);
  if (!fix.padRoot) // An input nothing writes in place: copied there.
    home = linalg::CopyOp::create(rewriter, loc, root.get(), home).getResult(0);
  else if (!fix.expand.empty())
    home = tensor::ExpandShapeOp::create(rewriter, loc, root.get().getType(), home, fix.expand);
  rewriter.modifyOpInPlace(user, [&] { root.set(home); });
  return wide;
}

namespace {

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

/// The range to pad the innermost k dim of `s` to, when its k dims are
/// several and their product is not a multiple of a tile's k (a single k
/// dim is split at whole tiles instead).
std::optional<int64_t> paddedKRange(const ContractionShape &s) {
  if (s.ks.size() < 2 || s.kRange() % kTileK == 0 || s.ranges[s.m] < kTileM ||
      s.ranges[s.n] < kTileN)
    return std::nullopt;
  int64_t outer = s.kRange() / s.ranges[s.k];
  int64_t range = s.ranges[s.k] + 1;
  while ((outer * range) % kTileK != 0)
    ++range;
  return range;
}

/// How one input of a contraction gets its innermost k dim padded.
struct KPad {
  unsigned operand = 0;
  unsigned dim = 0;                // The operand's dim that the k loop indexes.
  DenseElementsAttr constant;      // Set: pad this float32 constant.
  DestinationStyleOpInterface producer; // Else: this op writes the operand
  tensor::CollapseShapeOp collapse;     // (collapsed by this, if set) into
  unsigned producedDim = 0;             // a tensor.empty; the k dim there.
};

/// The plan for input `index` of `op`, whose loop dim `k` is padded to
/// `range`.
std::optional<KPad> planKPad(linalg::LinalgOp op, unsigned index, unsigned k, int64_t range) {
  KPad pad;
  pad.operand = index;
  AffineMap map = op.getIndexingMapsArray()[index];
  std::optional<unsigned> dim;
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    if (!map.getResult(i).isFunctionOfDim(k))
      continue;
    auto expr = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (dim || !expr)
      return std::nullopt; // Indexed twice, or through an expression.
    dim = i;
  }
  if (!dim)
    return std::nullopt;
  pad.dim = *dim;
  Value value = op->getOperand(index);
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!attr || !attr.getElementType().isF32())
      return std::nullopt;
    pad.constant = attr;
    return pad;
  }
  pad.producedDim = pad.dim;
  if ((pad.collapse = value.getDefiningOp<tensor::CollapseShapeOp>())) {
    ReassociationIndices group = pad.collapse.getReassociationIndices()[pad.dim];
    if (group.size() != 1)
      return std::nullopt;
    pad.producedDim = group.front();
    value = pad.collapse.getSrc();
  }
  pad.producer = value.getDefiningOp<DestinationStyleOpInterface>();
  if (!pad.producer || pad.producer->getNumResults() != 1 || pad.producer.getNumDpsInits() != 1 ||
      !pad.producer.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  // The padded copy stays within the lowering's bound on im2col copies.
  auto type = cast<RankedTensorType>(value.getType());
  int64_t bytes = type.getNumElements() / type.getDimSize(pad.producedDim) * range *
                  (type.getElementTypeBitWidth() / 8);
  if (bytes > kMaxPaddedBytes)
    return std::nullopt;
  return pad;
}

/// `value` (float32) with `dim` grown to `range`, the new entries 0.
DenseElementsAttr padConstant(DenseElementsAttr value, unsigned dim, int64_t range) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t inner = 1;
  for (unsigned i = dim + 1; i < shape.size(); ++i)
    inner *= shape[i];
  int64_t old = shape[dim];
  shape[dim] = range;
  SmallVector<float> values(value.getValues<float>());
  SmallVector<float> padded(RankedTensorType::get(shape, type.getElementType()).getNumElements(),
                            0.0f);
  int64_t outer = static_cast<int64_t>(values.size()) / (old * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < old * inner; ++i)
      padded[o * range * inner + i] = values[o * old * inner + i];
  return DenseElementsAttr::get(RankedTensorType::get(shape, type.getElementType()),
                                ArrayRef<float>(padded));
}

/// Applies `pad` to `op`, growing the k dim to `range`.
void applyKPad(RewriterBase &rewriter, linalg::LinalgOp op, KPad pad, int64_t range) {
  Location loc = op.getLoc();
  Value padded;
  if (pad.constant) {
    rewriter.setInsertionPoint(op);
    padded = arith::ConstantOp::create(rewriter, loc, padConstant(pad.constant, pad.dim, range));
  } else {
    // A zero-filled tensor; the producer writes all but the padding, in
    // place through the slice (bufferized, the insert_slice is a no-op).
    Operation *producer = pad.producer.getOperation();
    auto type = cast<RankedTensorType>(producer->getResult(0).getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[pad.producedDim] = range;
    rewriter.setInsertionPoint(producer);
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
    Value zeros = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    LeadingSlice at(rewriter, type);
    Value slice =
        tensor::ExtractSliceOp::create(rewriter, loc, type, zeros, at.offsets, at.sizes, at.strides);
    rewriter.modifyOpInPlace(producer, [&] { pad.producer.getDpsInitOperand(0)->set(slice); });
    rewriter.setInsertionPointAfter(producer);
    padded = tensor::InsertSliceOp::create(rewriter, loc, producer->getResult(0), zeros,
                                           at.offsets, at.sizes, at.strides);
    if (pad.collapse)
      padded = tensor::CollapseShapeOp::create(rewriter, loc, padded,
                                               pad.collapse.getReassociationIndices());
    rewriter.setInsertionPoint(op);
  }
  Operation *old = op->getOperand(pad.operand).getDefiningOp();
  rewriter.modifyOpInPlace(op, [&] { op->setOperand(pad.operand, padded); });
  if (old && old->use_empty())
    rewriter.eraseOp(old);
}

/// Pads the innermost k dim of `op` if paddedKRange asks for it and both
/// inputs can be padded; returns whether it did.
bool padReduction(RewriterBase &rewriter, linalg::LinalgOp op, const ContractionShape &s) {
  std::optional<int64_t> range = paddedKRange(s);
  if (!range)
    return false;
  SmallVector<KPad> pads;
  for (unsigned index : {0u, 1u}) {
    std::optional<KPad> pad = planKPad(op, index, s.k, *range);
    if (!pad)
      return false;
    pads.push_back(*pad);
  }
  for (const KPad &pad : pads)
    applyKPad(rewriter, op, pad, *range);
  return true;
}

struct AlignContractionsPass : public infer::impl::AlignContractionsPassBase<AlignContractionsPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> linalgOps;
    getOperation().walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    for (linalg::LinalgOp op : linalgOps)
      collapseSeveralLoops(rewriter, op);
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && tensorCoreShape(op))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp &op : contractions) {
      padReduction(rewriter, op, *tensorCoreShape(op));
      growToWholeTiles(rewriter, op, *tensorCoreShape(op), maxGrowthPercent);
      // Grown for each image (197 tokens, 208 rows an image), the
      // rows of all images are one m again: whole tiles, in homes that
      // hold them back to back.
      op = collapseSeveralLoops(rewriter, op);
    }

    SmallVector<std::pair<linalg::LinalgOp, ContractionShape>> candidates;
    for (linalg::LinalgOp op : contractions) {
      ContractionShape shape = *tensorCoreShape(op);
      if (coversATile(shape))
        candidates.push_back({op, shape});
    }
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
        if (aligned(*rowStride) || inAlignedHome(op->getOperand(index)))
          continue;
        std::optional<RowFix> fix = planRowFix(op, index);
        if (!fix && index < 2 && !op->getOperand(index).getDefiningOp<arith::ConstantOp>()) {
          // An input (a function argument, a strided slice such as a
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
          makeHome(rewriter, op, fix, alignedRows(fix.rowsType.getShape()));
      for (const RowFix &fix : fixes)
        if (fix.transpose)
          op = transposeConstant(rewriter, op, fix.operand, fix.transpose);
    }
  }
};

} // namespace

