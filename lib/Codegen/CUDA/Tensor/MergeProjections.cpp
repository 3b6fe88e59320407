//===- MergeProjections.cpp - sibling projections as one contraction ------===//
//
// infer-cuda-merge-projections runs on linalg on tensors, after
// infer-cuda-adds-into-init and before the transposes are folded. An
// encoder's attention projects one activation three times (Q, K and V),
// each a MatMul by a weight of its own with its bias as the initial value:
// three tensor-core kernels of, say, 768 output columns over the same rows.
// Contractions that read the same activation through the same maps, each
// with a constant weight that only its own ops read, and whose weights
// differ only in the output dim they add, become one contraction over the
// weights concatenated along that dim (its init made the same way: one
// fill, or the bias broadcast over the biases concatenated). Each former
// sibling's users read a slice of the merged result, as they read a model's
// own fused Q/K/V projection. One launch instead of three, with three
// times the output tiles.
//
// Only siblings whose results are read by views and transposes (the head
// splits of attention) are merged: an elementwise consumer of one sibling
// would be the epilogue of its kernel, and over a slice of the merged
// result it could no longer be.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"
#include "Tensor/PaddedHomes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_MERGEPROJECTIONSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// A float32 dense constant that only `user` reads.
DenseElementsAttr constantOnlyFor(Value value, Operation *user) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto attr = constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : DenseElementsAttr();
  if (!attr || !attr.getElementType().isF32() ||
      !llvm::all_of(constant->getUsers(), [&](Operation *u) { return u == user; }))
    return {};
  return attr;
}

/// A contraction that projects an activation by a constant weight.
struct Projection {
  linalg::GenericOp op;
  unsigned activation = 0; // The input that is not the weight.
  unsigned dim = 0;        // The loop that the weight adds: n for B, m for A.
  linalg::LinalgOp init;   // A fill, or a generic of constants indexed by `dim`.
};

/// Whether every user of `value` only views or moves it (reshapes, slices,
/// transposes), so that a slice of a larger result serves them as well.
bool onlyViewed(Value value) {
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::ExtractSliceOp,
               linalg::TransposeOp>(user);
  });
}

/// The result position of loop `dim` in operand `operand` of `op`.
std::optional<unsigned> positionOf(linalg::LinalgOp op, OpOperand &operand, unsigned dim) {
  return op.getMatchingIndexingMap(&operand).getResultPosition(
      getAffineDimExpr(dim, op.getContext()));
}

