//===- BlockReductions.cpp - few outputs, long reductions: one block each --===//
//
// A reduction with few outputs and a long reduction (global average
// pooling, softmax's max and sum over a row, layer norm's mean, a
// matrix-vector product) would leave most of the GPU idle with one thread
// per output: a global pool over 160 x 160 positions would sum 25,600
// elements on each of a few dozen threads. Here one block computes one
// output:
//
//   1. each thread folds a strided slice of the reduction space (linear
//      over the reduction dims, innermost fastest: coalesced) into a
//      partial value, starting from the combiner's identity;
//   2. the partials meet: for 32-bit types (f32, i32: what gpu.shuffle
//      lowers to shfl.sync for) in registers, by a butterfly of warp
//      shuffles (xor 16, 8, 4, 2, 1) in each warp, then, with more than
//      one warp, each warp's lane 0 writes its sum to shared memory and,
//      after one barrier, a second butterfly over those sums; for other
//      types by a tree of halving steps in shared memory, a barrier
//      between steps;
//   3. thread 0 combines the result with the output's initial value (the
//      fill or bias) and stores it.
//
// Only linalg.generic ops whose payload is out' = combine(out, f(ins)) with
// an associative, commutative combiner whose identity is known (addf, mulf,
// maximumf, maxnumf, minimumf, minnumf, addi) qualify; float sums are then
// in a different order than the serial loop, as in every GPU reduction.
//
//===----------------------------------------------------------------------===//

#include "Kernels/BlockReductions.h"
#include "Kernels/Delinearize.h"
#include "Kernels/TensorCoreFusion.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::infer;

namespace {

/// The combiner of `op`'s payload and its identity, if it is a reduction
/// this file handles.
std::optional<std::pair<Operation *, TypedAttr>> matchCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 0)
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArguments().back();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  Type type = out.getType();
  Builder b(op.getContext());
  auto floatValue = [&](double v) -> TypedAttr { return b.getFloatAttr(type, v); };
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (isa<FloatType>(type)) {
    if (isa<arith::AddFOp>(combine))
      return std::make_pair(combine, floatValue(0.0));
    if (isa<arith::MulFOp>(combine))
      return std::make_pair(combine, floatValue(1.0));
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine))
      return std::make_pair(combine, floatValue(-inf));
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
      return std::make_pair(combine, floatValue(inf));
  } else if (isa<IntegerType>(type) && isa<arith::AddIOp>(combine)) {
    return std::make_pair(combine, TypedAttr(b.getIntegerAttr(type, 0)));
  }
  return std::nullopt;
}

constexpr int64_t kWarpSize = 32;

} // namespace

/// Sets `plan`'s block size, and the scratch its partials meet in (a value
/// a warp with shuffles, else one a thread).
static void setBlockSize(BlockReductionPlan &plan, linalg::GenericOp op, int64_t blockSize) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  plan.blockSize = blockSize;
  plan.warpShuffles = element.isF32() || element.isInteger(32);
  plan.scratchSize = plan.warpShuffles ? std::max<int64_t>(1, blockSize / kWarpSize) : blockSize;
}

std::optional<BlockReductionPlan> mlir::infer::planBlockReduction(linalg::GenericOp op) {
  std::optional<BlockReductionPlan> plan = planBlockReductionWith(op, kWarpSize);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!plan || llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t outputs = 1, length = 1;
  for (unsigned d : plan->parallel)
    outputs *= ranges[d];
  for (unsigned d : plan->reduction)
    length *= ranges[d];
  // Heuristic: worth a block when the reduction is long and the outputs
  // too few to fill the GPU with one thread each.
  if (plan->reduction.empty() || length < kMinBlockReductionLength || outputs > 65536 ||
      outputs == 0)
    return std::nullopt;
  int64_t blockSize = kWarpSize;
  while (blockSize < 256 && blockSize < length)
    blockSize *= 2;
  setBlockSize(*plan, op, blockSize);
  plan->gridSize = outputs;
  return plan;
}

std::optional<BlockReductionPlan> mlir::infer::planBlockReductionWith(linalg::GenericOp op,
                                                                      int64_t blockSize) {
  if (!op.hasPureBufferSemantics() || !matchCombiner(op) || blockSize < kWarpSize ||
      !llvm::isPowerOf2_64(blockSize))
    return std::nullopt;
  BlockReductionPlan plan;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < iterators.size(); ++d)
    (iterators[d] == utils::IteratorType::parallel ? plan.parallel : plan.reduction).push_back(d);
  setBlockSize(plan, op, blockSize);
  plan.gridSize = 1;
  return plan;
}

