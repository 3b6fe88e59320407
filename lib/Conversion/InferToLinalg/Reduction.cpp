//===- Reduction.cpp - reductions, softmax and normalizations to linalg ---===//
//
// Reductions are linalg.generic ops with reduction iterators; softmax and
// the normalizations are built from them and elementwise generics (max,
// exp, sum, divide), so that later fusion sees plain linalg.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"

#include <limits>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

namespace {

using CombineFn = function_ref<Value(OpBuilder &, Location, Value acc, Value x)>;

/// Reduces `input` over `axes` (sorted) with `combine`, starting at `init`.
/// The result keeps reduced dims as size 1 when `keepDims`.
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
             double init, CombineFn combine) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = llvm::is_contained(axes, i);
    iterators.push_back(reduced ? utils::IteratorType::reduction : utils::IteratorType::parallel);
    if (!reduced) {
      shape.push_back(type.getDimSize(i));
      outExprs.push_back(getAffineDimExpr(i, ctx));
    } else if (keepDims) {
      shape.push_back(1);
      outExprs.push_back(getAffineConstantExpr(0, ctx));
    }
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  Value start = filledTensor(b, loc, resultType, scalarConstant(b, loc, type.getElementType(), init));
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{start},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, outExprs, ctx)},
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, combine(nb, nl, args[1], args[0]));
             })
      .getResult(0);
}

Value addF(OpBuilder &b, Location l, Value a, Value x) { return arith::AddFOp::create(b, l, a, x); }
Value maxF(OpBuilder &b, Location l, Value a, Value x) { return arith::MaximumFOp::create(b, l, a, x); }

Value mapElementwise(OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
                     ScalarFn fn) {
  return buildElementwise(b, loc, type, inputs, fn);
}

/// log(sum(exp(x))) over `axes`, computed as m + log(sum(exp(x - m))) with m
/// the maximum, so that exp cannot overflow (f32 inputs above about 88 gave
/// inf). m is taken as 0 where it is infinite: with every input -inf, or one
/// +inf, x - m would be NaN, and the unshifted sum gives ONNX's -inf or +inf.
Value logSumExp(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
                RankedTensorType resultType) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto type = cast<RankedTensorType>(input.getType());
  Value max = reduce(b, loc, input, axes, /*keepDims=*/true, -inf, maxF);
  auto keptType = cast<RankedTensorType>(max.getType());
  Value shift = buildElementwise(b, loc, keptType, max, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
    Type t = a[0].getType();
    Value infinite = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                           math::AbsFOp::create(nb, l, a[0]), scalarConstant(nb, l, t, inf));
    return arith::SelectOp::create(nb, l, infinite, scalarConstant(nb, l, t, 0), a[0]);
  });
  Value exps = buildElementwise(b, loc, type, ValueRange{input, shift},
                                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                                  return math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
                                });
  Value sum = reduce(b, loc, exps, axes, /*keepDims=*/true, 0.0, addF);
  Value result = buildElementwise(b, loc, keptType, ValueRange{sum, shift},
                                  [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                                    return arith::AddFOp::create(nb, l, math::LogOp::create(nb, l, a[0]), a[1]);
                                  });
  if (keptType == resultType)
    return result;
  // keepdims=0: drop the unit dims.
  auto shapeType = RankedTensorType::get({resultType.getRank()}, b.getI64Type());
  Value shape = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shapeType, resultType.getShape()));
  return tensor::ReshapeOp::create(b, loc, resultType, result, shape);
}

