//===- NNOps.cpp - ONNX convolution, pooling, normalization, contraction --===//

#include "../NodeContext.h"
#include "../OpRegistry.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

namespace {

/// Padding arithmetic is done in 128 bits: a malformed model's attributes
/// (strides of 2^63 - 1, say) cannot overflow it.
using WideDim = __int128;
bool fitsDim(WideDim v) { return v >= 0 && v <= INT64_MAX; }

/// Window attributes shared by Conv, ConvTranspose and the pools, resolved
/// to explicit per-dim values.
struct Window {
  SmallVector<int64_t> kernel, strides, pads, dilations;
};

/// Reads kernel_shape/strides/pads/dilations/auto_pad. `kernelFromWeight`
/// supplies kernel_shape when the attribute is absent (Conv). Pads come out
/// explicit: auto_pad SAME_* is resolved from the static input dims.
FailureOr<Window> readWindow(NodeContext &ctx, RankedTensorType input,
                             std::optional<SmallVector<int64_t>> kernelFromWeight,
                             bool hasDilations, bool transposed) {
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1)
    return ctx.emitError() << "expects an input of rank >= 3, got " << input;
  Window w;
  ASSIGN_OR_FAIL(w.kernel, ctx.intsAttr("kernel_shape", kernelFromWeight));
  SmallVector<int64_t> ones(spatial, 1), zeros(2 * spatial, 0);
  ASSIGN_OR_FAIL(w.strides, ctx.intsAttr("strides", ones));
  ASSIGN_OR_FAIL(w.pads, ctx.intsAttr("pads", zeros));
  if (hasDilations) {
    ASSIGN_OR_FAIL(w.dilations, ctx.intsAttr("dilations", ones));
  } else {
    w.dilations = ones;
  }
  ASSIGN_OR_FAIL(std::string autoPad, ctx.stringAttr("auto_pad", std::string("NOTSET")));
  if (static_cast<int64_t>(w.kernel.size()) != spatial ||
      static_cast<int64_t>(w.strides.size()) != spatial ||
      static_cast<int64_t>(w.dilations.size()) != spatial ||
      static_cast<int64_t>(w.pads.size()) != 2 * spatial)
    return ctx.emitError() << "kernel_shape, strides and dilations need " << spatial
                           << " values and pads " << 2 * spatial << " for input " << input;
  // Checked here, before the padding arithmetic below uses them; a kernel
  // dim read from a dynamic weight dim stays dynamic (the op infers it).
  auto positive = [](ArrayRef<int64_t> values) {
    return llvm::all_of(values, [](int64_t v) { return v >= 1; });
  };
  if (!llvm::all_of(w.kernel, [](int64_t k) { return k >= 1 || ShapedType::isDynamic(k); }))
    return ctx.emitError() << "kernel_shape values must be positive";
  if (!positive(w.strides) || !positive(w.dilations))
    return ctx.emitError() << "strides and dilations must be positive";
  if (llvm::any_of(w.pads, [](int64_t p) { return p < 0; }))
    return ctx.emitError() << "pads must be non-negative";
  if (autoPad == "NOTSET")
    return w;
  if (autoPad == "VALID") {
    w.pads = zeros;
    return w;
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.emitError() << "unknown auto_pad '" << autoPad << "'";
  if (transposed)
    return ctx.emitError() << "auto_pad " << autoPad
                           << " is not supported for ConvTranspose; give explicit pads";
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = input.getDimSize(i + 2);
    if (ShapedType::isDynamic(in))
      return ctx.emitError() << "auto_pad " << autoPad
                             << " needs static spatial dims; pass --input-shape";
    if (ShapedType::isDynamic(w.kernel[i]))
      return ctx.emitError() << "auto_pad " << autoPad
                             << " needs a static kernel size; give kernel_shape";
    WideDim stride = w.strides[i];
    WideDim out = (in + stride - 1) / stride;
    WideDim wideTotal = std::max<WideDim>(
        0, (out - 1) * stride + WideDim(w.kernel[i] - 1) * w.dilations[i] + 1 - in);
    if (!fitsDim(wideTotal))
      return ctx.emitError() << "auto_pad " << autoPad << " padding overflows int64";
    int64_t total = static_cast<int64_t>(wideTotal);
    int64_t small = total / 2, large = total - small;
    w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    w.pads[i + spatial] = autoPad == "SAME_UPPER" ? large : small;
  }
  return w;
}

