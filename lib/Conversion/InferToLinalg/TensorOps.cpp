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
    Value result = buildIndexed(
        rewriter, loc, resultType, [&](OpBuilder &b, Location l, ArrayRef<Value> out) -> Value {
          SmallVector<Value> indices;
          for (int64_t i = 0; i < rank; ++i) {
            Value scaled = arith::MulIOp::create(b, l, out[i], arith::ConstantIndexOp::create(b, l, step[i]));
            indices.push_back(arith::AddIOp::create(b, l, scaled, arith::ConstantIndexOp::create(b, l, begin[i])));
          }
          return tensor::ExtractOp::create(b, l, op.getInput(), indices);
        });
    rewriter.replaceOp(op, result);
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
          Value idx = wrappedIndex(b, l, args[0], dim);
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

/// Pad. Constant padding by non-negative amounts is a tensor.pad, which the
/// back ends fold into their consumers' reads. Everything else (edge,
/// reflect and wrap modes, negative pads) is a linalg.generic that reads the
/// input at an index computed per dim from the output's. Negative pads crop
/// first and the mode pads what is left, as ONNX Runtime does (ONNX's
/// reference leaves them undefined): in the m kept elements,
///   j = i - before;  edge: clamp(j) into them;  reflect: |j|, then 2(m-1) - j past the
///   end;  wrap: j mod m;  constant: the value where j is outside them;
/// then the crop's start is added. Every index is clamped into the input
/// before it is read, so no mode reads out of bounds.
struct PadLowering : public OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    StringRef mode = op.getMode();
    if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap")
      return rewriter.notifyMatchFailure(op, "unknown pad mode");
    auto pads = constantInts(op.getPads());
    if (!pads)
      return rewriter.notifyMatchFailure(op, "non-constant pads");
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = inputType.getRank();
    // Per dim: elements cropped at the start, elements kept, padding before.
    SmallVector<int64_t> cropped, kept, before;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t first = (*pads)[i], last = (*pads)[i + rank];
      cropped.push_back(std::max<int64_t>(-first, 0));
      kept.push_back(inputType.getDimSize(i) - cropped.back() - std::max<int64_t>(-last, 0));
      before.push_back(std::max<int64_t>(first, 0));
      // Edge, reflect and wrap need an element to repeat; a reflection
      // never repeats the edge, so it reaches m - 1 elements.
      if (mode != "constant" && kept.back() < 1)
        return rewriter.notifyMatchFailure(op, "a dim cropped to nothing");
      if (mode == "reflect" && std::max(first, last) > kept.back() - 1)
        return rewriter.notifyMatchFailure(op, "reflect pads longer than the dim minus one");
    }
    if (mode == "constant" && llvm::none_of(*pads, [](int64_t p) { return p < 0; })) {
      SmallVector<OpFoldResult> low, high;
      for (int64_t i = 0; i < rank; ++i) {
        low.push_back(rewriter.getIndexAttr((*pads)[i]));
        high.push_back(rewriter.getIndexAttr((*pads)[i + rank]));
      }
      Value value = tensor::ExtractOp::create(rewriter, loc, op.getValue(), ValueRange{});
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, op.getType(), op.getInput(), low, high, value);
      return success();
    }
    RankedTensorType resultType = op.getType();
    Value result = buildIndexed(
        rewriter, loc, resultType, [&](OpBuilder &b, Location l, ArrayRef<Value> out) -> Value {
          auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          Value zero = index(0), inside;
          SmallVector<Value> indices;
          for (int64_t i = 0; i < rank; ++i) {
            int64_t n = inputType.getDimSize(i), m = kept[i];
            Value j = out[i];
            if (before[i] == 0 && cropped[i] == 0 && resultType.getDimSize(i) <= m) {
              indices.push_back(j); // Read as it is (or cut at the end).
              continue;
            }
            if (before[i] != 0)
              j = arith::SubIOp::create(b, l, j, index(before[i]));
            if (mode == "constant") {
              Value ok = arith::AndIOp::create(
                  b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, j, zero),
                  arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, index(m)));
              inside = inside ? arith::AndIOp::create(b, l, inside, ok).getResult() : ok;
            } else if (mode == "edge") {
              // Clamped into the kept elements, so within the input too.
              j = arith::MaxSIOp::create(b, l, j, zero);
              j = arith::MinSIOp::create(b, l, j, index(m - 1));
              if (cropped[i] != 0)
                j = arith::AddIOp::create(b, l, j, index(cropped[i]));
              indices.push_back(j);
              continue;
            } else if (mode == "reflect") {
              j = arith::MaxSIOp::create(b, l, j, arith::SubIOp::create(b, l, zero, j));
              j = arith::MinSIOp::create(b, l, j,
                                         arith::SubIOp::create(b, l, index(2 * (m - 1)), j));
            } else if (mode == "wrap") {
              // j >= -before: whole multiples of m added first make it
              // non-negative, as remsi keeps the sign of its dividend.
              int64_t lift = (before[i] / m + 1) * m;
              j = arith::RemSIOp::create(b, l, arith::AddIOp::create(b, l, j, index(lift)), index(m));
            }
            if (cropped[i] != 0)
              j = arith::AddIOp::create(b, l, j, index(cropped[i]));
            j = arith::MaxSIOp::create(b, l, j, zero);
            indices.push_back(arith::MinSIOp::create(b, l, j, index(n - 1)));
          }
          Value value = tensor::ExtractOp::create(b, l, op.getInput(), indices);
          if (inside)
            value = arith::SelectOp::create(
                b, l, inside, value, tensor::ExtractOp::create(b, l, op.getValue(), ValueRange{}));
          return value;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Trilu: x where the element is in the kept triangle of the last two dims
