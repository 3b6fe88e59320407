//===- PrepareEpilogues.cpp - what fuse-epilogues needs from the tensors ---===//
//
// infer-cuda-prepare-epilogues, on tensors, just before bufferization: two
// facts that are plain on tensors and lost on memrefs, for
// infer-cuda-fuse-epilogues (FuseEpilogues.cpp).
//
//   0. A tensor.empty per linalg op that writes into one. CSE merges equal
//      tensor.empty ops, and one-shot bufferization then puts the results
//      of unrelated ops into one buffer once the first is dead: a
//      hardswish after a 1x1 convolution could be written over that
//      convolution's input, and then could not run in its kernel. Apart,
//      each result gets its own allocation, and the arena planner, which
//      knows what runs in one kernel (below), places them.
//   1. A fill per tensor-core candidate. CSE merges equal fills (every
//      layer's "zeros of [1, 128, 3072]" before its MatMul) into one fill
//      with many users; each user then accumulates into the same tensor,
//      so bufferization fills one buffer once and copies it for every
//      user: a copy kernel where a fill kernel was, and a contraction whose
//      initial value comes from a copy, which its kernel cannot make
//      itself. A fill per contraction (with its own tensor.empty) has
//      neither problem; elsewhere one fill shared by readers is cheaper.
//      Users are counted through reshapes (an MLP at batch 8 collapses its
//      [8, 128, 3072] fill into [1024, 3072]); each gets the reshapes too.
//   2. `infer.read_once` on a contraction whose result has one user
//      (through views: a grown one's leading slice, which must have one
//      user too): after that user nothing reads the result, so a kernel
//      that feeds it to the user from registers need not store it.
//   2b. `infer.point_reduction` on a reduction that runs a thread per
//      output (a depthwise convolution): the op after it may join its
//      kernel, so the arena planner keeps its inputs alive until then.
//      With one user, `infer.read_once` too: if that user joins it as its
//      epilogue, the kernel need not store the result.
//   2c. `infer.operand_producer` on a generic whose result is one input of
//      a tensor-core candidate and read by nothing else (an im2col copy):
//      the contraction's kernel may compute that input itself, so the
//      arena planner keeps the generic's inputs alive as long as the
//      contraction's.
//
// And rewrites for contractions grown to whole tiles (197 tokens in 208
// rows, a 14 x 14 map's 196 positions), whose padded homes
// bufferization would otherwise copy (first, slices that take or replace
// all of a tensor, which the split of a contraction along k leaves, and
// reshapes that undo one another, which a padded home of a 4-D output
// leaves, are dropped, so that they see the ops behind them; and the
// rewrites see through reshapes between a 3-D home and a 4-D op):
//
//   3. A padded home of its own for each op that writes into one (an
//      extract_slice of a tensor.empty as its output, its result inserted
//      back): CSE merges the equal tensor.empty ops of all homes into one,
//      and one-shot bufferization then copies all but one producer's
//      result into place. 3b: the result's other readers after the insert
//      read it from the home.
//   4. The fill of a padded home's leading slice, inserted back into the
//      home, becomes a fill of all of it (the padding was undefined; zeros
//      will do), which the kernel makes as its starting value.
//   5. The elementwise op that reads the leading slice of such a result
//      and writes into a slice of an empty padded home, inserted back,
//      writes over the result's slice instead: in place, so the padded
//      result flows on (its padding, the contraction's own, was undefined
//      too).
//   6. A copy of a padded result's leading slice into the same slice of an
//      empty home of the same shape (infer-cuda-align-contractions' home
//      for the next contraction's operand) is the result itself: the
//      home's padding was undefined, and so is the result's.
//
//===----------------------------------------------------------------------===//

#include "Analysis/KernelCandidates.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_PREPAREEPILOGUESPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Rewrite 0: each linalg op writing into `empty` (shared with other ops)
/// gets a tensor.empty of its own, just before it: a buffer's life in the
/// arena starts where its tensor.empty is, and CSE moved the shared one up
/// to the first user.
void untieEmpty(tensor::EmptyOp empty) {
  SmallVector<OpOperand *> inits;
  for (OpOperand &use : empty->getUses()) {
    auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (user && user.isDpsInit(&use))
      inits.push_back(&use);
  }
  for (OpOperand *init : inits) {
    OpBuilder b(init->getOwner());
    init->set(b.clone(*empty)->getResult(0));
  }
  if (empty->use_empty())
    empty->erase();
}

