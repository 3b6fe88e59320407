//===- TensorCores.cpp - float32 contractions on TF32 tensor cores ---------===//
//
// With --allow-tf32, a float32 contraction (matmuls, Gemm, and the
// convolutions lowered to matmuls: 1x1 and im2col) runs on the tensor
// cores through WMMA (gpu.subgroup_mma_*: m16n16k8 TF32 fragments, which
// ptxas turns into HMMA instructions):
//
//   infer-cuda-split-contractions (tensors) splits a candidate at whole
//       16x16 (m x n) tiles; the edges stay ordinary ops on the SIMT path.
//       k is not split: a single k dim's last 1 to 7 elements (kTail) are
//       the kernel's last step, staged through shared memory with zeros
//       past k (addKTail); several k dims are whole steps (or padded to
//       them by infer-cuda-align-contractions).
//   buildTensorCoreKernel (memrefs, from infer-cuda-map-to-gpu) makes the
//       kernel: one warp a 16x16 output tile, 4 warps a block; the warp
//       loads C, accumulates A x B over k in steps of 8 straight from
//       global memory (L1/L2 serve the reuse), and stores C back. Loading
//       C first keeps linalg's accumulate semantics (the output holds the
//       fill or bias, or the first part of a split k). With a fused
//       prologue or epilogue (TensorCoreFusion.h) the kernel makes C's
//       initial value itself, or feeds its sums to an elementwise op; with
//       an operand producer (OperandProducers.h) it computes one operand's
//       tiles (an im2col convolution's columns) instead of loading them
//       (ProducedSteps).
//   planTensorCoreKernel: each step waits for its fragment loads, so a
//       warp is bound by memory latency. The k loop is unrolled (4 or 2
//       steps' loads in flight), and when the op has too few output tiles
//       to fill the GPU, 2 or 4 warps of a block share a tile, each
//       summing a slice of k; they meet in shared memory and part 0 adds
//       the slices to C in a fixed order (the result does not depend on
//       timing).
//
// The operands are addressed through their own strided views: A must have
// m or k contiguous, B k or n, C n; the row stride a multiple of 4
// elements and every tile 32-byte aligned (WMMA's rules). Otherwise the op
// stays on the SIMT path.
//
//===----------------------------------------------------------------------===//

#include "Kernels/TensorCores.h"
#include "Kernels/BlockReductions.h"
#include "Kernels/OperandProducers.h"
#include "Kernels/TensorCoreFusion.h"
#include "Kernels/Delinearize.h"
#include "Kernels/IndexMath.h"
#include "Analysis/LoopStrides.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::infer;

namespace {
constexpr int64_t kWarpsPerBlock = 4;
} // namespace

Value mlir::infer::inGlobalMemory(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto global = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Global);
  if (type.getMemorySpace() == global)
    return memref;
  auto cast = MemRefType::get(type.getShape(), type.getElementType(), type.getLayout(), global);
  return memref::MemorySpaceCastOp::create(b, loc, cast, memref);
}

void mlir::infer::emitSyncWarp(OpBuilder &b, Location loc) {
  NVVM::SyncWarpOp::create(b, loc, arith::ConstantIntOp::create(b, loc, -1, 32));
}

namespace {

int64_t outputTiles(const ContractionShape &s) {
  return s.ranges[s.m] / kTileM * (s.ranges[s.n] / kTileN) * batchCount(s);
}

} // namespace

TensorCorePlan mlir::infer::planTensorCoreKernel(const ContractionShape &s) {
  // About a third of an H100's warp slots (132 SMs x 64): below that, one
  // warp a tile leaves the memory system idle between dependent loads.
  constexpr int64_t kBusyWarps = 2816, kMinStepsPerWarp = 8;
  TensorCorePlan plan;
  int64_t tiles = outputTiles(s), steps = s.kRange() / kTileK;
  while (plan.kSplit < kWarpsPerBlock && tiles * plan.kSplit < kBusyWarps &&
         steps % (2 * plan.kSplit) == 0 && steps / (2 * plan.kSplit) >= kMinStepsPerWarp)
    plan.kSplit *= 2;
  for (int64_t unroll : {4, 2})
    if ((steps / plan.kSplit) % unroll == 0) {
      plan.unroll = unroll;
      break;
    }
  return plan;
}

