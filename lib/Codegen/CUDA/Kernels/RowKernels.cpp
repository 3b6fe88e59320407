//===- RowKernels.cpp - one block per row of a fused row group -----------===//
//
// infer-cuda-fuse-rows (FuseRows.cpp) turns softmax, layer norm and the like
// into one scf.forall over the rows whose body holds the group's ops on one
// row, its intermediates in allocations of one row each. Here that loop
// becomes a kernel with a block per row:
//
//   - the block id, delinearized over the loop's ranges, is the row;
//   - the body's allocations become shared memory (a row's intermediates
//     never leave the block);
//   - each op of the body in order, with a barrier after each, so that the
//     next op sees what the whole block wrote:
//       * a reduction of the row to one value whose payload the block
//         reductions handle (BlockReductions.cpp: strided partial sums,
//         warp shuffles, thread 0 stores), with a scratch buffer of its own;
//       * anything else (elementwise ops, fills, copies, and reductions of
//         another kind) spread over the block's threads, a thread per point
//         of its parallel loops in a block-strided loop (innermost dim
//         fastest: coalesced), its reductions as loops inside each thread.
//
// The block is the smallest power of two, from a warp up to 256 threads,
// that covers the largest op's work on one row.
//
//===----------------------------------------------------------------------===//

#include "Kernels/RowKernels.h"
#include "Kernels/BlockReductions.h"
#include "Kernels/Delinearize.h"
#include "Kernels/ParallelLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

constexpr int64_t kWarp = 32, kMaxBlock = 256;
/// Shared memory a block may use without opting in to more.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// The op's parallel and reduction work on one row: (points of its parallel
/// loops, length of its reductions).
std::pair<int64_t, int64_t> rowWork(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t points = 1, length = 1;
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    (iterator == utils::IteratorType::parallel ? points : length) *= range;
  return {points, length};
}

/// Whether `op` becomes a block reduction in a row kernel: one output point,
/// a reduction, a payload BlockReductions.cpp handles.
bool isRowReduction(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  auto [points, length] = rowWork(op);
  return generic && points == 1 && op.getNumReductionLoops() > 0 &&
         planBlockReductionWith(generic, kWarp).has_value();
}

/// The kernel's one side-effecting op, if it is an scf.forall with constant
/// bounds from 0 by 1.
scf::ForallOp rowLoop(func::FuncOp kernel) {
  scf::ForallOp loop;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isPure(&op))
      continue;
    auto forall = dyn_cast<scf::ForallOp>(op);
    if (!forall || loop)
      return {};
    loop = forall;
  }
  if (!loop || !loop.getOutputs().empty())
    return {};
  // infer-cuda-fuse-rows maps a loop of one row to blocks (to keep it).
  if (std::optional<ArrayAttr> mapping = loop.getMapping())
    if (!llvm::all_of(*mapping, [](Attribute a) { return isa<gpu::GPUBlockMappingAttr>(a); }))
      return {};
  std::optional<SmallVector<int64_t>> lower = getConstantIntValues(loop.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> steps = getConstantIntValues(loop.getMixedStep());
  std::optional<SmallVector<int64_t>> upper = getConstantIntValues(loop.getMixedUpperBound());
  if (!lower || !steps || !upper || llvm::any_of(*lower, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(*steps, [](int64_t v) { return v != 1; }))
    return {};
  return loop;
}

/// Replaces the scf.parallel `loop` (trip counts `counts`) by a
/// block-strided loop over its points: thread t takes points t, t +
/// blockSize, ...
void strideOverThreads(OpBuilder &b, scf::ParallelOp loop, ArrayRef<int64_t> counts,
                       int64_t blockSize) {
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto strided = scf::ForOp::create(b, loc, thread,
                                    arith::ConstantIndexOp::create(b, loc, llvm::product_of(counts)),
                                    arith::ConstantIndexOp::create(b, loc, blockSize));
  b.setInsertionPointToStart(strided.getBody());
  cloneIteration(b, loop, strided.getInductionVar(), counts);
  loop.erase();
}

/// `op` (a generic, parallel dims first) spread over the block's threads.
LogicalResult spreadOverBlock(RewriterBase &rewriter, linalg::GenericOp op, int64_t blockSize) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::LinalgLoops> loops = linalg::linalgOpToParallelLoops(rewriter, op);
  if (failed(loops))
    return op->emitError("internal: cannot lower a row kernel's op to loops");
  rewriter.eraseOp(op);
  if (loops->empty())
    return success();
  Operation *outer = loops->front();
  if (auto parallel = dyn_cast<scf::ParallelOp>(outer)) {
    std::optional<SmallVector<int64_t>> counts = tripCounts(parallel);
    if (!counts)
      return parallel->emitError("internal: a row kernel's loop has dynamic bounds");
    strideOverThreads(rewriter, parallel, *counts, blockSize);
    return success();
  }
  // No parallel loop: thread 0 alone runs the loops.
  Location loc = outer->getLoc();
  rewriter.setInsertionPoint(outer);
  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, thread,
                                      arith::ConstantIndexOp::create(rewriter, loc, 0));
  auto alone = scf::IfOp::create(rewriter, loc, first, /*withElseRegion=*/false);
  outer->moveBefore(alone.thenBlock()->getTerminator());
  return success();
}

} // namespace

