//===- FoldTransposes.cpp - contractions read through transposes ----------===//
//
// infer-cuda-fold-transposes runs on linalg on tensors, before the
// contractions are aligned and split. Attention splits its heads with a
// Reshape and a Transpose before each batched MatMul (Q, K and V), and
// merges them with a Transpose after P·V; each Transpose would be a kernel
// of its own that copies the whole tensor. A contraction can
// read its operand through the transpose instead: the operand becomes the
// transpose's input and its indexing map is composed with the permutation;
// and it can write its result transposed, its output map composed with the
// permutation and its fill of zeros made in the transposed shape. The tensor-core kernels take any
// layout whose tile dims include a contiguous one with rows 16-byte
// aligned (a Q of [128, 12, 64] read as [12][128][64] has k contiguous and
// rows of 768), so the copy is simply gone.
//
// Only a linalg.transpose whose result is read by that one contraction is
// folded, and only into float32 contractions that whole tensor-core tiles
// cover once the alignment pass has grown m and n to them (197 tokens:
// 208), and that can read the operand as it lies (readsWholeTiles): a
// misaligned row stride would be copied into a home anyway (15-wide heads),
// and a SIMT loop reading a transposed operand would be the uncoalesced
// copy again. A grown op reads a head view of a grown projection's result,
// its cut widened (GrowContractions.cpp, cutFrom), so the head transposes
// and the merge go for grown attention too.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"
#include "Analysis/KernelCandidates.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_FOLDTRANSPOSESPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// `shape` with m and n grown to whole tiles where infer-cuda-align-
/// contractions grows them: any range that covers a tile
/// (GrowContractions.cpp).
ContractionShape grownToTiles(ContractionShape shape) {
  for (auto [dim, tile] : {std::pair(shape.m, kTileM), std::pair(shape.n, kTileN)})
    if (shape.ranges[dim] >= tile)
      shape.ranges[dim] = llvm::alignTo(shape.ranges[dim], tile);
  return shape;
}

/// Whether the tensor cores can read `operand` of `op` as it is, without
/// the row fixes or edges of infer-cuda-align-contractions (which would
/// copy it into a home anyway): whole 16 x 16 tiles once m and n are
/// grown, one k dim, the operand's contiguous dim a tile dim (not a batch
/// dim) and its rows a multiple of 4 elements (16 bytes).
bool readsWholeTiles(linalg::GenericOp op, OpOperand &operand) {
  std::optional<ContractionShape> shape = tensorCoreShape(op);
  if (!shape || !fitsTensorCoreTiles(grownToTiles(*shape)) || shape->ks.size() != 1)
    return false;
  auto type = cast<RankedTensorType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!inner || type.getShape().back() % 4 != 0)
    return false;
  unsigned d = inner.getPosition();
  return d == shape->m || d == shape->n || d == shape->k;
}

/// A transpose of `op`'s result (attention's merge of heads after P·V):
/// `op` writes the transposed layout itself, its fill of zeros made in that
/// shape, if the tensor cores can write it so.
void foldResultTranspose(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op->getResult(0).hasOneUse())
    return;
  auto transpose = dyn_cast<linalg::TransposeOp>(*op->getResult(0).getUsers().begin());
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!transpose || !fill)
    return;
  // The transposed result's dim i is the product's dim perm[i].
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps.back();
  SmallVector<AffineExpr> results;
  for (int64_t p : transpose.getPermutation())
    results.push_back(out.getResult(p));
  maps.back() = AffineMap::get(out.getNumDims(), out.getNumSymbols(), results, op.getContext());
  rewriter.setInsertionPoint(transpose);
  auto init = linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(),
                                     ValueRange{transpose.getInit()});
  auto folded = cast<linalg::GenericOp>(rewriter.clone(*op));
  folded->getResult(0).setType(transpose->getResult(0).getType());
  folded.getDpsInitsMutable()[0].set(init->getResult(0));
  folded.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  if (!readsWholeTiles(folded, *folded.getDpsInitOperand(0))) {
    rewriter.eraseOp(folded);
    rewriter.eraseOp(init);
    return;
  }
  folded->setLoc(rewriter.getFusedLoc({op.getLoc(), transpose.getLoc()}));
  rewriter.replaceOp(transpose, folded->getResults());
  rewriter.eraseOp(op);
  if (fill->use_empty()) // Fills are shared after CSE (each layer's P·V).
    rewriter.eraseOp(fill);
}

struct FoldTransposesPass : public infer::impl::FoldTransposesPassBase<FoldTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> contractions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && linalg::isaContractionOpInterface(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : contractions) {
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      for (OpOperand *input : op.getDpsInputOperands()) {
        auto transpose = input->get().getDefiningOp<linalg::TransposeOp>();
        if (!transpose || !transpose->getResult(0).hasOneUse())
          continue;
        // The transpose's result dim i is its input's dim perm[i]: the
        // input's dim perm[i] is read with what the result's dim i was.
        ArrayRef<int64_t> perm = transpose.getPermutation();
        AffineMap map = maps[input->getOperandNumber()];
        SmallVector<AffineExpr> results(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          results[p] = map.getResult(i);
        SmallVector<AffineMap> original = maps;
        maps[input->getOperandNumber()] =
            AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, op.getContext());
        rewriter.modifyOpInPlace(op, [&] {
          input->set(transpose.getInput());
          op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        });
        if (readsWholeTiles(op, *input)) {
          rewriter.eraseOp(transpose);
          continue;
        }
        maps = original; // Undone: the copy suits the tensor cores better.
        rewriter.modifyOpInPlace(op, [&] {
          input->set(transpose->getResult(0));
          op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
        });
      }
      foldResultTranspose(rewriter, op);
    }
  }
};

} // namespace

