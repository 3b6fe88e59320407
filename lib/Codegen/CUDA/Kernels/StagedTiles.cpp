//===- StagedTiles.cpp - tensor-core contractions through shared memory ---===//
//
// With --cuda-stage-tiles, a float32 contraction that buildTensorCoreKernel
// would run (whole 16x16x8 tiles, WMMA's layout rules) gets this kernel
// instead. buildTensorCoreKernel gives each warp one 16x16 tile of C and
// loads its A and B fragments straight from global memory: every fragment
// is fetched again by each warp that needs it. Here the warps of a group
// share their loads:
//
//   - A group of 4 warps (2 x 2) computes a block tile of C, 32 or 64 on a
//     side; each warp holds 1 or 2 x 1 or 2 fragments of it (register
//     blocking: a fragment of A loaded once serves every fragment of its
//     row).
//   - Each round, the group's 128 threads copy A's blockM x stepK tile and
//     B's stepK x blockN tile into shared memory (stepK is 32, 16 or 8),
//     then the warps load their fragments from there. The copies are
//     cp.async (sm_80 and newer: 16 bytes from global to shared memory,
//     without registers), into 2 or 3 stages: the copies of the next
//     rounds are in flight while the tensor cores work on this one. Each
//     round waits for its own copies (cp.async.wait_group) and then for
//     the block (one barrier), which also means every warp is done with
//     the stage that the copies issued next overwrite.
//   - Rows past m (columns past n) of the last block tile re-read the
//     operand's last row (or, in a tile whose rows are k, its last vector
//     of 4 along m or n): the loads stay in bounds and branch-free, and the
//     fragments that hold them are neither loaded from C nor stored.
//   - A block of several groups splits k among them; groups 1.. leave their
//     sums in shared memory and group 0 adds them, in a fixed order, to C
//     (the result does not depend on timing).
//   - A single k dim that is no whole steps of 8 (kTail: attention's P.V
//     over an odd number of tokens) is run as if rounded up to the next
//     multiple of 8: each
//     copy's vector says how many of its elements lie before k (cp.async's
//     source size, 0 to 4) and the rest of the 16 bytes is zero-filled, so
//     the products past k add nothing and nothing past k is read.
//
// Addresses come from each operand's strides per loop dim (its memref seen
// as a flat array): k is linear over the k dims, which checkTensorCoreLayout
// made sure act as one. The tiles keep their operand's contiguous dim
// contiguous, so a column-major A or B (a transposed weight) is loaded with
// WMMA's col-major layout, from shared memory as from global memory.
//
// How the warps multiply is a WarpMma (WarpMma.h): mma.sync on fragments
// whose layout is known (MmaSync.h; the heuristic's), or WMMA
// (gpu.subgroup_mma_*) with a plan's mma=wmma. The builder only asks it to
// load, store, fill, add and multiply fragments: with mma.sync a fragment
// of C is two accumulators of 16 x 8, with WMMA one matrix. The element
// types come from the contraction (mmaShapeFor). StagedTileKernel builds
// the kernel in the order the GPU runs it: the block's place, the initial
// sums, the first rounds' copies, the rounds, the stores of C.
//
// planStagedTiles is a heuristic (the tuner's to replace): the largest
// warp tiles whose blocks still fill the GPU (4 x 2 fragments only where k
// is long), then more groups while the blocks are few and k is long. A
// TilePlanChoice (--cuda-tile-plan) fixes parts of it, for sweeps that
// time the alternatives on a GPU.
//
//===----------------------------------------------------------------------===//

#include "Kernels/StagedTiles.h"
#include "Kernels/Delinearize.h"
#include "Kernels/IndexMath.h"
#include "Kernels/WarpMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

constexpr int64_t kGroupThreads = 128, kVector = 4; // 4 warps; 16-byte float vectors.

/// A fused prologue's or epilogue's tiles (emitTileOfElementwise): 16x16
/// floats for each warp of group 0, from the scratch's start.
constexpr int64_t kFusionFloats = 4 * kTileM * kTileN;