/// A use of a fill's value, and the reshapes between the fill and it (a
/// contraction over a batch collapses its init: an MLP at batch 8 reads
/// [1024, 3072] of a fill of [8, 128, 3072], which CSE made one for every
/// layer).
struct FillUse {
  OpOperand *use;
  SmallVector<Operation *> reshapes;
};

void usesThroughReshapes(Value value, SmallVector<Operation *> &reshapes,
                         SmallVector<FillUse> &uses) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      uses.push_back({&use, reshapes});
      continue;
    }
    reshapes.push_back(user);
    usesThroughReshapes(user->getResult(0), reshapes, uses);
    reshapes.pop_back();
  }
}

/// Gives each tensor-core candidate or other reduction accumulating into
/// `fill` (through reshapes or not) a fill of its own, and its reshapes. A
/// reduction's kernel makes its fill itself too (a point or block group's
/// prologue): a squeeze-and-excitation block sharing one fill of 8 zeros
/// between its global pool and its second 1x1 convolution would have
/// bufferization fill the pool's buffer and copy it into the
/// convolution's, two kernels of one thread each.
void untie(linalg::FillOp fill) {
  SmallVector<Operation *> reshapes;
  SmallVector<FillUse> all, uses;
  usesThroughReshapes(fill->getResult(0), reshapes, all);
  if (all.size() < 2)
    return;
  for (const FillUse &use : all) {
    auto user = dyn_cast<linalg::LinalgOp>(use.use->getOwner());
    if (user && user.isDpsInit(use.use) &&
        (tensorCoreShape(user) || user.getNumReductionLoops()))
      uses.push_back(use);
  }
  auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
  for (const FillUse &use : uses) {
    OpBuilder b(use.use->getOwner());
    IRMapping map;
    if (empty)
      map.map(empty.getResult(), b.clone(*empty)->getResult(0));
    Operation *clone = b.clone(*fill, map);
    clone->setLoc(use.use->getOwner()->getLoc()); // Its node is the user's now.
    for (Operation *reshape : use.reshapes)
      clone = b.clone(*reshape, map);
    use.use->set(clone->getResult(0));
  }
  // Left as they are, bufferization would keep a fill kernel. Each op is
  // erased once, users (the reshapes nearest the uses) first.
  llvm::SetVector<Operation *> unique;
  for (const FillUse &use : all)
    unique.insert(use.reshapes.rbegin(), use.reshapes.rend());
  unique.insert(fill);
  if (empty)
    unique.insert(empty);
  SmallVector<Operation *> old(unique.begin(), unique.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : old)
      if (op && op->use_empty()) {
        op->erase();
        op = nullptr;
        erased = true;
      }
  }
}

/// Whether an extract_slice and an insert_slice (or two extract_slices)
/// address the same elements.
bool sameSlice(OffsetSizeAndStrideOpInterface x, OffsetSizeAndStrideOpInterface y) {
  return x.isSameAs(y, [](OpFoldResult a, OpFoldResult b) {
    return isEqualConstantIntOrValue(a, b);
  });
}

/// Replaces an extract_slice that takes all of its source by the source,
/// and an insert_slice that replaces all of its destination by what it
/// inserts (the split of a contraction leaves such slices), so that the
/// rewrites below see the ops behind them.
template <typename SliceOp>
void dropWholeSlice(SliceOp slice, Value whole, Value part) {
  if (whole.getType() != part.getType() ||
      !cast<RankedTensorType>(whole.getType()).hasStaticShape() ||
      !llvm::all_of(slice.getMixedOffsets(), isZeroInteger) ||
      !llvm::all_of(slice.getMixedStrides(), isOneInteger))
    return;
  slice.getResult().replaceAllUsesWith(isa<tensor::ExtractSliceOp>(slice) ? whole : part);
  slice->erase();
}

/// Replaces a reshape of a reshape back to the first one's source type by
/// that source: reshapes keep the elements' row-major order, so the same
/// shape means the same tensor.
template <typename ReshapeOp, typename InverseOp>
void dropUndoneReshape(ReshapeOp reshape) {
  auto inner = reshape.getSrc().template getDefiningOp<InverseOp>();
  if (!inner || inner.getSrc().getType() != reshape.getResult().getType())
    return;
  reshape.getResult().replaceAllUsesWith(inner.getSrc());
  reshape->erase();
  if (inner->use_empty())
    inner->erase();
}