/// (column - row >= k for the upper one, <= k for the lower), else 0.
struct TriluLowering : public OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto k = constantInts(op.getK());
    if (!k || k->size() != 1)
      return rewriter.notifyMatchFailure(op, "non-constant k");
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), diagonal = (*k)[0];
    bool upper = op.getUpper();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, op.getInput(), [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = linalg::IndexOp::create(b, l, rank - 2), col = linalg::IndexOp::create(b, l, rank - 1);
          Value offset = arith::SubIOp::create(b, l, col, row);
          Value kept = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, offset,
              arith::ConstantIndexOp::create(b, l, diagonal));
          return arith::SelectOp::create(b, l, kept, a[0], scalarConstant(b, l, type.getElementType(), 0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherElements: out[i...] = data[i... with i_axis = indices[i...]];
/// negative indices count from the end, and every index is clamped into
/// the data (ONNX leaves out-of-range ones undefined; no read goes past).
struct GatherElementsLowering : public OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank(), axis = op.getAxis();
    int64_t dim = cast<RankedTensorType>(op.getData().getType()).getDimSize(axis);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{op.getIndices()},
        ValueRange{emptyTensor(rewriter, loc, resultType)},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = wrappedIndex(b, l, args[0], dim);
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d)
            indices.push_back(d == axis ? i : linalg::IndexOp::create(b, l, d).getResult());
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, op.getData(), indices)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// A generic that fills `resultType` by reading `source` with tensor.extract
/// at indices that `sourceIndices` computes from the output's (as index
/// values, given the `linalg.index` of each output dim).
Value readAtComputedIndices(
    OpBuilder &b, Location loc, RankedTensorType resultType, Value source,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>)> sourceIndices) {
  return buildIndexed(b, loc, resultType, [&](OpBuilder &nb, Location l, ArrayRef<Value> out) -> Value {
    return tensor::ExtractOp::create(nb, l, source, sourceIndices(nb, l, out));
  });
}

