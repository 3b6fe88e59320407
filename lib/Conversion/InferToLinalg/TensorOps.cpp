//===- TensorOps.cpp - constants, reshapes and data movement to tensor ----===//

#include "Common.h"

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

namespace {

struct ConstantLowering : public OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op, PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "untyped constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// Reshape, Flatten, Squeeze and Unsqueeze: tensor.reshape to the static
/// result shape.
template <typename OpTy>
struct ReshapeLikeLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op.getLoc();
    auto shapeType = RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(shapeType, resultType.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType, op->getOperand(0), shape);
    return success();
  }
};

struct TransposeLowering : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Value init = emptyTensor(rewriter, op.getLoc(), op.getType());
    auto transpose = linalg::TransposeOp::create(rewriter, op.getLoc(), op.getInput(), init,
                                                 op.getPerm());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

/// Concat: the inputs inserted one after another into an empty tensor.
struct ConcatLowering : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t axis = op.getAxis(), offset = 0;
    Value result = emptyTensor(rewriter, loc, resultType);
    for (Value input : op.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes, strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result, offsets, sizes, strides);
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitLowering : public OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    int64_t axis = op.getAxis(), offset = 0;
    auto inputType = op.getInput().getType();
    SmallVector<Value> results;
    for (Value result : op.getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<OpFoldResult> offsets(inputType.getRank(), rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      SmallVector<OpFoldResult> sizes, strides(inputType.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      results.push_back(tensor::ExtractSliceOp::create(rewriter, loc, type, op.getInput(), offsets,
                                                       sizes, strides));
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Slice with constant parameters: the ONNX start of every axis, then
/// `size` elements `step` apart (steps may be negative), read by a generic.
struct SliceLowering : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto starts = constantInts(op.getStarts());
    auto axes = constantInts(op.getAxes());
    auto steps = constantInts(op.getSteps());
    if (!starts || !axes || !steps)
      return rewriter.notifyMatchFailure(op, "non-constant slice parameters");
    RankedTensorType inType = op.getInput().getType(), resultType = op.getType();
    int64_t rank = inType.getRank();
    SmallVector<int64_t> begin(rank, 0), step(rank, 1);
    for (size_t i = 0; i < axes->size(); ++i) {
      int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
      int64_t dim = inType.getDimSize(axis), s = (*starts)[i];
      if (s < 0)
        s += dim;
      s = (*steps)[i] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
      begin[axis] = s;
      step[axis] = (*steps)[i];
    }
    Location loc = op.getLoc();
    if (llvm::all_of(step, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t i = 0; i < rank; ++i) {
        offsets.push_back(rewriter.getIndexAttr(begin[i]));
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(i)));
        strides.push_back(rewriter.getIndexAttr(step[i]));
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, resultType, op.getInput(), offsets,
                                                          sizes, strides);
      return success();
    }
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i)
      exprs.push_back(getAffineDimExpr(i, ctx) * step[i] + begin[i]);
    // Read through tensor.extract in the body: the input map is not a
    // projected permutation, which linalg needs for its operands' bounds.
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{emptyTensor(rewriter, loc, resultType)},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t i = 0; i < rank; ++i) {
            Value idx = linalg::IndexOp::create(b, l, i);
            Value scaled = arith::MulIOp::create(b, l, idx, arith::ConstantIndexOp::create(b, l, step[i]));
            indices.push_back(arith::AddIOp::create(b, l, scaled, arith::ConstantIndexOp::create(b, l, begin[i])));
          }
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, op.getInput(), indices)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Gather: result[outer..., idx..., inner...] = data[outer..., indices[idx...], inner...].
struct GatherLowering : public OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    RankedTensorType resultType = op.getType();
    int64_t axis = op.getAxis(), rank = resultType.getRank(), idxRank = indicesType.getRank();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    int64_t dim = dataType.getDimSize(axis);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{op.getIndices()},
        ValueRange{emptyTensor(rewriter, loc, resultType)},
        ArrayRef<AffineMap>{AffineMap::get(rank, 0, idxExprs, ctx), rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // Negative indices count from the end; out-of-range ones are clamped
          // rather than read out of bounds.
          Value idx = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value dimV = arith::ConstantIndexOp::create(b, l, dim);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value neg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx, zero);
          idx = arith::SelectOp::create(b, l, neg, arith::AddIOp::create(b, l, idx, dimV), idx);
          idx = arith::MaxSIOp::create(b, l, idx, zero);
          idx = arith::MinSIOp::create(b, l, idx, arith::ConstantIndexOp::create(b, l, dim - 1));
          SmallVector<Value> indices;
          for (int64_t i = 0; i < axis; ++i)
            indices.push_back(linalg::IndexOp::create(b, l, i));
          indices.push_back(idx);
          for (int64_t i = axis + idxRank; i < rank; ++i)
            indices.push_back(linalg::IndexOp::create(b, l, i));
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, op.getData(), indices)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct PadLowering : public OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    if (op.getMode() != "constant")
      return rewriter.notifyMatchFailure(op, "only constant padding is lowered yet");
    auto pads = constantInts(op.getPads());
    if (!pads || llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
      return rewriter.notifyMatchFailure(op, "non-constant or negative pads");
    Location loc = op.getLoc();
    int64_t rank = op.getType().getRank();
    SmallVector<OpFoldResult> low, high;
    for (int64_t i = 0; i < rank; ++i) {
      low.push_back(rewriter.getIndexAttr((*pads)[i]));
      high.push_back(rewriter.getIndexAttr((*pads)[i + rank]));
    }
    Value value = tensor::ExtractOp::create(rewriter, loc, op.getValue(), ValueRange{});
    rewriter.replaceOpWithNewOp<tensor::PadOp>(op, op.getType(), op.getInput(), low, high, value);
    return success();
  }
};

struct ExpandLowering : public OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Value result = buildElementwise(rewriter, op.getLoc(), op.getType(), op.getInput(),
                                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantOfShapeLowering : public OpRewritePattern<ConstantOfShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOfShapeOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "non-dense value");
    Value scalar = arith::ConstantOp::create(rewriter, op.getLoc(),
                                             cast<TypedAttr>(*value.getValues<Attribute>().begin()));
    rewriter.replaceOp(op, filledTensor(rewriter, op.getLoc(), op.getType(), scalar));
    return success();
  }
};

} // namespace

void mlir::infer::populateTensorOpsToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, ReshapeLikeLowering<ReshapeOp>, ReshapeLikeLowering<FlattenOp>,
               ReshapeLikeLowering<SqueezeOp>, ReshapeLikeLowering<UnsqueezeOp>,
               TransposeLowering, ConcatLowering, SplitLowering, SliceLowering, GatherLowering,
               PadLowering, ExpandLowering, ConstantOfShapeLowering>(patterns.getContext());
}
