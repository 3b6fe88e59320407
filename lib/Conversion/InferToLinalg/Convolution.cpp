//===- Convolution.cpp - Conv, pooling and global pooling to linalg -------===//
//
// Convolutions and pools are linalg.generic ops over (n, c, out..., [c',]
// window...) reading a tensor.pad'ed input through strided, dilated maps.
// Grouped convolutions index the input channel as (m floordiv M/G) * C/G +
// c', so one generic covers plain, grouped and depthwise convolutions and
// any number of spatial dims.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"

#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

namespace {

/// Pads the spatial dims (2..) of an NC... tensor with `value`; `lows` and
/// `highs` hold one entry per spatial dim.
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> lows,
                 ArrayRef<int64_t> highs, Value value) {
  if (llvm::all_of(lows, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(highs, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  llvm::append_range(low, lows);
  llvm::append_range(high, highs);
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 2; i < shape.size(); ++i)
    shape[i] += low[i] + high[i];
  auto padType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (size_t i = 0; i < low.size(); ++i) {
    lowOfr.push_back(b.getIndexAttr(low[i]));
    highOfr.push_back(b.getIndexAttr(high[i]));
  }
  return tensor::PadOp::create(b, loc, padType, input, lowOfr, highOfr, value);
}

/// The starting value of a convolution's accumulator: the bias broadcast
/// along dim 1 (output channels), or zero.
Value accumulatorInit(OpBuilder &b, Location loc, RankedTensorType resultType, Value bias) {
  Type et = resultType.getElementType();
  if (!bias)
    return filledTensor(b, loc, resultType, scalarConstant(b, loc, et, 0));
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{bias},
             ValueRange{emptyTensor(b, loc, resultType)}, maps,
             SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) { linalg::YieldOp::create(nb, l, args[0]); })
      .getResult(0);
}

/// The multiply-accumulate linalg.generic of a convolution: `inputs[0]` (the
/// padded input) times `inputs[1]` (the weight) summed into `init`; further
/// inputs only bound loop dims. `maps` holds one map per input, then init's.
Value buildConvAccumulate(OpBuilder &b, Location loc, Value init, ValueRange inputs,
                          ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators) {
  unsigned accumulator = inputs.size();
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iterators,
             [accumulator](OpBuilder &nb, Location l, ValueRange args) {
               Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
               linalg::YieldOp::create(
                   nb, l, ValueRange{arith::AddFOp::create(nb, l, args[accumulator], product)});
             })
      .getResult(0);
}