template <typename OpTy>
struct ReduceLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getInput().getType(), resultType = op.getType();
    Type et = x.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer reductions are not lowered yet");
    Location loc = op.getLoc();
    ArrayRef<int64_t> axes = op.getAxes();
    bool keep = op.getKeepDims();
    Value input = op.getInput();
    double count = 1;
    for (int64_t a : axes)
      count *= x.getDimSize(a);
    auto pre = [&](ScalarFn fn) { input = mapElementwise(rewriter, loc, x, input, fn); };
    auto post = [&](Value v, ScalarFn fn) { return mapElementwise(rewriter, loc, resultType, v, fn); };
    Value result;
    constexpr double inf = std::numeric_limits<double>::infinity();
    if constexpr (std::is_same_v<OpTy, ReduceMaxOp>) {
      result = reduce(rewriter, loc, input, axes, keep, -inf, maxF);
    } else if constexpr (std::is_same_v<OpTy, ReduceMinOp>) {
      result = reduce(rewriter, loc, input, axes, keep, inf,
                      [](OpBuilder &b, Location l, Value a, Value v) -> Value {
                        return arith::MinimumFOp::create(b, l, a, v);
                      });
    } else if constexpr (std::is_same_v<OpTy, ReduceLogSumExpOp>) {
      result = logSumExp(rewriter, loc, input, axes, resultType);
    } else if constexpr (std::is_same_v<OpTy, ReduceProdOp>) {
      result = reduce(rewriter, loc, input, axes, keep, 1.0,
                      [](OpBuilder &b, Location l, Value a, Value v) -> Value {
                        return arith::MulFOp::create(b, l, a, v);
                      });
    } else {
      if constexpr (std::is_same_v<OpTy, ReduceL1Op>)
        pre([](OpBuilder &b, Location l, ValueRange a) -> Value { return math::AbsFOp::create(b, l, a[0]); });
      if constexpr (std::is_same_v<OpTy, ReduceL2Op> || std::is_same_v<OpTy, ReduceSumSquareOp>)
        pre([](OpBuilder &b, Location l, ValueRange a) -> Value { return arith::MulFOp::create(b, l, a[0], a[0]); });
      result = reduce(rewriter, loc, input, axes, keep, 0.0, addF);
      if constexpr (std::is_same_v<OpTy, ReduceMeanOp>)
        result = post(result, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::DivFOp::create(b, l, a[0], scalarConstant(b, l, et, count));
        });
      if constexpr (std::is_same_v<OpTy, ReduceL2Op>)
        result = post(result, [](OpBuilder &b, Location l, ValueRange a) -> Value { return math::SqrtOp::create(b, l, a[0]); });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax(x) = exp(x - max) / sum(exp(x - max)); log_softmax is