/// Whether `init` is an initial value that can be merged along `dim` of
/// `op`: a fill, or an elementwise generic (the bias that
/// infer-cuda-adds-into-init made the init) over a tensor.empty, its loops
/// the output's dims, whose inputs are constants it alone reads, each
/// indexed by the output dim of `dim`.
bool mergeableInit(linalg::GenericOp op, linalg::LinalgOp init, unsigned dim) {
  if (!init || init.getNumDpsInits() != 1 ||
      !init.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return false;
  if (isa<linalg::FillOp>(init)) // Maybe shared (CSE): it stays for its other users.
    return true;
  if (!init->hasOneUse())
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(init.getOperation());
  std::optional<unsigned> outAxis = positionOf(op, *op.getDpsInitOperand(0), dim);
  if (!generic || !outAxis || generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return false;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (!constantOnlyFor(input->get(), generic) || !positionOf(generic, *input, *outAxis))
      return false;
  return true;
}

std::optional<Projection> asProjection(linalg::GenericOp op) {
  std::optional<ContractionShape> shape = tensorCoreShape(op);
  if (!shape || !op.hasPureTensorSemantics() || !onlyViewed(op->getResult(0)))
    return std::nullopt;
  for (unsigned weight : {0u, 1u}) {
    Projection p;
    p.op = op;
    p.activation = 1 - weight;
    if (!constantOnlyFor(op->getOperand(weight), op) ||
        op->getOperand(p.activation).getDefiningOp<arith::ConstantOp>())
      continue;
    p.dim = weight == 1 ? shape->n : shape->m;
    p.init = op.getDpsInits()[0].getDefiningOp<linalg::LinalgOp>();
    if (mergeableInit(op, p.init, p.dim))
      return p;
  }
  return std::nullopt;
}

/// Whether `b` can be merged into the group that `a` leads: the same
/// activation read the same way, the same loops but `dim`, and inits of the
/// same kind (the same fill value, or the same bias computation).
bool siblings(Projection a, Projection b) {
  if (a.activation != b.activation || a.dim != b.dim ||
      a.op->getOperand(a.activation) != b.op->getOperand(b.activation) ||
      a.op.getIndexingMaps() != b.op.getIndexingMaps() ||
      a.op.getIteratorTypes() != b.op.getIteratorTypes() ||
      a.op->getBlock() != b.op->getBlock())
    return false;
  SmallVector<int64_t> ra = a.op.getStaticLoopRanges(), rb = b.op.getStaticLoopRanges();
  for (auto [i, range] : llvm::enumerate(ra))
    if (i != a.dim && range != rb[i])
      return false;
  if (a.init->getName() != b.init->getName())
    return false;
  if (auto fill = dyn_cast<linalg::FillOp>(*a.init))
    return fill.getInputs() == cast<linalg::FillOp>(*b.init).getInputs();
  auto ga = cast<linalg::GenericOp>(*a.init), gb = cast<linalg::GenericOp>(*b.init);
  return ga.getIndexingMaps() == gb.getIndexingMaps() &&
         ga.getNumDpsInputs() == gb.getNumDpsInputs() &&
         OperationEquivalence::isRegionEquivalentTo(&ga.getRegion(), &gb.getRegion(),
                                                    OperationEquivalence::IgnoreLocations);
}

/// `parts` (float32, equal shapes but at `axis`) concatenated along `axis`.
DenseElementsAttr concatenate(ArrayRef<DenseElementsAttr> parts, unsigned axis) {
  auto first = cast<RankedTensorType>(parts.front().getType());
  ArrayRef<int64_t> shape = first.getShape();
  int64_t outer = 1, inner = 1, total = 0;
  for (unsigned i = 0; i < axis; ++i)
    outer *= shape[i];
  for (unsigned i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
  SmallVector<SmallVector<float>> values;
  for (DenseElementsAttr part : parts) {
    values.emplace_back(part.getValues<float>());
    total += cast<RankedTensorType>(part.getType()).getDimSize(axis);
  }
  SmallVector<float> result;
  result.reserve(outer * total * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (auto [part, data] : llvm::zip_equal(parts, values)) {
      int64_t chunk = cast<RankedTensorType>(part.getType()).getDimSize(axis) * inner;
      result.append(data.begin() + o * chunk, data.begin() + (o + 1) * chunk);
    }
  SmallVector<int64_t> merged(shape);
  merged[axis] = total;
  return DenseElementsAttr::get(RankedTensorType::get(merged, first.getElementType()),
                                ArrayRef<float>(result));
}

/// `value`'s type with dim `axis` of size `size`.
RankedTensorType resized(Value value, unsigned axis, int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = size;
  return type.clone(shape);
}

/// Makes one contraction of `group` (siblings, in block order) before its
/// first; each sibling's result becomes a slice of the merged one.
void merge(RewriterBase &rewriter, ArrayRef<Projection> group) {
  const Projection &lead = group.front();
  linalg::GenericOp op = lead.op;
  unsigned weightIndex = 1 - lead.activation;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto concatOperands = [&](function_ref<Value(const Projection &)> operandOf, unsigned axis) {
    SmallVector<DenseElementsAttr> parts;
    for (const Projection &p : group)
      parts.push_back(cast<DenseElementsAttr>(
          cast<arith::ConstantOp>(operandOf(p).getDefiningOp()).getValue()));
    return arith::ConstantOp::create(rewriter, loc, concatenate(parts, axis)).getResult();
  };
  unsigned outAxis = *positionOf(op, *op.getDpsInitOperand(0), lead.dim);
  int64_t total = 0;
  for (const Projection &p : group)
    total += cast<RankedTensorType>(p.op->getResult(0).getType()).getDimSize(outAxis);
  RankedTensorType resultType = resized(op->getResult(0), outAxis, total);
  Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                        resultType.getElementType());

  // The init: the same fill, or the bias generic over the biases merged.
  Value init;
  if (auto fill = dyn_cast<linalg::FillOp>(*lead.init)) {
    init = linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(), ValueRange{empty})
               .getResult(0);
  } else {
    auto generic = cast<linalg::GenericOp>(*lead.init);
    SmallVector<Value> operands;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      unsigned number = input->getOperandNumber();
      operands.push_back(concatOperands(
          [&](const Projection &p) { return p.init->getOperand(number); },
          *positionOf(generic, *input, outAxis)));
    }
    operands.push_back(empty);
    init = clone(rewriter, generic, TypeRange{resultType}, operands)->getResult(0);
  }

  SmallVector<Value> operands(op->getOperands());
  operands[weightIndex] = concatOperands(
      [&](const Projection &p) { return p.op->getOperand(weightIndex); },
      *positionOf(op, op->getOpOperand(weightIndex), lead.dim));
  operands[2] = init;
  Operation *mergedOp = clone(rewriter, op, TypeRange{resultType}, operands);
  SmallVector<Location> locs; // Its kernel then names every sibling's nodes.
  for (const Projection &p : group)
    locs.push_back(p.op->getLoc());
  mergedOp->setLoc(rewriter.getFusedLoc(locs));
  Value merged = mergedOp->getResult(0);

  int64_t offset = 0;
  for (Projection p : group) {
    auto type = cast<RankedTensorType>(p.op->getResult(0).getType());
    LeadingSlice at(rewriter, type);
    at.offsets[outAxis] = rewriter.getIndexAttr(offset);
    offset += type.getDimSize(outAxis);
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, type, merged, at.offsets,
                                                 at.sizes, at.strides);
    // The init, the weight and the init's inputs (constants, or a fill's
    // value, which may be an argument), unless something else reads them.
    llvm::SetVector<Operation *> old;
    old.insert(p.init);
    old.insert(p.op->getOperand(weightIndex).getDefiningOp());
    for (Value input : p.init.getDpsInputs())
      if (Operation *producer = input.getDefiningOp())
        old.insert(producer);
    rewriter.replaceOp(p.op, slice);
    for (Operation *op : old)
      if (op->use_empty())
        rewriter.eraseOp(op);
  }
}

struct MergeProjectionsPass : public infer::impl::MergeProjectionsPassBase<MergeProjectionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<SmallVector<Projection>> groups;
    getOperation().walk([&](linalg::GenericOp op) {
      std::optional<Projection> p = asProjection(op);
      if (!p)
        return;
      for (SmallVector<Projection> &group : groups)
        if (siblings(group.front(), *p)) {
          group.push_back(*p);
          return;
        }
      groups.push_back({*p});
    });
    IRRewriter rewriter(&getContext());
    for (ArrayRef<Projection> group : groups)
      if (group.size() >= 2)
        merge(rewriter, group);
  }
};

} // namespace