/// Whether `value` has one user, through views of it: a grown
/// contraction's result is read through the extract_slice of its leading
/// rows, which must have one user too (else C is read again after its
/// epilogue: a residual).
bool readOnce(Value value) {
  if (!value.hasOneUse())
    return false;
  Operation *user = *value.getUsers().begin();
  if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
    return readOnce(user->getResult(0));
  return true;
}

/// Whether `op` is a reshape (expand_shape or collapse_shape).
bool isReshape(Operation *op) {
  return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// `value` followed through the reshapes that are its one user, each of
/// whose results has one user in turn (the other way from peelReshapes).
Value followReshapes(Value value) {
  while (value.hasOneUse() && isReshape(*value.getUsers().begin()))
    value = value.getUsers().begin()->getResult(0);
  return value;
}

/// Whether `op` is a generic whose one result is an input of a tensor-core
/// candidate and read by nothing else (through reshapes): an im2col copy,
/// an elementwise op before a 1x1 convolution. Its loops are all parallel
/// and it does not read its output's old value.
bool makesAnOperandOnly(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty())
    return false;
  Value result = followReshapes(op->getResult(0));
  if (!result.hasOneUse())
    return false;
  OpOperand &use = *result.getUses().begin();
  auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return user && user.isDpsInput(&use) && tensorCoreShape(user);
}

/// `value` less the reshapes that made it (a padded home of a 4-D output
/// is a 3-D slice viewed as 4-D); `chain` gets them, outermost first.
/// With `oneUse`, only reshapes whose result has one use are peeled.
Value peelReshapes(Value value, SmallVectorImpl<Operation *> &chain, bool oneUse) {
  while (isReshape(value.getDefiningOp()) && (!oneUse || value.hasOneUse())) {
    chain.push_back(value.getDefiningOp());
    value = value.getDefiningOp()->getOperand(0);
  }
  return value;
}

/// An insert_slice that puts back the result of an op that wrote into the
/// same slice of the insert's destination, both seen through reshapes
/// (they keep the elements' row-major order, and the slice has the same
/// shape at both ends): insert(views(result)) where the result's op has
/// the init views(extract_slice(destination)).
struct HomeWrite {
  OpResult result;
  OpOperand *init = nullptr;
  tensor::ExtractSliceOp slice;
  SmallVector<Operation *> resultViews, initViews; // Outermost first.
};

std::optional<HomeWrite> matchHomeWrite(tensor::InsertSliceOp insert) {
  HomeWrite w;
  w.result = dyn_cast<OpResult>(peelReshapes(insert.getSource(), w.resultViews, true));
  auto producer = w.result ? dyn_cast<DestinationStyleOpInterface>(w.result.getOwner()) : nullptr;
  if (!producer)
    return std::nullopt;
  w.init = producer.getTiedOpOperand(w.result);
  w.slice = peelReshapes(w.init->get(), w.initViews, false).getDefiningOp<tensor::ExtractSliceOp>();
  if (!w.slice || w.slice.getSource() != insert.getDest() || !sameSlice(w.slice, insert))
    return std::nullopt;
  return w;
}

/// The home write's init views (its slice, reshaped) made again on
/// `source`, at `b`'s insertion point.
Value viewOf(OpBuilder &b, HomeWrite &w, Value source) {
  Operation *slice = w.slice.getOperation();
  IRMapping map;
  map.map(slice->getOperand(0), source); // The slice's source.
  Value view = b.clone(*slice, map)->getResult(0);
  for (Operation *reshape : llvm::reverse(w.initViews)) {
    map.map(reshape->getOperand(0), view);
    view = b.clone(*reshape, map)->getResult(0);
  }
  return view;
}

/// Rewrite 3 for `insert`, if it is a home write into a tensor.empty that
/// other ops use too.
void untieHome(tensor::InsertSliceOp insert) {
  auto empty = insert.getDest().getDefiningOp<tensor::EmptyOp>();
  std::optional<HomeWrite> w = empty && !empty->hasOneUse() ? matchHomeWrite(insert) : std::nullopt;
  if (!w)
    return;
  OpBuilder b(w->result.getOwner());
  Value home = b.clone(*empty)->getResult(0);
  w->init->set(viewOf(b, *w, home));
  insert.getDestMutable().assign(home);
  for (Operation *view : w->initViews) // Outermost first: each is its inner one's user.
    if (view->use_empty())
      view->erase();
  for (Operation *dead : {w->slice.getOperation(), empty.getOperation()})
    if (dead->use_empty())
      dead->erase();
}