std::optional<RowKernelPlan> mlir::infer::planRowKernel(func::FuncOp kernel) {
  scf::ForallOp loop = rowLoop(kernel);
  if (!loop)
    return std::nullopt;
  RowKernelPlan plan;
  plan.rows = *getConstantIntValues(loop.getMixedUpperBound());
  plan.gridSize = llvm::product_of(plan.rows);
  if (plan.gridSize <= 0 || plan.gridSize >= (int64_t(1) << 31))
    return std::nullopt;
  MLIRContext *ctx = kernel.getContext();
  auto workgroupSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  int64_t work = 1, sharedBytes = 0;
  SmallVector<linalg::GenericOp> reductions;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrFloat() ||
          !llvm::all_of(alloc->getUsers(), [](Operation *user) {
            return isa<linalg::LinalgOp, memref::DeallocOp>(user);
          }))
        return std::nullopt;
      plan.workgroup.push_back(MemRefType::get(type.getShape(), type.getElementType(),
                                               AffineMap(), workgroupSpace));
      sharedBytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
      continue;
    }
    if (isa<memref::DeallocOp>(op) || isPure(&op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        llvm::any_of(linalgOp.getStaticLoopRanges(), ShapedType::isDynamic))
      return std::nullopt;
    auto [points, length] = rowWork(linalgOp);
    if (isRowReduction(linalgOp)) {
      work = std::max(work, length);
      reductions.push_back(cast<linalg::GenericOp>(op));
    } else {
      work = std::max(work, points);
    }
  }
  plan.blockSize = kWarp;
  while (plan.blockSize < kMaxBlock && plan.blockSize < work)
    plan.blockSize *= 2;
  // A scratch buffer per block reduction, as it needs for this block size.
  plan.allocations = plan.workgroup.size();
  for (linalg::GenericOp reduction : reductions) {
    Type element = getElementTypeOrSelf(reduction.getDpsInits()[0].getType());
    int64_t elements = planBlockReductionWith(reduction, plan.blockSize)->scratchSize;
    plan.workgroup.push_back(MemRefType::get({elements}, element, AffineMap(), workgroupSpace));
    sharedBytes += elements * std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  }
  if (sharedBytes > kMaxSharedBytes)
    return std::nullopt;
  return plan;
}

LogicalResult mlir::infer::buildRowKernel(OpBuilder &b, scf::ForallOp forall,
                                          const RowKernelPlan &plan, ValueRange workgroup) {
  Location loc = forall.getLoc();
  b.setInsertionPoint(forall);
  IRMapping map;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  for (auto [iv, row] : llvm::zip(forall.getInductionVars(), delinearize(b, loc, block, plan.rows)))
    map.map(iv, row);
  unsigned nextAllocation = 0;
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : forall.getBody()->without_terminator()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      map.map(alloc.getResult(), workgroup[nextAllocation++]);
      continue;
    }
    if (isa<memref::DeallocOp>(op))
      continue;
    Operation *clone = b.clone(op, map);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(clone))
      ops.push_back(linalgOp);
  }
  forall.erase();

  IRRewriter rewriter(b.getContext());
  unsigned nextScratch = plan.allocations;
  for (auto [index, op] : llvm::enumerate(ops)) {
    bool reduction = isRowReduction(op);
    FailureOr<linalg::GenericOp> generic = parallelFirst(rewriter, op);
    if (failed(generic))
      return failure();
    if (index + 1 < ops.size()) { // What the next op reads is written.
      rewriter.setInsertionPointAfter(*generic);
      gpu::BarrierOp::create(rewriter, loc);
    }
    if (reduction) {
      std::optional<BlockReductionPlan> reductionPlan =
          planBlockReductionWith(*generic, plan.blockSize);
      rewriter.setInsertionPoint(*generic);
      if (!reductionPlan ||
          failed(buildBlockReductionKernel(rewriter, *generic, *reductionPlan,
                                           workgroup[nextScratch++], zero)))
        return generic->emitError("internal: a row kernel's reduction");
      rewriter.eraseOp(*generic);
      continue;
    }
    if (failed(spreadOverBlock(rewriter, *generic, plan.blockSize)))
      return failure();
  }
  return success();
}