MemRefType mlir::infer::tensorCoreScratchType(MLIRContext *ctx, const ContractionShape &s,
                                              const TensorCorePlan &plan,
                                              const TensorCoreFusion &fusion) {
  if (plan.kSplit == 1 && !fusion.needsScratch() && !kTail(s))
    return {};
  // A produced operand's fragments of `unroll` steps follow the warp's
  // 16x16 floats, 128 floats (8 rows) each.
  int64_t rows = kTileM + (fusion.operandProducer ? kTileK * plan.unroll : 0);
  return MemRefType::get({kWarpsPerBlock, rows, kTileN}, Float32Type::get(ctx), AffineMap(),
                         gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

namespace {

/// Operand `index`'s element at the contraction's loop point `point`.
using ElementAt = function_ref<Value(unsigned index, ArrayRef<Value> point)>;

/// `sum` plus the product of the last k elements of `op` past `wholeK` (its
/// kTail) for the warp's tile at `tileLoop`. Those elements are no whole
/// 8-wide step of A or B in memory, so the lanes copy them (`elementAt`)
/// into the warp's 16x16 floats of `scratch`, A's 16x8 then B's 8x16, with
/// zeros past k, and the warp loads its fragments from there: the zeros
/// add nothing, and no element past k is read (a clamped index, its value
/// replaced).
Value addKTail(OpBuilder &b, Location loc, const ContractionShape &s,
               const TensorCoreOperands &layout, ElementAt elementAt, ArrayRef<Value> tileLoop,
               int64_t wholeK, Value scratch, Value warpInBlock, Value lane, Value sum) {
  IndexMath e{b, loc};
  const int64_t tail = s.kRange() - wholeK;
  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  // Copies `input`'s (operand `index`'s) tile of the tail, 128 elements
  // whose rows run along loop dim `dimOfRows` and its `cols` columns along
  // `dimOfCols` (one of the two is k), into the warp's floats from row
  // `firstRow`.
  auto copyTile = [&](unsigned index, unsigned dimOfRows, unsigned dimOfCols, int64_t cols,
                      int64_t firstRow) {
    // 128 elements, 4 a lane; element i at (i / cols, i % cols).
    for (int64_t round = 0; round < kTileM * kTileK / 32; ++round) {
      Value element = e.add(lane, round * 32);
      Value row = e.div(element, cols), col = e.rem(element, cols);
      Value kInTile = dimOfRows == s.k ? row : col;
      SmallVector<Value> point(tileLoop);
      point[dimOfRows] = dimOfRows == s.k ? e.add(e.min(row, tail - 1), wholeK)
                                          : e.add(point[dimOfRows], row);
      point[dimOfCols] = dimOfCols == s.k ? e.add(e.min(col, tail - 1), wholeK)
                                          : e.add(point[dimOfCols], col);
      Value value = elementAt(index, point);
      value = arith::SelectOp::create(b, loc, e.below(kInTile, tail), value, zero);
      // Flat position i of the warp's floats, from `firstRow` of 16.
      Value flat = e.add(element, firstRow * kTileN);
      memref::StoreOp::create(b, loc, value, scratch,
                              ValueRange{warpInBlock, e.div(flat, kTileN), e.rem(flat, kTileN)});
    }
  };
  emitSyncWarp(b, loc); // A prologue may have read the same floats.
  copyTile(layout.aIndex, layout.m, s.k, kTileK, 0);
  copyTile(layout.bIndex, s.k, layout.n, kTileN, kTileM * kTileK / kTileN);
  emitSyncWarp(b, loc);
  auto typeA = gpu::MMAMatrixType::get({kTileM, kTileK}, f32, "AOp");
  auto typeB = gpu::MMAMatrixType::get({kTileK, kTileN}, f32, "BOp");
  Value zeroIndex = e.cst(0);
  Value fa = gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeA, scratch,
                                                  ValueRange{warpInBlock, zeroIndex, zeroIndex},
                                                  b.getIndexAttr(kTileK), UnitAttr());
  Value fb = gpu::SubgroupMmaLoadMatrixOp::create(
      b, loc, typeB, scratch,
      ValueRange{warpInBlock, e.cst(kTileM * kTileK / kTileN), zeroIndex},
      b.getIndexAttr(kTileN), UnitAttr());
  Value result = gpu::SubgroupMmaComputeOp::create(b, loc, sum.getType(), fa, fb, sum,
                                                   UnitAttr(), UnitAttr());
  emitSyncWarp(b, loc); // An epilogue writes the same floats next.
  return result;
}

/// `unroll` k steps of a kernel whose operand `fusion.producedOperand` is
/// computed by its producer (OperandProducers.h) instead of loaded: the
/// other operand's fragments are loaded first, so that their loads are in
/// flight with the producer's; then each lane computes 4 elements of each
/// step's 16x8 (A) or 8x16 (B) tile and stores them to that step's 128
/// floats of the warp's scratch (after its 16x16 floats), and after a warp
/// barrier the warp loads its fragments from there. The barrier at the
/// start keeps the previous steps' fragment loads ahead of the new stores.
struct ProducedSteps {
  OpBuilder &b;
  Location loc;
  linalg::LinalgOp op;
  const ContractionShape &s;
  const TensorCoreOperands &layout;
  const TensorCoreFusion &fusion;
  ArrayRef<Value> tileLoop;
  Value scratch, warpInBlock, lane;
  int64_t unroll;

  Value emit(Value kStart, Value sum, function_ref<Value(Value)> loadA,
             function_ref<Value(Value)> loadB, UnitAttr transA, UnitAttr transB) {
    IndexMath e{b, loc};
    const bool producesA = fusion.producedOperand == layout.aIndex;
    // The tile's rows are m and its columns k (A), or k and n (B).
    const unsigned freeDim = producesA ? layout.m : layout.n;
    const int64_t columns = producesA ? kTileK : kTileN;
    constexpr int64_t kPerLane = kTileM * kTileK / 32;
    auto stepStart = [&](int64_t u) { return e.add(kStart, u * kTileK); };
    SmallVector<Value> others;
    for (int64_t u = 0; u < unroll; ++u)
      others.push_back(producesA ? loadB(stepStart(u)) : loadA(stepStart(u)));
    emitSyncWarp(b, loc);
    SmallVector<Value> values, elements;
    for (int64_t u = 0; u < unroll; ++u)
      for (int64_t j = 0; j < kPerLane; ++j) {
        // Lanes 0-15 take 16 neighbours along B's n (coalesced for a
        // window read along the image's rows), 16-31 the next k.
        Value element = e.add(lane, j * 32);
        Value row = e.div(element, columns), column = e.rem(element, columns);
        SmallVector<Value> point(tileLoop);
        spreadOverLoops(b, loc, e.add(stepStart(u), producesA ? column : row), s.ks, s.ranges,
                        point);
        point[freeDim] = e.add(tileLoop[freeDim], producesA ? row : column);
        values.push_back(emitProducedElement(b, loc, op, s, fusion.producedOperand,
                                             fusion.operandProducer, point));
        elements.push_back(element);
      }
    for (int64_t u = 0; u < unroll; ++u)
      for (int64_t j = 0; j < kPerLane; ++j) {
        Value element = elements[u * kPerLane + j];
        Value flat = e.add(element, (kTileM + u * kTileK) * kTileN);
        memref::StoreOp::create(b, loc, values[u * kPerLane + j], scratch,
                                ValueRange{warpInBlock, e.div(flat, kTileN), e.rem(flat, kTileN)});
      }
    emitSyncWarp(b, loc);
    Type f32 = b.getF32Type();
    auto type = producesA ? gpu::MMAMatrixType::get({kTileM, kTileK}, f32, "AOp")
                          : gpu::MMAMatrixType::get({kTileK, kTileN}, f32, "BOp");
    auto typeC = gpu::MMAMatrixType::get({kTileM, kTileN}, f32, "COp");
    for (int64_t u = 0; u < unroll; ++u) {
      Value produced = gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, type, scratch,
          ValueRange{warpInBlock, e.cst(kTileM + u * kTileK), e.cst(0)},
          b.getIndexAttr(columns), UnitAttr());
      Value fa = producesA ? produced : others[u], fb = producesA ? others[u] : produced;
      sum = gpu::SubgroupMmaComputeOp::create(b, loc, typeC, fa, fb, sum,
                                              producesA ? UnitAttr() : transA,
                                              producesA ? transB : UnitAttr());
    }
    return sum;
  }
};

} // namespace

