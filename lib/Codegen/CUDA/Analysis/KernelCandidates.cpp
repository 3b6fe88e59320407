//===- KernelCandidates.cpp - which ops become which kernels --------------===//

#include "Analysis/KernelCandidates.h"
#include "Analysis/LoopStrides.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;
using namespace mlir::infer;

std::optional<ContractionShape> mlir::infer::tensorCoreShape(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() &&
                                                                   !op.hasPureTensorSemantics())
    return std::nullopt;
  // One element type the tensor cores multiply, in all three operands.
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (OpOperand &operand : op->getOpOperands())
    if (getElementTypeOrSelf(operand.get().getType()) != element)
      return std::nullopt;
  if (!mmaShapeFor(element, MmaKind::Sync))
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
  if (m.empty() || n.empty() || k.empty())
    return std::nullopt;
  llvm::sort(m);
  llvm::sort(n);
  // Several m (or n) loops that infer-cuda-align-contractions could not
  // collapse into one (a convolution over a batch of images: the images
  // and the positions are not adjacent in its [N, C, H*W] output): the
  // innermost is m (n), and the others act as batch loops, which the
  // operand without them reads the same for each.
  ContractionShape shape;
  shape.batch = nonUnit(dims->batch);
  shape.batch.append(m.begin(), m.end() - 1);
  shape.batch.append(n.begin(), n.end() - 1);
  llvm::sort(shape.batch);
  shape.m = m.back();
  shape.n = n.back();
  shape.ks = k;
  llvm::sort(shape.ks);
  shape.k = shape.ks.back();
  shape.ranges = ranges;
  return shape;
}

std::optional<TensorCoreOperands>
mlir::infer::checkTensorCoreLayout(linalg::LinalgOp op, const ContractionShape &s) {
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

int64_t mlir::infer::kTail(const ContractionShape &s) {
  return s.ks.size() == 1 && s.kRange() >= kTileK ? s.kRange() % kTileK : 0;
}

bool mlir::infer::fitsTensorCoreTiles(const ContractionShape &s) {
  return s.ranges[s.m] % kTileM == 0 && s.ranges[s.n] % kTileN == 0 &&
         (s.kRange() % kTileK == 0 || kTail(s)) && s.ranges[s.m] > 0 && s.ranges[s.n] > 0 &&
         s.kRange() > 0;
}

bool mlir::infer::coversATile(const ContractionShape &s) {
  bool kCovered = s.ks.size() == 1 ? s.ranges[s.k] >= kTileK : s.kRange() % kTileK == 0;
  return s.ranges[s.m] >= kTileM && s.ranges[s.n] >= kTileN && kCovered && s.kRange() > 0;
}

bool mlir::infer::isSimtPointReduction(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && isPointReduction(op) && !tensorCoreShape(op);
}

int64_t mlir::infer::batchCount(const ContractionShape &s) {
  int64_t count = 1;
  for (unsigned d : s.batch)
    count *= s.ranges[d];
  return count;
}

bool mlir::infer::isPointReduction(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      op.getNumParallelLoops() == 0)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t length = 1;
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    if (iterator == utils::IteratorType::reduction)
      length *= range;
  AffineMap map = op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0]);
  return length < kMinBlockReductionLength && map.isProjectedPermutation() &&
         map.getNumResults() == op.getNumParallelLoops() &&
         llvm::all_of(map.getResults(), [&](AffineExpr e) {
           return iterators[cast<AffineDimExpr>(e).getPosition()] ==
                  utils::IteratorType::parallel;
         });
}

std::optional<MmaShape> mlir::infer::mmaShapeFor(Type operand, MmaKind kind) {
  if (!operand.isF32())
    return std::nullopt;
  MmaShape shape{operand, operand, 16, 8, 8, /*tf32=*/true};
  if (kind == MmaKind::Wmma)
    shape.n = 16; // WMMA's TF32 product is m16n16k8.
  return shape;
}