/// One group's tiles in shared memory, in floats. A tile keeps its
/// operand's contiguous dim contiguous, and its rows are padded so that a
/// fragment load hits 32 different banks. In a TF32 fragment (as in
/// mma.sync's m16n8k8) lane l reads element (l / 4, l % 4) of an 8 x 4
/// patch of m (n) x k: a tile with rows of m (n) wants a row length that
/// is an odd multiple of 4, one with rows of k a length of 8 more than a
/// multiple of 32. Both keep rows 16-byte aligned, as WMMA wants.
/// A group has `stages` such pairs of tiles, stageFloats apart.
struct SharedTiles {
  int64_t rowsA, colsA, ldA, rowsB, colsB, ldB, offsetB, stageFloats, groupFloats;
};

SharedTiles sharedTiles(const TilePlan &p, const TensorCoreOperands &t) {
  SharedTiles s;
  const int64_t bm = blockM(p), bn = blockN(p), bk = p.stepK;
  // stepK (8, 16, 32) + 4 is an odd multiple of 4; blockM, blockN (32, 64) + 8 is 8 mod 32.
  auto rowLength = [](int64_t cols, bool rowsAreK) { return cols + (rowsAreK ? 8 : 4); };
  s.rowsA = t.transposeA ? bk : bm;
  s.colsA = t.transposeA ? bm : bk;
  s.ldA = rowLength(s.colsA, t.transposeA);
  s.rowsB = t.transposeB ? bn : bk;
  s.colsB = t.transposeB ? bk : bn;
  s.ldB = rowLength(s.colsB, !t.transposeB);
  // Each tile starts 32-byte aligned, as WMMA's fragments do.
  s.offsetB = llvm::alignTo(s.rowsA * s.ldA, 8);
  s.stageFloats = llvm::alignTo(s.offsetB + s.rowsB * s.ldB, 8);
  int64_t sums = p.groups > 1 ? 4 * p.warpM * p.warpN * kTileM * kTileN : 0;
  s.groupFloats = std::max(p.stages * s.stageFloats, sums);
  return s;
}

/// The k the rounds cover: k rounded up to whole steps of 8 when it has a
/// kTail (the copies zero-fill past k).
int64_t stagedKRange(const ContractionShape &s) { return llvm::alignTo(s.kRange(), kTileK); }

} // namespace