struct ConvLowering : public OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getInput().getType(), w = op.getWeight().getType();
    RankedTensorType resultType = op.getType();
    Type et = resultType.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer convolution");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t spatial = x.getRank() - 2;
    int64_t group = op.getGroup();
    int64_t m = w.getDimSize(0), cPerGroup = w.getDimSize(1), mPerGroup = m / group;
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads();
    Value padded = padSpatial(rewriter, loc, op.getInput(), pads.take_front(spatial),
                              pads.drop_front(spatial), scalarConstant(rewriter, loc, et, 0));
    // Loop dims: n, m, out_0..out_{s-1}, c', then one per window dim of
    // size > 1. Size-1 window dims get no loop, so that a 1x1 stride-1
    // convolution has projected-permutation maps: a contraction the CPU
    // back end tiles and vectorizes like a matmul.
    SmallVector<int64_t> windowDims;
    for (int64_t i = 0; i < spatial; ++i)
      if (w.getDimSize(2 + i) != 1)
        windowDims.push_back(i);
    // A strided dim without a window (a residual block's 1x1 stride-2
    // projection) reads every s-th input element: take those with one strided
    // tensor.extract_slice, so the maps stay projected permutations and
    // the convolution stays a contraction the back end vectorizes.
    SmallVector<int64_t> effectiveStrides(strides);
    if (llvm::any_of(llvm::seq<int64_t>(0, spatial),
                     [&](int64_t i) { return strides[i] != 1 && w.getDimSize(2 + i) == 1; })) {
      auto paddedType = cast<RankedTensorType>(padded.getType());
      SmallVector<OpFoldResult> offsets(paddedType.getRank(), rewriter.getIndexAttr(0)), sizes,
          steps(paddedType.getRank(), rewriter.getIndexAttr(1));
      for (int64_t dim : paddedType.getShape())
        sizes.push_back(rewriter.getIndexAttr(dim));
      for (int64_t i = 0; i < spatial; ++i)
        if (strides[i] != 1 && w.getDimSize(2 + i) == 1) {
          sizes[2 + i] = rewriter.getIndexAttr(resultType.getDimSize(2 + i));
          steps[2 + i] = rewriter.getIndexAttr(strides[i]);
          effectiveStrides[i] = 1;
        }
      padded = tensor::ExtractSliceOp::create(rewriter, loc, padded, offsets, sizes, steps);
    }
    strides = effectiveStrides;
    if (windowDims.empty() && group == 1 && spatial > 1)
      return contractOverPositions(rewriter, op, padded,
                                   accumulatorInit(rewriter, loc, resultType, op.getBias()), {});
    unsigned numDims = 3 + spatial + windowDims.size();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    AffineExpr cIndex = d(1).floorDiv(mPerGroup) * cPerGroup + d(2 + spatial);
    if (group == 1)
      cIndex = d(2 + spatial);
    SmallVector<AffineExpr> inExprs = {d(0), cIndex}, wExprs = {d(1), d(2 + spatial)},
                            outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      auto window = llvm::find(windowDims, i);
      AffineExpr inIndex = d(2 + i) * strides[i];
      if (window != windowDims.end()) {
        AffineExpr k = d(3 + spatial + (window - windowDims.begin()));
        inIndex = inIndex + k * dilations[i];
        wExprs.push_back(k);
      } else {
        wExprs.push_back(getAffineConstantExpr(0, ctx));
      }
      inExprs.push_back(inIndex);
      outExprs.push_back(d(2 + i));
    }
    SmallVector<utils::IteratorType> iterators(2 + spatial, utils::IteratorType::parallel);
    iterators.append(1 + windowDims.size(), utils::IteratorType::reduction);
    Value init = accumulatorInit(rewriter, loc, resultType, op.getBias());
    if (group == 1 && !windowDims.empty())
      if (Value col = im2col(rewriter, loc, padded, resultType, windowDims, w, strides, dilations))
        return contractOverPositions(rewriter, op, col, init, windowDims);
    Value result = buildConvAccumulate(rewriter, loc, init, ValueRange{padded, op.getWeight()},
                                       {AffineMap::get(numDims, 0, inExprs, ctx),
                                        AffineMap::get(numDims, 0, wExprs, ctx),
                                        AffineMap::get(numDims, 0, outExprs, ctx)},
                                       iterators);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Output positions flattened: [n, m, out_0, ..., out_{s-1}] -> [n, m, p].
  static SmallVector<ReassociationIndices> flattenSpatial(int64_t rank, int64_t keep = 2) {
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < keep; ++i)
      groups.push_back({i});
    groups.emplace_back();
    for (int64_t i = keep; i < rank; ++i)
      groups.back().push_back(i);
    return groups;
  }

  /// An ungrouped convolution as a contraction over its output positions
  /// flattened into one dim p, which becomes the tile's vector dim (56x56
  /// maps give 3136 positions, whole 16-lane tiles; 14x14 ones 196, instead
  /// of rows of 14 lanes):
  ///   with windows: out[n, m, p] += col[n, c', k..., p] · w[m, c', k...],
  ///                 `source` the im2col copy (indexed n, c', k_j..., out_i...);
  ///   without (1x1, after the strided slice): out[n, m, p] += x[n, c', p] ·
  ///                 w[m, c'], `source` the input and the weight flattened.
  static LogicalResult contractOverPositions(PatternRewriter &rewriter, ConvOp op, Value source,
                                             Value init, ArrayRef<int64_t> windowDims) {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType resultType = op.getType();
    int64_t spatial = resultType.getRank() - 2, windows = windowDims.size();
    auto sourceType = cast<RankedTensorType>(source.getType());
    Value sourceFlat = tensor::CollapseShapeOp::create(
        rewriter, loc, source, flattenSpatial(sourceType.getRank(), 2 + windows));
    // The weight without its unit window dims, each merged into the dim
    // before it: [m, c', 1...] -> [m, c'], and a 1x3 window's [m, c', 1, 3]
    // -> [m, c', 3]. Read at a constant 0 instead, its map would be no
    // projected permutation, and the op no contraction to either back end:
    // scalar loops on the CPU, block reductions on the GPU.
    Value weight = op.getWeight();
    SmallVector<ReassociationIndices> weightGroups = {{0}, {1}};
    for (int64_t i = 0; i < spatial; ++i) {
      if (llvm::is_contained(windowDims, i))
        weightGroups.push_back({});
      weightGroups.back().push_back(2 + i);
    }
    if (weightGroups.size() != static_cast<size_t>(2 + spatial))
      weight = tensor::CollapseShapeOp::create(rewriter, loc, weight, weightGroups);
    SmallVector<ReassociationIndices> outFlatten = flattenSpatial(resultType.getRank());
    Value initFlat = tensor::CollapseShapeOp::create(rewriter, loc, init, outFlatten);
    // Loop dims: n, m, p, c', k_j...
    unsigned numDims = 4 + windows;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> sourceExprs = {d(0), d(3)}, wExprs = {d(1), d(3)};
    for (int64_t j = 0; j < windows; ++j)
      sourceExprs.push_back(d(4 + j));
    sourceExprs.push_back(d(2));
    for (int64_t j = 0; j < windows; ++j)
      wExprs.push_back(d(4 + j));
    SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
    iterators.append(1 + windows, utils::IteratorType::reduction);
    Value flat = buildConvAccumulate(
        rewriter, loc, initFlat, ValueRange{sourceFlat, weight},
        {AffineMap::get(numDims, 0, sourceExprs, ctx), AffineMap::get(numDims, 0, wExprs, ctx),
         AffineMap::get(numDims, 0, {d(0), d(1), d(2)}, ctx)},
        iterators);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, flat, outFlatten);
    return success();
  }



  /// The im2col copy of an ungrouped convolution's padded input:
  /// col[n, c, k_j..., out_i...] = padded[n, c, out_i * s_i + k_i * d_i]
  /// (k_i only for the window dims of size > 1). Its maps are all
  /// projected permutations, so the convolution becomes a contraction that
  /// the CPU back end vectorizes, as ONNX Runtime's im2col + GEMM does.
  /// Null when the copy would exceed 256 MiB.
  static Value im2col(OpBuilder &b, Location loc, Value padded, RankedTensorType resultType,
                      ArrayRef<int64_t> windowDims, RankedTensorType w,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
    auto paddedType = cast<RankedTensorType>(padded.getType());
    int64_t spatial = paddedType.getRank() - 2;
    SmallVector<int64_t> shape = {paddedType.getDimSize(0), paddedType.getDimSize(1)};
    for (int64_t i : windowDims)
      shape.push_back(w.getDimSize(2 + i));
    for (int64_t i = 0; i < spatial; ++i)
      shape.push_back(resultType.getDimSize(2 + i));
    auto colType = RankedTensorType::get(shape, paddedType.getElementType());
    int64_t bytes = colType.getNumElements() * (colType.getElementTypeBitWidth() / 8);
    if (bytes > (int64_t(256) << 20))
      return {};
    MLIRContext *ctx = b.getContext();
    unsigned rank = shape.size(), windows = windowDims.size();
    auto e = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> readExprs = {e(0), e(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr index = e(2 + windows + i) * strides[i];
      auto window = llvm::find(windowDims, i);
      if (window != windowDims.end())
        index = index + e(2 + (window - windowDims.begin())) * dilations[i];
      readExprs.push_back(index);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, readExprs, ctx),
                                   b.getMultiDimIdentityMap(rank)};
    return linalg::GenericOp::create(
               b, loc, TypeRange{colType}, ValueRange{padded},
               ValueRange{emptyTensor(b, loc, colType)}, maps,
               SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
               [](OpBuilder &nb, Location l, ValueRange args) {
                 linalg::YieldOp::create(nb, l, args[0]);
               })
        .getResult(0);
  }
};

