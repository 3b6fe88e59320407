//===- GrowContractions.cpp - contractions reshaped to whole WMMA tiles ----===//
//
// Part of infer-cuda-align-contractions (AlignContractions.cpp runs these
// first, on tensors, before the row fixes):
//
//   collapseSeveralLoops: a contraction whose m, or n, is several loops
//       adjacent in every operand has them collapsed into one. A MatMul of
//       [B, S, H] activations by a weight at batch B > 1 has m = (B, S),
//       and the tensor cores take one m (tensorCoreShape): without this,
//       every projection of a transformer ran on SIMT at batch > 1.
//   growToWholeTiles: a contraction whose m or n range is a little short of
//       whole 16-wide tiles (growing it adds at most 25%: ViT's 197 tokens
//       -> 208; a range read from a constant weight is never grown) is
//       grown to them, so that infer-cuda-split-contractions leaves no edge
//       for the SIMT path (ViT's 5-row edges took 3.3 of its 10.4 ms on an
//       H100). Each operand that a grown loop indexes is read from a home
//       large enough for the grown op (PaddedHomes.h), written in place by
//       its producer or copied there; the extra rows and columns hold
//       garbage that only the extra rows and columns of the result depend
//       on, and every user reads the leading slice of the result.
//
//===----------------------------------------------------------------------===//

#include "PaddedHomes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::infer;

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
    if (consecutive)
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

/// The most a grown dim may add to its range, in percent: the extra rows
/// or columns cost tensor-core work that nobody reads.
constexpr int64_t kMaxGrowthPercent = 25;

/// The m and n dims of `op` worth growing to whole tiles, with their grown
/// ranges: not whole already, at most kMaxGrowthPercent larger, and read
/// from no constant (a weight grown would be stored twice: GPT-2's lm_head
/// shares its embedding).
SmallVector<std::pair<unsigned, int64_t>> plannedGrowth(linalg::LinalgOp op,
                                                        const ContractionShape &s) {
  SmallVector<std::pair<unsigned, int64_t>> growth;
  if (!coversATile(s))
    return growth;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [dim, tile] : {std::pair(s.m, kTileM), std::pair(s.n, kTileN)}) {
    int64_t range = s.ranges[dim];
    int64_t grown = llvm::alignTo(range, tile);
    if (grown == range || (grown - range) * 100 > range * kMaxGrowthPercent)
      continue;
    bool readFromConstant = false;
    for (unsigned index : {0u, 1u})
      readFromConstant |= op->getOperand(index).getDefiningOp<arith::ConstantOp>() &&
                          maps[index].getResultPosition(getAffineDimExpr(dim, op->getContext()));
    if (!readFromConstant)
      growth.push_back({dim, grown});
  }
  return growth;
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

/// Grows the m and n loops of `op` that plannedGrowth picks to whole
/// tiles, so that no edge is left for the SIMT path (ViT's 197 tokens:
/// 208 rows instead of 192 on the tensor cores and 5 row by row). Each
/// operand that a grown loop indexes is read from a home large enough for
/// the grown op, with its values at the origin: its producer writes into
/// the leading slice of a larger tensor.empty (as for misaligned rows),
/// or an input without one is copied there. The rows and columns beyond
/// are never written: the grown op computes garbage there from garbage,
/// and every user of its result reads the leading slice. Nothing happens
/// unless every operand has a home. Replaces `op` by the grown op.
void mlir::infer::growToWholeTiles(RewriterBase &rewriter, linalg::LinalgOp &op,
                                   const ContractionShape &s) {
  SmallVector<std::pair<unsigned, int64_t>> growth = plannedGrowth(op, s);
  if (growth.empty())
    return;
  struct Growth {
    RowFix fix;
    SmallVector<int64_t> shape; // The operand's type in the grown op.
  };
  SmallVector<Growth> plan;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (unsigned index : {0u, 1u, 2u}) {
    auto type = cast<RankedTensorType>(op->getOperand(index).getType());
    SmallVector<int64_t> shape(type.getShape());
    for (auto [dim, range] : growth)
      if (std::optional<unsigned> position = maps[index].getResultPosition(
              getAffineDimExpr(dim, op->getContext())))
        shape[*position] = range;
    if (shape == type.getShape())
      continue;
    std::optional<RowFix> fix = planRowFix(op, index);
    if (fix && (fix->transpose || (fix->done && !holds(fix->home, shape))))
      fix.reset();
    if (!fix && index == 2)
      return; // An output without a home of its own.
    if (!fix) { // An input (an argument, a view) is copied into a home.
      fix = RowFix();
      fix->operand = index;
      fix->rowsType = type;
    }
    plan.push_back({*fix, shape});
  }

  SmallVector<Value> operands(op->getOperands());
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