LogicalResult importConv(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 3)))
    return failure();
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  std::optional<SmallVector<int64_t>> kernel;
  if (w.getRank() >= 3)
    kernel = SmallVector<int64_t>(w.getShape().drop_front(2));
  ASSIGN_OR_FAIL(Window win, readWindow(ctx, x, kernel, true, false));
  ASSIGN_OR_FAIL(int64_t group, ctx.intAttr("group", 1));
  SmallVector<Value> operands = {ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ConvOp>(operands, {ctx.arrayAttr("strides", win.strides),
                                                         ctx.arrayAttr("pads", win.pads),
                                                         ctx.arrayAttr("dilations", win.dilations),
                                                         ctx.i64Attr("group", group)}));
  return ctx.setOutputs(r);
}

LogicalResult importConvTranspose(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 3)))
    return failure();
  RankedTensorType x = ctx.inputType(0), w = ctx.inputType(1);
  std::optional<SmallVector<int64_t>> kernel;
  if (w.getRank() >= 3)
    kernel = SmallVector<int64_t>(w.getShape().drop_front(2));
  ASSIGN_OR_FAIL(Window win, readWindow(ctx, x, kernel, true, true));
  int64_t spatial = x.getRank() - 2;
  ASSIGN_OR_FAIL(int64_t group, ctx.intAttr("group", 1));
  ASSIGN_OR_FAIL(SmallVector<int64_t> outputPadding,
                 ctx.intsAttr("output_padding", SmallVector<int64_t>(spatial, 0)));
  if (static_cast<int64_t>(outputPadding.size()) != spatial)
    return ctx.emitError() << "output_padding needs " << spatial << " values";
  if (ctx.hasAttr("output_shape")) {
    // Resolve output_shape into pads (ONNX: total padding split begin-low).
    ASSIGN_OR_FAIL(SmallVector<int64_t> outputShape, ctx.intsAttr("output_shape", std::nullopt));
    if (static_cast<int64_t>(outputShape.size()) == spatial + 2)
      outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    if (static_cast<int64_t>(outputShape.size()) != spatial)
      return ctx.emitError() << "output_shape needs " << spatial << " values";
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = x.getDimSize(i + 2);
      if (ShapedType::isDynamic(in))
        return ctx.emitError() << "output_shape needs static spatial dims; pass --input-shape";
      if (ShapedType::isDynamic(win.kernel[i]))
        return ctx.emitError() << "output_shape needs a static kernel size; give kernel_shape";
      WideDim wideTotal = WideDim(win.strides[i]) * (in - 1) + outputPadding[i] +
                          WideDim(win.kernel[i] - 1) * win.dilations[i] + 1 - outputShape[i];
      if (wideTotal < 0)
        return ctx.emitError() << "output_shape " << outputShape[i] << " is not reachable";
      if (!fitsDim(wideTotal))
        return ctx.emitError() << "output_shape " << outputShape[i] << " overflows int64 padding";
      int64_t total = static_cast<int64_t>(wideTotal);
      win.pads[i] = total / 2;
      win.pads[i + spatial] = total - total / 2;
    }
  }
  SmallVector<Value> operands = {ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ConvTransposeOp>(
                              operands, {ctx.arrayAttr("strides", win.strides),
                                         ctx.arrayAttr("pads", win.pads),
                                         ctx.arrayAttr("dilations", win.dilations),
                                         ctx.arrayAttr("output_padding", outputPadding),
                                         ctx.i64Attr("group", group)}));
  return ctx.setOutputs(r);
}

