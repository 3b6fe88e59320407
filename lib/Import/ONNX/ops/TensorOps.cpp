//===- TensorOps.cpp - ONNX constants, shapes and data movement -----------===//
//
// Most opset differences live here: Reshape, Slice, Pad, Split, Squeeze and
// Unsqueeze moved attributes to inputs over the years; every form is
// normalized into the one canonical form of the `infer` op.
//
//===----------------------------------------------------------------------===//

#include "../GraphImporter.h"
#include "../NodeContext.h"
#include "../OpRegistry.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

namespace {

template <typename T>
Value denseConstant(NodeContext &ctx, Type elementType, ArrayRef<T> values, bool scalar) {
  SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(values.size()));
  auto type = RankedTensorType::get(shape, elementType);
  return ConstantOp::create(ctx.builder(), ctx.loc(), DenseElementsAttr::get(type, values));
}

LogicalResult importReshape(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t allowZero, ctx.intAttr("allowzero", 0));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ReshapeOp>({ctx.input(0), ctx.input(1)},
                                                 {ctx.boolAttr("allow_zero", allowZero != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importTranspose(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  SmallVector<int64_t> reversed = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  ASSIGN_OR_FAIL(SmallVector<int64_t> perm, ctx.intsAttr("perm", reversed));
  ASSIGN_OR_FAIL(Value r, ctx.create1<TransposeOp>({ctx.input(0)}, {ctx.arrayAttr("perm", perm)}));
  return ctx.setOutputs(r);
}

/// Axes of Squeeze/Unsqueeze: an attribute before opset 13, an input after.
FailureOr<std::optional<SmallVector<int64_t>>> readAxes(NodeContext &ctx) {
  if (ctx.sinceVersion() < 13) {
    if (!ctx.hasAttr("axes")) {
      ctx.rawAttr("axes");
      return std::optional<SmallVector<int64_t>>();
    }
    ASSIGN_OR_FAIL(SmallVector<int64_t> axes, ctx.intsAttr("axes", std::nullopt));
    return std::optional<SmallVector<int64_t>>(axes);
  }
  if (!ctx.hasInput(1))
    return std::optional<SmallVector<int64_t>>();
  ASSIGN_OR_FAIL(SmallVector<int64_t> axes, ctx.requireConstantInts(ctx.input(1), "axes"));
  return std::optional<SmallVector<int64_t>>(axes);
}

LogicalResult importSqueeze(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, ctx.sinceVersion() < 13 ? 1 : 2)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  ASSIGN_OR_FAIL(std::optional<SmallVector<int64_t>> given, readAxes(ctx));
  SmallVector<int64_t> axes;
  if (given) {
    ASSIGN_OR_FAIL(axes, ctx.normalizeAxes(*given, x.getRank()));
  } else {
    // No axes: every dim of size 1, which must then be known.
    for (int64_t i = 0; i < x.getRank(); ++i) {
      if (x.isDynamicDim(i))
        return ctx.emitError() << "Squeeze without axes needs static dims; pass --input-shape";
      if (x.getDimSize(i) == 1)
        axes.push_back(i);
    }
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<SqueezeOp>({ctx.input(0)}, {ctx.arrayAttr("axes", axes)}));
  return ctx.setOutputs(r);
}

LogicalResult importUnsqueeze(NodeContext &ctx) {
  bool attrForm = ctx.sinceVersion() < 13;
  if (failed(ctx.expectInputs(attrForm ? 1 : 2, attrForm ? 1 : 2)))
    return failure();
  ASSIGN_OR_FAIL(std::optional<SmallVector<int64_t>> given, readAxes(ctx));
  if (!given)
    return ctx.emitError() << "missing required attribute 'axes'";
  int64_t rank = ctx.inputType(0).getRank() + static_cast<int64_t>(given->size());
  ASSIGN_OR_FAIL(SmallVector<int64_t> axes, ctx.normalizeAxes(*given, rank));
  ASSIGN_OR_FAIL(Value r, ctx.create1<UnsqueezeOp>({ctx.input(0)}, {ctx.arrayAttr("axes", axes)}));
  return ctx.setOutputs(r);
}

LogicalResult importFlatten(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 1));
  if (axis < -rank || axis > rank)
    return ctx.emitError() << "axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;
  ASSIGN_OR_FAIL(Value r, ctx.create1<FlattenOp>({ctx.input(0)}, {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

LogicalResult importConcat(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, std::numeric_limits<int>::max())))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", std::nullopt));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  SmallVector<Value> inputs;
  for (int i = 0; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i))
      inputs.push_back(ctx.input(i));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ConcatOp>(inputs, {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

LogicalResult importSplit(NodeContext &ctx) {
  bool attrForm = ctx.sinceVersion() < 13;
  if (failed(ctx.expectInputs(1, attrForm ? 1 : 2)))
    return failure();
  RankedTensorType x = ctx.inputType(0);
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, x.getRank()));
  SmallVector<int64_t> sizes;
  if (attrForm) {
    ASSIGN_OR_FAIL(sizes, ctx.intsAttr("split", SmallVector<int64_t>()));
  } else if (ctx.hasInput(1)) {
    ASSIGN_OR_FAIL(sizes, ctx.requireConstantInts(ctx.input(1), "split"));
  }
  int64_t pieces = ctx.numOutputs();
  if (ctx.sinceVersion() >= 18) {
    ASSIGN_OR_FAIL(int64_t numOutputs, ctx.intAttr("num_outputs", 0));
    if (numOutputs > 0) {
      if (!sizes.empty())
        return ctx.emitError() << "give either the split input or num_outputs, not both";
      pieces = numOutputs;
    }
  }
  if (sizes.empty()) {
    if (x.isDynamicDim(axis))
      return ctx.emitError() << "an even split needs a static dim " << axis
                             << "; pass --input-shape";
    if (pieces < 1)
      return ctx.emitError() << "has no outputs";
    int64_t dim = x.getDimSize(axis);
    // Opset 18 allows an uneven last piece; before, the split must be even.
    int64_t piece = (dim + pieces - 1) / pieces;
    if (ctx.sinceVersion() < 18 && dim % pieces != 0)
      return ctx.emitError() << "dim " << axis << " of size " << dim << " does not split evenly into "
                             << pieces;
    for (int64_t i = 0; i < pieces; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(piece, dim - i * piece)));
  }
  if (static_cast<int64_t>(sizes.size()) != ctx.numOutputs())
    return ctx.emitError() << "has " << ctx.numOutputs() << " outputs but " << sizes.size()
                           << " split sizes";
  ASSIGN_OR_FAIL(SmallVector<Value> r, ctx.create<SplitOp>({ctx.input(0)}, {ctx.i64Attr("axis", axis),
                                                                            ctx.arrayAttr("sizes", sizes)}));
  return ctx.setOutputs(r);
}

