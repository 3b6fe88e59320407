//===- TileAndVectorize.cpp - register tiles and vector code for linalg ---===//
//
// infer-cpu-vectorize, on linalg on tensors before bufferization: each
// static linalg op whose maps are projected permutations is tiled with
// scf.for to a register-sized tile, and the tile is vectorized:
//
//   contractions  (batch.., m, n, k): a tile of up to 6 rows x 2 vectors of
//                 the output, k stepped by one: vector.contract, later outer
//                 products, so the accumulators stay in registers;
//   reductions    over the output's innermost dim: chunks of 4 vectors;
//   elementwise   the output's innermost dim in chunks of 4 vectors.
//
// Tile sizes divide the loop ranges, so every tile is static and no masks
// are needed. Where the best divisor is less than half the wanted tile
// (a vocabulary of 50257 = 29 x 1733 columns, 197 rows), the op is first split
// along that dim (linalg::splitOp) into a part that full tiles divide and a
// remainder smaller than one tile, each tiled on its own. Ops the vectorizer
// cannot take (convolution windows, gathers) are left whole and become
// scalar loops. infer-cpu-lower-vectors finishes the job on memrefs.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CPU/CPUCodegen.h"
#include "infer-opt/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir::infer {
#define GEN_PASS_DEF_VECTORIZEPASS
#define GEN_PASS_DEF_LOWERVECTORSPASS
#include "infer-opt/Codegen/CPU/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// Bytes of one vector register the tiles are sized for (AVX2). Wider
/// registers (AVX-512) still get correct code; LLVM splits or joins.
constexpr int64_t kVectorBytes = 32;
/// Output rows per contraction tile: 6 rows x 2 vectors = 12 accumulators.
constexpr int64_t kContractionRows = 6;

/// The largest divisor of `range` not above `limit` (at least 1).
int64_t divisorAtMost(int64_t range, int64_t limit) {
  for (int64_t d = std::min(range, limit); d > 1; --d)
    if (range % d == 0)
      return d;
  return 1;
}

/// The rows of a contraction's register tile, given its vector dim `inner`:
/// the innermost other output dim that no operand read along `inner` uses,
/// so that each row needs one broadcast scalar per step of k and the vector
/// operand is loaded once for all rows (a MatMul's m; a convolution's output
/// channels, not its output rows, which the input also uses). Else the
/// output's second innermost dim.
std::optional<unsigned> contractionRows(linalg::LinalgOp op, unsigned inner) {
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto dimAt = [&](int64_t i) -> std::optional<unsigned> {
    auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(i));
    return dim ? std::optional<unsigned>(dim.getPosition()) : std::nullopt;
  };
  for (int64_t i = outMap.getNumResults() - 1; i >= 0; --i) {
    std::optional<unsigned> dim = dimAt(i);
    if (!dim || *dim == inner)
      continue;
    bool sharesVectorOperand = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      AffineMap map = op.getMatchingIndexingMap(input);
      return map.isFunctionOfDim(inner) && map.isFunctionOfDim(*dim);
    });
    if (!sharesVectorOperand)
      return dim;
  }
  if (outMap.getNumResults() >= 2)
    return dimAt(outMap.getNumResults() - 2);
  return std::nullopt;
}