template <typename OpTy>
LogicalResult importPool(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  bool isMax = std::is_same_v<OpTy, MaxPoolOp>;
  if (isMax && ctx.numOutputs() > 1 && !ctx.node().output(1).empty())
    return ctx.emitError() << "the Indices output of MaxPool is not supported";
  bool hasDilations = isMax ? ctx.sinceVersion() >= 10 : ctx.sinceVersion() >= 19;
  ASSIGN_OR_FAIL(Window win, readWindow(ctx, ctx.inputType(0), std::nullopt, hasDilations, false));
  ASSIGN_OR_FAIL(int64_t ceilMode, ctx.intAttr("ceil_mode", 0));
  SmallVector<NamedAttribute> attrs = {
      ctx.arrayAttr("kernel_shape", win.kernel), ctx.arrayAttr("strides", win.strides),
      ctx.arrayAttr("pads", win.pads), ctx.arrayAttr("dilations", win.dilations),
      ctx.boolAttr("ceil_mode", ceilMode != 0)};
  if (isMax) {
    ASSIGN_OR_FAIL(int64_t storageOrder, ctx.intAttr("storage_order", 0));
    (void)storageOrder; // Only affects the Indices output.
  } else {
    ASSIGN_OR_FAIL(int64_t countIncludePad, ctx.intAttr("count_include_pad", 0));
    attrs.push_back(ctx.boolAttr("count_include_pad", countIncludePad != 0));
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)}, attrs));
  return ctx.setOutputs(r);
}

template <typename OpTy>
LogicalResult importGlobalPool(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)}));
  return ctx.setOutputs(r);
}

LogicalResult importBatchNorm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(5, 5)))
    return failure();
  ASSIGN_OR_FAIL(float epsilon, ctx.floatAttr("epsilon", 1e-5f));
  ASSIGN_OR_FAIL(float momentum, ctx.floatAttr("momentum", 0.9f));
  (void)momentum; // Training only.
  if (ctx.sinceVersion() < 9) {
    ASSIGN_OR_FAIL(int64_t spatial, ctx.intAttr("spatial", 1));
    if (spatial != 1)
      return ctx.emitError() << "spatial=0 is not supported";
  }
  ASSIGN_OR_FAIL(int64_t training, ctx.intAttr("training_mode", 0));
  if (training != 0)
    return ctx.emitError() << "training_mode=1 is not supported (inference only)";
  for (int i = 1; i < ctx.numOutputs(); ++i)
    if (!ctx.node().output(i).empty())
      return ctx.emitError() << "the running statistics outputs are not supported (inference only)";
  ASSIGN_OR_FAIL(Value r, ctx.create1<BatchNormOp>({ctx.input(0), ctx.input(1), ctx.input(2),
                                                    ctx.input(3), ctx.input(4)},
                                                   {ctx.f32Attr("epsilon", epsilon)}));
  return ctx.setOutputs(r);
}

LogicalResult importInstanceNorm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(float epsilon, ctx.floatAttr("epsilon", 1e-5f));
  ASSIGN_OR_FAIL(Value r, ctx.create1<InstanceNormOp>({ctx.input(0), ctx.input(1), ctx.input(2)},
                                                      {ctx.f32Attr("epsilon", epsilon)}));
  return ctx.setOutputs(r);
}

LogicalResult importLayerNorm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 3)))
    return failure();
  if (ctx.numOutputs() > 1)
    for (int i = 1; i < ctx.numOutputs(); ++i)
      if (!ctx.node().output(i).empty())
        return ctx.emitError() << "the Mean and InvStdDev outputs are not supported";
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", -1));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(float epsilon, ctx.floatAttr("epsilon", 1e-5f));
  ASSIGN_OR_FAIL(int64_t stashType, ctx.intAttr("stash_type", 1));
  (void)stashType; // Precision of the training-only outputs.
  SmallVector<Value> operands = {ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  ASSIGN_OR_FAIL(Value r, ctx.create1<LayerNormOp>(operands, {ctx.i64Attr("axis", axis),
                                                              ctx.f32Attr("epsilon", epsilon)}));
  return ctx.setOutputs(r);
}

LogicalResult importMatMul(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<MatMulOp>({ctx.input(0), ctx.input(1)}));
  return ctx.setOutputs(r);
}

LogicalResult importGemm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(ctx.sinceVersion() < 11 ? 3 : 2, 3)))
    return failure();
  ASSIGN_OR_FAIL(float alpha, ctx.floatAttr("alpha", 1.0f));
  ASSIGN_OR_FAIL(float beta, ctx.floatAttr("beta", 1.0f));
  ASSIGN_OR_FAIL(int64_t transA, ctx.intAttr("transA", 0));
  ASSIGN_OR_FAIL(int64_t transB, ctx.intAttr("transB", 0));
  SmallVector<Value> operands = {ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  ASSIGN_OR_FAIL(Value r, ctx.create1<GemmOp>(operands, {ctx.f32Attr("alpha", alpha),
                                                         ctx.f32Attr("beta", beta),
                                                         ctx.boolAttr("trans_a", transA != 0),
                                                         ctx.boolAttr("trans_b", transB != 0)}));
  return ctx.setOutputs(r);
}