/// (x - max) - log(sum(exp(x - max))).
template <typename OpTy>
struct SoftmaxLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxOp>;
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    if (!isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer softmax");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value max = reduce(rewriter, loc, op.getInput(), {axis}, true,
                       -std::numeric_limits<double>::infinity(), maxF);
    Value shifted = buildElementwise(rewriter, loc, x, ValueRange{op.getInput(), max},
                                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                       return arith::SubFOp::create(b, l, a[0], a[1]);
                                     });
    Value exps = buildElementwise(rewriter, loc, x, shifted,
                                  [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                    return math::ExpOp::create(b, l, a[0]);
                                  });
    Value sum = reduce(rewriter, loc, exps, {axis}, true, 0.0, addF);
    Value result;
    if (isLog)
      result = buildElementwise(rewriter, loc, x, ValueRange{shifted, sum},
                                [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                  return arith::SubFOp::create(b, l, a[0], math::LogOp::create(b, l, a[1]));
                                });
    else
      result = buildElementwise(rewriter, loc, x, ValueRange{exps, sum},
                                [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                  return arith::DivFOp::create(b, l, a[0], a[1]);
                                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ArgMax and ArgMin: one generic reducing `axis` into two outputs, the
/// best value so far (a scratch tensor, starting at -inf or +inf, or the
/// integer type's extreme) and its index (i64). A later element replaces
/// the best only when strictly better, so the first of equal elements
/// wins; with select_last_index, when better or equal.
template <typename OpTy>
struct ArgLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    constexpr bool isMax = std::is_same_v<OpTy, ArgMaxOp>;
    auto x = cast<RankedTensorType>(op.getInput().getType());
    Type et = x.getElementType();
    auto intType = dyn_cast<IntegerType>(et);
    if (!isa<FloatType>(et) && !(intType && intType.getWidth() > 1))
      return rewriter.notifyMatchFailure(op, "arg reduction of a non-numeric type");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = x.getRank(), axis = op.getAxis();
    bool last = op.getSelectLastIndex();
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < rank; ++i) {
      iterators.push_back(i == axis ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (i != axis || op.getKeepDims()) {
        shape.push_back(i == axis ? 1 : x.getDimSize(i));
        outExprs.push_back(i == axis ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(i, ctx));
      }
    }
    Value worst;
    if (intType) {
      APInt extreme = isMax ? APInt::getSignedMinValue(intType.getWidth())
                            : APInt::getSignedMaxValue(intType.getWidth());
      worst = arith::ConstantOp::create(rewriter, loc, IntegerAttr::get(et, extreme));
    } else {
      constexpr double inf = std::numeric_limits<double>::infinity();
      worst = scalarConstant(rewriter, loc, et, isMax ? -inf : inf);
    }
    auto bestType = RankedTensorType::get(shape, et);
    RankedTensorType indexType = op.getType();
    Value best = filledTensor(rewriter, loc, bestType, worst);
    Value index = filledTensor(rewriter, loc, indexType,
                               scalarConstant(rewriter, loc, indexType.getElementType(), 0));
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, ctx);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestType, indexType}, ValueRange{op.getInput()},
        ValueRange{best, index},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value better;
          if (intType) {
            auto pred = isMax ? (last ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sgt)
                              : (last ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, pred, a[0], a[1]);
          } else {
            auto pred = isMax ? (last ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OGT)
                              : (last ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, pred, a[0], a[1]);
          }
          Value i = arith::IndexCastOp::create(b, l, indexType.getElementType(),
                                               linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(b, l, ValueRange{arith::SelectOp::create(b, l, better, a[0], a[1]),
                                                   arith::SelectOp::create(b, l, better, i, a[2])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// CumSum: out[..i..] = sum over j of x[..j..] where j <= i (j < i when
/// exclusive; j >= i or j > i when reversed): one generic with the axis
/// twice, i parallel and j a reduction, adding zero for the js left out.
/// Quadratic in the axis' length, which is fine for the position ids and
/// offsets exporters compute with it.
struct CumSumLowering : public OpRewritePattern<CumSumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CumSumOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    Type et = x.getElementType();
    bool isFloat = isa<FloatType>(et);
    if (!isFloat && !isa<IntegerType>(et))
      return rewriter.notifyMatchFailure(op, "non-numeric cumsum");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = x.getRank(), axis = op.getAxis();
    SmallVector<AffineExpr> inExprs;
    for (int64_t i = 0; i < rank; ++i)
      inExprs.push_back(getAffineDimExpr(i == axis ? rank : i, ctx));
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value zero = scalarConstant(rewriter, loc, et, 0);
    arith::CmpIPredicate keep = op.getReverse()
                                    ? (op.getExclusive() ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge)
                                    : (op.getExclusive() ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{x}, ValueRange{op.getInput()},
        ValueRange{filledTensor(rewriter, loc, x, zero)},
        ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, inExprs, ctx),
                            AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)},
        iterators, [&](OpBuilder &b, Location l, ValueRange a) {
          Value i = linalg::IndexOp::create(b, l, axis), j = linalg::IndexOp::create(b, l, rank);
          Value term = arith::SelectOp::create(b, l, arith::CmpIOp::create(b, l, keep, j, i), a[0], zero);
          Value sum = isFloat ? Value(arith::AddFOp::create(b, l, a[1], term))
                              : Value(arith::AddIOp::create(b, l, a[1], term));
          linalg::YieldOp::create(b, l, ValueRange{sum});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// TopK in two generics, without sorting. First each element's rank along
/// the axis: how many elements come before it (larger, or smaller for
/// !largest; equal ones with a lower index too, so ties keep their order).
/// Then the r-th output (r < k) is the element whose rank is r, and its
/// index: a reduction over the axis that keeps the one that matches. Quadratic
/// in the axis' length: fine for a classifier's top 5 of 1000, slow for
/// tens of thousands of detection candidates.
struct TopKLowering : public OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto x = cast<RankedTensorType>(op.getInput().getType());
    Type et = x.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer top-k");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = x.getRank(), axis = op.getAxis();
    bool largest = op.getLargest();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    // Maps over (dims..., j): the element at the axis' position i, and at j.
    SmallVector<AffineExpr> atI, atJ;
    for (int64_t i = 0; i < rank; ++i) {
      atI.push_back(d(i));
      atJ.push_back(i == axis ? d(rank) : d(i));
    }
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Type i64 = rewriter.getI64Type();
    auto ranksType = RankedTensorType::get(x.getShape(), i64);
    Value zero64 = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    Value ranks =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{ranksType}, ValueRange{op.getInput(), op.getInput()},
            ValueRange{filledTensor(rewriter, loc, ranksType, zero64)},
            ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, atI, ctx), AffineMap::get(rank + 1, 0, atJ, ctx),
                                AffineMap::get(rank + 1, 0, atI, ctx)},
            iterators,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value i = linalg::IndexOp::create(b, l, axis), j = linalg::IndexOp::create(b, l, rank);
              Value better = arith::CmpFOp::create(
                  b, l, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a[1], a[0]);
              Value equal = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1], a[0]);
              Value lower = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j, i);
              Value tieFirst = arith::AndIOp::create(b, l, equal, lower);
              Value before = arith::OrIOp::create(b, l, better, tieFirst);
              Value one = arith::ExtUIOp::create(b, l, b.getI64Type(), before);
              linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, a[2], one)});
            })
            .getResult(0);
    // Over (dims with r at the axis..., i): the output r gathers rank r.
    RankedTensorType valuesType = cast<RankedTensorType>(op.getValues().getType()),
                      indicesType = cast<RankedTensorType>(op.getIndices().getType());
    auto picked =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{op.getInput(), ranks},
            ValueRange{filledTensor(rewriter, loc, valuesType, scalarConstant(rewriter, loc, et, 0)),
                       filledTensor(rewriter, loc, indicesType, zero64)},
            ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, atJ, ctx), AffineMap::get(rank + 1, 0, atJ, ctx),
                                AffineMap::get(rank + 1, 0, atI, ctx), AffineMap::get(rank + 1, 0, atI, ctx)},
            iterators,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value r = arith::IndexCastOp::create(b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
              Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), linalg::IndexOp::create(b, l, rank));
              Value match = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[1], r);
              Value value = arith::SelectOp::create(b, l, match, a[0], a[2]);
              Value index = arith::SelectOp::create(b, l, match, i, a[3]);
              linalg::YieldOp::create(b, l, ValueRange{value, index});
            });
    rewriter.replaceOp(op, picked->getResults());
    return success();
  }
};