/// The tile each loop of `op` wants (1: not tiled, stepped by one), or
/// nullopt to leave the op alone (among others, when the vectorizer would
/// refuse it). Tiles may not divide the ranges yet.
std::optional<SmallVector<int64_t>> wantedTileSizes(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.empty())
    return std::nullopt;
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return std::nullopt;
  // i1 tensors are stored a byte per element, but LLVM loads vectors of i1
  // as packed bits: ops touching them stay scalar.
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = getElementTypeOrSelf(operand.get().getType());
    if (!type.isIntOrIndexOrFloat() || type.isIndex() || type.getIntOrFloatBitWidth() < 8)
      return std::nullopt;
  }
  if (failed(linalg::vectorizeOpPrecondition(op)))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  int64_t lanes = kVectorBytes / (element.getIntOrFloatBitWidth() / 8);

  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto outDim = [&](int64_t fromBack) -> std::optional<unsigned> {
    int64_t n = outMap.getNumResults();
    if (fromBack >= n)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(n - 1 - fromBack));
    return dim ? std::optional<unsigned>(dim.getPosition()) : std::nullopt;
  };
  SmallVector<int64_t> sizes(ranges.size(), 1);
  std::optional<unsigned> inner = outDim(0);
  bool hasReduction = llvm::any_of(iterators, linalg::isReductionIterator);
  if (hasReduction && inner && ranges[*inner] > 1) {
    // Contraction-like: a register tile of the output, reductions stepped by one.
    sizes[*inner] = 2 * lanes;
    if (std::optional<unsigned> rows = contractionRows(op, *inner))
      sizes[*rows] = kContractionRows;
  } else if (hasReduction) {
    // Reducing along the innermost dim: chunk the last reduction loop.
    for (int64_t d = ranges.size() - 1; d >= 0; --d)
      if (linalg::isReductionIterator(iterators[d])) {
        sizes[d] = 4 * lanes;
        break;
      }
  } else if (inner) {
    sizes[*inner] = 4 * lanes;
  }
  for (auto [size, range] : llvm::zip(sizes, ranges))
    size = std::min(size, range);
  return sizes;
}

/// The vector dim of `op` (the output's innermost, a parallel loop) and
/// the lanes of one vector register of the output's element type.
std::optional<std::pair<unsigned, int64_t>> vectorDim(linalg::LinalgOp op) {
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!dim || !linalg::isParallelIterator(op.getIteratorTypesArray()[dim.getPosition()]))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  return std::make_pair(dim.getPosition(), kVectorBytes / (element.getIntOrFloatBitWidth() / 8));
}

/// The largest multiple of `lanes` not above `limit` that divides `range`
/// (0 if none): vector tiles of whole registers. A 14-lane tile (a 14x14
/// feature map) compiled to element-by-element code.
int64_t laneDivisorAtMost(int64_t range, int64_t limit, int64_t lanes) {
  for (int64_t d = limit / lanes * lanes; d >= lanes; d -= lanes)
    if (range % d == 0)
      return d;
  return 0;
}

/// Tile sizes for `op` (0: not tiled), each the largest divisor of its
/// range not above the wanted tile, whole registers along the vector dim
/// when its range allows; nullopt to leave the op alone.
std::optional<SmallVector<int64_t>> chooseTileSizes(linalg::LinalgOp op) {
  std::optional<SmallVector<int64_t>> sizes = wantedTileSizes(op);
  if (!sizes)
    return std::nullopt;
  std::optional<std::pair<unsigned, int64_t>> vector = vectorDim(op);
  for (auto [dim, size, range] : llvm::enumerate(*sizes, op.getStaticLoopRanges())) {
    int64_t whole = vector && vector->first == dim
                        ? laneDivisorAtMost(range, size, vector->second)
                        : 0;
    size = whole ? whole : divisorAtMost(range, size);
    if (size == range) // A tile as large as its range needs no loop.
      size = 0;
  }
  return sizes;
}

} // namespace

