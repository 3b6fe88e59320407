//===- GrowContractions.cpp - contractions reshaped to whole WMMA tiles ----===//
//
// Part of infer-cuda-align-contractions (AlignContractions.cpp runs these
// first, on tensors, before the row fixes):
//
//   collapseSeveralLoops: a contraction whose m, or n, is several loops
//       adjacent in every operand has them collapsed into one. A MatMul of
//       [B, S, H] activations by a weight at batch B > 1 has m = (B, S),
//       and the tensor cores take one m (tensorCoreShape): without this,
//       every projection of a transformer would run on SIMT at batch > 1.
//       Unless the innermost loop is grown for each point of the others
//       first (growsEachPoint: 197 tokens, 208 rows an image); the grown
//       op's loops are collapsed then (AlignContractions.cpp calls this
//       again), so that 8 images are one m of 1664, whose block tiles may
//       be 128 rows tall, where an m of 208 suits none over 32.
//   growToWholeTiles: a contraction whose m or n range is not whole 16-wide
//       tiles (197 tokens -> 208, 24 output channels -> 32) is grown to
//       them, so that infer-cuda-split-contractions leaves no edge for the
//       SIMT path: an edge there costs about 20 times more per output than
//       the same outputs on the tensor cores, so growing pays even when it
//       nearly doubles the tensor-core work.
//       Each operand that a grown loop indexes is read from a home large
//       enough for the grown op (PaddedHomes.h), written in place by its
//       producer or copied there, or, when it is a slice of a larger
//       tensor (attention heads cut from a grown projection), read as a wider
//       slice of that tensor (cutFrom); the extra rows and columns hold
//       garbage that only the extra rows and columns of the result depend
//       on, and every user reads the leading slice of the result. A constant weight
//       read by this op alone is stored grown instead, its new rows zero;
//       one that other ops read too, or that is a transposed copy of another
//       constant (an lm_head tied to its embedding), or over 16 MiB,
//       is not grown: it would be stored twice. An output started by a
//       fill or a broadcast bias that reads nothing along the grown dims
//       has that op grown with it (a fill of the whole grown home), so
//       that it stays the kernel's prologue once the loops are collapsed.
//       A range short of one tile (12 output channels) grows
//       to one when no input has to be copied for it.
//
//===----------------------------------------------------------------------===//

#include "Tensor/PaddedHomes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::infer;

/// Whether an innermost m (n) loop of `range` is better grown to whole
/// tiles for each point of the loops outside it than collapsed with them:
/// when growing it wastes at most 1/8 (197 tokens: 208 rows an image,
/// 5.6% more work). The rows then keep the layout that the ops around read
/// them in (the head splits of attention, the row kernels of layer norm and
/// softmax: [B, 208, ...] homes). Collapsed first, 2 images of 197 rows
/// would be 394 rows grown to 400, which no head split can view: two
/// copies and three more kernels a layer.
static bool growsEachPoint(int64_t range) {
  int64_t grown = llvm::alignTo(range, kTileM);
  return range > kTileM && grown != range && (grown - range) * 8 <= range;
}

/// `op` with its m loops, and its n loops, each collapsed into one when
/// there are several, adjacent in every operand that reads them (a MatMul
/// of [B, S, H] activations by a [H, N] weight at B > 1 has m = B, S): the
/// tensor cores take one m and one n (tensorCoreShape). The operands are
/// collapse_shapes, the result an expand_shape (linalg's
/// collapseOpIterationDims). Returns the op now in `op`'s place.
linalg::LinalgOp mlir::infer::collapseSeveralLoops(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return op;
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return op;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (failed(dims) || llvm::any_of(ranges, ShapedType::isDynamic))
    return op;
  SmallVector<ReassociationIndices> groups;
  for (ArrayRef<unsigned> loops : {ArrayRef<unsigned>(dims->m), ArrayRef<unsigned>(dims->n)}) {
    ReassociationIndices group;
    for (unsigned d : loops)
      if (ranges[d] != 1)
        group.push_back(d);
    llvm::sort(group);
    bool consecutive = group.size() >= 2;
    for (size_t i = 1; i < group.size(); ++i)
      consecutive &= group[i] == group[i - 1] + 1;
    if (consecutive && !growsEachPoint(ranges[group.back()]))
      groups.push_back(group);
  }
  if (groups.empty() || !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), groups))
    return op;
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    generic = *linalg::generalizeNamedOp(rewriter, op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, groups, rewriter);
  if (failed(collapsed))
    return generic;
  rewriter.replaceOp(generic, collapsed->results);
  return collapsed->collapsedOp;
}