/// x - mean and 1 / sqrt(var + eps) over `axes` (the latter with them kept
/// as 1s): what layer and instance norms scale.
std::pair<Value, Value> centeredAndInvStd(OpBuilder &b, Location loc, Value input,
                                          ArrayRef<int64_t> axes, double eps) {
  auto x = cast<RankedTensorType>(input.getType());
  Type et = x.getElementType();
  double count = 1;
  for (int64_t a : axes)
    count *= x.getDimSize(a);
  auto divCount = [&](OpBuilder &b, Location l, ValueRange a) -> Value {
    return arith::DivFOp::create(b, l, a[0], scalarConstant(b, l, et, count));
  };
  Value sum = reduce(b, loc, input, axes, true, 0.0, addF);
  Value mean = buildElementwise(b, loc, cast<RankedTensorType>(sum.getType()), sum, divCount);
  Value centered = buildElementwise(b, loc, x, ValueRange{input, mean},
                                    [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                      return arith::SubFOp::create(b, l, a[0], a[1]);
                                    });
  Value sq = reduce(b, loc, centered, axes, true, 0.0,
                    [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                      return arith::AddFOp::create(b, l, acc, arith::MulFOp::create(b, l, v, v));
                    });
  Value invStd = buildElementwise(b, loc, cast<RankedTensorType>(sq.getType()), sq,
                                  [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                                    Value var = arith::DivFOp::create(b, l, a[0], scalarConstant(b, l, et, count));
                                    Value v = arith::AddFOp::create(b, l, var, scalarConstant(b, l, et, eps));
                                    return math::RsqrtOp::create(b, l, v);
                                  });
  return {centered, invStd};
}

