//===- ReductionOps.cpp - ONNX reductions, arg-reductions, TopK, CumSum ---===//

#include "../NodeContext.h"
#include "../OpRegistry.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

namespace {

/// Reduce*: `axes` is an attribute until the opset given as `axesInputSince`
/// and an optional input from then on. Empty axes reduce every dim, unless
/// noop_with_empty_axes makes the op the identity.
template <typename OpTy>
LogicalResult importReduce(NodeContext &ctx, int64_t axesInputSince) {
  bool axesAsInput = ctx.sinceVersion() >= axesInputSince;
  if (failed(ctx.expectInputs(1, axesAsInput ? 2 : 1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  ASSIGN_OR_FAIL(int64_t keepDims, ctx.intAttr("keepdims", 1));
  int64_t noop = 0;
  SmallVector<int64_t> axes;
  if (axesAsInput) {
    ASSIGN_OR_FAIL(noop, ctx.intAttr("noop_with_empty_axes", 0));
    if (ctx.hasInput(1)) {
      ASSIGN_OR_FAIL(axes, ctx.requireConstantInts(ctx.input(1), "axes"));
    }
  } else {
    ASSIGN_OR_FAIL(axes, ctx.intsAttr("axes", SmallVector<int64_t>()));
  }
  if (axes.empty()) {
    if (noop)
      return ctx.setOutputs(ctx.input(0));
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  ASSIGN_OR_FAIL(axes, ctx.normalizeAxes(axes, rank));
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)}, {ctx.arrayAttr("axes", axes),
                                                             ctx.boolAttr("keep_dims", keepDims != 0)}));
  return ctx.setOutputs(r);
}

template <typename OpTy>
LogicalResult importArgReduce(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(int64_t keepDims, ctx.intAttr("keepdims", 1));
  ASSIGN_OR_FAIL(int64_t selectLast, ctx.intAttr("select_last_index", 0));
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)},
                                            {ctx.i64Attr("axis", axis),
                                             ctx.boolAttr("keep_dims", keepDims != 0),
                                             ctx.boolAttr("select_last_index", selectLast != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importTopK(NodeContext &ctx) {
  bool kAsInput = ctx.sinceVersion() >= 10;
  if (failed(ctx.expectInputs(kAsInput ? 2 : 1, kAsInput ? 2 : 1)))
    return failure();
  int64_t k;
  if (kAsInput) {
    ASSIGN_OR_FAIL(SmallVector<int64_t> values, ctx.requireConstantInts(ctx.input(1), "K"));
    if (values.size() != 1)
      return ctx.emitError() << "K must hold one value, got " << values.size();
    k = values[0];
  } else {
    ASSIGN_OR_FAIL(k, ctx.intAttr("k", std::nullopt));
  }
  ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", -1));
  ASSIGN_OR_FAIL(axis, ctx.normalizeAxis(axis, ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(int64_t largest, ctx.intAttr("largest", 1));
  ASSIGN_OR_FAIL(int64_t sorted, ctx.intAttr("sorted", 1));
  ASSIGN_OR_FAIL(SmallVector<Value> r,
                 ctx.create<TopKOp>({ctx.input(0)}, {ctx.i64Attr("k", k), ctx.i64Attr("axis", axis),
                                                     ctx.boolAttr("largest", largest != 0),
                                                     ctx.boolAttr("sorted", sorted != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importCumSum(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(SmallVector<int64_t> axisValues, ctx.requireConstantInts(ctx.input(1), "axis"));
  if (axisValues.size() != 1)
    return ctx.emitError() << "axis must hold one value";
  ASSIGN_OR_FAIL(int64_t axis, ctx.normalizeAxis(axisValues[0], ctx.inputType(0).getRank()));
  ASSIGN_OR_FAIL(int64_t exclusive, ctx.intAttr("exclusive", 0));
  ASSIGN_OR_FAIL(int64_t reverse, ctx.intAttr("reverse", 0));
  ASSIGN_OR_FAIL(Value r, ctx.create1<CumSumOp>({ctx.input(0)},
                                                {ctx.i64Attr("axis", axis),
                                                 ctx.boolAttr("exclusive", exclusive != 0),
                                                 ctx.boolAttr("reverse", reverse != 0)}));
  return ctx.setOutputs(r);
}

} // namespace

void mlir::infer::onnx_import::registerReductionOps(OpRegistry &r) {
  // ReduceSum moved axes to an input at opset 13, the others at 18.
  r.add("ReduceSum", {1, 11, 13}, [](NodeContext &c) { return importReduce<ReduceSumOp>(c, 13); });
  r.add("ReduceMean", {1, 11, 13, 18},
        [](NodeContext &c) { return importReduce<ReduceMeanOp>(c, 18); });
  r.add("ReduceMax", {1, 11, 12, 13, 18, 20},
        [](NodeContext &c) { return importReduce<ReduceMaxOp>(c, 18); });
  r.add("ReduceMin", {1, 11, 12, 13, 18, 20},
        [](NodeContext &c) { return importReduce<ReduceMinOp>(c, 18); });
  r.add("ReduceProd", {1, 11, 13, 18},
        [](NodeContext &c) { return importReduce<ReduceProdOp>(c, 18); });
  r.add("ReduceL1", {1, 11, 13, 18}, [](NodeContext &c) { return importReduce<ReduceL1Op>(c, 18); });
  r.add("ReduceL2", {1, 11, 13, 18}, [](NodeContext &c) { return importReduce<ReduceL2Op>(c, 18); });
  r.add("ReduceLogSumExp", {1, 11, 13, 18},
        [](NodeContext &c) { return importReduce<ReduceLogSumExpOp>(c, 18); });
  r.add("ReduceSumSquare", {1, 11, 13, 18},
        [](NodeContext &c) { return importReduce<ReduceSumSquareOp>(c, 18); });
  r.add("ArgMax", {1, 11, 12, 13}, importArgReduce<ArgMaxOp>);
  r.add("ArgMin", {1, 11, 12, 13}, importArgReduce<ArgMinOp>);
  r.add("TopK", {1, 10, 11, 24}, importTopK);
  r.add("CumSum", {11, 14}, importCumSum);
}