/// Softmax and LogSoftmax. Before opset 13 they flatten the input to 2-D at
/// `axis` (default 1) and normalize each row; from 13 on they work along
/// one axis (default -1). The old form becomes flatten -> op -> reshape.
template <typename OpTy>
LogicalResult importSoftmax(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  bool legacy = ctx.sinceVersion() < 13;
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", legacy ? 1 : -1));
  int64_t rank = x.getRank();
  if (legacy && rank > 0) {
    if (axis < -rank || axis >= rank)
      return ctx.emitError() << "axis " << axis << " is out of range for rank " << rank;
    if (axis < 0)
      axis += rank;
    if (axis != rank - 1) {
      ASSIGN_OR_FAIL(Value flat, ctx.create1<FlattenOp>({ctx.input(0)}, {ctx.i64Attr("axis", axis)}));
      ASSIGN_OR_FAIL(Value soft, ctx.create1<OpTy>({flat}, {ctx.i64Attr("axis", 1)}));
      ASSIGN_OR_FAIL(Value shape, ctx.create1<ShapeOp>({ctx.input(0)}, {ctx.i64Attr("start", 0),
                                                                        ctx.i64Attr("end", rank)}));
      ASSIGN_OR_FAIL(Value r, ctx.create1<ReshapeOp>({soft, shape}, {ctx.boolAttr("allow_zero", false)}));
      return ctx.setOutputs(r);
    }
  }
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, rank));
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)}, {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

LogicalResult importHardmax(NodeContext &ctx) {
  // Before opset 13 Hardmax flattened to 2-D like Softmax; only the case
  // where that is the same (axis = last) is accepted there.
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  bool legacy = ctx.sinceVersion() < 13;
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", legacy ? 1 : -1));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, rank));
  if (legacy && axis != rank - 1)
    return ctx.emitError() << "Hardmax before opset 13 is only supported over the last axis";
  ASSIGN_OR_FAIL(Value r, ctx.create1<HardmaxOp>({ctx.input(0)}, {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

LogicalResult importLpNorm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", -1));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(int64_t p, ctx.intAttr("p", 2));
  ASSIGN_OR_FAIL(Value r, ctx.create1<LpNormOp>({ctx.input(0)}, {ctx.i64Attr("axis", axis),
                                                                 ctx.i64Attr("p", p)}));
  return ctx.setOutputs(r);
}

LogicalResult importGroupNorm(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(int64_t groups, ctx.intAttr("num_groups", std::nullopt));
  ASSIGN_OR_FAIL(float epsilon, ctx.floatAttr("epsilon", 1e-5f));
  ASSIGN_OR_FAIL(int64_t stashType, ctx.intAttr("stash_type", 1));
  (void)stashType; // Precision of intermediate statistics.
  RankedTensorType scale = ctx.inputType(1);
  // Opset 18 gave scale and bias one value per group (opset 21: per channel).
  if (ctx.sinceVersion() < 21 && scale.getRank() == 1 && scale.getDimSize(0) == groups &&
      groups != ctx.inputType(0).getDimSize(1))
    return ctx.emitError() << "per-group scale and bias (GroupNormalization-18) are not "
                              "supported; re-export at opset 21";
  ASSIGN_OR_FAIL(Value r, ctx.create1<GroupNormOp>({ctx.input(0), ctx.input(1), ctx.input(2)},
                                                   {ctx.i64Attr("num_groups", groups),
                                                    ctx.f32Attr("epsilon", epsilon)}));
  return ctx.setOutputs(r);
}

LogicalResult importLRN(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t size, ctx.intAttr("size", std::nullopt));
  ASSIGN_OR_FAIL(float alpha, ctx.floatAttr("alpha", 1e-4f));
  ASSIGN_OR_FAIL(float beta, ctx.floatAttr("beta", 0.75f));
  ASSIGN_OR_FAIL(float bias, ctx.floatAttr("bias", 1.0f));
  ASSIGN_OR_FAIL(Value r, ctx.create1<LRNOp>({ctx.input(0)},
                                             {ctx.i64Attr("size", size), ctx.f32Attr("alpha", alpha),
                                              ctx.f32Attr("beta", beta), ctx.f32Attr("bias", bias)}));
  return ctx.setOutputs(r);
}

/// A constant tensor operand with zero elements counts as absent (Resize's
/// empty `scales` when `sizes` is given, its empty `roi`).
bool isEmptyTensor(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.hasStaticShape() && type.getNumElements() == 0;
}

LogicalResult importResize(NodeContext &ctx) {
  bool v10 = ctx.sinceVersion() < 11;
  if (failed(ctx.expectInputs(v10 ? 2 : 1, v10 ? 2 : 4)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  int64_t rank = x.getRank();
  ASSIGN_OR_FAIL(std::string mode, ctx.stringAttr("mode", std::string("nearest")));
  std::string ctm = "asymmetric", nearest = "floor";
  float cubicA = -0.75f;
  int64_t excludeOutside = 0;
  Value scales, sizes;
  if (v10) {
    scales = ctx.input(1);
  } else {
    ASSIGN_OR_FAIL(ctm, ctx.stringAttr("coordinate_transformation_mode", std::string("half_pixel")));
    ASSIGN_OR_FAIL(nearest, ctx.stringAttr("nearest_mode", std::string("round_prefer_floor")));
    ASSIGN_OR_FAIL(cubicA, ctx.floatAttr("cubic_coeff_a", -0.75f));
    ASSIGN_OR_FAIL(excludeOutside, ctx.intAttr("exclude_outside", 0));
    ASSIGN_OR_FAIL(float extrapolation, ctx.floatAttr("extrapolation_value", 0.0f));
    (void)extrapolation; // Only used by tf_crop_and_resize.
    if (ctm == "tf_crop_and_resize")
      return ctx.emitError() << "coordinate_transformation_mode tf_crop_and_resize is not supported";
    if (ctx.hasInput(2) && !isEmptyTensor(ctx.input(2)))
      scales = ctx.input(2);
    if (ctx.hasInput(3) && !isEmptyTensor(ctx.input(3)))
      sizes = ctx.input(3);
  }
  ASSIGN_OR_FAIL(int64_t antialias, ctx.intAttr("antialias", 0));
  if (antialias != 0)
    return ctx.emitError() << "antialias=1 is not supported";
  ASSIGN_OR_FAIL(std::string policy, ctx.stringAttr("keep_aspect_ratio_policy", std::string("stretch")));
  if (policy != "stretch" && sizes)
    return ctx.emitError() << "keep_aspect_ratio_policy '" << policy << "' is not supported";
  if (!scales == !sizes)
    return ctx.emitError() << "expects exactly one of scales and sizes";
  ASSIGN_OR_FAIL(SmallVector<int64_t> axes, ctx.intsAttr("axes", SmallVector<int64_t>()));
  if (!axes.empty()) {
    // Expand per-axis scales/sizes to every dim (1 / the input dim elsewhere).
    ASSIGN_OR_FAIL(axes, ctx.normalizeAxes(axes, rank));
    if (scales) {
      DenseFPElementsAttr attr;
      if (!matchPattern(scales, m_Constant(&attr)))
        return ctx.emitError() << "scales must be constant when axes is given";
      SmallVector<float> full(rank, 1.0f);
      auto values = llvm::to_vector(attr.getValues<APFloat>());
      if (values.size() != axes.size())
        return ctx.emitError() << "expects " << axes.size() << " scales for " << axes.size()
                               << " axes, got " << values.size();
      for (auto [i, axis] : llvm::enumerate(axes))
        full[axis] = values[i].convertToFloat();
      auto type = RankedTensorType::get({rank}, ctx.builder().getF32Type());
      scales = ConstantOp::create(ctx.builder(), ctx.loc(),
                                  DenseElementsAttr::get(type, ArrayRef<float>(full)));
    } else {
      ASSIGN_OR_FAIL(SmallVector<int64_t> given, ctx.requireConstantInts(sizes, "sizes"));
      if (given.size() != axes.size())
        return ctx.emitError() << "expects " << axes.size() << " sizes for " << axes.size()
                               << " axes, got " << given.size();
      SmallVector<int64_t> full(x.getShape());
      for (auto [i, axis] : llvm::enumerate(axes)) {
        full[axis] = given[i];
      }
      if (llvm::any_of(full, ShapedType::isDynamic))
        return ctx.emitError() << "sizes with axes needs static input dims; pass --input-shape";
      sizes = ctx.constantI64(full);
    }
  }
  if (scales && !cast<RankedTensorType>(scales.getType()).getElementType().isF32()) {
    ASSIGN_OR_FAIL(scales, ctx.create1<CastOp>({scales}, {ctx.attr("to", TypeAttr::get(ctx.builder().getF32Type())),
                                                         ctx.boolAttr("saturate", true)}));
  }
  SmallVector<Value> operands = {ctx.input(0)};
  if (scales)
    operands.push_back(scales);
  if (sizes)
    operands.push_back(sizes);
  int32_t segments[] = {1, scales ? 1 : 0, sizes ? 1 : 0};
  ASSIGN_OR_FAIL(Value r, ctx.create1<ResizeOp>(
                              operands,
                              {ctx.strAttr("mode", mode),
                               ctx.strAttr("coordinate_transformation_mode", ctm),
                               ctx.strAttr("nearest_mode", nearest),
                               ctx.f32Attr("cubic_coeff_a", cubicA),
                               ctx.boolAttr("exclude_outside", excludeOutside != 0),
                               ctx.attr("operandSegmentSizes",
                                        ctx.builder().getDenseI32ArrayAttr(segments))}));
  return ctx.setOutputs(r);
}

LogicalResult importUpsample(NodeContext &ctx) {
  // Upsample-7 (scales attribute) and -9 (scales input) are Resize with
  // asymmetric coordinates and floor rounding.
  bool attrForm = ctx.sinceVersion() < 9;
  if (failed(ctx.expectInputs(attrForm ? 1 : 2, attrForm ? 1 : 2)))
    return failure();
  ASSIGN_OR_FAIL(std::string mode, ctx.stringAttr("mode", std::string("nearest")));
  Value scales;
  if (attrForm) {
    ASSIGN_OR_FAIL(SmallVector<float> values, ctx.floatsAttr("scales", std::nullopt));
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      ctx.builder().getF32Type());
    scales = ConstantOp::create(ctx.builder(), ctx.loc(),
                                DenseElementsAttr::get(type, ArrayRef<float>(values)));
  } else {
    scales = ctx.input(1);
  }
  int32_t segments[] = {1, 1, 0};
  ASSIGN_OR_FAIL(Value r, ctx.create1<ResizeOp>(
                              {ctx.input(0), scales},
                              {ctx.strAttr("mode", mode == "bilinear" ? "linear" : mode),
                               ctx.strAttr("coordinate_transformation_mode", "asymmetric"),
                               ctx.strAttr("nearest_mode", "floor"),
                               ctx.f32Attr("cubic_coeff_a", -0.75f),
                               ctx.boolAttr("exclude_outside", false),
                               ctx.attr("operandSegmentSizes",
                                        ctx.builder().getDenseI32ArrayAttr(segments))}));
  return ctx.setOutputs(r);
}

LogicalResult importEinsum(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 64)))
    return failure();
  ASSIGN_OR_FAIL(std::string equation, ctx.stringAttr("equation", std::nullopt));
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq += c;
  if (eq.find("->") == std::string::npos) {
    // Implicit output: labels seen exactly once, alphabetically, after any
    // broadcast ("...") dims.
    std::map<char, int> counts;
    for (char c : eq)
      if (llvm::isAlpha(c))
        ++counts[c];
    std::string out = eq.find("...") != std::string::npos ? "..." : "";
    for (auto [c, n] : counts)
      if (n == 1)
        out += c;
    eq += "->" + out;
  }
  SmallVector<Value> inputs;
  for (int i = 0; i < ctx.numInputs(); ++i)
    inputs.push_back(ctx.input(i));
  ASSIGN_OR_FAIL(Value r, ctx.create1<EinsumOp>(inputs, {ctx.strAttr("equation", eq)}));
  return ctx.setOutputs(r);
}

LogicalResult importQuantizeLinear(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 3)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 1));
  ASSIGN_OR_FAIL(int64_t saturate, ctx.intAttr("saturate", 1));
  ASSIGN_OR_FAIL(int64_t blockSize, ctx.intAttr("block_size", 0));
  ASSIGN_OR_FAIL(int64_t outputDtype, ctx.intAttr("output_dtype", 0));
  ASSIGN_OR_FAIL(int64_t precision, ctx.intAttr("precision", 0));
  (void)precision;
  if (blockSize != 0)
    return ctx.emitError() << "blocked quantization (block_size) is not supported";
  // The axis only matters for per-axis (1-D) scales; per-tensor ones ignore it.
  if (ctx.inputType(1).getRank() > 0) {
    ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, x.getRank()));
  } else {
    axis = 0;
  }
  Value zeroPoint;
  if (ctx.hasInput(2)) {
    zeroPoint = ctx.input(2);
  } else {
    Type zpType = outputDtype ? convertElementType(static_cast<int32_t>(outputDtype), ctx.context())
                              : ctx.builder().getIntegerType(8, false);
    if (!zpType)
      return ctx.emitError() << "output_dtype " << elementTypeName(static_cast<int32_t>(outputDtype))
                             << " is not supported";
    zeroPoint = ctx.scalar(zpType, 0);
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<QuantizeLinearOp>({ctx.input(0), ctx.input(1), zeroPoint},
                                                        {ctx.i64Attr("axis", axis),
                                                         ctx.boolAttr("saturate", saturate != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importDequantizeLinear(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 3)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 1));
  ASSIGN_OR_FAIL(int64_t blockSize, ctx.intAttr("block_size", 0));
  ASSIGN_OR_FAIL(int64_t outputDtype, ctx.intAttr("output_dtype", 0));
  (void)outputDtype; // The result type is the scale's, as output_dtype requires.
  if (blockSize != 0)
    return ctx.emitError() << "blocked quantization (block_size) is not supported";
  // The axis only matters for per-axis (1-D) scales; per-tensor ones ignore it.
  if (ctx.inputType(1).getRank() > 0) {
    ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, x.getRank()));
  } else {
    axis = 0;
  }
  Value zeroPoint = ctx.hasInput(2) ? ctx.input(2) : ctx.scalar(x.getElementType(), 0);
  ASSIGN_OR_FAIL(Value r, ctx.create1<DequantizeLinearOp>({ctx.input(0), ctx.input(1), zeroPoint},
                                                          {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

} // namespace

void mlir::infer::onnx_import::registerNNOps(OpRegistry &r) {
  r.add("Conv", {1, 11, 22}, importConv);
  r.add("ConvTranspose", {1, 11, 22}, importConvTranspose);
  r.add("MaxPool", {8, 10, 11, 12, 22}, importPool<MaxPoolOp>);
  r.add("AveragePool", {7, 10, 11, 19, 22}, importPool<AveragePoolOp>);
  r.add("GlobalAveragePool", {1, 22}, importGlobalPool<GlobalAveragePoolOp>);
  r.add("GlobalMaxPool", {1, 22}, importGlobalPool<GlobalMaxPoolOp>);
  r.add("BatchNormalization", {7, 9, 14, 15}, importBatchNorm);
  r.add("InstanceNormalization", {6, 22}, importInstanceNorm);
  r.add("LayerNormalization", {17}, importLayerNorm);
  r.add("MatMul", {1, 9, 13}, importMatMul);
  r.add("Gemm", {7, 9, 11, 13}, importGemm);
  r.add("Softmax", {1, 11, 13}, importSoftmax<SoftmaxOp>);
  r.add("LogSoftmax", {1, 11, 13}, importSoftmax<LogSoftmaxOp>);
  r.add("Resize", {10, 11, 13, 18, 19}, importResize);
  r.add("Upsample", {7, 9}, importUpsample);
  r.add("Einsum", {12}, importEinsum);
  r.add("Hardmax", {1, 11, 13}, importHardmax);
  r.add("LpNormalization", {1, 22}, importLpNorm);
  r.add("GroupNormalization", {18, 21}, importGroupNorm);
  r.add("LRN", {1, 13}, importLRN);
  r.add("QuantizeLinear", {10, 13, 19, 21, 23, 24}, importQuantizeLinear);
  r.add("DequantizeLinear", {10, 13, 19, 21, 23, 24}, importDequantizeLinear);
}