FailureOr<std::pair<int64_t, int64_t>>
mlir::infer::buildTensorCoreKernel(OpBuilder &b, linalg::LinalgOp op, const ContractionShape &s,
                                   const TensorCorePlan &plan, Value scratch,
                                   const TensorCoreFusion &fusion) {
  std::optional<TensorCoreOperands> layout = checkTensorCoreLayout(op, s);
  if (!layout)
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  IndexMath e{b, loc};
  const unsigned dimM = layout->m, dimN = layout->n;
  int64_t tilesM = s.ranges[dimM] / kTileM, tilesN = s.ranges[dimN] / kTileN;
  int64_t tiles = outputTiles(s);
  const int64_t split = plan.kSplit, tilesPerBlock = kWarpsPerBlock / split;

  // Warp w of the block takes part w % split of tile w / split; neighbouring
  // tiles are neighbouring n tiles (same A rows).
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value warpInBlock = e.div(thread, 32);
  Value tile = e.add(e.mul(block, tilesPerBlock), e.div(warpInBlock, split));
  Value part = e.rem(warpInBlock, split);
  Value inside = e.below(tile, tiles);
  // The tile's digits: batch dims outermost, then m, then n.
  SmallVector<Value> loopIndex(s.ranges.size(), e.cst(0));
  Value batchTile = e.div(tile, tilesM * tilesN), tileInBatch = e.rem(tile, tilesM * tilesN);
  spreadOverLoops(b, loc, batchTile, s.batch, s.ranges, loopIndex);
  loopIndex[dimM] = e.mul(e.div(tileInBatch, tilesN), kTileM);
  loopIndex[dimN] = e.mul(e.rem(tileInBatch, tilesN), kTileN);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The memref indices of operand `i` at the loop point `loopIndex`.
  auto indices = [&](unsigned i) {
    SmallVector<Value> result;
    for (AffineExpr e : maps[i].getResults())
      result.push_back(loopIndex[cast<AffineDimExpr>(e).getPosition()]);
    return result;
  };
  Type f32 = b.getF32Type();
  auto typeA = gpu::MMAMatrixType::get({kTileM, kTileK}, f32, "AOp");
  auto typeB = gpu::MMAMatrixType::get({kTileK, kTileN}, f32, "BOp");
  auto typeC = gpu::MMAMatrixType::get({kTileM, kTileN}, f32, "COp");
  Value a = inGlobalMemory(b, loc, op.getDpsInputs()[layout->aIndex]);
  Value bm = inGlobalMemory(b, loc, op.getDpsInputs()[layout->bIndex]);
  Value c = inGlobalMemory(b, loc, op.getDpsInits()[0]);
  auto lead = [&](int64_t v) { return b.getIndexAttr(v); };
  UnitAttr transA = layout->transposeA ? UnitAttr::get(ctx) : UnitAttr();
  UnitAttr transB = layout->transposeB ? UnitAttr::get(ctx) : UnitAttr();
  int64_t leadA = layout->transposeA ? layout->a[s.k] : layout->a[dimM];
  int64_t leadB = layout->transposeB ? layout->b[dimN] : layout->b[s.k];
  int64_t leadC = layout->c[dimM];
  // A fused prologue or epilogue passes the tile through the warp's own
  // 16x16 floats of scratch (part 0's, with a split: the others publish
  // into theirs), the lanes and the fragment ops meeting at warp barriers.
  Value zeroIndex = e.cst(0);
  SmallVector<Value> slot = {warpInBlock, zeroIndex, zeroIndex};
  auto syncWarp = [&] { emitSyncWarp(b, loc); };
  SmallVector<Value> tileLoop; // Set below, before the k loop changes loopIndex.
  auto runElementwise = [&](linalg::LinalgOp fused, bool isPrologue) {
    emitTileOfElementwise(b, loc, op, s, cast<linalg::GenericOp>(fused.getOperation()),
                          isPrologue, tileLoop, dimM, dimN, scratch, warpInBlock);
  };
  // C's value before the products: loaded, or the prologue's.
  auto initialC = [&]() -> Value {
    if (!fusion.prologue)
      return gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeC, c, indices(2), lead(leadC),
                                                  UnitAttr());
    if (auto fill = dyn_cast<linalg::FillOp>(*linalg::LinalgOp(fusion.prologue)))
      return gpu::SubgroupMmaConstantMatrixOp::create(b, loc, typeC, fill.value());
    runElementwise(fusion.prologue, /*isPrologue=*/true);
    syncWarp();
    return gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeC, scratch, slot, lead(kTileN),
                                                UnitAttr());
  };
  // C's final value stored, or fed to the epilogue.
  auto storeC = [&](Value value) {
    if (!fusion.epilogue) {
      gpu::SubgroupMmaStoreMatrixOp::create(b, loc, value, c, indices(2), lead(leadC),
                                            UnitAttr());
      return;
    }
    gpu::SubgroupMmaStoreMatrixOp::create(b, loc, value, scratch, slot, lead(kTileN), UnitAttr());
    syncWarp();
    runElementwise(fusion.epilogue, /*isPrologue=*/false);
  };

  // The warp's partial sum over its k slice. Without a split it starts
  // from C's initial value (linalg accumulates into its output); with one,
  // from zero, and part 0 adds C's initial value at the end.
  tileLoop.assign(loopIndex.begin(), loopIndex.end());
  Value zeroF32 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  auto zeros = [&] {
    return gpu::SubgroupMmaConstantMatrixOp::create(b, loc, typeC, zeroF32).getResult();
  };
  auto guard = scf::IfOp::create(b, loc, TypeRange{typeC}, inside, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&guard.getElseRegion().front());
  scf::YieldOp::create(b, loc, zeros());
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  Value init = split == 1 ? initialC() : zeros();
  const int64_t tail = kTail(s), wholeK = s.kRange() - tail;
  int64_t sliceLength = wholeK / split;
  Value sliceStart = e.mul(part, sliceLength);
  // A produced operand's loop takes `unroll` steps an iteration itself.
  const bool produces = static_cast<bool>(fusion.operandProducer);
  int64_t step = produces ? kTileK * plan.unroll : kTileK;
  auto loop =
      scf::ForOp::create(b, loc, e.cst(0), e.cst(sliceLength), e.cst(step), ValueRange{init});
  b.setInsertionPointToStart(loop.getBody());
  Value kStart = e.add(sliceStart, loop.getInductionVar());
  // A's (B's) fragment at the k step starting at `k`, from memory.
  auto loadA = [&](Value k) {
    // Linear over the k dims, innermost fastest.
    spreadOverLoops(b, loc, k, s.ks, s.ranges, loopIndex);
    return gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeA, a, indices(layout->aIndex),
                                                lead(leadA), transA)
        .getResult();
  };
  auto loadB = [&](Value k) {
    spreadOverLoops(b, loc, k, s.ks, s.ranges, loopIndex);
    return gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeB, bm, indices(layout->bIndex),
                                                lead(leadB), transB)
        .getResult();
  };
  Value next;
  if (!produces) {
    next = gpu::SubgroupMmaComputeOp::create(b, loc, typeC, loadA(kStart), loadB(kStart),
                                             loop.getRegionIterArg(0), transA, transB);
  } else {
    ProducedSteps steps{b, loc, op, s, *layout, fusion, tileLoop, scratch, warpInBlock,
                        e.rem(thread, 32), plan.unroll};
    next = steps.emit(kStart, loop.getRegionIterArg(0), loadA, loadB, transA, transB);
  }
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);
  Value partialSum = loop.getResult(0);
  if (tail) { // Part 0 takes the last k elements too.
    auto last = scf::IfOp::create(
        b, loc, TypeRange{typeC},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, zeroIndex),
        /*withElseRegion=*/true);
    b.setInsertionPointToStart(&last.getElseRegion().front());
    scf::YieldOp::create(b, loc, partialSum);
    b.setInsertionPointToStart(&last.getThenRegion().front());
    // Operand `index`'s element at `point`: loaded, or computed by its producer.
    auto elementAt = [&](unsigned index, ArrayRef<Value> point) -> Value {
      if (produces && index == fusion.producedOperand)
        return emitProducedElement(b, loc, op, s, index, fusion.operandProducer, point);
      SmallVector<Value> at;
      for (AffineExpr expr : maps[index].getResults())
        at.push_back(point[cast<AffineDimExpr>(expr).getPosition()]);
      return memref::LoadOp::create(b, loc, index == layout->aIndex ? a : bm, at);
    };
    scf::YieldOp::create(b, loc,
                         addKTail(b, loc, s, *layout, elementAt, tileLoop, wholeK, scratch,
                                  warpInBlock, e.rem(thread, 32), partialSum));
    b.setInsertionPointAfter(last);
    partialSum = last.getResult(0);
  }
  scf::YieldOp::create(b, loc, partialSum);
  // Only a speed-up: the loop stays as it is if it cannot be unrolled.
  if (plan.unroll > 1 && !produces)
    (void)loopUnrollByFactor(loop, plan.unroll);
  b.setInsertionPointAfter(guard);
  Value sum = guard.getResult(0);
  if (split == 1) {
    auto store = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    storeC(sum);
    return std::make_pair((tiles + tilesPerBlock - 1) / tilesPerBlock, 32 * kWarpsPerBlock);
  }

  // Parts 1.. publish their sums; after the barrier (reached by every
  // warp: it stays outside the guards) part 0 adds them, in a fixed
  // order, to C.
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part, zeroIndex);
  Value publishes = arith::AndIOp::create(
      b, loc, inside, arith::XOrIOp::create(b, loc, isFirst,
                                            arith::ConstantIntOp::create(b, loc, 1, 1)));
  auto publish = scf::IfOp::create(b, loc, publishes, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&publish.getThenRegion().front());
  gpu::SubgroupMmaStoreMatrixOp::create(b, loc, sum, scratch,
                                        ValueRange{warpInBlock, zeroIndex, zeroIndex},
                                        lead(kTileN), UnitAttr());
  b.setInsertionPointAfter(publish);
  gpu::BarrierOp::create(b, loc);
  auto combine =
      scf::IfOp::create(b, loc, arith::AndIOp::create(b, loc, inside, isFirst), false);
  b.setInsertionPointToStart(&combine.getThenRegion().front());
  Value result = gpu::SubgroupMmaElementwiseOp::create(
      b, loc, typeC, ValueRange{initialC(), sum}, gpu::MMAElementwiseOp::ADDF);
  for (int64_t j = 1; j < split; ++j) {
    Value other = gpu::SubgroupMmaLoadMatrixOp::create(
        b, loc, typeC, scratch,
        ValueRange{e.add(warpInBlock, j), zeroIndex, zeroIndex},
        lead(kTileN), UnitAttr());
    result = gpu::SubgroupMmaElementwiseOp::create(b, loc, typeC, ValueRange{result, other},
                                                   gpu::MMAElementwiseOp::ADDF);
  }
  storeC(result);
  return std::make_pair((tiles + tilesPerBlock - 1) / tilesPerBlock, 32 * kWarpsPerBlock);
}