/// Whether `op`'s windows tile its output: kernel = stride, no pads,
/// dilations or output padding, one group (the 2x upsampling of U-Nets and
/// of text detectors' heads). Each output element is then one tap of one input
/// position.
bool windowsTileOutput(ConvTransposeOp op) {
  ArrayRef<int64_t> kernel = op.getWeight().getType().getShape().drop_front(2);
  auto isZero = [](int64_t v) { return v == 0; };
  return op.getGroup() == 1 && op.getStrides() == kernel &&
         llvm::all_of(op.getDilations(), [](int64_t v) { return v == 1; }) &&
         llvm::all_of(op.getPads(), isZero) && llvm::all_of(op.getOutputPadding(), isZero);
}

/// A ConvTranspose whose windows tile its output (windowsTileOutput) as a
/// contraction over the input channels alone, with the output viewed as
/// [n, m, i_0, a_0, i_1, a_1, ...] (i the input position, a the tap; the
/// same elements in the same order as [n, m, i_0·k_0 + a_0, ...]):
///   out[n, m, i_0, a_0, ...] = bias[m] + Σ_c x[n, c, i_0, ...] · w[c, m, a_0, ...].
/// The stride-1 convolution below would spread the input with zeros and
/// multiply them too: 3 products in 4 for a 2x2 kernel, through an im2col
/// copy 4 times the output's size.
Value tiledConvTranspose(OpBuilder &b, Location loc, ConvTransposeOp op) {
  RankedTensorType x = op.getInput().getType(), w = op.getWeight().getType();
  RankedTensorType resultType = op.getType();
  MLIRContext *ctx = b.getContext();
  int64_t spatial = x.getRank() - 2;
  SmallVector<int64_t> shape(resultType.getShape().take_front(2));
  SmallVector<ReassociationIndices> groups = {{0}, {1}};
  for (int64_t i = 0; i < spatial; ++i) {
    shape.append({x.getDimSize(2 + i), w.getDimSize(2 + i)});
    groups.push_back({2 + 2 * i, 3 + 2 * i});
  }
  auto tiledType = RankedTensorType::get(shape, resultType.getElementType());
  Value init = tensor::ExpandShapeOp::create(
      b, loc, tiledType, accumulatorInit(b, loc, resultType, op.getBias()), groups);
  // Loop dims: n, m, (i_j, a_j)..., c.
  unsigned numDims = 3 + 2 * spatial;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr c = d(numDims - 1);
  SmallVector<AffineExpr> xExprs = {d(0), c}, wExprs = {c, d(1)}, outExprs = {d(0), d(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    xExprs.push_back(d(2 + 2 * i));
    wExprs.push_back(d(3 + 2 * i));
    outExprs.append({d(2 + 2 * i), d(3 + 2 * i)});
  }
  SmallVector<utils::IteratorType> iterators(numDims - 1, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value tiled = buildConvAccumulate(b, loc, init, ValueRange{op.getInput(), op.getWeight()},
                                    {AffineMap::get(numDims, 0, xExprs, ctx),
                                     AffineMap::get(numDims, 0, wExprs, ctx),
                                     AffineMap::get(numDims, 0, outExprs, ctx)},
                                    iterators);
  return tensor::CollapseShapeOp::create(b, loc, resultType, tiled, groups);
}

/// ConvTranspose as a stride-1 convolution: the input is spread out by the
/// stride (zeros between elements, one strided tensor.insert_slice) and
/// padded by (k - 1) * d minus the pads, and the weight is read flipped with
/// its two channel dims swapped. Ungrouped, that is an infer.conv on a
/// flipped copy of the weight, lowered like any other (im2col and a
/// vectorized contraction, many times faster on the CPU than the scalar
/// loop nest the grouped form below still gets).
struct ConvTransposeLowering : public OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTransposeOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getInput().getType(), w = op.getWeight().getType();
    RankedTensorType resultType = op.getType();
    Type et = resultType.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer convolution");
    Location loc = op.getLoc();
    if (windowsTileOutput(op)) {
      rewriter.replaceOp(op, tiledConvTranspose(rewriter, loc, op));
      return success();
    }
    MLIRContext *ctx = op.getContext();
    int64_t spatial = x.getRank() - 2, group = op.getGroup();
    int64_t cPerGroup = w.getDimSize(0) / group, mPerGroup = w.getDimSize(1);
    ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations(),
                      pads = op.getPads(), outPad = op.getOutputPadding();
    SmallVector<int64_t> shape(x.getShape().take_front(2)), lows, kernel;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t k = w.getDimSize(i + 2), span = (k - 1) * dilations[i];
      int64_t low = span - pads[i];
      int64_t high = span - pads[i + spatial] + outPad[i];
      if (low < 0 || high < 0)
        return rewriter.notifyMatchFailure(op, "pads larger than the kernel extent");
      lows.push_back(low);
      kernel.push_back(k);
      shape.push_back((x.getDimSize(i + 2) - 1) * strides[i] + 1 + low + high);
    }
    auto spreadType = RankedTensorType::get(shape, et);
    Value zeros = filledTensor(rewriter, loc, spreadType, scalarConstant(rewriter, loc, et, 0));
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
                              sizes, steps = {rewriter.getIndexAttr(1), rewriter.getIndexAttr(1)};
    for (int64_t d : x.getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    for (int64_t i = 0; i < spatial; ++i) {
      offsets.push_back(rewriter.getIndexAttr(lows[i]));
      steps.push_back(rewriter.getIndexAttr(strides[i]));
    }
    Value spread = tensor::InsertSliceOp::create(rewriter, loc, op.getInput(), zeros, offsets,
                                                 sizes, steps);
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    if (group == 1) {
      // flipped[m, c, k...] = w[c, m, K - 1 - k...]
      SmallVector<int64_t> flippedShape = {mPerGroup, cPerGroup};
      llvm::append_range(flippedShape, kernel);
      auto flippedType = RankedTensorType::get(flippedShape, et);
      SmallVector<AffineExpr> readExprs = {d(1), d(0)};
      for (int64_t i = 0; i < spatial; ++i)
        readExprs.push_back(getAffineConstantExpr(kernel[i] - 1, ctx) - d(2 + i));
      unsigned rank = flippedShape.size();
      Value flipped =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{flippedType}, ValueRange{op.getWeight()},
              ValueRange{emptyTensor(rewriter, loc, flippedType)},
              ArrayRef<AffineMap>{AffineMap::get(rank, 0, readExprs, ctx),
                                  rewriter.getMultiDimIdentityMap(rank)},
              SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
              [](OpBuilder &nb, Location l, ValueRange args) {
                linalg::YieldOp::create(nb, l, args[0]);
              })
              .getResult(0);
      rewriter.replaceOpWithNewOp<ConvOp>(
          op, resultType, spread, flipped, op.getBias(),
          rewriter.getDenseI64ArrayAttr(SmallVector<int64_t>(spatial, 1)),
          rewriter.getDenseI64ArrayAttr(SmallVector<int64_t>(2 * spatial, 0)),
          rewriter.getDenseI64ArrayAttr(dilations), rewriter.getI64IntegerAttr(1));
      return success();
    }
    // Loop dims: n, m, out..., c', k...
    unsigned numDims = 3 + 2 * spatial;
    AffineExpr g = d(1).floorDiv(mPerGroup);
    SmallVector<AffineExpr> inExprs = {d(0), g * cPerGroup + d(2 + spatial)};
    SmallVector<AffineExpr> wExprs = {g * cPerGroup + d(2 + spatial), d(1) % mPerGroup};
    SmallVector<AffineExpr> outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      inExprs.push_back(d(2 + i) + d(3 + spatial + i) * dilations[i]);
      wExprs.push_back(getAffineConstantExpr(kernel[i] - 1, ctx) - d(3 + spatial + i));
      outExprs.push_back(d(2 + i));
    }
    SmallVector<utils::IteratorType> iterators(2 + spatial, utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);
    Value init = accumulatorInit(rewriter, loc, resultType, op.getBias());
    // The flipped weight map has no plain c' or k dims, from which linalg
    // derives loop bounds: an unused operand of shape [C/G, k...] gives them.
    SmallVector<int64_t> extentShape = {cPerGroup};
    llvm::append_range(extentShape, kernel);
    SmallVector<AffineExpr> extentExprs = {d(2 + spatial)};
    for (int64_t i = 0; i < spatial; ++i)
      extentExprs.push_back(d(3 + spatial + i));
    Value extent = tensor::EmptyOp::create(rewriter, loc, extentShape, et);
    Value result = buildConvAccumulate(rewriter, loc, init,
                                       ValueRange{spread, op.getWeight(), extent},
                                       {AffineMap::get(numDims, 0, inExprs, ctx),
                                        AffineMap::get(numDims, 0, wExprs, ctx),
                                        AffineMap::get(numDims, 0, extentExprs, ctx),
                                        AffineMap::get(numDims, 0, outExprs, ctx)},
                                       iterators);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Where output index `o` (as f32) of a resized dim samples the input, in
