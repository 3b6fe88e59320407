//===- FuseRows.cpp - a row's reductions and elementwise ops in one loop --===//
//
// infer-cuda-fuse-rows runs on linalg on tensors, after the contractions are
// split. Softmax, layer normalization and the like lower to a chain of
// small ops over the same rows: fills, reductions along each row (max, sum,
// sum of squares) and elementwise ops that read a row and its statistics.
// Apart, each is its own kernel: 8 launches for a softmax and 8 for a
// layer norm, with only 1.5 to 3 KB of work per row; in a transformer
// encoder that is a third of all launches.
//
// Here such a chain becomes one scf.forall over the rows: its last op is
// tiled one row at a time and every op of the chain is fused into the loop
// (upstream tile-and-fuse), so the outliner makes one kernel of it, and
// infer-cuda-map-to-gpu gives each row a block (RowKernels.cpp).
//
// The chain ("row group") is grown from its last op backwards. An op joins
// when
//   - it is a linalg.generic (or fill) on tensors that is not a
//     contraction (at most one input varies along its reduction dims
//     without being read at every parallel point too);
//   - its leading R loops are parallel, the rows, with the same ranges as
//     the group's, and every map between members starts with d0 .. dR-1
//     (a member reads and writes whole rows of its neighbours);
//   - every user of its results is already in the group: nothing is
//     computed twice and no intermediate escapes. Fills are the exception:
//     a fill shared with other ops is cloned into the loop.
// R is the number of row dims of the group's first reduction: its output
// keeps d0 .. dR-1 and drops (or sets to 0) the reduced dims. A group needs
// a reduction; its largest op must have 32 to 65,536 points a row (enough
// for a warp, not too much for one block; a group of at most 4,096 rows may
// have fewer), and the intermediates of one row must fit in 24 KB (the kernel
// keeps them in shared memory).
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_FUSEROWSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Rows shorter than this are left to the one-thread-per-output kernels
/// when there are many of them, and rows longer than this always: one block
/// would take too long over them.
constexpr int64_t kMinRowElements = 32, kMaxRowElements = 1 << 16;
/// Up to this many short rows are a row group all the same: a block (a
/// warp) per row, at most about one wave of 32-thread blocks on an H100 (132
/// SMs x 32 blocks), is one launch where the ops alone are one each (a
/// softmax over 17 keys for 12 heads: 6). More short rows (a softmax over 3
/// channels at every pixel) would be many waves of mostly idle warps.
constexpr int64_t kMaxShortRows = 4096;
/// What a row's intermediates may take (in shared memory, in the kernel:
/// RowKernels.cpp); bufferization may add a copy or two.
constexpr int64_t kMaxIntermediateBytes = 24 * 1024;

/// Whether `op` is a kind of op a row group may hold: a fill, or a generic
/// that is not a contraction.
bool isRowOpKind(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return false;
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInits() != 1)
    return false;
  // A contraction reads two inputs along its reductions, each missing a
  // parallel dim (A has no n, B no m). An input read at every parallel dim
  // too is elementwise along the row (a residual add that infer-fuse-
  // elementwise put into a global pool) and does not count.
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  int varying = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    bool alongReduction = false, atEveryPoint = true;
    for (unsigned d = 0; d < iterators.size(); ++d) {
      bool reads = map.isFunctionOfDim(d);
      if (iterators[d] == utils::IteratorType::reduction)
        alongReduction |= reads;
      else
        atEveryPoint &= reads;
    }
    if (alongReduction && !atEveryPoint)
      ++varying;
  }
  return varying <= 1;
}

bool hasReduction(linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; }

/// Whether the first `rows` results of `map` are d0 .. d(rows-1).
bool startsWithRows(AffineMap map, unsigned rows) {
  if (map.getNumResults() < rows)
    return false;
  for (unsigned i = 0; i < rows; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || dim.getPosition() != i)
      return false;
  }
  return true;
}