namespace {

/// planStagedTiles with the parts `choice` fixes, or nothing if no plan with
/// them suits the contraction.
std::optional<TilePlan> planWith(const ContractionShape &s, const TensorCoreOperands &t,
                                       const TilePlanChoice &choice) {
  // Two blocks an SM of an H100 (132 SMs); a slice of k of at least 64
  // (two rounds of 32); the 48 KiB of static shared memory a block may have.
  constexpr int64_t kBusyBlocks = 264, kMinSlice = 64, kSharedFloats = 48 * 1024 / 4;
  const int64_t m = s.ranges[t.m], n = s.ranges[t.n], k = stagedKRange(s);
  auto blocks = [&](const TilePlan &p) {
    return batchCount(s) * llvm::divideCeil(m, blockM(p)) * llvm::divideCeil(n, blockN(p));
  };
  auto either = [](std::optional<int64_t> chosen, std::initializer_list<int64_t> options) {
    return chosen ? SmallVector<int64_t>{*chosen} : SmallVector<int64_t>(options);
  };
  // The longest step of k that divides the slice, in 3 stages (when there
  // are 3 rounds or more) or 2, that fits; false if none does.
  auto setStepK = [&](TilePlan &p) {
    for (int64_t step : either(choice.stepK, {32, 16, 8}))
      for (int64_t stages : either(choice.stages, {3, 2})) {
        p.stepK = step;
        p.stages = stages;
        if ((k / p.groups) % step == 0 && (stages == 2 || k / p.groups / step >= stages) &&
            p.groups * sharedTiles(p, t).groupFloats <= kSharedFloats)
          return true;
      }
    return false;
  };
  // mma.sync unless WMMA is asked for: one HMMA.1688 a product where WMMA
  // makes four HMMA.1684, and the faster of the two on most launches timed
  // (docs/benchmarks/history-2026-11.md).
  const bool mmaSync = choice.mma != MmaKind::Wmma;
  // Warps of 4 x 2 fragments (blocks of 128 x 64) multiplying with
  // mma.sync only when their blocks alone fill the GPU and k is long: a
  // short k does not pay for the longer prologue and epilogue of a block,
  // and fewer blocks leave SMs idle.
  constexpr int64_t kLongK = 512;
  auto wide = [](const TilePlan &p) { return p.warpM * p.warpN > 4; };
  // The largest warp tiles whose blocks fill the GPU (else the smallest),
  // of those that waste at most 1/8 of the work past m and n; or the
  // chosen ones, if they waste no more (a sweep's 128 x 128 blocks on an m
  // of 32 would time nothing worth knowing, and spill).
  std::optional<TilePlan> plan;
  SmallVector<std::pair<int64_t, int64_t>> warpTiles = {{4, 2}, {2, 2}, {2, 1}, {1, 2}, {1, 1}};
  if (choice.warpM && choice.warpN)
    warpTiles = {{*choice.warpM, *choice.warpN}};
  for (auto [warpM, warpN] : warpTiles) {
    TilePlan p;
    p.warpM = warpM;
    p.warpN = warpN;
    int64_t padded = llvm::alignTo(m, blockM(p)) * llvm::alignTo(n, blockN(p));
    if (padded * 8 > m * n * 9)
      continue;
    if (!choice.warpM && wide(p) && (!mmaSync || k < kLongK || blocks(p) < kBusyBlocks))
      continue;
    plan = p;
    if (blocks(p) >= kBusyBlocks)
      break;
  }
  if (!plan)
    return std::nullopt;
  plan->mma = mmaSync ? MmaKind::Sync : MmaKind::Wmma;
  if (choice.groups) {
    plan->groups = *choice.groups;
    if (k % (*choice.groups * kTileK) != 0)
      return std::nullopt;
  }
  if (!setStepK(*plan))
    return std::nullopt;
  while (!choice.groups) {
    TilePlan more = *plan;
    more.groups *= 2;
    if (more.groups > 4 || blocks(*plan) * plan->groups >= kBusyBlocks ||
        k % (more.groups * kTileK) != 0 || k / more.groups < kMinSlice)
      break;
    if (!setStepK(more))
      break;
    plan = more;
  }
  return plan;
}

} // namespace

std::optional<TilePlan> mlir::infer::planStagedTiles(const ContractionShape &s,
                                                           const TensorCoreOperands &t,
                                                           const TilePlanChoice &choice) {
  if (std::optional<TilePlan> chosen = planWith(s, t, choice))
    return chosen;
  // How the warps multiply suits every contraction: it stays.
  TilePlanChoice onlyMma;
  onlyMma.mma = choice.mma;
  return planWith(s, t, onlyMma);
}

ContractionKey mlir::infer::contractionKey(const ContractionShape &s, const TensorCoreOperands &t) {
  return {batchCount(s), s.ranges[t.m], s.ranges[t.n], s.kRange(),
          t.transposeA ? OperandOrder::Col : OperandOrder::Row,
          t.transposeB ? OperandOrder::Col : OperandOrder::Row};
}