LogicalResult mlir::infer::buildBlockReductionKernel(OpBuilder &b, linalg::GenericOp op,
                                                     const BlockReductionPlan &plan,
                                                     Value scratch, Value outputPoint,
                                                     linalg::LinalgOp prologue,
                                                     linalg::LinalgOp epilogue) {
  auto combiner = matchCombiner(op);
  if (!combiner)
    return failure();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Block &body = op.getRegion().front();
  Operation *combine = combiner->first;
  Value identity = arith::ConstantOp::create(b, loc, combiner->second);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value output = outputPoint ? outputPoint : gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);

  // The output this block computes: the block id over the parallel dims.
  SmallVector<Value> loopIndex(ranges.size());
  spreadOverLoops(b, loc, output, plan.parallel, ranges, loopIndex);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto load = [&](OpOperand &operand) -> Value {
    AffineMap map = maps[operand.getOperandNumber()];
    SmallVector<Value> indices;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      indices.push_back(affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), loopIndex));
    return memref::LoadOp::create(b, loc, operand.get(), indices);
  };

  // 1. A strided slice of the reduction space per thread.
  int64_t length = 1;
  for (unsigned d : plan.reduction)
    length *= ranges[d];
  auto loop = scf::ForOp::create(b, loc, thread, cst(length), cst(plan.blockSize),
                                 ValueRange{identity});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    spreadOverLoops(b, loc, loop.getInductionVar(), plan.reduction, ranges, loopIndex);
    IRMapping map;
    for (OpOperand *input : op.getDpsInputOperands())
      map.map(body.getArgument(input->getOperandNumber()), load(*input));
    map.map(body.getArguments().back(), loop.getRegionIterArg(0));
    for (Operation &payload : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
        map.map(index.getResult(), loopIndex[index.getDim()]);
        continue;
      }
      b.clone(payload, map);
    }
    scf::YieldOp::create(b, loc, map.lookup(combine->getResult(0)));
  }

  auto combineValues = [&](Value x, Value y) {
    OperationState state(loc, combine->getName());
    state.addOperands({x, y});
    state.addTypes(x.getType());
    state.addAttributes(combine->getAttrs());
    return b.create(state)->getResult(0);
  };
  Value total;
  if (plan.warpShuffles) {
    // 2. Butterflies: after xor steps `lanes/2 .. 1` every lane of a warp
    // holds the combination of its group of `lanes` lanes. No step sits
    // under a condition: shfl.sync needs the whole warp.
    auto butterfly = [&](Value value, int64_t lanes) {
      Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
      for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
        Value distance = arith::ConstantIntOp::create(b, loc, offset, 32);
        Value other = gpu::ShuffleOp::create(b, loc, value, distance, width,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        value = combineValues(value, other);
      }
      return value;
    };
    total = butterfly(loop.getResult(0), kWarpSize);
    int64_t warps = plan.blockSize / kWarpSize;
    if (warps > 1) {
      // Lane 0 of each warp publishes its warp's value; after the barrier
      // every warp reads them all (the lanes past the last warp take the
      // identity) and combines them the same way.
      Value lane = arith::RemUIOp::create(b, loc, thread, cst(kWarpSize));
      Value warp = arith::DivUIOp::create(b, loc, thread, cst(kWarpSize));
      Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, cst(0));
      auto publish = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&publish.getThenRegion().front());
        memref::StoreOp::create(b, loc, total, scratch, ValueRange{warp});
      }
      gpu::BarrierOp::create(b, loc);
      Value present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, cst(warps));
      auto read = scf::IfOp::create(b, loc, TypeRange{identity.getType()}, present,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&read.getThenRegion().front());
        scf::YieldOp::create(b, loc,
                             memref::LoadOp::create(b, loc, scratch, ValueRange{lane}).getResult());
        b.setInsertionPointToStart(&read.getElseRegion().front());
        scf::YieldOp::create(b, loc, identity);
      }
      total = butterfly(read.getResult(0), warps);
    }
  } else {
    // 2. The tree in shared memory.
    memref::StoreOp::create(b, loc, loop.getResult(0), scratch, ValueRange{thread});
    gpu::BarrierOp::create(b, loc);
    for (int64_t half = plan.blockSize / 2; half >= 1; half /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, thread, cst(half));
      auto step = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&step.getThenRegion().front());
        Value mine = memref::LoadOp::create(b, loc, scratch, ValueRange{thread});
        Value other = memref::LoadOp::create(
            b, loc, scratch, ValueRange{arith::AddIOp::create(b, loc, thread, cst(half))});
        memref::StoreOp::create(b, loc, combineValues(mine, other), scratch, ValueRange{thread});
      }
      gpu::BarrierOp::create(b, loc);
    }
  }

  // 3. Thread 0 folds in the output's initial value (the output's map has
  // no reduction dim; their loop values are out of scope here).
  for (unsigned d : plan.reduction)
    loopIndex[d] = cst(0);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, cst(0));
  auto store = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&store.getThenRegion().front());
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap outMap = maps[init.getOperandNumber()];
  SmallVector<Value> indices;
  for (unsigned i = 0; i < outMap.getNumResults(); ++i)
    indices.push_back(affine::AffineApplyOp::create(b, loc, outMap.getSubMap({i}), loopIndex));
  if (prologue)
    emitElementwiseAtPoint(b, loc, op, prologue, /*isPrologue=*/true, loopIndex);
  Value initial = memref::LoadOp::create(b, loc, init.get(), indices);
  if (!plan.warpShuffles)
    total = memref::LoadOp::create(b, loc, scratch, ValueRange{cst(0)});
  memref::StoreOp::create(b, loc, combineValues(initial, total), init.get(), indices);
  if (epilogue)
    emitElementwiseAtPoint(b, loc, op, epilogue, /*isPrologue=*/false, loopIndex);
  return success();
}
