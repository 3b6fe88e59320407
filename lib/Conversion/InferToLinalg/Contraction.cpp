//===- Contraction.cpp - MatMul and Gemm to linalg.generic ----------------===//
//
// `infer.matmul` with numpy broadcasting becomes one linalg.generic over
// (batch..., m, n, k) whose maps broadcast the batch dims; `infer.gemm`
// becomes a contraction initialized with beta * C. Both accumulate in the
// element type (fp32 for fp32 models).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

namespace {

/// Emits sum_k lhs[.., m, k] * rhs[.., k, n] into `init` (which holds the
/// starting values), with the given maps over (d0..dN-1, k).
Value buildContraction(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init,
                       AffineMap lhsMap, AffineMap rhsMap, AffineMap outMap,
                       unsigned numParallel) {
  SmallVector<utils::IteratorType> iterators(numParallel, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  bool fp = isa<FloatType>(getElementTypeOrSelf(init.getType()));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs}, ValueRange{init},
      ArrayRef<AffineMap>{lhsMap, rhsMap, outMap}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value product = fp ? Value(arith::MulFOp::create(nb, nl, args[0], args[1]))
                           : Value(arith::MulIOp::create(nb, nl, args[0], args[1]));
        Value sum = fp ? Value(arith::AddFOp::create(nb, nl, args[2], product))
                       : Value(arith::AddIOp::create(nb, nl, args[2], product));
        linalg::YieldOp::create(nb, nl, sum);
      });
  return generic.getResult(0);
}

struct MatMulLowering : public OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType lhsType = op.getLhs().getType(), rhsType = op.getRhs().getType();
    RankedTensorType resultType = op.getType();
    MLIRContext *ctx = op.getContext();
    // Work on the >= 2-D form; 1-D operands get a unit dim that the result
    // drops (the output map just skips it).
    bool vecLhs = lhsType.getRank() == 1, vecRhs = rhsType.getRank() == 1;
    int64_t batchRank = std::max<int64_t>(lhsType.getRank() - (vecLhs ? 0 : 2), 0);
    batchRank = std::max<int64_t>(batchRank, rhsType.getRank() - (vecRhs ? 0 : 2));
    if (vecLhs)
      batchRank = std::max<int64_t>(rhsType.getRank() - 2, 0);
    if (vecRhs)
      batchRank = std::max<int64_t>(lhsType.getRank() - 2, 0);
    // Loop dims: batch..., m, n, k.
    unsigned m = batchRank, n = batchRank + 1, k = batchRank + 2;
    unsigned numDims = batchRank + 3;
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    auto zero = getAffineConstantExpr(0, ctx);
    auto operandMap = [&](RankedTensorType type, bool isLhs, bool isVec) {
      SmallVector<AffineExpr> exprs;
      int64_t rank = type.getRank();
      int64_t batchDims = isVec ? 0 : rank - 2;
      for (int64_t i = 0; i < batchDims; ++i) {
        int64_t loopDim = batchRank - batchDims + i;
        bool stretched = type.getDimSize(i) == 1 && resultType.getDimSize(loopDim) != 1;
        exprs.push_back(stretched ? zero : d(loopDim));
      }
      if (isLhs) {
        if (!isVec)
          exprs.push_back(d(m));
        exprs.push_back(d(k));
      } else {
        exprs.push_back(d(k));
        if (!isVec)
          exprs.push_back(d(n));
      }
      return AffineMap::get(numDims, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (unsigned i = 0; i < batchRank; ++i)
      outExprs.push_back(d(i));
    if (!vecLhs)
      outExprs.push_back(d(m));
    if (!vecRhs)
      outExprs.push_back(d(n));
    // Loop dims the output does not use (m or n of a vector operand) must
    // still have a bound: they are size 1, which an output map of
    // "broadcast" form cannot express, so iterate them through the operand.
    AffineMap outMap = AffineMap::get(numDims, 0, outExprs, ctx);
    if (vecLhs || vecRhs) {
      // A vector is a matrix of one row (A) or one column (B): the MatMul of
      // those (lowered in turn), its unit dim dropped again.
      auto asMatrix = [&](Value v, bool row) -> Value {
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape = {type.getDimSize(0)};
        shape.insert(row ? shape.begin() : shape.end(), 1);
        return tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(shape, type.getElementType()), v,
            ArrayRef<ReassociationIndices>{{0, 1}});
      };
      Value lhs = vecLhs ? asMatrix(op.getLhs(), true) : op.getLhs();
      Value rhs = vecRhs ? asMatrix(op.getRhs(), false) : op.getRhs();
      SmallVector<int64_t> shape(resultType.getShape());
      if (vecLhs)
        shape.insert(shape.end() - (vecRhs ? 0 : 1), 1);
      if (vecRhs)
        shape.push_back(1);
      auto matrixType = RankedTensorType::get(shape, resultType.getElementType());
      Value product = MatMulOp::create(rewriter, loc, matrixType, lhs, rhs);
      // The unit dims (A's m: the last but one, B's n: the last) join the
      // next dim kept, or the last one kept; a scalar result has no groups.
      int64_t rank = matrixType.getRank();
      auto dropped = [&](int64_t i) {
        return (vecRhs && i == rank - 1) || (vecLhs && i == rank - 2);
      };
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t i = 0; i < rank; ++i) {
        pending.push_back(i);
        if (!dropped(i)) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!groups.empty())
        groups.back().append(pending.begin(), pending.end());
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType, product, groups);
      return success();
    }
    Type et = resultType.getElementType();
    Value init = filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, et, 0));
    Value result = buildContraction(rewriter, loc, op.getLhs(), op.getRhs(), init,
                                    operandMap(lhsType, true, false),
                                    operandMap(rhsType, false, false), outMap, numDims - 1);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GemmLowering : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType resultType = op.getType();
    Type et = resultType.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer gemm");
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    // Loop dims: m, n, k.
    AffineMap aMap = op.getTransA() ? AffineMap::get(3, 0, {d(2), d(0)}, ctx)
                                    : AffineMap::get(3, 0, {d(0), d(2)}, ctx);
    AffineMap bMap = op.getTransB() ? AffineMap::get(3, 0, {d(1), d(2)}, ctx)
                                    : AffineMap::get(3, 0, {d(2), d(1)}, ctx);
    AffineMap outMap = AffineMap::get(3, 0, {d(0), d(1)}, ctx);
    double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
    // Start from beta * C (broadcast), or zero.
    Value init;
    if (op.getC() && beta != 0) {
      init = buildElementwise(rewriter, loc, resultType, op.getC(),
                              [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                if (beta == 1)
                                  return args[0];
                                return arith::MulFOp::create(b, l, args[0],
                                                             scalarConstant(b, l, et, beta));
                              });
    } else {
      init = filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, et, 0));
    }
    Value a = op.getA();
    if (alpha != 1) {
      auto aType = cast<RankedTensorType>(a.getType());
      a = buildElementwise(rewriter, loc, aType, a, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
        return arith::MulFOp::create(b, l, args[0], scalarConstant(b, l, et, alpha));
      });
    }
    Value result = buildContraction(rewriter, loc, a, op.getB(), init, aMap, bMap, outMap, 2);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::infer::populateContractionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, GemmLowering>(patterns.getContext());
}