/// input coordinates, per ONNX's coordinate_transformation_mode.
Value sourceCoordinate(OpBuilder &b, Location l, Value o, StringRef ctm, double scale, int64_t in,
                       int64_t out) {
  Type f32 = b.getF32Type();
  auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
  if (ctm == "asymmetric")
    return arith::DivFOp::create(b, l, o, c(scale));
  if (ctm == "align_corners")
    return arith::MulFOp::create(b, l, o, c(out > 1 ? double(in - 1) / (out - 1) : 0.0));
  if (ctm == "pytorch_half_pixel" && out == 1)
    return c(0);
  // half_pixel, pytorch_half_pixel, half_pixel_symmetric. The last centers
  // the sampled grid: ONNX adds in/2 * (1 - floor(scale * in) / (scale * in)).
  double offset = 0.0;
  if (ctm == "half_pixel_symmetric") {
    double outWidth = scale * in;
    offset = in / 2.0 * (1.0 - std::floor(outWidth) / outWidth);
  }
  Value shifted = arith::AddFOp::create(b, l, o, c(0.5));
  return arith::SubFOp::create(b, l, arith::DivFOp::create(b, l, shifted, c(scale)),
                               c(0.5 - offset));
}

/// An f32 coordinate rounded down or up already, as an index clamped into
/// [0, in - 1].
Value clampedIndex(OpBuilder &b, Location l, Value whole, int64_t in) {
  Value idx = arith::FPToSIOp::create(b, l, b.getI64Type(), whole);
  idx = arith::IndexCastOp::create(b, l, b.getIndexType(), idx);
  idx = arith::MaxSIOp::create(b, l, idx, arith::ConstantIndexOp::create(b, l, 0));
  return arith::MinSIOp::create(b, l, idx, arith::ConstantIndexOp::create(b, l, in - 1));
}