LogicalResult importSlice(NodeContext &ctx) {
  Value starts, ends, axes, steps;
  if (ctx.sinceVersion() < 10) {
    if (failed(ctx.expectInputs(1, 1)))
      return failure();
    ASSIGN_OR_FAIL(SmallVector<int64_t> s, ctx.intsAttr("starts", std::nullopt));
    ASSIGN_OR_FAIL(SmallVector<int64_t> e, ctx.intsAttr("ends", std::nullopt));
    SmallVector<int64_t> defaultAxes = llvm::to_vector(llvm::seq<int64_t>(0, s.size()));
    ASSIGN_OR_FAIL(SmallVector<int64_t> a, ctx.intsAttr("axes", defaultAxes));
    starts = ctx.constantI64(s);
    ends = ctx.constantI64(e);
    axes = ctx.constantI64(a);
  } else {
    if (failed(ctx.expectInputs(3, 5)))
      return failure();
    starts = ctx.input(1);
    ends = ctx.input(2);
    if (ctx.hasInput(3))
      axes = ctx.input(3);
    if (ctx.hasInput(4))
      steps = ctx.input(4);
  }
  auto startsType = cast<RankedTensorType>(starts.getType());
  if (startsType.getRank() != 1 || startsType.isDynamicDim(0))
    return ctx.emitError() << "starts must be a 1-D tensor of static length";
  int64_t n = startsType.getDimSize(0);
  if (!axes)
    axes = ctx.constantI64(llvm::to_vector(llvm::seq<int64_t>(0, n)));
  if (!steps)
    steps = ctx.constantI64(SmallVector<int64_t>(n, 1));
  // Index operands may be int32: the op takes int64.
  SmallVector<Value> operands = {ctx.input(0)};
  for (Value v : {starts, ends, axes, steps}) {
    if (!cast<RankedTensorType>(v.getType()).getElementType().isInteger(64)) {
      ASSIGN_OR_FAIL(v, ctx.create1<CastOp>({v}, {ctx.attr("to", TypeAttr::get(ctx.builder().getI64Type())),
                                                 ctx.boolAttr("saturate", true)}));
    }
    operands.push_back(v);
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<SliceOp>(operands));
  return ctx.setOutputs(r);
}