/// Rewrite 3b for `insert`, if it is a home write: the result's other
/// readers after the insert (a residual add, besides the next convolution)
/// read it from the insert's result instead. To one-shot bufferization the
/// insert is then the last write to the home and no later read of the
/// result conflicts with it, so it needs no copy.
void readFromHome(tensor::InsertSliceOp insert) {
  std::optional<HomeWrite> w = matchHomeWrite(insert);
  if (!w)
    return;
  OpResult result = w->result;
  Operation *chainStart = w->resultViews.empty() ? insert.getOperation() : w->resultViews.back();
  Block *block = insert->getBlock();
  SmallVector<OpOperand *> later;
  for (OpOperand &use : result.getUses()) {
    Operation *reader = block->findAncestorOpInBlock(*use.getOwner());
    if (use.getOwner() != chainStart && reader && insert->isBeforeInBlock(reader))
      later.push_back(&use);
  }
  if (later.empty())
    return;
  OpBuilder b(insert->getContext());
  b.setInsertionPointAfter(insert);
  Value view = viewOf(b, *w, insert.getResult());
  for (OpOperand *use : later)
    use->set(view);
}

/// Rewrite 4 for the tensor-core candidate `op`: its init
/// insert_slice(fill(extract_slice(E)), E), E a tensor.empty, becomes a
/// fill of its own tensor.empty like E.
void fillWholeHome(linalg::LinalgOp op) {
  OpOperand &init = op.getDpsInitsMutable()[0];
  auto insert = init.get().getDefiningOp<tensor::InsertSliceOp>();
  auto fill = insert ? insert.getSource().getDefiningOp<linalg::FillOp>() : nullptr;
  if (!fill || !fill.hasPureTensorSemantics())
    return;
  auto empty = insert.getDest().getDefiningOp<tensor::EmptyOp>();
  auto slice = fill.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!empty || !slice || slice.getSource() != insert.getDest() || !sameSlice(slice, insert))
    return;
  OpBuilder b(op);
  Value home = b.clone(*empty)->getResult(0);
  auto whole = linalg::FillOp::create(b, op.getLoc(), fill.value(), home);
  init.set(whole.getResult(0));
  for (Operation *dead : {insert.getOperation(), fill.getOperation(), slice.getOperation(),
                          empty.getOperation()})
    if (dead->use_empty())
      dead->erase();
}

/// Rewrite 5 for the tensor-core candidate `op`. The slices may be seen
/// through reshapes, as in untieHome.
void epilogueInPlace(linalg::LinalgOp op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return;
  Value result = op->getResult(0);
  auto read = dyn_cast<tensor::ExtractSliceOp>(*result.getUsers().begin());
  if (!read)
    return;
  Value seen = followReshapes(read.getResult()); // The slice as the user reads it.
  if (!seen.hasOneUse())
    return;
  OpOperand &use = *seen.getUses().begin();
  auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!user || !user.hasPureTensorSemantics() || user.getNumDpsInits() != 1 ||
      user.getNumParallelLoops() != user.getNumLoops() || !user.isDpsInput(&use))
    return;
  OpOperand &out = user.getDpsInitsMutable()[0];
  SmallVector<Operation *> outViews;
  auto slice = peelReshapes(out.get(), outViews, false).getDefiningOp<tensor::ExtractSliceOp>();
  if (!user.getMatchingBlockArgument(&out).use_empty() || !slice ||
      !slice.getSource().getDefiningOp<tensor::EmptyOp>() || !sameSlice(slice, read) ||
      slice.getType() != read.getType() || out.get().getType() != seen.getType() ||
      user.getMatchingIndexingMap(&out) != user.getMatchingIndexingMap(&use) ||
      !user->getResult(0).hasOneUse())
    return;
  // Its result's one user, through reshapes: the insert back into the home.
  Value written = followReshapes(user->getResult(0));
  auto insert = written.hasOneUse()
                    ? dyn_cast<tensor::InsertSliceOp>(*written.getUsers().begin())
                    : nullptr;
  // The two homes must be alike: a 1x3 convolution grown to 64 of its 60
  // channels may feed a batch norm whose home has the 60 rows the next
  // convolution reads as its k.
  if (!insert || insert.getSource() != written || insert.getDest() != slice.getSource() ||
      !sameSlice(insert, read) || slice.getSource().getType() != result.getType())
    return;
  Operation *empty = slice.getSource().getDefiningOp();
  // The slice it reads, as its output too: one value, so that one-shot
  // bufferization sees an elementwise op in place (two equal slices would
  // be two tensors to it, and it would copy one).
  out.set(seen);
  insert.getDestMutable().assign(result);
  for (Operation *view : outViews) // Outermost first.
    if (view->use_empty())
      view->erase();
  for (Operation *dead : {slice.getOperation(), empty})
    if (dead->use_empty())
      dead->erase();
}