namespace {

/// The largest constant stored grown: growing one that is stored already
/// in another form this pass cannot see would store it twice.
constexpr int64_t kMaxGrownConstantBytes = int64_t(16) << 20;

/// Whether the 2-D `value` of `constant` is the transpose of another
/// constant of the module: a projection tied to an embedding that a Gather
/// reads (a tied lm_head), which the weight store keeps once when the
/// transpose is stored back (AlignContractions.cpp); grown, it would be a
/// second copy.
bool tiedToAnotherConstant(arith::ConstantOp constant, DenseElementsAttr value) {
  ArrayRef<int64_t> shape = value.getType().getShape();
  if (shape.size() != 2 || !value.getElementType().isF32())
    return false;
  bool tied = false;
  constant->getParentOfType<ModuleOp>().walk([&](arith::ConstantOp other) {
    auto data = dyn_cast<DenseElementsAttr>(other.getValue());
    if (tied || other == constant || !data || !data.getElementType().isF32() ||
        data.getType().getShape() != ArrayRef<int64_t>{shape[1], shape[0]})
      return;
    auto mine = value.getValues<float>();
    auto theirs = data.getValues<float>();
    tied = true;
    for (int64_t i = 0; i < shape[0] && tied; ++i)
      for (int64_t j = 0; j < shape[1] && tied; ++j)
        tied = mine[i * shape[1] + j] == theirs[j * shape[0] + i];
  });
  return tied;
}

/// The constant weight that operand `index` of `op` is, if it is one that
/// can be stored grown: dense, read by `op` alone, not too large, and not a
/// transposed copy of another constant.
DenseElementsAttr growableConstant(linalg::LinalgOp op, unsigned index) {
  auto constant = op->getOperand(index).getDefiningOp<arith::ConstantOp>();
  auto value = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : DenseElementsAttr();
  if (!value || !llvm::all_of(constant->getUsers(), [&](Operation *u) { return u == op; }) ||
      value.getNumElements() * 4 > kMaxGrownConstantBytes || tiedToAnotherConstant(constant, value))
    return {};
  return value;
}

/// The m and n dims of `op` worth growing to whole tiles, with their grown
/// ranges: not whole already, at most `maxPercent` larger, and read from no
/// constant that other ops read too (it would be stored twice). The extra
/// rows or columns cost tensor-core work that nobody reads, but an edge
/// left to SIMT costs about 20 times more per output (see above); a range
/// that covers a tile (16 or more) grows by less than 100%. A range short
/// of one tile (8 to 15 with the default limit: a 1x1 convolution to 12
/// channels) grows to one, when the grown op covers a tile: else the whole
/// op runs on SIMT. Nothing grows otherwise.
SmallVector<std::pair<unsigned, int64_t>>
plannedGrowth(linalg::LinalgOp op, const ContractionShape &s, int64_t maxPercent,
              ArrayRef<DenseElementsAttr> growable) {
  SmallVector<std::pair<unsigned, int64_t>> growth;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [dim, tile] : {std::pair(s.m, kTileM), std::pair(s.n, kTileN)}) {
    int64_t range = s.ranges[dim];
    int64_t grown = llvm::alignTo(range, tile);
    if (grown == range || (grown - range) * 100 > range * maxPercent)
      continue;
    bool sharedConstant = false;
    for (unsigned index : {0u, 1u})
      sharedConstant |= op->getOperand(index).getDefiningOp<arith::ConstantOp>() &&
                        !growable[index] &&
                        maps[index].getResultPosition(getAffineDimExpr(dim, op->getContext()));
    if (!sharedConstant)
      growth.push_back({dim, grown});
  }
  ContractionShape grownShape = s;
  for (auto [dim, range] : growth)
    grownShape.ranges[dim] = range;
  if (!coversATile(grownShape))
    growth.clear();
  return growth;
}

/// `value` (float32) at the origin of a zero tensor of `shape`, each dim at
/// least `value`'s.
DenseElementsAttr padWithZeros(DenseElementsAttr value, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = value.getType().getShape();
  SmallVector<float> source(value.getValues<float>());
  SmallVector<float> result(ShapedType::getNumElements(shape), 0.0f);
  int64_t row = from.empty() ? 1 : from.back();
  int64_t rows = row ? static_cast<int64_t>(source.size()) / row : 0;
  for (int64_t r = 0; r < rows; ++r) {
    // Row r's index over the outer dims, and where it lands in `shape`.
    int64_t rest = r, at = 0, stride = shape.empty() ? 1 : shape.back();
    for (size_t d = from.size() - 1; d-- > 0;) {
      at += rest % from[d] * stride;
      rest /= from[d];
      stride *= shape[d];
    }
    std::copy_n(source.begin() + r * row, row, result.begin() + at);
  }
  return DenseElementsAttr::get(RankedTensorType::get(shape, value.getElementType()),
                                ArrayRef<float>(result));
}

