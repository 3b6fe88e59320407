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

/// Einsum: one generic whose loop dims are the equation's labels, the
/// output's first (parallel) and then the summed ones (reduction); each
/// operand reads through the map of its labels, and the body adds the
/// product of all operands to the output. "..." stands for the same
/// broadcast dims in every term, right-aligned as in numpy; an operand's
/// size-1 broadcast dim is read at 0. A label repeated within one term (a
/// diagonal) is not lowered.
struct EinsumLowering : public OpRewritePattern<EinsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EinsumOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType resultType = op.getType();
    Type et = resultType.getElementType();
    bool fp = isa<FloatType>(et);
    if (!fp && !isa<IntegerType>(et))
      return rewriter.notifyMatchFailure(op, "non-numeric einsum");
    auto [lhs, out] = op.getEquation().split("->");
    SmallVector<StringRef> terms;
    lhs.split(terms, ',');
    if (terms.size() != op.getInputs().size())
      return rewriter.notifyMatchFailure(op, "equation and operands differ in number");
    // Each term as a list of labels, "..." expanded into labels 'A'.. (the
    // equation's own labels are letters, so upper case ones name broadcast
    // dims only when the equation uses none; else give up).
    if (llvm::any_of(op.getEquation(), [](char c) { return llvm::isUpper(c); }) &&
        op.getEquation().contains("..."))
      return rewriter.notifyMatchFailure(op, "upper-case labels with an ellipsis");
    int64_t ellipsisRank = 0;
    for (auto [term, input] : llvm::zip(terms, op.getInputs()))
      if (term.contains("..."))
        ellipsisRank = std::max<int64_t>(
            ellipsisRank, cast<RankedTensorType>(input.getType()).getRank() - (int64_t(term.size()) - 3));
    auto expand = [&](StringRef term, int64_t rank) {
      std::string labels;
      for (size_t i = 0; i < term.size(); ++i) {
        if (term.substr(i).starts_with("...")) {
          int64_t own = rank - (int64_t(term.size()) - 3);
          for (int64_t e = ellipsisRank - own; e < ellipsisRank; ++e)
            labels += char('A' + e);
          i += 2;
        } else {
          labels += term[i];
        }
      }
      return labels;
    };
    std::string outLabels = expand(out, resultType.getRank());
    SmallVector<std::string> inLabels;
    for (auto [term, input] : llvm::zip(terms, op.getInputs()))
      inLabels.push_back(expand(term, cast<RankedTensorType>(input.getType()).getRank()));
    // Loop dims: the output's labels, then every other label once.
    std::string dims = outLabels;
    for (const std::string &labels : inLabels)
      for (char c : labels)
        if (dims.find(c) == std::string::npos)
          dims += c;
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> maps;
    for (auto [labels, input] : llvm::zip(inLabels, op.getInputs())) {
      auto type = cast<RankedTensorType>(input.getType());
      if (int64_t(labels.size()) != type.getRank())
        return rewriter.notifyMatchFailure(op, "a term does not match its operand's rank");
      SmallVector<AffineExpr> exprs;
      for (auto [i, c] : llvm::enumerate(labels)) {
        if (labels.find(c) != i)
          return rewriter.notifyMatchFailure(op, "a label repeated in one term (a diagonal)");
        // A broadcast dim of size 1 where the output has more reads index 0.
        int64_t o = outLabels.find(c);
        bool stretched = llvm::isUpper(c) && type.getDimSize(i) == 1 &&
                         o != int64_t(std::string::npos) && resultType.getDimSize(o) != 1;
        exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(dims.find(c), ctx));
      }
      maps.push_back(AffineMap::get(dims.size(), 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs; // Not getMajorSubMap: null for a scalar result.
    for (size_t i = 0; i < outLabels.size(); ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    maps.push_back(AffineMap::get(dims.size(), 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators(outLabels.size(), utils::IteratorType::parallel);
    iterators.append(dims.size() - outLabels.size(), utils::IteratorType::reduction);
    Location loc = op.getLoc();
    Value init = filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, et, 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, op.getInputs(), ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product = args[0];
          for (Value v : args.drop_front().drop_back())
            product = fp ? Value(arith::MulFOp::create(b, l, product, v))
                         : Value(arith::MulIOp::create(b, l, product, v));
          Value sum = fp ? Value(arith::AddFOp::create(b, l, args.back(), product))
                         : Value(arith::AddIOp::create(b, l, args.back(), product));
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::infer::populateContractionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, GemmLowering, EinsumLowering>(patterns.getContext());
}