LogicalResult importGather(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(Value r, ctx.create1<GatherOp>({ctx.input(0), ctx.input(1)}, {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

LogicalResult importGatherElements(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(Value r, ctx.create1<GatherElementsOp>({ctx.input(0), ctx.input(1)},
                                                        {ctx.i64Attr("axis", axis)}));
  return ctx.setOutputs(r);
}

template <typename OpTy>
LogicalResult importWithShapeOperand(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0), ctx.input(1)}));
  return ctx.setOutputs(r);
}

LogicalResult importPad(NodeContext &ctx) {
  RankedTensorType x;
  std::string mode;
  Value pads, value;
  if (ctx.sinceVersion() < 11) {
    if (failed(ctx.expectInputs(1, 1)))
      return failure();
    x = ctx.inputType(0);
    ASSIGN_OR_FAIL(SmallVector<int64_t> p, ctx.intsAttr("pads", std::nullopt));
    ASSIGN_OR_FAIL(float v, ctx.floatAttr("value", 0.0f));
    pads = ctx.constantI64(p);
    value = ctx.scalar(x.getElementType(), v);
  } else {
    if (failed(ctx.expectInputs(2, ctx.sinceVersion() >= 18 ? 4 : 3)))
      return failure();
    x = ctx.inputType(0);
    pads = ctx.input(1);
    value = ctx.hasInput(2) ? ctx.input(2) : ctx.scalar(x.getElementType(), 0);
    if (ctx.hasInput(3)) {
      // Pads for a subset of axes: expand to every dim (zeros elsewhere).
      ASSIGN_OR_FAIL(SmallVector<int64_t> axesValues, ctx.requireConstantInts(ctx.input(3), "axes"));
      ASSIGN_OR_FAIL(SmallVector<int64_t> given, ctx.requireConstantInts(pads, "pads"));
      int64_t rank = x.getRank();
      size_t n = axesValues.size();
      if (given.size() != 2 * n)
        return ctx.emitError() << "expects " << 2 * n << " pads for " << n << " axes";
      SmallVector<int64_t> full(2 * rank, 0);
      for (size_t i = 0; i < n; ++i) {
        ASSIGN_OR_FAIL(int64_t axis, ctx.normalizeAxis(axesValues[i], rank));
        full[axis] = given[i];
        full[axis + rank] = given[i + n];
      }
      pads = ctx.constantI64(full);
    }
    // A 1-element 1-D constant_value is accepted by runtimes; make it rank 0.
    auto valueType = cast<RankedTensorType>(value.getType());
    if (valueType.getRank() == 1 && valueType.getDimSize(0) == 1) {
      ASSIGN_OR_FAIL(value, ctx.create1<ReshapeOp>({value, ctx.constantI64({})},
                                                   {ctx.boolAttr("allow_zero", false)}));
    }
  }
  ASSIGN_OR_FAIL(mode, ctx.stringAttr("mode", std::string("constant")));
  ASSIGN_OR_FAIL(Value r, ctx.create1<PadOp>({ctx.input(0), pads, value}, {ctx.strAttr("mode", mode)}));
  return ctx.setOutputs(r);
}