/// DepthToSpace (NCHW): out[n, c, h, w] reads channel (DCR) bh*bs*C' + bw*C'
/// + c or (CRD) c*bs*bs + bh*bs + bw at [h / bs, w / bs], with bh = h mod bs
/// and bw = w mod bs, C' the output's channels.
struct DepthToSpaceLowering : public OpRewritePattern<DepthToSpaceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DepthToSpaceOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op) || op.getType().getRank() != 4)
      return rewriter.notifyMatchFailure(op, "dynamic shapes or not NCHW");
    int64_t bs = op.getBlockSize(), channels = op.getType().getDimSize(1);
    bool dcr = op.getMode() == "DCR";
    Value result = readAtComputedIndices(
        rewriter, op.getLoc(), op.getType(), op.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> o) -> SmallVector<Value> {
          auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          auto mul = [&](Value a, int64_t k) { return arith::MulIOp::create(b, l, a, index(k)); };
          Value bh = arith::RemUIOp::create(b, l, o[2], index(bs)),
                bw = arith::RemUIOp::create(b, l, o[3], index(bs));
          Value channel =
              dcr ? arith::AddIOp::create(b, l, arith::AddIOp::create(b, l, mul(bh, bs * channels),
                                                                        mul(bw, channels)),
                                          o[1])
                  : arith::AddIOp::create(b, l, arith::AddIOp::create(b, l, mul(o[1], bs * bs),
                                                                        mul(bh, bs)),
                                          bw);
          return {o[0], channel, arith::DivUIOp::create(b, l, o[2], index(bs)),
                  arith::DivUIOp::create(b, l, o[3], index(bs))};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// SpaceToDepth (NCHW): out[n, (bh*bs + bw)*C + c, h, w] = x[n, c, h*bs + bh,
/// w*bs + bw], C the input's channels.
struct SpaceToDepthLowering : public OpRewritePattern<SpaceToDepthOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SpaceToDepthOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op) || op.getType().getRank() != 4)
      return rewriter.notifyMatchFailure(op, "dynamic shapes or not NCHW");
    int64_t bs = op.getBlockSize();
    int64_t channels = cast<RankedTensorType>(op.getInput().getType()).getDimSize(1);
    Value result = readAtComputedIndices(
        rewriter, op.getLoc(), op.getType(), op.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> o) -> SmallVector<Value> {
          auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          Value block = arith::DivUIOp::create(b, l, o[1], index(channels));
          Value bh = arith::DivUIOp::create(b, l, block, index(bs)),
                bw = arith::RemUIOp::create(b, l, block, index(bs));
          auto at = [&](Value pos, Value offset) {
            return arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, pos, index(bs)), offset);
          };
          return {o[0], arith::RemUIOp::create(b, l, o[1], index(channels)), at(o[2], bh),
                  at(o[3], bw)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Tile: out[i...] = x[i mod n...] for every dim repeated.
struct TileLowering : public OpRewritePattern<TileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Value result = readAtComputedIndices(
        rewriter, op.getLoc(), op.getType(), op.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> o) -> SmallVector<Value> {
          SmallVector<Value> indices;
          for (auto [i, out] : llvm::enumerate(o)) {
            int64_t n = inputType.getDimSize(i);
            indices.push_back(op.getType().getDimSize(i) == n
                                  ? out
                                  : arith::RemUIOp::create(b, l, out, arith::ConstantIndexOp::create(b, l, n))
                                        .getResult());
          }
          return indices;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherND: out[i..., j...] = data[i_0..i_{b-1}, indices[i..., 0..m-1],
/// j...], with b the batch dims (the leading dims of both), i the indices'
/// positions and j the data's trailing dims. Each index is read from
/// `indices` in the body, wrapped when negative and clamped into the data.
struct GatherNDLowering : public OpRewritePattern<GatherNDOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherNDOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    auto dataType = cast<RankedTensorType>(op.getData().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t batch = op.getBatchDims(), positions = indicesType.getRank() - 1;
    int64_t depth = indicesType.getShape().back();
    if (batch + depth > dataType.getRank())
      return rewriter.notifyMatchFailure(op, "index tuples longer than the data's rank");
    Value result = buildIndexed(
        rewriter, op.getLoc(), op.getType(), [&](OpBuilder &b, Location l, ArrayRef<Value> out) -> Value {
          auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
          SmallVector<Value> at(out.take_front(positions));
          at.push_back(nullptr);
          SmallVector<Value> dataIndices(out.take_front(batch));
          for (int64_t k = 0; k < depth; ++k) {
            at.back() = index(k);
            int64_t dim = dataType.getDimSize(batch + k);
            dataIndices.push_back(
                wrappedIndex(b, l, tensor::ExtractOp::create(b, l, op.getIndices(), at), dim));
          }
          llvm::append_range(dataIndices, out.drop_front(positions));
          return tensor::ExtractOp::create(b, l, op.getData(), dataIndices);
        });
    rewriter.replaceOp(op, result);
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
               PadLowering, ExpandLowering, ConstantOfShapeLowering, TriluLowering,
               GatherElementsLowering, DepthToSpaceLowering, SpaceToDepthLowering, TileLowering,
               GatherNDLowering>(patterns.getContext());
}