/// centered * invStd * scale (+ bias), the parameters broadcast as numpy does.
Value scaleNormalized(OpBuilder &b, Location loc, RankedTensorType x, Value centered,
                      Value invStd, Value scale, Value bias) {
  SmallVector<Value> inputs = {centered, invStd, scale};
  if (bias)
    inputs.push_back(bias);
  return buildElementwise(b, loc, x, inputs, [](OpBuilder &b, Location l, ValueRange a) -> Value {
    Value y = arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, a[0], a[1]), a[2]);
    return a.size() > 3 ? Value(arith::AddFOp::create(b, l, y, a[3])) : y;
  });
}

/// y = (x - mean) / sqrt(var + eps) * scale + bias over the dims from axis.
struct LayerNormLowering : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    if (!isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer layer norm");
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(op.getAxis(), x.getRank()));
    auto [centered, invStd] = centeredAndInvStd(rewriter, op.getLoc(), op.getInput(), axes,
                                                op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, scaleNormalized(rewriter, op.getLoc(), x, centered, invStd,
                                           op.getScale(), op.getBias()));
    return success();
  }
};

/// A per-channel parameter [C] read as [C, 1, ...] (rank - 1 dims), so that
/// numpy broadcasting applies it along dim 1 of a rank-`rank` tensor.
Value alongDim1(OpBuilder &b, Location loc, Value v, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = type.getDimSize(0);
  SmallVector<ReassociationIndices> all = {llvm::to_vector(llvm::seq<int64_t>(0, rank - 1))};
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()),
                                       v, all);
}

/// Instance norm: a layer norm of each (n, c) over the spatial dims, its
/// scale and bias per channel.
struct InstanceNormLowering : public OpRewritePattern<InstanceNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(InstanceNormOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    if (!isa<FloatType>(x.getElementType()) || x.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "integer or rank < 3 instance norm");
    Location loc = op.getLoc();
    int64_t rank = x.getRank();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
    auto [centered, invStd] = centeredAndInvStd(rewriter, loc, op.getInput(), axes,
                                                op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, scaleNormalized(rewriter, loc, x, centered, invStd,
                                           alongDim1(rewriter, loc, op.getScale(), rank),
                                           alongDim1(rewriter, loc, op.getBias(), rank)));
    return success();
  }
};