/// The row dims of a reduction `op`: the leading output dims, parallel, up
/// to the first one that is not (a reduced dim dropped or set to 0).
unsigned rowDimsOfReduction(linalg::LinalgOp op) {
  AffineMap map = op.getIndexingMapMatchingResult(op->getResult(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned rows = 0;
  while (rows < map.getNumResults() && rows < iterators.size()) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(rows));
    if (!dim || dim.getPosition() != rows || iterators[rows] != utils::IteratorType::parallel)
      break;
    ++rows;
  }
  return rows;
}

/// Whether tiling can find the loops of a tile of `op`'s result: its
/// output map is a projection of the loops, but for the constant 0s of a
/// reduction's unit dims (which unitLoopsForConstants turns into loops).
/// Otherwise tile-and-fuse would clone the whole op into each row.
bool hasTileableOutput(linalg::LinalgOp op) {
  AffineMap map = op.getIndexingMapMatchingResult(op->getResult(0));
  auto shape = cast<ShapedType>(op->getResult(0).getType()).getShape();
  llvm::SmallBitVector seen(op.getNumLoops());
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (seen.test(dim.getPosition()))
        return false;
      seen.set(dim.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0 || shape[i] != 1 || op.getNumReductionLoops() == 0)
      return false;
  }
  return true;
}

/// `op`'s leading `rows` loops are parallel with ranges `ranges`, and its
/// output starts with them (and can be tiled).
bool hasRows(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (loops.size() < ranges.size() || !hasTileableOutput(op))
    return false;
  for (unsigned i = 0; i < ranges.size(); ++i)
    if (iterators[i] != utils::IteratorType::parallel || loops[i] != ranges[i])
      return false;
  return startsWithRows(op.getIndexingMapMatchingResult(op->getResult(0)), ranges.size());
}

/// A group of ops over the same rows, ending in `root`.
struct RowGroup {
  linalg::LinalgOp root;
  SmallVector<int64_t> rows; // The row dims' ranges.
  llvm::SmallPtrSet<Operation *, 16> members;
};