/// `value` (the leading slice of `home`) seen as the whole of `home`, cut
/// to `shape`: the view a grown op reads. An existing view is reused, so
/// that every op reading `value` reads the same tensor.
Value grownView(RewriterBase &rewriter, Value value, Value home, ArrayRef<int64_t> shape) {
  Value whole;
  for (Operation *user : value.getUsers())
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
      if (insert.getSource() == value && insert.getDest() == home)
        whole = insert.getResult();
  auto type = cast<RankedTensorType>(value.getType());
  Location loc = value.getLoc();
  if (!whole) {
    rewriter.setInsertionPointAfterValue(value);
    LeadingSlice at(rewriter, type);
    whole = tensor::InsertSliceOp::create(rewriter, loc, value, home, at.offsets, at.sizes,
                                          at.strides);
  }
  if (cast<RankedTensorType>(whole.getType()).getShape() == shape)
    return whole;
  rewriter.setInsertionPointAfterValue(whole);
  auto cut = RankedTensorType::get(shape, type.getElementType());
  LeadingSlice at(rewriter, cut);
  return tensor::ExtractSliceOp::create(rewriter, loc, cut, whole, at.offsets, at.sizes,
                                        at.strides);
}

/// Where a value was cut from a larger tensor: a slice of `source` (through
/// one or more extract_slices, offsets added up), maybe split or merged by
/// `reshape` (an expand_shape or collapse_shape) after the cut.
struct CutFrom {
  Value source;
  SmallVector<int64_t> offsets, sizes; // The cut, widened to what the grown op reads.
  Operation *reshape = nullptr;
};

/// Whether `value` is a slice of a larger tensor, maybe reshaped, that can
/// be widened to `shape` within that tensor (attention's heads: the first
/// 197 rows of a grown projection's 208, or of a column slice of a fused
/// Q, K and V projection, split into [1, 197, 12, 64]). A grown op then
/// reads the wider cut, its extra rows from the source's rows beyond the
/// cut (garbage, as in a home), instead of copying `value` into a home.
/// Each widened dim must be a reshape group of its own.
std::optional<CutFrom> cutFrom(Value value, ArrayRef<int64_t> shape) {
  CutFrom cut;
  Value sliced = value;
  SmallVector<ReassociationIndices> groups;
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>()) {
    cut.reshape = expand;
    sliced = expand.getSrc();
    groups = expand.getReassociationIndices();
  } else if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>()) {
    cut.reshape = collapse;
    sliced = collapse.getSrc();
    groups = collapse.getReassociationIndices();
  }
  auto slicedType = cast<RankedTensorType>(sliced.getType());
  cut.offsets.assign(slicedType.getRank(), 0);
  cut.sizes.assign(slicedType.getShape().begin(), slicedType.getShape().end());
  cut.source = sliced;
  while (auto slice = cut.source.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (slice.getSourceType().getRank() != slicedType.getRank() || !slice.hasUnitStride() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return std::nullopt;
    for (auto [total, offset] : llvm::zip_equal(cut.offsets, slice.getStaticOffsets()))
      total += offset;
    cut.source = slice.getSource();
  }
  auto sourceType = cast<RankedTensorType>(cut.source.getType());
  if (cut.source == sliced || !sourceType.hasStaticShape())
    return std::nullopt;
  // What the grown op reads of each sliced dim.
  SmallVector<int64_t> wanted(cut.sizes);
  if (!cut.reshape) {
    wanted.assign(shape.begin(), shape.end());
  } else {
    bool expands = isa<tensor::ExpandShapeOp>(cut.reshape);
    // Expanding, group i is the result dims of sliced dim i; collapsing,
    // group i is the sliced dims of result dim i.
    for (auto [i, group] : llvm::enumerate(groups)) {
      int64_t size = expands ? cut.sizes[i] : 1;
      int64_t grownSize = expands ? 1 : shape[i];
      for (int64_t d : group) {
        if (expands)
          grownSize *= shape[d];
        else
          size *= cut.sizes[d];
      }
      if (grownSize == size)
        continue;
      if (group.size() != 1)
        return std::nullopt; // A widened dim merged with others.
      wanted[expands ? i : group.front()] = grownSize;
    }
  }
  for (auto [d, want] : llvm::enumerate(wanted)) {
    if (want < cut.sizes[d] || cut.offsets[d] + want > sourceType.getDimSize(d))
      return std::nullopt;
    cut.sizes[d] = want;
  }
  return cut;
}