/// Resize, nearest and linear; shapes are static, so each dim's scale is a
/// constant. Each output element finds its source coordinate in every
/// resized dim (per coordinate_transformation_mode). Nearest reads the
/// element nearest to it (per nearest_mode). Linear reads the two elements
/// around it in each resized dim, the 2^d corners weighted by the products
/// of their distances' complements (bilinear for 2 dims); a coordinate
/// outside the input reads its edge, as ONNX's reference pads it.
struct ResizeLowering : public OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ResizeOp op, PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    StringRef mode = op.getMode();
    RankedTensorType x = op.getInput().getType(), resultType = op.getType();
    if (mode != "nearest" && !(mode == "linear" && x.getElementType().isF32()))
      return rewriter.notifyMatchFailure(op, "only nearest, and linear on f32, resize is lowered yet");
    int64_t rank = x.getRank();
    SmallVector<double> scales;
    if (Value s = op.getScales()) {
      DenseFPElementsAttr attr;
      if (!matchPattern(s, m_Constant(&attr)))
        return rewriter.notifyMatchFailure(op, "non-constant scales");
      for (APFloat v : attr.getValues<APFloat>())
        scales.push_back(v.convertToDouble());
    } else {
      for (int64_t i = 0; i < rank; ++i)
        scales.push_back(double(resultType.getDimSize(i)) / x.getDimSize(i));
    }
    StringRef ctm = op.getCoordinateTransformationMode(), nearest = op.getNearestMode();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value result = buildIndexed(
        rewriter, loc, resultType, [&](OpBuilder &b, Location l, ArrayRef<Value> outIndices) -> Value {
          auto c = [&](double v) { return scalarConstant(b, l, f32, v); };
          // Per dim: the index below (or the nearest one), and for linear
          // the index above with its weight (null for a dim not resized).
          SmallVector<Value> below, above, weightAbove;
          for (int64_t i = 0; i < rank; ++i) {
            Value out = outIndices[i];
            int64_t in = x.getDimSize(i), outDim = resultType.getDimSize(i);
            if (in == outDim && scales[i] == 1.0) {
              below.push_back(out);
              above.push_back(nullptr);
              weightAbove.push_back(nullptr);
              continue;
            }
            Value o = arith::SIToFPOp::create(b, l, f32, arith::IndexCastOp::create(b, l, b.getI64Type(), out));
            Value coord = sourceCoordinate(b, l, o, ctm, scales[i], in, outDim);
            if (mode == "linear") {
              Value floor = math::FloorOp::create(b, l, coord);
              below.push_back(clampedIndex(b, l, floor, in));
              above.push_back(clampedIndex(b, l, arith::AddFOp::create(b, l, floor, c(1)), in));
              weightAbove.push_back(arith::SubFOp::create(b, l, coord, floor));
              continue;
            }
            Value rounded;
            if (nearest == "floor") {
              rounded = math::FloorOp::create(b, l, coord);
            } else if (nearest == "ceil") {
              rounded = math::CeilOp::create(b, l, coord);
            } else if (nearest == "round_prefer_ceil") {
              rounded = math::FloorOp::create(b, l, arith::AddFOp::create(b, l, coord, c(0.5)));
            } else { // round_prefer_floor
              rounded = math::CeilOp::create(b, l, arith::SubFOp::create(b, l, coord, c(0.5)));
            }
            below.push_back(clampedIndex(b, l, rounded, in));
            above.push_back(nullptr);
            weightAbove.push_back(nullptr);
          }
          // Every corner: for each resized dim, below or above.
          SmallVector<int64_t> resized;
          for (int64_t i = 0; i < rank; ++i)
            if (above[i])
              resized.push_back(i);
          Value sum;
          for (int64_t corner = 0; corner < (int64_t(1) << resized.size()); ++corner) {
            SmallVector<Value> indices = below;
            Value weight;
            for (auto [bit, dim] : llvm::enumerate(resized)) {
              bool up = corner >> bit & 1;
              if (up)
                indices[dim] = above[dim];
              Value w = up ? weightAbove[dim] : arith::SubFOp::create(b, l, c(1), weightAbove[dim]);
              weight = weight ? arith::MulFOp::create(b, l, weight, w).getResult() : w;
            }
            Value v = tensor::ExtractOp::create(b, l, op.getInput(), indices);
            if (weight)
              v = arith::MulFOp::create(b, l, v, weight);
            sum = sum ? arith::AddFOp::create(b, l, sum, v).getResult() : v;
          }
          return sum;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Max and average pooling. The window dims are iterated through an extra
/// (uninitialized) input of the window's shape, as linalg's pooling ops do.
template <typename OpTy>
struct PoolLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getInput().getType(), resultType = op.getType();
    Type et = resultType.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer pooling");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t spatial = x.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernelShape(), strides = op.getStrides(),
                      dilations = op.getDilations(), pads = op.getPads();
    // With ceil_mode the last window may hang past the end padding: pad more
    // so every window is in bounds (those extra cells never count below).
    SmallVector<int64_t> lows(pads.take_front(spatial)), highs(pads.drop_front(spatial));
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t need = (resultType.getDimSize(i + 2) - 1) * strides[i] +
                     (kernel[i] - 1) * dilations[i] + 1;
      int64_t have = x.getDimSize(i + 2) + lows[i] + highs[i];
      if (need > have)
        highs[i] += need - have;
    }
    double padValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value padded = padSpatial(rewriter, loc, op.getInput(), lows, highs,
                              scalarConstant(rewriter, loc, et, padValue));
    unsigned numDims = 2 + 2 * spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1)}, winExprs, outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      inExprs.push_back(d(2 + i) * strides[i] + d(2 + spatial + i) * dilations[i]);
      winExprs.push_back(d(2 + spatial + i));
      outExprs.push_back(d(2 + i));
    }
    SmallVector<utils::IteratorType> iterators(2 + spatial, utils::IteratorType::parallel);
    iterators.append(spatial, utils::IteratorType::reduction);
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, et);
    Value init = filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, et, padValue));
    Value pooled = linalg::GenericOp::create(
                       rewriter, loc, TypeRange{resultType}, ValueRange{padded, window},
                       ValueRange{init},
                       ArrayRef<AffineMap>{AffineMap::get(numDims, 0, inExprs, ctx),
                                           AffineMap::get(numDims, 0, winExprs, ctx),
                                           AffineMap::get(numDims, 0, outExprs, ctx)},
                       iterators,
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value r = isMax ? Value(arith::MaximumFOp::create(b, l, args[2], args[0]))
                                         : Value(arith::AddFOp::create(b, l, args[2], args[0]));
                         linalg::YieldOp::create(b, l, r);
                       })
                       .getResult(0);
    if constexpr (!isMax) {
      // Divide by the number of cells each window covers: all of them with
      // count_include_pad (but never the ceil_mode overhang), else only
      // those inside the input. Shapes are static, so the counts are a
      // constant tensor over the output's spatial dims.
      bool includePad = op.getCountIncludePad();
      SmallVector<int64_t> outSpatial(resultType.getShape().drop_front(2));
      int64_t total = 1;
      for (int64_t s : outSpatial)
        total *= s;
      SmallVector<float> counts(total);
      for (int64_t flat = 0; flat < total; ++flat) {
        int64_t rem = flat, count = 1;
        for (int64_t i = spatial - 1; i >= 0; --i) {
          int64_t o = rem % outSpatial[i];
          rem /= outSpatial[i];
          int64_t lo = includePad ? -pads[i] : 0;
          int64_t hi = includePad ? x.getDimSize(i + 2) + pads[i + spatial]
                                  : x.getDimSize(i + 2);
          int64_t cells = 0;
          for (int64_t k = 0; k < kernel[i]; ++k) {
            int64_t pos = o * strides[i] + k * dilations[i] - pads[i];
            cells += pos >= lo && pos < hi;
          }
          count *= std::max<int64_t>(cells, 1);
        }
        counts[flat] = static_cast<float>(count);
      }
      // The counts are small integers: exact in every float type.
      auto countType = RankedTensorType::get(outSpatial, et);
      SmallVector<APFloat> countValues;
      for (float c : counts) {
        APFloat v(c);
        bool lost;
        v.convert(cast<FloatType>(et).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        countValues.push_back(v);
      }
      Value countTensor = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(countType, countValues));
      pooled = buildElementwise(rewriter, loc, resultType, ValueRange{pooled, countTensor},
                                [](OpBuilder &b, Location l, ValueRange args) -> Value {
                                  return arith::DivFOp::create(b, l, args[0], args[1]);
                                });
    }
    rewriter.replaceOp(op, pooled);
    return success();
  }
};