/// The group that ends in `root`, if it is one worth a kernel.
std::optional<RowGroup> growGroup(linalg::LinalgOp root) {
  if (!isRowOpKind(root) || isa<linalg::FillOp>(root))
    return std::nullopt;
  // The rows: those of the first reduction reached backwards from `root`.
  linalg::LinalgOp reduction;
  SmallVector<linalg::LinalgOp> worklist = {root};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty() && !reduction) {
    linalg::LinalgOp op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (hasReduction(op)) {
      reduction = op;
      break;
    }
    for (Value input : op.getDpsInputs())
      if (auto producer = input.getDefiningOp<linalg::LinalgOp>(); producer && isRowOpKind(producer))
        worklist.push_back(producer);
  }
  if (!reduction)
    return std::nullopt;
  unsigned rowCount = rowDimsOfReduction(reduction);
  if (rowCount == 0)
    return std::nullopt;
  SmallVector<int64_t> rows(reduction.getStaticLoopRanges());
  rows.resize(rowCount);
  // (A single row's loop is mapped to blocks: at most 10 linear dims.)
  if (llvm::any_of(rows, ShapedType::isDynamic) || !hasRows(root, rows) ||
      (llvm::product_of(rows) == 1 && rows.size() > 10))
    return std::nullopt;

  RowGroup group{root, rows, {}};
  group.members.insert(root);
  // Members read each other through maps that start with the rows.
  auto readsWholeRows = [&](linalg::LinalgOp consumer, Value value) {
    for (OpOperand &use : consumer->getOpOperands())
      if (use.get() == value &&
          !startsWithRows(consumer.getMatchingIndexingMap(&use), rowCount))
        return false;
    return true;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *member : SmallVector<Operation *>(group.members.begin(), group.members.end())) {
      for (Value operand : member->getOperands()) {
        auto producer = operand.getDefiningOp<linalg::LinalgOp>();
        if (!producer || group.members.contains(producer) || !isRowOpKind(producer) ||
            !hasRows(producer, rows))
          continue;
        bool fill = isa<linalg::FillOp>(producer);
        bool inside = llvm::all_of(producer->getUsers(), [&](Operation *user) {
          auto consumer = dyn_cast<linalg::LinalgOp>(user);
          return consumer && group.members.contains(user) && readsWholeRows(consumer, operand);
        });
        if (!inside && !fill)
          continue;
        if (fill && !readsWholeRows(cast<linalg::LinalgOp>(member), operand))
          continue;
        group.members.insert(producer);
        changed = true;
      }
    }
  }
  // The work on one row: the largest op's loop points past the rows, and
  // the intermediates one row keeps (shared memory in the kernel).
  int64_t rowWork = 0, intermediateBytes = 0;
  bool reduces = false;
  for (Operation *member : group.members) {
    auto op = cast<linalg::LinalgOp>(member);
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    if (llvm::any_of(loops, ShapedType::isDynamic))
      return std::nullopt;
    int64_t points = 1;
    for (unsigned i = rowCount; i < loops.size(); ++i)
      points *= loops[i];
    rowWork = std::max(rowWork, points);
    reduces |= hasReduction(op);
    if (member == root.getOperation())
      continue;
    auto type = cast<ShapedType>(op->getResult(0).getType());
    int64_t elements = 1;
    for (int64_t d : type.getShape().drop_front(rowCount))
      elements *= d;
    intermediateBytes += elements * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  }
  // A few rows may be short: their ops would each be a launch of a few
  // blocks anyway, as a classifier's final softmax over [1, N] or a short
  // sequence's attention scores. Not when each row ends in one point (a
  // depthwise convolution's window with its epilogue): a thread per output
  // (a point group, FuseEpilogues.cpp) does that in one launch already.
  int64_t rowOutputs = 1; // What the group writes a row.
  for (int64_t d : cast<ShapedType>(root->getResult(0).getType()).getShape().drop_front(rowCount))
    rowOutputs *= d;
  bool fewShortRows = llvm::product_of(rows) == 1 ||
                      (llvm::product_of(rows) <= kMaxShortRows && rowOutputs > 1);
  bool shortRows = rowWork < kMinRowElements && !fewShortRows;
  if (!reduces || group.members.size() < 2 || shortRows || rowWork > kMaxRowElements ||
      intermediateBytes > kMaxIntermediateBytes)
    return std::nullopt;
  return group;
}

/// A reduction whose output map has constant results (a row's statistic
/// kept as [rows, 1] through `(d0, d1) -> (d0, 0)`) gets a unit parallel loop
/// for each instead: tiling needs the output map to be a projection of the
/// loops to find the loops of a tile of the result. Returns the new op, or
/// `op` if it had none.
linalg::LinalgOp unitLoopsForConstants(RewriterBase &rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    return op;
  OpOperand *init = generic.getDpsInitOperand(0);
  AffineMap outMap = generic.getMatchingIndexingMap(init);
  auto shape = cast<ShapedType>(init->get().getType()).getShape();
  SmallVector<AffineExpr> results;
  unsigned dims = generic.getNumLoops();
  MLIRContext *ctx = op.getContext();
  for (auto [i, expr] : llvm::enumerate(outMap.getResults())) {
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (constant && constant.getValue() == 0 && shape[i] == 1)
      results.push_back(getAffineDimExpr(dims++, ctx));
    else
      results.push_back(expr);
  }
  if (dims == generic.getNumLoops())
    return op;
  SmallVector<AffineMap> maps;
  for (AffineMap map : generic.getIndexingMapsArray())
    maps.push_back(AffineMap::get(dims, 0, map.getResults(), ctx));
  maps.back() = AffineMap::get(dims, 0, results, ctx);
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  iterators.resize(dims, utils::IteratorType::parallel);
  rewriter.setInsertionPoint(generic);
  auto replacement = linalg::GenericOp::create(rewriter, generic.getLoc(), generic.getResultTypes(),
                                               generic.getDpsInputs(), generic.getDpsInits(),
                                               maps, iterators);
  rewriter.inlineRegionBefore(generic.getRegion(), replacement.getRegion(),
                              replacement.getRegion().begin());
  rewriter.replaceOp(generic, replacement->getResults());
  return replacement;
}

