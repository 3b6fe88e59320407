//===- LinalgSplits.cpp - a linalg op split along one loop ----------------===//

#include "infer-opt/Codegen/Common/CommonCodegen.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::infer;

SmallVector<Operation *> mlir::infer::splitAt(RewriterBase &rewriter, Operation *op, unsigned dim,
                                              int64_t position) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  int64_t range = linalgOp.getStaticLoopRanges()[dim];
  if (position <= 0 || position >= range)
    return {op};
  rewriter.setInsertionPoint(op);
  auto [head, tail] = linalg::splitOp(rewriter, cast<TilingInterface>(op), dim,
                                      rewriter.getIndexAttr(position));
  SmallVector<Operation *> pieces;
  for (TilingInterface piece : {head, tail})
    if (piece)
      pieces.push_back(piece.getOperation());
  return pieces;
}