/// The cut of `cut`, reshaped as the value was: a tensor of `shape`.
Value widenedCut(RewriterBase &rewriter, const CutFrom &cut, ArrayRef<int64_t> shape) {
  Location loc = cut.source.getLoc();
  rewriter.setInsertionPointAfterValue(cut.source);
  auto elementType = cast<RankedTensorType>(cut.source.getType()).getElementType();
  Value view = cut.source;
  if (ArrayRef<int64_t>(cut.sizes) != cast<RankedTensorType>(view.getType()).getShape())
    view = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(cut.sizes, elementType), view,
        getAsIndexOpFoldResult(rewriter.getContext(), cut.offsets),
        getAsIndexOpFoldResult(rewriter.getContext(), cut.sizes),
        SmallVector<OpFoldResult>(cut.sizes.size(), rewriter.getIndexAttr(1)));
  auto type = RankedTensorType::get(shape, elementType);
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(cut.reshape))
    return tensor::ExpandShapeOp::create(rewriter, loc, type, view,
                                         expand.getReassociationIndices());
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(cut.reshape))
    return tensor::CollapseShapeOp::create(rewriter, loc, type, view,
                                           collapse.getReassociationIndices());
  return view;
}

/// Whether `home` can hold a tensor of `shape` at its origin.
bool holds(tensor::EmptyOp home, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> homeShape = home.getType().getShape();
  if (homeShape.size() != shape.size())
    return false;
  for (auto [have, want] : llvm::zip(homeShape, shape))
    if (have < want)
      return false;
  return true;
}

} // namespace

/// The op that initializes `op`'s output, when it can initialize the grown
/// output as well: a fill or a broadcast (a bias), all parallel, writing
/// its whole result, and reading nothing along the grown dims (`grownDims`:
/// positions in the output). A copy of it (the op is shared when CSE made
/// the fills of several contractions one) then writes the whole grown
/// output, a new tensor.empty, and no slice lies between it and
/// `op`: the kernel's prologue stays the op that starts the sums, also once
/// collapseSeveralLoops merges the grown rows of several images into one m.
static linalg::LinalgOp growableInitializer(linalg::LinalgOp op, ArrayRef<unsigned> grownDims) {
  Value init = op.getDpsInitOperand(0)->get();
  auto producer = init.getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getNumResults() != 1 ||
      producer.getNumDpsInits() != 1 || !producer.hasPureTensorSemantics() ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      !producer.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0)).isIdentity())
    return {};
  for (OpOperand *input : producer.getDpsInputOperands()) {
    AffineMap map = producer.getMatchingIndexingMap(input);
    for (unsigned dim : grownDims)
      if (map.isFunctionOfDim(dim))
        return {};
  }
  return producer;
}