struct FuseRowsPass : public infer::impl::FuseRowsPassBase<FuseRowsPass> {
  using Base::Base;
  /// Remembers the ops a rewrite erased, so that a list of ops made before
  /// it is not followed into freed memory.
  struct ErasedOps : public RewriterBase::Listener {
    llvm::DenseSet<Operation *> ops;
    void notifyOperationErased(Operation *op) override { ops.insert(op); }
  };

  void runOnOperation() override {
    ErasedOps erased;
    IRRewriter rewriter(&getContext(), &erased);
    getOperation().walk([&](func::FuncOp func) {
      // Last ops first: a group is grown from its end.
      SmallVector<linalg::LinalgOp> ops;
      func.walk([&](linalg::LinalgOp op) {
        if (op->getParentOp() == func)
          ops.push_back(op);
      });
      llvm::SmallPtrSet<Operation *, 32> taken;
      for (linalg::LinalgOp root : llvm::reverse(ops)) {
        if (erased.ops.contains(root) || taken.contains(root))
          continue;
        std::optional<RowGroup> group = growGroup(root);
        if (!group)
          continue;
        // Fills may be shared: each group fuses its own copy. The others
        // are read before fusing, which erases them.
        SmallVector<Operation *> owned;
        for (Operation *op : group->members)
          if (!isa<linalg::FillOp>(op))
            owned.push_back(op);
        if (llvm::any_of(owned, [&](Operation *op) { return taken.contains(op); }))
          continue;
        if (failed(fuse(rewriter, *group)))
          continue;
        taken.insert(owned.begin(), owned.end());
      }
    });
  }

  static LogicalResult fuse(RewriterBase &rewriter, RowGroup &group) {
    for (Operation *member : SmallVector<Operation *>(group.members.begin(), group.members.end()))
      if (hasReduction(cast<linalg::LinalgOp>(member))) {
        linalg::LinalgOp replaced = unitLoopsForConstants(rewriter, cast<linalg::LinalgOp>(member));
        group.members.erase(member);
        group.members.insert(replaced);
        if (member == group.root.getOperation())
          group.root = replaced;
      }
    SmallVector<OpFoldResult> sizes(group.root.getNumLoops(), rewriter.getIndexAttr(0));
    for (unsigned i = 0; i < group.rows.size(); ++i)
      sizes[i] = rewriter.getIndexAttr(1);
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(sizes);
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    // A loop of one row is mapped to blocks: canonicalization would inline
    // an unmapped one (its per-row allocations with it, after the arena is
    // planned), and there would be no row kernel.
    if (llvm::product_of(group.rows) == 1) {
      SmallVector<Attribute> mapping;
      for (unsigned i = 0; i < group.rows.size(); ++i)
        mapping.push_back(gpu::GPUBlockMappingAttr::get(
            rewriter.getContext(),
            static_cast<gpu::MappingId>(static_cast<int64_t>(gpu::MappingId::LinearDim0) + i)));
      tiling.setMapping(mapping);
    }
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer,
            bool isDestination) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!group.members.contains(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(group.root);
    FailureOr<scf::SCFTileAndFuseResult> fused = scf::tileConsumerAndFuseProducersUsingSCF(
        rewriter, cast<TilingInterface>(group.root.getOperation()), options);
    if (failed(fused))
      return failure();
    for (OpResult result : group.root->getResults())
      rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
    // The fused producers are dead now (users first), except fills that
    // other ops still use.
    // Tile-and-fuse leaves slices of the original producers in the loop.
    SmallVector<Operation *> alive(group.members.begin(), group.members.end());
    for (LoopLikeOpInterface loop : fused->loops) {
      SmallVector<Operation *> body;
      loop->walk([&](Operation *op) { body.push_back(op); });
      for (Operation *op : llvm::reverse(body))
        if (isOpTriviallyDead(op))
          rewriter.eraseOp(op);
    }
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&member : alive)
        if (member && member->use_empty()) {
          rewriter.eraseOp(member);
          member = nullptr;
          erased = true;
        }
    }
    return success();
  }
};

} // namespace