LogicalResult importShape(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  ASSIGN_OR_FAIL(int64_t start, ctx.intAttr("start", 0));
  ASSIGN_OR_FAIL(int64_t end, ctx.intAttr("end", rank));
  // ONNX clamps both ends after counting negatives from the back.
  auto clampDim = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  start = clampDim(start);
  end = std::max(start, clampDim(end));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ShapeOp>({ctx.input(0)}, {ctx.i64Attr("start", start),
                                                                ctx.i64Attr("end", end)}));
  return ctx.setOutputs(r);
}

LogicalResult importSize(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<SizeOp>({ctx.input(0)}));
  return ctx.setOutputs(r);
}

LogicalResult importConstantOfShape(NodeContext &ctx) {
  GraphImporter &importer = ctx.importer();
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  Attribute value;
  if (const onnx::AttributeProto *attr = ctx.rawAttr("value")) {
    ASSIGN_OR_FAIL(value, readTensor(*ctx.context(), ctx.loc(), attr->t(), importer.modelDir(),
                                     "attribute 'value'", importer.options().maxTensorBytes));
  } else {
    auto type = RankedTensorType::get({1}, ctx.builder().getF32Type());
    value = DenseElementsAttr::get(type, 0.0f);
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<ConstantOfShapeOp>({ctx.input(0)}, {ctx.attr("value", value)}));
  return ctx.setOutputs(r);
}

LogicalResult importRange(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<RangeOp>({ctx.input(0), ctx.input(1), ctx.input(2)}));
  return ctx.setOutputs(r);
}

LogicalResult importTrilu(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t upper, ctx.intAttr("upper", 1));
  Value k = ctx.hasInput(1) ? ctx.input(1) : ctx.scalarI64(0);
  if (cast<RankedTensorType>(k.getType()).getRank() != 0) {
    ASSIGN_OR_FAIL(k, ctx.create1<ReshapeOp>({k, ctx.constantI64({})}, {ctx.boolAttr("allow_zero", false)}));
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<TriluOp>({ctx.input(0), k}, {ctx.boolAttr("upper", upper != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importDepthToSpace(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t block, ctx.intAttr("blocksize", std::nullopt));
  ASSIGN_OR_FAIL(std::string mode, ctx.stringAttr("mode", std::string("DCR")));
  ASSIGN_OR_FAIL(Value r, ctx.create1<DepthToSpaceOp>({ctx.input(0)}, {ctx.i64Attr("block_size", block),
                                                                      ctx.strAttr("mode", mode)}));
  return ctx.setOutputs(r);
}

LogicalResult importSpaceToDepth(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t block, ctx.intAttr("blocksize", std::nullopt));
  ASSIGN_OR_FAIL(Value r, ctx.create1<SpaceToDepthOp>({ctx.input(0)}, {ctx.i64Attr("block_size", block)}));
  return ctx.setOutputs(r);
}

LogicalResult importGatherND(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t batchDims, ctx.intAttr("batch_dims", 0));
  ASSIGN_OR_FAIL(Value r, ctx.create1<GatherNDOp>({ctx.input(0), ctx.input(1)},
                                                  {ctx.i64Attr("batch_dims", batchDims)}));
  return ctx.setOutputs(r);
}

LogicalResult importScatterND(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(std::string reduction, ctx.stringAttr("reduction", std::string("none")));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ScatterNDOp>({ctx.input(0), ctx.input(1), ctx.input(2)},
                                                   {ctx.strAttr("reduction", reduction)}));
  return ctx.setOutputs(r);
}

LogicalResult importScatterElements(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(std::string reduction, ctx.stringAttr("reduction", std::string("none")));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ScatterElementsOp>({ctx.input(0), ctx.input(1), ctx.input(2)},
                                                         {ctx.i64Attr("axis", axis),
                                                          ctx.strAttr("reduction", reduction)}));
  return ctx.setOutputs(r);
}