/// Grows the m and n loops of `op` that plannedGrowth picks to whole
/// tiles, so that no edge is left for the SIMT path (197 tokens: 208 rows
/// instead of 192 on the tensor cores and 5 row by row). Each
/// operand that a grown loop indexes is read from a home large enough for
/// the grown op, with its values at the origin: its producer writes into
/// the leading slice of a larger tensor.empty (as for misaligned rows),
/// or an input without one is copied there. The rows and columns beyond
/// are never written: the grown op computes garbage there from garbage,
/// and every user of its result reads the leading slice. Nothing happens
/// unless every operand has a home. Replaces `op` by the grown op.
void mlir::infer::growToWholeTiles(RewriterBase &rewriter, linalg::LinalgOp &op,
                                   const ContractionShape &s, int64_t maxGrowthPercent) {
  DenseElementsAttr growable[2] = {growableConstant(op, 0), growableConstant(op, 1)};
  SmallVector<std::pair<unsigned, int64_t>> growth =
      plannedGrowth(op, s, maxGrowthPercent, growable);
  if (growth.empty())
    return;
  struct Growth {
    RowFix fix;
    SmallVector<int64_t> shape; // The operand's type in the grown op.
  };
  SmallVector<Growth> plan;
  struct WidenedRead { // An input read as a wider cut of what it was cut from.
    unsigned operand;
    CutFrom cut;
    SmallVector<int64_t> shape;
  };
  SmallVector<WidenedRead> widenedReads;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  SmallVector<DenseElementsAttr> grownConstants(2);
  linalg::LinalgOp initializer; // Grown with the op (growableInitializer),
  SmallVector<int64_t> grownInit; // to this shape.
  for (unsigned index : {0u, 1u, 2u}) {
    auto type = cast<RankedTensorType>(op->getOperand(index).getType());
    SmallVector<int64_t> shape(type.getShape());
    for (auto [dim, range] : growth)
      if (std::optional<unsigned> position = maps[index].getResultPosition(
              getAffineDimExpr(dim, op->getContext())))
        shape[*position] = range;
    if (shape == type.getShape())
      continue;
    if (index < 2 && growable[index]) { // Stored grown, below.
      grownConstants[index] = padWithZeros(growable[index], shape);
      continue;
    }
    if (index == 2 && aligned(shape.back()) && !initializer) {
      SmallVector<unsigned> grownDims;
      for (unsigned d = 0; d < shape.size(); ++d)
        if (shape[d] != type.getDimSize(d))
          grownDims.push_back(d);
      if ((initializer = growableInitializer(op, grownDims))) {
        grownInit = shape;
        continue;
      }
    }
    if (index < 2)
      if (std::optional<CutFrom> cut = cutFrom(op->getOperand(index), shape)) {
        widenedReads.push_back({index, *cut, shape});
        continue;
      }
    std::optional<RowFix> fix = planRowFix(op, index);
    if (fix && (fix->transpose || (fix->done && !holds(fix->home, shape))))
      fix.reset();
    if (!fix && index == 2)
      return; // An output without a home of its own.
    // An op short of a tile is small: a copy kernel for its input would
    // cost about what running it on SIMT does (attention products over
    // heads of 15, which read V through a view).
    if (!fix && !coversATile(s))
      return;
    if (!fix) { // An input (an argument, a view) is copied into a home.
      fix = RowFix();
      fix->operand = index;
      fix->rowsType = type;
    }
    plan.push_back({*fix, shape});
  }

  llvm::SmallSetVector<Operation *, 2> replacedConstants; // Once each, if A is B.
  for (unsigned index : {0u, 1u})
    if (grownConstants[index]) {
      replacedConstants.insert(op->getOperand(index).getDefiningOp());
      rewriter.setInsertionPoint(op->getOperand(index).getDefiningOp());
      operands[index] = arith::ConstantOp::create(rewriter, op.getLoc(), grownConstants[index]);
    }
  for (const WidenedRead &read : widenedReads)
    operands[read.operand] = widenedCut(rewriter, read.cut, read.shape);
  if (initializer) {
    rewriter.setInsertionPoint(initializer);
    auto grownType = RankedTensorType::get(grownInit, getElementTypeOrSelf(operands[2]));
    Value home = tensor::EmptyOp::create(rewriter, initializer.getLoc(), grownInit,
                                         grownType.getElementType());
    SmallVector<Value> initOperands(initializer->getOperands());
    initOperands.back() = home;
    operands[2] = clone(rewriter, initializer, TypeRange{grownType}, initOperands)->getResult(0);
  }
  for (Growth &g : plan) {
    Value home = g.fix.done ? g.fix.home.getResult()
                            : makeHome(rewriter, op, g.fix, alignedRows(g.shape));
    // Read after makeHome: a copy replaces an input without a home.
    operands[g.fix.operand] = grownView(rewriter, op->getOperand(g.fix.operand), home, g.shape);
  }
  rewriter.setInsertionPoint(op);
  Operation *grown = clone(rewriter, op, TypeRange{operands[2].getType()}, operands);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  LeadingSlice at(rewriter, type);
  rewriter.setInsertionPointAfter(grown);
  Value result = tensor::ExtractSliceOp::create(rewriter, op.getLoc(), type, grown->getResult(0),
                                                at.offsets, at.sizes, at.strides);
  rewriter.replaceOp(op, result);
  op = cast<linalg::LinalgOp>(grown);
  // Nothing reads the constants that were stored grown any more; erased
  // now, or the weight store would keep them too.
  for (Operation *constant : replacedConstants)
    if (constant->use_empty())
      rewriter.eraseOp(constant);
  if (initializer && initializer->use_empty())
    rewriter.eraseOp(initializer);
}

/// Whether `value` is read from the home of a grown op (growToWholeTiles):
/// (a leading slice of) an insert_slice into a tensor.empty with aligned
/// rows.
bool mlir::infer::inAlignedHome(Value value) {
  if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  auto insert = value.getDefiningOp<tensor::InsertSliceOp>();
  auto home = insert ? insert.getDest().getDefiningOp<tensor::EmptyOp>() : tensor::EmptyOp();
  return home && aligned(home.getType().getShape().back());
}