namespace {

/// Splits `op` along each parallel dim whose best dividing tile is less
/// than half the wanted one (along the vector dim: that no tile of whole
/// registers divides), at the last multiple of the wanted tile: a part that
/// whole tiles divide, and a remainder smaller than one tile. Returns the
/// parts (just `op` when nothing is split).
SmallVector<linalg::LinalgOp> splitForWholeTiles(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<linalg::LinalgOp> parts = {op};
  std::optional<SmallVector<int64_t>> wanted = wantedTileSizes(op);
  if (!wanted)
    return parts;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<std::pair<unsigned, int64_t>> vector = vectorDim(op);
  for (auto [dim, tile] : llvm::enumerate(*wanted)) {
    if (tile <= 1 || !linalg::isParallelIterator(iterators[dim]))
      continue;
    bool isVectorDim = vector && vector->first == dim;
    SmallVector<linalg::LinalgOp> next;
    for (linalg::LinalgOp part : parts) {
      int64_t range = part.getStaticLoopRanges()[dim];
      int64_t whole = range / tile * tile;
      bool divides = isVectorDim ? laneDivisorAtMost(range, tile, vector->second) != 0
                                 : 2 * divisorAtMost(range, tile) > tile;
      if (divides) {
        next.push_back(part);
        continue;
      }
      for (Operation *piece : splitAt(rewriter, part, dim, whole))
        next.push_back(cast<linalg::LinalgOp>(piece));
    }
    parts = std::move(next);
  }
  return parts;
}

/// Ops with at least this many loop iterations are split across threads.
constexpr int64_t kParallelIterations = int64_t(1) << 15;

/// Tiles `op` with `sizes` as loops of `type`; returns the tiled op.
Operation *tile(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
                scf::SCFTilingOptions::LoopType type, ArrayRef<int64_t> interchange = {}) {
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return op;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setLoopType(type);
  options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return nullptr;
  rewriter.replaceOp(op, tiled->replacements);
  return tiled->tiledOps.front();
}

/// The order of a contraction's tile loops (an interchange of its loop
/// dims), so that its larger input is streamed from memory once: the loop
/// over the vector dim outermost when the operand read along it (a MatMul's
/// weight, a 154 MB lm_head) is the larger one, so that each of its
/// column panels stays in cache while every row tile of the other operand
/// passes by. Else (a convolution's weights larger than its im2col input)
/// the natural order, rows outermost. Empty: the natural order.
SmallVector<int64_t> contractionLoopOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<std::pair<unsigned, int64_t>> vector = vectorDim(op);
  if (!llvm::any_of(iterators, linalg::isReductionIterator) || !vector)
    return {};
  unsigned inner = vector->first;
  int64_t alongInner = 0, others = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (!type || !type.hasStaticShape())
      return {};
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    (op.getMatchingIndexingMap(input).isFunctionOfDim(inner) ? alongInner : others) += bytes;
  }
  if (alongInner <= others)
    return {};
  SmallVector<int64_t> order = {inner};
  for (int64_t dim = 0, e = iterators.size(); dim < e; ++dim)
    if (dim != inner)
      order.push_back(dim);
  return order;
}

/// Tiles `op` with `sizes` (chooseTileSizes: the vectorizer accepts `op`)
/// and vectorizes the tile. Big ops tile their parallel dims with
/// scf.forall (run by the OpenMP runtime across threads, one whole tile per
/// thread, so results do not depend on the thread count) and their
/// reductions with scf.for inside.
void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t iterations = 1;
  for (int64_t r : ranges)
    iterations = iterations > (int64_t(1) << 40) / std::max<int64_t>(r, 1) ? int64_t(1) << 40
                                                                          : iterations * r;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> parallelSizes(sizes), reductionSizes(sizes);
  for (auto [i, kind] : llvm::enumerate(iterators))
    (linalg::isParallelIterator(kind) ? reductionSizes : parallelSizes)[i] = 0;
  bool threaded = iterations >= kParallelIterations &&
                  llvm::any_of(parallelSizes, [](int64_t s) { return s != 0; });
  Operation *target = op;
  if (threaded) {
    target = tile(rewriter, target, parallelSizes, scf::SCFTilingOptions::LoopType::ForallOp,
                  contractionLoopOrder(op));
    if (target)
      target = tile(rewriter, target, reductionSizes, scf::SCFTilingOptions::LoopType::ForOp);
  } else {
    target = tile(rewriter, target, sizes, scf::SCFTilingOptions::LoopType::ForOp);
  }
  if (!target)
    return;
  rewriter.setInsertionPoint(target);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, target, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
                        /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
                        /*assumeDynamicDimsMatchVecSizes=*/false, /*createNamedContraction=*/true);
  if (succeeded(vectorized))
    rewriter.replaceOp(target, vectorized->replacements);
}