/// Constant: exactly one of value / value_float(s) / value_int(s) /
/// value_string(s) / sparse_value.
LogicalResult importConstantNode(NodeContext &ctx) {
  GraphImporter &importer = ctx.importer();
  if (failed(ctx.expectInputs(0, 0)))
    return failure();
  int given = 0;
  for (StringRef name : {"value", "value_float", "value_floats", "value_int", "value_ints",
                         "value_string", "value_strings", "sparse_value"})
    given += ctx.hasAttr(name);
  if (given != 1)
    return ctx.emitError() << "expects exactly one value attribute, got " << given;
  Builder b(ctx.context());
  Value result;
  if (const auto *attr = ctx.rawAttr("value")) {
    ASSIGN_OR_FAIL(DenseElementsAttr value,
                   readTensor(*ctx.context(), ctx.loc(), attr->t(), importer.modelDir(),
                              "attribute 'value'", importer.options().maxTensorBytes));
    result = ConstantOp::create(ctx.builder(), ctx.loc(), value);
  } else if (const auto *attr = ctx.rawAttr("value_float")) {
    result = ctx.scalar(b.getF32Type(), attr->f());
  } else if (const auto *attr = ctx.rawAttr("value_floats")) {
    SmallVector<float> values(attr->floats().begin(), attr->floats().end());
    result = denseConstant<float>(ctx, b.getF32Type(), values, false);
  } else if (const auto *attr = ctx.rawAttr("value_int")) {
    result = ctx.scalarI64(attr->i());
  } else if (const auto *attr = ctx.rawAttr("value_ints")) {
    SmallVector<int64_t> values(attr->ints().begin(), attr->ints().end());
    result = ctx.constantI64(values);
  } else {
    return ctx.emitError() << "string and sparse constants are not supported";
  }
  return ctx.setOutputs(result);
}

} // namespace

void mlir::infer::onnx_import::registerTensorOps(OpRegistry &r) {
  r.add("Reshape", {5, 13, 14, 19, 21, 23}, importReshape);
  r.add("Transpose", {1, 13, 21, 23}, importTranspose);
  r.add("Squeeze", {1, 11, 13, 21, 23}, importSqueeze);
  r.add("Unsqueeze", {1, 11, 13, 21, 23}, importUnsqueeze);
  r.add("Flatten", {1, 9, 11, 13, 21, 23}, importFlatten);
  r.add("Concat", {4, 11, 13}, importConcat);
  r.add("Split", {2, 11, 13, 18}, importSplit);
  r.add("Slice", {1, 10, 11, 13}, importSlice);
  r.add("Gather", {1, 11, 13}, importGather);
  r.add("GatherElements", {11, 13}, importGatherElements);
  r.add("Expand", {8, 13}, importWithShapeOperand<ExpandOp>);
  r.add("Tile", {6, 13}, importWithShapeOperand<TileOp>);
  r.add("Pad", {2, 11, 13, 18, 19, 21, 23}, importPad);
  r.add("Shape", {1, 13, 15, 19, 21, 23}, importShape);
  r.add("Size", {1, 13, 19, 21, 23}, importSize);
  r.add("Range", {11}, importRange);
  r.add("Trilu", {14}, importTrilu);
  r.add("DepthToSpace", {1, 11, 13}, importDepthToSpace);
  r.add("SpaceToDepth", {1, 13}, importSpaceToDepth);
  r.add("GatherND", {11, 12, 13}, importGatherND);
  r.add("ScatterND", {11, 13, 16, 18}, importScatterND);
  r.add("ScatterElements", {11, 13, 16, 18}, importScatterElements);
  r.add("Constant", {1, 9, 11, 12, 13, 19, 21, 23, 24}, importConstantNode);
  r.add("ConstantOfShape", {9, 20, 21, 23, 24}, importConstantOfShape);
}
