//===- TensorCores.cpp - float32 contractions on TF32 tensor cores ---------===//
//
// With --allow-tf32, a float32 contraction (matmuls, Gemm, and the
// convolutions lowered to matmuls: 1x1 and im2col) runs on the tensor
// cores through WMMA (gpu.subgroup_mma_*: m16n16k8 TF32 fragments, which
// ptxas turns into HMMA instructions):
//
//   infer-cuda-split-contractions (tensors) splits a candidate at whole
//       tiles, so that a 16x16 (m x n) and k=8 grid covers the first part
//       exactly; the edges stay ordinary ops on the SIMT path.
//   buildTensorCoreKernel (memrefs, from infer-cuda-map-to-gpu) makes the
//       kernel: one warp a 16x16 output tile, 4 warps a block; the warp
//       loads C, accumulates A x B over k in steps of 8 straight from
//       global memory (L1/L2 serve the reuse), and stores C back. Loading
//       C first keeps linalg's accumulate semantics (the output holds the
//       fill or bias, or the first part of a split k).
//
// The operands are addressed through their own strided views: A must have
// m or k contiguous, B k or n, C n; the row stride a multiple of 4
// elements and every tile 32-byte aligned (WMMA's rules). Otherwise the op
// stays on the SIMT path.
//
//===----------------------------------------------------------------------===//

#include "TensorCores.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::infer;

namespace {
constexpr int64_t kWarpsPerBlock = 4;
} // namespace

std::optional<ContractionShape> mlir::infer::tensorCoreShape(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() &&
                                                                   !op.hasPureTensorSemantics())
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return std::nullopt;
  if (!linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // Unit dims (a batch of one) play no part: their index is always 0.
  auto nonUnit = [&](ArrayRef<unsigned> list) {
    SmallVector<unsigned> result;
    for (unsigned d : list)
      if (ranges[d] != 1)
        result.push_back(d);
    return result;
  };
  SmallVector<unsigned> m = nonUnit(dims->m), n = nonUnit(dims->n), k = nonUnit(dims->k);
  if (m.size() != 1 || n.size() != 1 || k.empty())
    return std::nullopt;
  ContractionShape shape;
  shape.batch = nonUnit(dims->batch);
  shape.m = m.front();
  shape.n = n.front();
  shape.ks = k;
  llvm::sort(shape.ks);
  shape.k = shape.ks.back();
  shape.ranges = ranges;
  return shape;
}

namespace {

/// Strides of `value` (a strided memref) along each loop dim of `map`; the
/// offset in elements.
std::optional<std::pair<SmallVector<int64_t>, int64_t>> loopStrides(Value value, AffineMap map) {
  auto type = dyn_cast<MemRefType>(value.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) || ShapedType::isDynamic(offset))
    return std::nullopt;
  SmallVector<int64_t> perLoop(map.getNumDims(), 0);
  for (auto [result, stride] : llvm::zip(map.getResults(), strides))
    perLoop[cast<AffineDimExpr>(result).getPosition()] += stride;
  return std::make_pair(perLoop, offset);
}

struct TensorCoreOperands {
  unsigned aIndex = 0, bIndex = 1; // Which inputs play A and B.
  unsigned m = 0, n = 0;           // The m and n dims, as A and B see them.
  SmallVector<int64_t> a, b, c;    // Strides per loop dim.
  bool transposeA = false, transposeB = false;
};

/// Checks WMMA's layout and alignment rules for the three operands. C must
/// have n contiguous; when it has m contiguous instead, C^T = B^T A^T is
/// computed: A and B swap roles, and so do m and n.
std::optional<TensorCoreOperands> checkLayout(linalg::LinalgOp op, const ContractionShape &s) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto c = loopStrides(op.getDpsInits()[0], maps[2]);
  if (!c)
    return std::nullopt;
  TensorCoreOperands t;
  t.m = s.m;
  t.n = s.n;
  if (c->first[s.n] != 1 && c->first[s.m] == 1) {
    std::swap(t.aIndex, t.bIndex);
    std::swap(t.m, t.n);
  }
  auto a = loopStrides(op.getDpsInputs()[t.aIndex], maps[t.aIndex]);
  auto b = loopStrides(op.getDpsInputs()[t.bIndex], maps[t.bIndex]);
  if (!a || !b)
    return std::nullopt;
  t.a = a->first;
  t.b = b->first;
  t.c = c->first;
  // Row-major A has k contiguous; column-major (transposed) m.
  if (t.a[s.k] == 1)
    t.transposeA = false;
  else if (t.a[t.m] == 1)
    t.transposeA = true;
  else
    return std::nullopt;
  if (t.b[t.n] == 1)
    t.transposeB = false;
  else if (t.b[s.k] == 1)
    t.transposeB = true;
  else
    return std::nullopt;
  if (t.c[t.n] != 1)
    return std::nullopt;
  // The k dims must collapse into one in A and B: each outer one's stride
  // is the next one's stride times its range.
  for (size_t i = 0; i + 1 < s.ks.size(); ++i)
    for (const SmallVector<int64_t> *strides : {&t.a, &t.b})
      if ((*strides)[s.ks[i]] != (*strides)[s.ks[i + 1]] * s.ranges[s.ks[i + 1]])
        return std::nullopt;
  // 32-byte aligned tiles, 16-byte aligned rows: offsets and every stride
  // a multiple of 8 elements, lead dims of 4.
  int64_t leadA = t.transposeA ? t.a[s.k] : t.a[t.m];
  int64_t leadB = t.transposeB ? t.b[t.n] : t.b[s.k];
  int64_t leadC = t.c[t.m];
  if (leadA % 4 || leadB % 4 || leadC % 4 || leadA == 0 || leadB == 0 || leadC == 0)
    return std::nullopt;
  for (int64_t offset : {a->second, b->second, c->second})
    if (offset % 8)
      return std::nullopt;
  for (unsigned d : s.batch)
    if (t.a[d] % 8 || t.b[d] % 8 || t.c[d] % 8)
      return std::nullopt;
  return t;
}

} // namespace