MemRefType mlir::infer::stagedTilesScratchType(MLIRContext *ctx, const TilePlan &plan,
                                               const TensorCoreOperands &layout,
                                               const TensorCoreFusion &fusion) {
  int64_t floats = plan.groups * sharedTiles(plan, layout).groupFloats;
  if (fusion.needsScratch())
    floats = std::max(floats, kFusionFloats);
  return MemRefType::get({floats}, Float32Type::get(ctx), AffineMap(),
                         gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

namespace {

/// Index arithmetic (IndexMath.h), and the operands' flat views.
struct Emitter : IndexMath {
  /// `operand` (a memref with static strides) as a flat array of its
  /// elements, from the one at its offset, in the global address space.
  Value flatView(Value operand) {
    operand = inGlobalMemory(b, loc, operand);
    auto type = cast<MemRefType>(operand.getType());
    SmallVector<int64_t> strides;
    int64_t offset = 0;
    (void)type.getStridesAndOffset(strides, offset); // Static: checkTensorCoreLayout.
    int64_t extent = 1;
    for (auto [size, stride] : llvm::zip(type.getShape(), strides))
      extent += (size - 1) * stride;
    auto flat = MemRefType::get({extent}, type.getElementType(),
                                StridedLayoutAttr::get(b.getContext(), offset, {1}),
                                type.getMemorySpace());
    return memref::ReinterpretCastOp::create(b, loc, flat, operand, offset, {extent}, {1});
  }
};

/// One operand's part of a round: each thread of the group copies some
/// vectors of 4 floats from global memory into the group's tile of a stage,
/// asynchronously (cp.async). The addresses that do not depend on the round
/// are computed once.
struct TileCopy {
  Value view;                       // The operand, flat.
  bool rowsAreK = false;            // Else k is the contiguous dim.
  int64_t kStride = 1;              // Elements between one k and the next.
  int64_t kRange = 0;               // Set when k has a tail: the copies stop there.
  SmallVector<Value> from, to;      // Per vector: global index at k = 0, shared index.
  SmallVector<Value> kAt, firstK;   // With kRange, per vector: its k in the tile, and
                                    // its global index at the tile's first k.

  /// `rows` x `cols` (contiguous) tile at `sharedStart` (row length `ld`)
  /// of the operand whose rows are `rowStride` apart; the rows (or, if
  /// `rowsAreK`, the columns) walk the m or n dim from `start`, which has
  /// `range` elements; the other walks k from 0. With `kRange` (a k that is
  /// not whole rounds) the elements from kRange on are zeros.
  TileCopy(Emitter &e, Value view, Value base, Value inGroup, Value sharedStart, int64_t rows,
           int64_t cols, int64_t ld, bool rowsAreK, int64_t rowStride, Value start, int64_t range,
           int64_t kRange)
      : view(view), rowsAreK(rowsAreK), kStride(rowsAreK ? rowStride : 1), kRange(kRange) {
    int64_t perRow = cols / kVector, vectors = rows * perRow;
    for (int64_t first = 0; first < vectors; first += kGroupThreads) {
      // Threads past the tile's end repeat its last vector: the same value
      // to the same place, and no branch.
      Value v = e.add(inGroup, first);
      if (first + kGroupThreads > vectors)
        v = e.min(v, vectors - 1);
      Value row = e.div(v, perRow), col = e.mul(e.rem(v, perRow), kVector);
      // Past the end of m (n): the last whole vector (row) again.
      Value mn = rowsAreK ? e.min(e.add(start, col), range - kVector)
                          : e.mul(e.min(e.add(start, row), range - 1), rowStride);
      Value offset = rowsAreK ? e.add(e.mul(row, rowStride), mn) : e.add(mn, col);
      from.push_back(e.add(base, offset));
      to.push_back(e.add(sharedStart, e.add(e.mul(row, ld), col)));
      if (kRange) {
        kAt.push_back(rowsAreK ? row : col);
        firstK.push_back(e.add(base, mn));
      }
    }
  }

  /// Issues the copies of the tile at `k` into the stage at `stage` floats
  /// past the tile's place in stage 0. They bypass L1 (cp.async.cg): the
  /// block reads each vector once, from shared memory. Past kRange a copy
  /// reads fewer elements (none for a whole vector past it, from k's start
  /// then) and zero-fills the rest.
  void copy(Emitter &e, Value k, Value scratch, Value stage) const {
    Value shift = e.mul(k, kStride);
    for (auto [i, source, target] : llvm::enumerate(from, to)) {
      Value index = e.add(source, shift), elements;
      if (kRange) {
        Value kIndex = e.add(k, kAt[i]);
        Value inside = e.below(kIndex, kRange);
        index = e.select(inside, index, firstK[i]);
        Value left = arith::SubIOp::create(e.b, e.loc, e.cst(kRange), kIndex);
        elements = e.select(inside, rowsAreK ? e.cst(kVector) : e.min(left, kVector), e.cst(0));
      }
      nvgpu::DeviceAsyncCopyOp::create(
          e.b, e.loc, nvgpu::DeviceAsyncTokenType::get(e.b.getContext()), scratch,
          ValueRange{e.add(target, stage)}, view, ValueRange{index}, e.b.getIndexAttr(kVector),
          elements, e.b.getUnitAttr());
    }
  }
};

} // namespace

namespace {

/// The kernel of one plan, built in the order the GPU runs it: the block's
/// place and the operands' views (the constructor); each fragment's
/// initial value (initialSums); the copies of the first rounds
/// (issueFirstRounds); the rounds, each waiting for its copies, issuing a
/// later round's and multiplying (rounds); and C stored, through the
/// groups' sums and the epilogue (finish). How a warp multiplies is its
/// WarpMma's.
class StagedTileKernel {
public:
  using Fragment = WarpMma::Fragment;

  StagedTileKernel(OpBuilder &b, linalg::LinalgOp op, const ContractionShape &s,
                   const TensorCoreOperands &t, const TilePlan &p, const MmaShape &mmaShape,
                   Value scratch, const TensorCoreFusion &fusion);

  SmallVector<Value> initialSums();
  void issueFirstRounds();
  /// The loop over the rounds of the group's slice of k; its results are
  /// each fragment's sums.
  scf::ForOp rounds(ValueRange init);
  /// Stores the sums; returns {grid, block}.
  std::pair<int64_t, int64_t> finish(scf::ForOp loop);

private:
  Value stageStart(Value round) { return e.mul(e.rem(round, p.stages), sh.stageFloats); }
  void copyRound(Value round);
  void commit() { NVVM::CpAsyncCommitGroupOp::create(b, loc); }
  void syncWarp() { emitSyncWarp(b, loc); }
  /// One step of 8 of k at `kk` in the round's stage: every fragment's
  /// operands loaded, then multiplied into `sums`.
  void multiplyStep(Value startA, Value startB, int64_t kk, SmallVector<Value> &sums);
  /// `then` under `condition`, yielding a fragment; zeros otherwise.
  Fragment fragmentIf(Value condition, function_ref<Fragment()> then);
  void under(Value condition, function_ref<void()> then);
  Fragment loadC(int64_t f) { return mma->load(viewC, ValueRange{atC[f]}, t.c[t.m]); }
  void runElementwise(linalg::LinalgOp fused, bool isPrologue, int64_t f);
  /// Fragment f's value before the products: C's, or the prologue's.
  Fragment initialC(int64_t f);
  /// Fragment f's final value stored to C, or fed to the epilogue.
  void finalC(int64_t f, const Fragment &value);
  Fragment result(scf::ForOp loop, int64_t f) {
    int64_t parts = mma->fragmentTypes().size();
    return Fragment(loop.getResults().slice(f * parts, parts));
  }
  /// Where group `groupIndex` leaves fragment f's sums for group 0.
  Value published(Value groupIndex, int64_t f) {
    return e.add(e.mul(groupIndex, sh.groupFloats),
                 e.add(e.mul(warp, fragments * kTileM * kTileN), f * kTileM * kTileN));
  }

  OpBuilder &b;
  Location loc;
  Emitter e;
  linalg::LinalgOp op;
  const ContractionShape &s;
  const TensorCoreOperands &t;
  const TilePlan &p;
  const TensorCoreFusion &fusion;
  Value scratch;
  const SharedTiles sh;
  const int64_t m, n, blocksM, blocksN, slice, numRounds, fragments;
  Value group, inGroup, warp, warpM, warpN, rowStart, colStart;
  SmallVector<Value> loopIndex;
  Value viewC;
  std::optional<TileCopy> copyA, copyB;
  Value groupStart, sliceStart;
  // Per fragment f = i * warpN + j of the warp (rows warpM + 16 i, columns
  // warpN + 16 j of the block tile): in the tile, where in C, its origin.
  SmallVector<Value> valid, atC, tileRow, tileCol;
  std::unique_ptr<WarpMma> mma;
  Value zero;
  Value fusionTiles;
  SmallVector<Value> fusionSlot;
  Value isFirst;
};

StagedTileKernel::StagedTileKernel(OpBuilder &b, linalg::LinalgOp op, const ContractionShape &s,
                                   const TensorCoreOperands &t, const TilePlan &p,
                                   const MmaShape &mmaShape, Value scratch,
                                   const TensorCoreFusion &fusion)
    : b(b), loc(op.getLoc()), e{{b, op.getLoc()}}, op(op), s(s), t(t), p(p), fusion(fusion),
      scratch(scratch), sh(sharedTiles(p, t)), m(s.ranges[t.m]), n(s.ranges[t.n]),
      blocksM(llvm::divideCeil(m, blockM(p))), blocksN(llvm::divideCeil(n, blockN(p))),
      slice(stagedKRange(s) / p.groups), numRounds(slice / p.stepK),
      fragments(p.warpM * p.warpN) {
  // Block b: batch point b / (blocksM * blocksN), then block rows, then
  // block columns (neighbouring blocks share A's rows).
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  group = e.div(thread, kGroupThreads);
  inGroup = e.rem(thread, kGroupThreads);
  warp = e.div(inGroup, 32);
  warpM = e.mul(e.div(warp, 2), p.warpM * kTileM);
  warpN = e.mul(e.rem(warp, 2), p.warpN * kTileN);
  Value tile = e.rem(block, blocksM * blocksN);
  rowStart = e.mul(e.div(tile, blocksN), blockM(p));
  colStart = e.mul(e.rem(tile, blocksN), blockN(p));
  loopIndex.assign(s.ranges.size(), e.cst(0));
  spreadOverLoops(b, loc, e.div(block, blocksM * blocksN), s.batch, s.ranges, loopIndex);
  // An operand's flat view, and the index of the block's batch point in it.
  auto operand = [&](Value value, ArrayRef<int64_t> strides) {
    Value base = e.cst(0);
    for (unsigned d : s.batch)
      if (strides[d])
        base = e.add(base, e.mul(loopIndex[d], strides[d]));
    return std::make_pair(e.flatView(value), base);
  };
  auto [viewA, baseA] = operand(op.getDpsInputs()[t.aIndex], t.a);
  auto [viewB, baseB] = operand(op.getDpsInputs()[t.bIndex], t.b);
  auto [view, baseC] = operand(op.getDpsInits()[0], t.c);
  viewC = view;

  const int64_t tailRange = kTail(s) ? s.kRange() : 0; // The copies stop there.
  groupStart = e.mul(group, sh.groupFloats);
  copyA.emplace(e, viewA, baseA, inGroup, groupStart, sh.rowsA, sh.colsA, sh.ldA, t.transposeA,
                t.transposeA ? t.a[s.k] : t.a[t.m], rowStart, m, tailRange);
  copyB.emplace(e, viewB, baseB, inGroup, e.add(groupStart, sh.offsetB), sh.rowsB, sh.colsB,
                sh.ldB, !t.transposeB, t.transposeB ? t.b[t.n] : t.b[s.k], colStart, n,
                tailRange);

  const int64_t leadC = t.c[t.m];
  for (int64_t i = 0; i < p.warpM; ++i)
    for (int64_t j = 0; j < p.warpN; ++j) {
      Value row = e.add(e.add(rowStart, warpM), i * kTileM);
      Value col = e.add(e.add(colStart, warpN), j * kTileN);
      valid.push_back(e.both(e.below(row, m), e.below(col, n)));
      atC.push_back(e.add(baseC, e.add(e.mul(row, leadC), col)));
      tileRow.push_back(row);
      tileCol.push_back(col);
    }
  mma = WarpMma::create(p.mma, mmaShape, e, inGroup, t.transposeA, t.transposeB);
  zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(mmaShape.accumulator));

  // A fused prologue or epilogue passes each fragment through its warp's
  // 16x16 elements at the scratch's start (emitTileOfElementwise: the
  // lanes and the fragment ops meet at warp barriers). Those are group 0's
  // staged tiles too: the prologue runs before the first copies are
  // issued, with a block barrier after it, and the epilogue after the
  // rounds and a barrier. Groups 1.. publish their sums past group 0's.
  assert((p.groups == 1 || sh.groupFloats >= kFusionFloats) && "sums overlap the fusion tiles");
  if (fusion.needsScratch()) {
    auto type = MemRefType::get({4, kTileM, kTileN}, mmaShape.accumulator, AffineMap(),
                                cast<MemRefType>(scratch.getType()).getMemorySpace());
    fusionTiles = memref::ReinterpretCastOp::create(
        b, loc, type, scratch, 0, {4, kTileM, kTileN}, {kTileM * kTileN, kTileN, 1});
  }
  fusionSlot = {warp, e.cst(0), e.cst(0)};
}

StagedTileKernel::Fragment StagedTileKernel::fragmentIf(Value condition,
                                                        function_ref<Fragment()> then) {
  auto branch = scf::IfOp::create(b, loc, mma->fragmentTypes(), condition,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  scf::YieldOp::create(b, loc, ValueRange(then()));
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  scf::YieldOp::create(b, loc, ValueRange(mma->splat(zero)));
  return Fragment(branch.getResults());
}

void StagedTileKernel::under(Value condition, function_ref<void()> then) {
  auto branch = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  then();
}

void StagedTileKernel::runElementwise(linalg::LinalgOp fused, bool isPrologue, int64_t f) {
  SmallVector<Value> tileLoop(loopIndex);
  tileLoop[t.m] = tileRow[f];
  tileLoop[t.n] = tileCol[f];
  emitTileOfElementwise(b, loc, op, s, cast<linalg::GenericOp>(fused.getOperation()), isPrologue,
                        tileLoop, t.m, t.n, fusionTiles, warp);
}

StagedTileKernel::Fragment StagedTileKernel::initialC(int64_t f) {
  if (!fusion.prologue)
    return loadC(f);
  if (auto fill = dyn_cast<linalg::FillOp>(*linalg::LinalgOp(fusion.prologue)))
    return mma->splat(fill.value());
  syncWarp(); // The lanes are done with the warp's tile (the last fragment's).
  runElementwise(fusion.prologue, /*isPrologue=*/true, f);
  syncWarp();
  return mma->load(fusionTiles, fusionSlot, kTileN);
}

void StagedTileKernel::finalC(int64_t f, const Fragment &value) {
  if (!fusion.epilogue) {
    mma->store(value, viewC, ValueRange{atC[f]}, t.c[t.m]);
    return;
  }
  syncWarp();
  mma->store(value, fusionTiles, fusionSlot, kTileN);
  syncWarp();
  runElementwise(fusion.epilogue, /*isPrologue=*/false, f);
}

SmallVector<Value> StagedTileKernel::initialSums() {
  // The sums start from C (linalg accumulates into its output) in group 0,
  // from zero in the others.
  isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group, e.cst(0));
  SmallVector<Value> init;
  for (int64_t f = 0; f < fragments; ++f)
    llvm::append_range(init, fragmentIf(p.groups > 1 ? e.both(valid[f], isFirst) : valid[f],
                                        [&] { return initialC(f); }));
  linalg::LinalgOp prologue = fusion.prologue;
  if (prologue && !isa<linalg::FillOp>(prologue.getOperation()))
    gpu::BarrierOp::create(b, loc); // The first copies go over the warps' tiles.
  return init;
}

// Round r of the group's slice of k goes to stage r % stages, its copies
// one commit group of cp.async.
void StagedTileKernel::copyRound(Value round) {
  Value k = e.add(sliceStart, e.mul(round, p.stepK));
  copyA->copy(e, k, scratch, stageStart(round));
  copyB->copy(e, k, scratch, stageStart(round));
}

void StagedTileKernel::issueFirstRounds() {
  sliceStart = e.mul(group, slice);
  for (int64_t r = 0; r < p.stages - 1; ++r) {
    if (r < numRounds)
      copyRound(e.cst(r));
    commit(); // An empty group past the last round keeps the count.
  }
}

void StagedTileKernel::multiplyStep(Value startA, Value startB, int64_t kk,
                                    SmallVector<Value> &sums) {
  SmallVector<WarpMma::Operand> fa, fb;
  for (int64_t i = 0; i < p.warpM; ++i) {
    Value mm = e.add(warpM, i * kTileM);
    fa.push_back(mma->loadA(scratch,
                            t.transposeA ? e.add(e.add(startA, kk * sh.ldA), mm)
                                         : e.add(e.add(startA, e.mul(mm, sh.ldA)), kk),
                            sh.ldA, t.transposeA));
  }
  for (int64_t j = 0; j < p.warpN; ++j) {
    Value nn = e.add(warpN, j * kTileN);
    fb.push_back(mma->loadB(scratch,
                            t.transposeB ? e.add(e.add(startB, e.mul(nn, sh.ldB)), kk)
                                         : e.add(e.add(startB, kk * sh.ldB), nn),
                            sh.ldB, t.transposeB));
  }
  const int64_t parts = mma->fragmentTypes().size();
  for (int64_t i = 0; i < p.warpM; ++i)
    for (int64_t j = 0; j < p.warpN; ++j) {
      MutableArrayRef<Value> sum = MutableArrayRef(sums).slice((i * p.warpN + j) * parts, parts);
      Fragment product = mma->multiply(fa[i], fb[j], Fragment(sum));
      llvm::copy(product, sum.begin());
    }
}

scf::ForOp StagedTileKernel::rounds(ValueRange init) {
  auto loop = scf::ForOp::create(b, loc, e.cst(0), e.cst(numRounds), e.cst(1), init);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value round = loop.getInductionVar();
  SmallVector<Value> sums(loop.getRegionIterArgs());
  // This thread's copies of this round are done once at most stages - 2
  // younger groups are in flight, and every thread's after the barrier.
  // The barrier also means that every warp is done with the last round's
  // stage, which the copies issued next reuse.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, p.stages - 2);
  gpu::BarrierOp::create(b, loc);
  Value ahead = e.add(round, p.stages - 1);
  under(e.below(ahead, numRounds), [&] { copyRound(ahead); });
  commit();
  Value startA = e.add(groupStart, stageStart(round)), startB = e.add(startA, sh.offsetB);
  for (int64_t kk = 0; kk < p.stepK; kk += kTileK)
    multiplyStep(startA, startB, kk, sums);
  scf::YieldOp::create(b, loc, sums);
  return loop;
}

std::pair<int64_t, int64_t> StagedTileKernel::finish(scf::ForOp loop) {
  // Every warp is done with the tiles before they hold sums or fused tiles.
  if (p.groups > 1 || fusion.needsScratch())
    gpu::BarrierOp::create(b, loc);
  const std::pair<int64_t, int64_t> launch = {batchCount(s) * blocksM * blocksN,
                                              kGroupThreads * p.groups};
  if (p.groups == 1) {
    for (int64_t f = 0; f < fragments; ++f)
      under(valid[f], [&] { finalC(f, result(loop, f)); });
    return launch;
  }
  // Groups 1.. publish their sums where their tiles were (the loop's last
  // barrier is behind every read of those); after a barrier that every
  // thread reaches, group 0 adds them in order and stores C.
  Value notFirst =
      arith::XOrIOp::create(b, loc, isFirst, arith::ConstantIntOp::create(b, loc, 1, 1));
  under(notFirst, [&] {
    for (int64_t f = 0; f < fragments; ++f)
      mma->store(result(loop, f), scratch, ValueRange{published(group, f)}, kTileN);
  });
  gpu::BarrierOp::create(b, loc);
  for (int64_t f = 0; f < fragments; ++f)
    under(e.both(isFirst, valid[f]), [&] {
      Fragment sum = result(loop, f);
      for (int64_t g = 1; g < p.groups; ++g)
        sum = mma->add(sum, mma->load(scratch, ValueRange{published(e.cst(g), f)}, kTileN));
      finalC(f, sum);
    });
  return launch;
}

} // namespace

std::pair<int64_t, int64_t> mlir::infer::buildStagedTileKernel(OpBuilder &b, linalg::LinalgOp op,
                                                               const ContractionShape &s,
                                                               const TensorCoreOperands &t,
                                                               const TilePlan &p, Value scratch,
                                                               const TensorCoreFusion &fusion) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  std::optional<MmaShape> shape = mmaShapeFor(element, p.mma);
  assert(shape && "planned for a type the tensor cores multiply");
  StagedTileKernel kernel(b, op, s, t, p, *shape, scratch, fusion);
  SmallVector<Value> init = kernel.initialSums();
  kernel.issueFirstRounds();
  return kernel.finish(kernel.rounds(init));
}