struct VectorizePass : public infer::impl::VectorizePassBase<VectorizePass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = lookupEntryFunction(getOperation());
    if (!func || func.isExternal())
      return;
    SmallVector<linalg::LinalgOp> work;
    func.walk([&](linalg::LinalgOp op) {
      if (chooseTileSizes(op))
        work.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : work)
      for (linalg::LinalgOp part : splitForWholeTiles(rewriter, op))
        if (std::optional<SmallVector<int64_t>> sizes = chooseTileSizes(part))
          tileAndVectorize(rewriter, part, *sizes);

    // Unit dims of the tiles out of the vectors, so that they are 1-D or 2-D.
    RewritePatternSet patterns(&getContext());
    // (Not with the transfer permutation-map lowering: together they rewrite
    // broadcasts back and forth until the rewrite limit; that lowering runs
    // after bufferization.)
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, &getContext());
    // Not converging is not an error: the IR stays valid, only less tidy.
    (void)applyPatternsGreedily(func, std::move(patterns),
                                GreedyRewriteConfig().setMaxIterations(8).setMaxNumRewrites(100000));

    // Accumulators out of the reduction loops, while the IR is still on
    // tensors: a read of the loop's tensor at loop-invariant indices and the
    // matching write become a vector the loop carries, so a contraction tile
    // stays in registers across k. (After bufferization the same hoisting
    // refuses buffers that are views, and every arena buffer is one.)
    // Innermost loops first, so that hoisted pairs can move out further.
    SmallVector<LoopLikeOpInterface> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (LoopLikeOpInterface loop : loops)
      hoistLoopInvariantSubsets(rewriter, loop);
  }
};

/// Folds memref.subview (and, into loads and stores, expand_shape and
/// collapse_shape) into the accesses that read through them, so that
/// hoisting sees loop-invariant accumulators: memref's fold-memref-alias-ops
/// patterns, less the one that folds an expand_shape into a vector
/// transfer_read. In MLIR 22 it rebuilds the read with the default
/// permutation map of the reshaped memref: a vector<16x1x1xf32> read across
/// the channels of a [1, C, 7, 7] view of a [1, C, 49] buffer came out as a
/// read of 16 elements along its leading dim of 1, out of bounds (NaNs in a
/// global average pool; test/Codegen/CPU/fold-subviews.mlir).
LogicalResult foldSubviewsIntoAccesses(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  llvm::erase_if(patterns.getNativePatterns(), [](const std::unique_ptr<RewritePattern> &p) {
    StringRef name = p->getDebugName(); // LoadOpOfExpandShapeOpFolder<vector::TransferReadOp>
    return name.contains("ExpandShape") && name.contains("TransferRead");
  });
  return applyPatternsGreedily(module, std::move(patterns));
}

/// After bufferization: accumulators out of the reduction loops, then
/// vector ops down to what the LLVM conversion takes (1-D transfers, FMAs).
struct LowerVectorsPass : public infer::impl::LowerVectorsPassBase<LowerVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(foldSubviewsIntoAccesses(module)))
      return signalPassFailure();
    module.walk([](func::FuncOp func) { linalg::hoistRedundantVectorTransfers(func); });
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(patterns,
                                                   vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransposeLoweringPatterns(patterns,
                                                    vector::VectorTransposeLowering::EltWise);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
    // A one-element transfer (a 0-D vector) is a plain load or store: the
    // LLVM conversion has no lowering for one from a memref whose last
    // stride is not 1 (a Slice with a step, broadcast by an Expand).
    vector::populateScalarVectorTransferLoweringPatterns(patterns, /*benefit=*/1,
                                                         /*allowMultipleUses=*/true);
    // erf (GELU) and tanh as f32 polynomials in vector code, instead of one
    // scalar libm call per lane.
    populatePolynomialApproximateErfPattern(patterns);
    populatePolynomialApproximateTanhPattern(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