bool mlir::infer::fitsTensorCoreTiles(const ContractionShape &s) {
  return s.ranges[s.m] % kTileM == 0 && s.ranges[s.n] % kTileN == 0 &&
         s.kRange() % kTileK == 0 && s.ranges[s.m] > 0 && s.ranges[s.n] > 0 && s.kRange() > 0;
}

bool mlir::infer::coversATile(const ContractionShape &s) {
  bool kCovered = s.ks.size() == 1 ? s.ranges[s.k] >= kTileK : s.kRange() % kTileK == 0;
  return s.ranges[s.m] >= kTileM && s.ranges[s.n] >= kTileN && kCovered && s.kRange() > 0;
}

FailureOr<std::pair<int64_t, int64_t>>
mlir::infer::buildTensorCoreKernel(OpBuilder &b, linalg::LinalgOp op, const ContractionShape &s) {
  std::optional<TensorCoreOperands> layout = checkLayout(op, s);
  if (!layout)
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  const unsigned dimM = layout->m, dimN = layout->n;
  int64_t tilesM = s.ranges[dimM] / kTileM, tilesN = s.ranges[dimN] / kTileN;
  int64_t batches = 1;
  for (unsigned d : s.batch)
    batches *= s.ranges[d];
  int64_t tiles = batches * tilesM * tilesN;

  // Warp number; neighbouring warps take neighbouring n tiles (same A rows).
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, cst(kWarpsPerBlock)),
      arith::DivUIOp::create(b, loc, thread, cst(32)));
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp, cst(tiles));
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  SmallVector<Value> loopIndex(s.ranges.size(), cst(0));
  loopIndex[dimN] = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, warp, cst(tilesN)),
                                         cst(kTileN));
  Value rest = arith::DivUIOp::create(b, loc, warp, cst(tilesN));
  loopIndex[dimM] = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, rest, cst(tilesM)),
                                         cst(kTileM));
  rest = arith::DivUIOp::create(b, loc, rest, cst(tilesM));
  for (unsigned d : llvm::reverse(s.batch)) {
    loopIndex[d] = arith::RemUIOp::create(b, loc, rest, cst(s.ranges[d]));
    rest = arith::DivUIOp::create(b, loc, rest, cst(s.ranges[d]));
  }
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
  Value a = op.getDpsInputs()[layout->aIndex], bm = op.getDpsInputs()[layout->bIndex],
        c = op.getDpsInits()[0];
  auto lead = [&](int64_t v) { return b.getIndexAttr(v); };
  UnitAttr transA = layout->transposeA ? UnitAttr::get(ctx) : UnitAttr();
  UnitAttr transB = layout->transposeB ? UnitAttr::get(ctx) : UnitAttr();
  int64_t leadA = layout->transposeA ? layout->a[s.k] : layout->a[dimM];
  int64_t leadB = layout->transposeB ? layout->b[dimN] : layout->b[s.k];
  int64_t leadC = layout->c[dimM];

  Value acc = gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeC, c, indices(2), lead(leadC),
                                                   UnitAttr());
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(s.kRange()), cst(kTileK), ValueRange{acc});
  b.setInsertionPointToStart(loop.getBody());
  Value kRest = loop.getInductionVar(); // Linear over the k dims, innermost fastest.
  for (unsigned d : llvm::reverse(s.ks)) {
    loopIndex[d] = d == s.ks.front() ? kRest : arith::RemUIOp::create(b, loc, kRest, cst(s.ranges[d]));
    if (d != s.ks.front())
      kRest = arith::DivUIOp::create(b, loc, kRest, cst(s.ranges[d]));
  }
  Value fa = gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeA, a, indices(layout->aIndex),
                                                  lead(leadA), transA);
  Value fb = gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeB, bm, indices(layout->bIndex),
                                                  lead(leadB), transB);
  Value next = gpu::SubgroupMmaComputeOp::create(b, loc, typeC, fa, fb, loop.getRegionIterArg(0),
                                                 transA, transB);
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);
  gpu::SubgroupMmaStoreMatrixOp::create(b, loc, loop.getResult(0), c, indices(2), lead(leadC),
                                        UnitAttr());
  return std::make_pair((tiles + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock);
}

namespace {

struct SplitContractionsPass
    : public PassWrapper<SplitContractionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitContractionsPass)
  StringRef getArgument() const final { return "infer-cuda-split-contractions"; }
  StringRef getDescription() const final {
    return "Split float32 contractions at whole tensor-core tiles (16 m, 16 n, 8 k)";
  }
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (tensorCoreShape(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      ContractionShape s = *tensorCoreShape(op);
      SmallVector<linalg::LinalgOp> parts = {op};
      SmallVector<std::pair<unsigned, int64_t>> splits = {{s.m, kTileM}, {s.n, kTileN}};
      if (s.ks.size() == 1) // Several k dims must be whole multiples together.
        splits.push_back({s.k, kTileK});
      for (auto [dim, tile] : splits) {
        SmallVector<linalg::LinalgOp> next;
        for (linalg::LinalgOp part : parts) {
          int64_t whole = part.getStaticLoopRanges()[dim] / tile * tile;
          for (Operation *piece : splitAt(rewriter, part, dim, whole))
            next.push_back(cast<linalg::LinalgOp>(piece));
        }
        parts = std::move(next);
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::infer::createSplitContractionsPass() {
  return std::make_unique<SplitContractionsPass>();
}