/// Rewrite 6 for `insert`: insert(copy(extract_slice(R)), E), E a
/// tensor.empty of R's type and both slices the same, is R.
void dropHomeCopy(tensor::InsertSliceOp insert) {
  auto copy = insert.getSource().getDefiningOp<linalg::CopyOp>();
  auto empty = insert.getDest().getDefiningOp<tensor::EmptyOp>();
  if (!copy || !empty || !copy.hasPureTensorSemantics())
    return;
  auto read = copy.getInputs()[0].getDefiningOp<tensor::ExtractSliceOp>();
  auto write = copy.getOutputs()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!read || !write || write.getSource() != empty.getResult() ||
      read.getSource().getType() != empty.getType() || !sameSlice(read, insert) ||
      !sameSlice(write, insert))
    return;
  insert.getResult().replaceAllUsesWith(read.getSource());
  for (Operation *dead : {insert.getOperation(), copy.getOperation(), write.getOperation(),
                          empty.getOperation()})
    if (dead->use_empty())
      dead->erase();
}

struct PrepareEpiloguesPass : public infer::impl::PrepareEpiloguesPassBase<PrepareEpiloguesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties)
      untieEmpty(empty);
    SmallVector<linalg::FillOp> shared;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->getResult(0).use_empty())
        shared.push_back(fill); // untie looks through reshapes for several users.
    });
    for (linalg::FillOp fill : shared)
      untie(fill);
    SmallVector<Operation *> views;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ExpandShapeOp,
              tensor::CollapseShapeOp>(op))
        views.push_back(op);
    });
    for (Operation *op : views) { // In order: an inner reshape goes before its user.
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
        dropWholeSlice(slice, slice.getSource(), slice.getResult());
      else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        dropWholeSlice(insert, insert.getDest(), insert.getSource());
      else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
        dropUndoneReshape<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(collapse);
      else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
        dropUndoneReshape<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(expand);
    }
    SmallVector<tensor::InsertSliceOp> inserts;
    getOperation().walk([&](tensor::InsertSliceOp insert) { inserts.push_back(insert); });
    for (tensor::InsertSliceOp insert : inserts) {
      untieHome(insert);
      readFromHome(insert);
    }
    inserts.clear();
    getOperation().walk([&](tensor::InsertSliceOp insert) { inserts.push_back(insert); });
    for (tensor::InsertSliceOp insert : inserts)
      dropHomeCopy(insert);
    Builder b(&getContext());
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && tensorCoreShape(op))
        candidates.push_back(op);
    });
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isSimtPointReduction(op))
        return;
      op->setAttr(kPointReductionAttr, b.getUnitAttr());
      if (op->getNumResults() == 1 && readOnce(op->getResult(0)))
        op->setAttr(kReadOnceAttr, b.getUnitAttr());
    });
    getOperation().walk([&](linalg::GenericOp op) {
      if (makesAnOperandOnly(op))
        op->setAttr(kOperandProducerAttr, b.getUnitAttr());
    });
    for (linalg::LinalgOp op : candidates) {
      if (op->getNumResults() == 1 && readOnce(op->getResult(0)))
        op->setAttr(kReadOnceAttr, b.getUnitAttr());
      fillWholeHome(op);
      // After this the result has more users (the epilogue writes over
      // its slice, inserted back), but its values are still read once.
      epilogueInPlace(op);
    }
  }
};

} // namespace