/// Group norm: the channels of each sample split into groups ([N, C, S...]
/// seen as [N, G, C/G, S...]), each group normalized over its channels and
/// positions; then the per-channel scale and bias.
struct GroupNormLowering : public OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GroupNormOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    int64_t rank = x.getRank(), groups = op.getNumGroups(), channels = x.getDimSize(1);
    if (!isa<FloatType>(x.getElementType()) || rank < 3 || groups < 1 || channels % groups)
      return rewriter.notifyMatchFailure(op, "integer, rank < 3 or uneven groups");
    Location loc = op.getLoc();
    SmallVector<int64_t> shape = {x.getDimSize(0), groups, channels / groups};
    llvm::append_range(shape, x.getShape().drop_front(2));
    auto groupedType = RankedTensorType::get(shape, x.getElementType());
    SmallVector<ReassociationIndices> split = {{0}, {1, 2}};
    for (int64_t i = 2; i < rank; ++i)
      split.push_back({i + 1});
    Value grouped = tensor::ExpandShapeOp::create(rewriter, loc, groupedType, op.getInput(), split);
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank + 1));
    auto [centered, invStd] = centeredAndInvStd(rewriter, loc, grouped, axes,
                                                op.getEpsilon().convertToDouble());
    Value normalized = buildElementwise(rewriter, loc, groupedType, ValueRange{centered, invStd},
                                        [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                          return arith::MulFOp::create(b, l, a[0], a[1]);
                                        });
    Value back = tensor::CollapseShapeOp::create(rewriter, loc, x, normalized, split);
    Value result = buildElementwise(
        rewriter, loc, x,
        ValueRange{back, alongDim1(rewriter, loc, op.getScale(), rank),
                   alongDim1(rewriter, loc, op.getBias(), rank)},
        [](OpBuilder &b, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, a[0], a[1]), a[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// LpNormalization: x divided by its L1 (sum of |x|) or L2 norm along axis
/// (0 where the norm is 0).
struct LpNormLowering : public OpRewritePattern<LpNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LpNormOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    int64_t p = op.getP();
    if (!isa<FloatType>(x.getElementType()) || (p != 1 && p != 2))
      return rewriter.notifyMatchFailure(op, "integer, or p other than 1 and 2");
    Location loc = op.getLoc();
    Value norm = reduce(rewriter, loc, op.getInput(), {static_cast<int64_t>(op.getAxis())}, true, 0.0,
                        [&](OpBuilder &b, Location l, Value acc, Value v) -> Value {
                          Value term = p == 1 ? Value(math::AbsFOp::create(b, l, v))
                                              : Value(arith::MulFOp::create(b, l, v, v));
                          return arith::AddFOp::create(b, l, acc, term);
                        });
    // A zero norm gives 0, not NaN (the ONNX test data's convention).
    Value result = buildElementwise(
        rewriter, loc, x, ValueRange{op.getInput(), norm}, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value n = p == 1 ? a[1] : Value(math::SqrtOp::create(b, l, a[1]));
          Value zero = scalarConstant(b, l, x.getElementType(), 0.0);
          Value none = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, n, zero);
          return arith::SelectOp::create(b, l, none, zero, arith::DivFOp::create(b, l, a[0], n));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Hardmax: 1 where the element is its axis' first maximum (ArgMax's
/// index), else 0.
struct HardmaxLowering : public OpRewritePattern<HardmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HardmaxOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    if (!isa<FloatType>(x.getElementType()))
      return rewriter.notifyMatchFailure(op, "integer hardmax");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    SmallVector<int64_t> shape(x.getShape());
    shape[axis] = 1;
    Value first = ArgMaxOp::create(rewriter, loc, RankedTensorType::get(shape, rewriter.getI64Type()),
                                   op.getInput(), axis, /*keep_dims=*/true,
                                   /*select_last_index=*/false);
    Value result = buildElementwise(
        rewriter, loc, x, first, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), linalg::IndexOp::create(b, l, axis));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, i, a[0]);
          return arith::SelectOp::create(b, l, hit, scalarConstant(b, l, x.getElementType(), 1.0),
                                         scalarConstant(b, l, x.getElementType(), 0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// LRN: x / (bias + alpha / size * s)^beta, s the sum of squares over the
/// channels c - floor((size-1)/2) .. c + ceil((size-1)/2) that exist: the
/// squares padded with zeros along dim 1, summed over a window of `size`
/// channels (iterated through an operand of that shape, as pooling does).
struct LRNLowering : public OpRewritePattern<LRNOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LRNOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    Type et = x.getElementType();
    int64_t rank = x.getRank(), size = op.getSize();
    if (!isa<FloatType>(et) || rank < 2 || size < 1)
      return rewriter.notifyMatchFailure(op, "integer, rank < 2 or empty window");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value squares = buildElementwise(rewriter, loc, x, op.getInput(),
                                     [](OpBuilder &b, Location l, ValueRange a) -> Value {
                                       return arith::MulFOp::create(b, l, a[0], a[0]);
                                     });
    SmallVector<int64_t> padShape(x.getShape());
    padShape[1] += size - 1;
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0)), high(rank, rewriter.getIndexAttr(0));
    low[1] = rewriter.getIndexAttr((size - 1) / 2);
    high[1] = rewriter.getIndexAttr(size / 2);
    Value padded = tensor::PadOp::create(rewriter, loc, RankedTensorType::get(padShape, et), squares,
                                         low, high, scalarConstant(rewriter, loc, et, 0.0));
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs, outExprs;
    for (int64_t i = 0; i < rank; ++i) {
      inExprs.push_back(i == 1 ? d(1) + d(rank) : d(i));
      outExprs.push_back(d(i));
    }
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{size}, et);
    Value sums = linalg::GenericOp::create(
                     rewriter, loc, TypeRange{x}, ValueRange{padded, window},
                     ValueRange{filledTensor(rewriter, loc, x, scalarConstant(rewriter, loc, et, 0.0))},
                     ArrayRef<AffineMap>{AffineMap::get(rank + 1, 0, inExprs, ctx),
                                         AffineMap::get(rank + 1, 0, {d(rank)}, ctx),
                                         AffineMap::get(rank + 1, 0, outExprs, ctx)},
                     iterators,
                     [](OpBuilder &b, Location l, ValueRange a) {
                       linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[2], a[0])});
                     })
                     .getResult(0);
    double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble(),
           bias = op.getBias().convertToDouble();
    Value result = buildElementwise(
        rewriter, loc, x, ValueRange{op.getInput(), sums}, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value scaled = arith::MulFOp::create(b, l, a[1], scalarConstant(b, l, et, alpha / size));
          Value base = arith::AddFOp::create(b, l, scaled, scalarConstant(b, l, et, bias));
          Value power = math::PowFOp::create(b, l, base, scalarConstant(b, l, et, beta));
          return arith::DivFOp::create(b, l, a[0], power);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// y = (x - mean) * scale / sqrt(var + eps) + bias, parameters along dim 1.
struct BatchNormLowering : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getType();
    Type et = x.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer batch norm");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = x.getRank();
    AffineMap channel = AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    double eps = op.getEpsilon().convertToDouble();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{x},
        ValueRange{op.getInput(), op.getScale(), op.getBias(), op.getMean(), op.getVariance()},
        ValueRange{emptyTensor(rewriter, loc, x)},
        ArrayRef<AffineMap>{identity, channel, channel, channel, channel, identity},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = arith::AddFOp::create(b, l, a[4], scalarConstant(b, l, et, eps));
          Value scale = arith::MulFOp::create(b, l, a[1], math::RsqrtOp::create(b, l, v));
          Value y = arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, a[0], a[3]), scale);
          linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, y, a[2])});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void mlir::infer::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMeanOp>,
               ReduceLowering<ReduceMaxOp>, ReduceLowering<ReduceMinOp>,
               ReduceLowering<ReduceProdOp>, ReduceLowering<ReduceL1Op>,
               ReduceLowering<ReduceL2Op>, ReduceLowering<ReduceSumSquareOp>,
               ReduceLowering<ReduceLogSumExpOp>, SoftmaxLowering<SoftmaxOp>,
               SoftmaxLowering<LogSoftmaxOp>, LayerNormLowering, InstanceNormLowering,
               BatchNormLowering, ArgLowering<ArgMaxOp>, ArgLowering<ArgMinOp>,
               GroupNormLowering, LpNormLowering, HardmaxLowering, LRNLowering, CumSumLowering,
               TopKLowering>(
      patterns.getContext());
}