/// Global pools reduce every spatial dim into a 1-sized one.
template <typename OpTy>
struct GlobalPoolLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    constexpr bool isMax = std::is_same_v<OpTy, GlobalMaxPoolOp>;
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    RankedTensorType x = op.getInput().getType(), resultType = op.getType();
    Type et = resultType.getElementType();
    if (!isa<FloatType>(et))
      return rewriter.notifyMatchFailure(op, "integer pooling");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    int64_t rank = x.getRank();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> outExprs = {d(0), d(1)};
    for (int64_t i = 2; i < rank; ++i)
      outExprs.push_back(getAffineConstantExpr(0, ctx));
    SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
    iterators.append(rank - 2, utils::IteratorType::reduction);
    double initValue = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    Value init = filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, et, initValue));
    Value reduced = linalg::GenericOp::create(
                        rewriter, loc, TypeRange{resultType}, ValueRange{op.getInput()},
                        ValueRange{init},
                        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank),
                                            AffineMap::get(rank, 0, outExprs, ctx)},
                        iterators,
                        [&](OpBuilder &b, Location l, ValueRange args) {
                          Value r = isMax ? Value(arith::MaximumFOp::create(b, l, args[1], args[0]))
                                          : Value(arith::AddFOp::create(b, l, args[1], args[0]));
                          linalg::YieldOp::create(b, l, r);
                        })
                        .getResult(0);
    if constexpr (!isMax) {
      double count = 1;
      for (int64_t i = 2; i < rank; ++i)
        count *= x.getDimSize(i);
      reduced = buildElementwise(rewriter, loc, resultType, reduced,
                                 [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                                   return arith::DivFOp::create(b, l, args[0],
                                                                scalarConstant(b, l, et, count));
                                 });
    }
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

} // namespace

void mlir::infer::populateConvolutionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvLowering, ConvTransposeLowering, ResizeLowering, PoolLowering<MaxPoolOp>, PoolLowering<AveragePoolOp>,
               GlobalPoolLowering<GlobalAveragePoolOp>, GlobalPoolLowering<GlobalMaxPoolOp>>(
      patterns.getContext());
}
