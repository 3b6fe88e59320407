//===- ElementwiseOps.cpp - ONNX elementwise math, logic, Cast, Clip ------===//

#include "../NodeContext.h"
#include "../OpRegistry.h"

#include <limits>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

namespace {

template <typename OpTy>
LogicalResult importUnary(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(Value result, ctx.create1<OpTy>({ctx.input(0)}));
  return ctx.setOutputs(result);
}

template <typename OpTy>
LogicalResult importBinary(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(Value result, ctx.create1<OpTy>({ctx.input(0), ctx.input(1)}));
  return ctx.setOutputs(result);
}

/// Max, Min, Sum, Mean take any number of inputs: a left fold of binaries.
template <typename OpTy>
FailureOr<Value> foldVariadic(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, std::numeric_limits<int>::max())))
    return failure();
  Value acc = ctx.input(0);
  for (int i = 1; i < ctx.numInputs(); ++i) {
    ASSIGN_OR_FAIL(acc, ctx.create1<OpTy>({acc, ctx.input(i)}));
  }
  return acc;
}

template <typename OpTy>
LogicalResult importVariadic(NodeContext &ctx) {
  ASSIGN_OR_FAIL(Value result, foldVariadic<OpTy>(ctx));
  return ctx.setOutputs(result);
}

LogicalResult importMean(NodeContext &ctx) {
  ASSIGN_OR_FAIL(Value sum, foldVariadic<AddOp>(ctx));
  Value count = ctx.scalar(ctx.inputType(0).getElementType(), ctx.numInputs());
  ASSIGN_OR_FAIL(Value result, ctx.create1<DivOp>({sum, count}));
  return ctx.setOutputs(result);
}

LogicalResult importIdentity(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  return ctx.setOutputs(ctx.input(0));
}

LogicalResult importDropout(NodeContext &ctx) {
  // Inference: Dropout is the identity. Its mask output has no meaning here.
  if (failed(ctx.expectInputs(1, 3)))
    return failure();
  ctx.rawAttr("seed");
  ctx.rawAttr("ratio");
  ASSIGN_OR_FAIL(int64_t isTest, ctx.intAttr("is_test", 1));
  (void)isTest;
  if (ctx.hasInput(2)) {
    auto training = ctx.constantInts(ctx.input(2));
    if (!training || training->size() != 1 || (*training)[0] != 0)
      return ctx.emitError() << "training_mode must be a constant false for inference";
  }
  if (ctx.numOutputs() > 1 && !ctx.node().output(1).empty())
    return ctx.emitError() << "the mask output of Dropout is not supported";
  return ctx.setOutputs(ctx.input(0));
}

template <typename OpTy>
LogicalResult importAlpha(NodeContext &ctx, float defaultAlpha) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(float alpha, ctx.floatAttr("alpha", defaultAlpha));
  ASSIGN_OR_FAIL(Value r, ctx.create1<OpTy>({ctx.input(0)}, {ctx.f32Attr("alpha", alpha)}));
  return ctx.setOutputs(r);
}

LogicalResult importHardSigmoid(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(float alpha, ctx.floatAttr("alpha", 0.2f));
  ASSIGN_OR_FAIL(float beta, ctx.floatAttr("beta", 0.5f));
  ASSIGN_OR_FAIL(Value r, ctx.create1<HardSigmoidOp>(
                              {ctx.input(0)}, {ctx.f32Attr("alpha", alpha), ctx.f32Attr("beta", beta)}));
  return ctx.setOutputs(r);
}

LogicalResult importShrink(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(float bias, ctx.floatAttr("bias", 0.0f));
  ASSIGN_OR_FAIL(float lambd, ctx.floatAttr("lambd", 0.5f));
  ASSIGN_OR_FAIL(Value r, ctx.create1<ShrinkOp>(
                              {ctx.input(0)}, {ctx.f32Attr("bias", bias), ctx.f32Attr("lambd", lambd)}));
  return ctx.setOutputs(r);
}

LogicalResult importIsInf(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t negative, ctx.intAttr("detect_negative", 1));
  ASSIGN_OR_FAIL(int64_t positive, ctx.intAttr("detect_positive", 1));
  ASSIGN_OR_FAIL(Value r, ctx.create1<IsInfOp>({ctx.input(0)},
                                               {ctx.boolAttr("detect_negative", negative != 0),
                                                ctx.boolAttr("detect_positive", positive != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importSelu(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(float alpha, ctx.floatAttr("alpha", 1.67326319217681884765625f));
  ASSIGN_OR_FAIL(float gamma, ctx.floatAttr("gamma", 1.05070102214813232421875f));
  ASSIGN_OR_FAIL(Value r, ctx.create1<SeluOp>(
                              {ctx.input(0)}, {ctx.f32Attr("alpha", alpha), ctx.f32Attr("gamma", gamma)}));
  return ctx.setOutputs(r);
}

LogicalResult importGelu(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(std::string approximate, ctx.stringAttr("approximate", std::string("none")));
  if (approximate != "none" && approximate != "tanh")
    return ctx.emitError() << "unknown approximate '" << approximate << "'";
  ASSIGN_OR_FAIL(Value r, ctx.create1<GeluOp>({ctx.input(0)},
                                              {ctx.boolAttr("tanh_approximation", approximate == "tanh")}));
  return ctx.setOutputs(r);
}

LogicalResult importPow(NodeContext &ctx) {
  // The exponent may have another element type than the base: cast it.
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  Value base = ctx.input(0), exponent = ctx.input(1);
  Type baseType = ctx.inputType(0).getElementType();
  if (ctx.inputType(1).getElementType() != baseType) {
    ASSIGN_OR_FAIL(exponent, ctx.create1<CastOp>({exponent}, {ctx.attr("to", TypeAttr::get(baseType)),
                                                             ctx.boolAttr("saturate", true)}));
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<PowOp>({base, exponent}));
  return ctx.setOutputs(r);
}

LogicalResult importMod(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t fmod, ctx.intAttr("fmod", 0));
  if (fmod == 0 && isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.emitError() << "fmod must be 1 for floating-point inputs";
  ASSIGN_OR_FAIL(Value r, ctx.create1<ModOp>({ctx.input(0), ctx.input(1)},
                                             {ctx.boolAttr("fmod", fmod != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importBitShift(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(std::string direction, ctx.stringAttr("direction", std::nullopt));
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.emitError() << "direction must be LEFT or RIGHT, got '" << direction << "'";
  ASSIGN_OR_FAIL(Value r, ctx.create1<BitShiftOp>({ctx.input(0), ctx.input(1)},
                                                  {ctx.boolAttr("left", direction == "LEFT")}));
  return ctx.setOutputs(r);
}

LogicalResult importWhere(NodeContext &ctx) {
  if (failed(ctx.expectInputs(3, 3)))
    return failure();
  ASSIGN_OR_FAIL(Value r, ctx.create1<WhereOp>({ctx.input(0), ctx.input(1), ctx.input(2)}));
  return ctx.setOutputs(r);
}

/// The lowest or highest finite value of an element type, as a double.
static double typeBound(Type type, bool highest) {
  if (auto ft = dyn_cast<FloatType>(type))
    return APFloat::getLargest(ft.getFloatSemantics(), /*Negative=*/!highest).convertToDouble();
  unsigned width = type.getIntOrFloatBitWidth();
  if (type.isUnsignedInteger() || width == 1)
    return highest ? std::ldexp(1.0, width) - 1 : 0;
  return highest ? std::ldexp(1.0, width - 1) - 1 : -std::ldexp(1.0, width - 1);
}

LogicalResult importClip(NodeContext &ctx) {
  Type elementType;
  Value min, max;
  if (ctx.sinceVersion() < 11) {
    if (failed(ctx.expectInputs(1, 1)))
      return failure();
    elementType = ctx.inputType(0).getElementType();
    ASSIGN_OR_FAIL(float lo, ctx.floatAttr("min", -std::numeric_limits<float>::max()));
    ASSIGN_OR_FAIL(float hi, ctx.floatAttr("max", std::numeric_limits<float>::max()));
    min = ctx.scalar(elementType, lo);
    max = ctx.scalar(elementType, hi);
  } else {
    if (failed(ctx.expectInputs(1, 3)))
      return failure();
    elementType = ctx.inputType(0).getElementType();
    min = ctx.hasInput(1) ? ctx.input(1) : ctx.scalar(elementType, typeBound(elementType, false));
    max = ctx.hasInput(2) ? ctx.input(2) : ctx.scalar(elementType, typeBound(elementType, true));
    // Some exporters give the bounds as 1-element 1-D tensors.
    for (Value *bound : {&min, &max}) {
      auto type = cast<RankedTensorType>(bound->getType());
      if (type.getRank() == 1 && type.getDimSize(0) == 1) {
        ASSIGN_OR_FAIL(*bound, ctx.create1<ReshapeOp>({*bound, ctx.constantI64({})},
                                                      {ctx.boolAttr("allow_zero", false)}));
      }
    }
  }
  ASSIGN_OR_FAIL(Value r, ctx.create1<ClipOp>({ctx.input(0), min, max}));
  return ctx.setOutputs(r);
}

LogicalResult importCast(NodeContext &ctx) {
  if (failed(ctx.expectInputs(1, 1)))
    return failure();
  ASSIGN_OR_FAIL(int64_t to, ctx.intAttr("to", std::nullopt));
  ASSIGN_OR_FAIL(int64_t saturate, ctx.intAttr("saturate", 1));
  ASSIGN_OR_FAIL(std::string roundMode, ctx.stringAttr("round_mode", std::string("up")));
  (void)roundMode; // Only affects FLOAT8E8M0, which is rejected below.
  Type target = convertElementType(static_cast<int32_t>(to), ctx.context());
  if (!target)
    return ctx.emitError() << "cast to " << elementTypeName(static_cast<int32_t>(to))
                           << " is not supported";
  ASSIGN_OR_FAIL(Value r, ctx.create1<CastOp>({ctx.input(0)}, {ctx.attr("to", TypeAttr::get(target)),
                                                              ctx.boolAttr("saturate", saturate != 0)}));
  return ctx.setOutputs(r);
}

LogicalResult importCastLike(NodeContext &ctx) {
  if (failed(ctx.expectInputs(2, 2)))
    return failure();
  ASSIGN_OR_FAIL(int64_t saturate, ctx.intAttr("saturate", 1));
  Type target = ctx.inputType(1).getElementType();
  ASSIGN_OR_FAIL(Value r, ctx.create1<CastOp>({ctx.input(0)}, {ctx.attr("to", TypeAttr::get(target)),
                                                              ctx.boolAttr("saturate", saturate != 0)}));
  return ctx.setOutputs(r);
}

} // namespace

void mlir::infer::onnx_import::registerElementwiseOps(OpRegistry &r) {
  r.add("Abs", {6, 13}, importUnary<AbsOp>);
  r.add("Ceil", {6, 13}, importUnary<CeilOp>);
  r.add("Cos", {7}, importUnary<CosOp>);
  r.add("Erf", {9, 13}, importUnary<ErfOp>);
  r.add("Exp", {6, 13}, importUnary<ExpOp>);
  r.add("Floor", {6, 13}, importUnary<FloorOp>);
  r.add("HardSwish", {14, 22}, importUnary<HardSwishOp>);
  r.add("IsNaN", {9, 13, 20}, importUnary<IsNaNOp>);
  r.add("Log", {6, 13}, importUnary<LogOp>);
  r.add("Neg", {6, 13}, importUnary<NegOp>);
  r.add("Not", {1}, importUnary<NotOp>);
  r.add("Reciprocal", {6, 13}, importUnary<ReciprocalOp>);
  r.add("Relu", {6, 13, 14}, importUnary<ReluOp>);
  r.add("Round", {11, 22}, importUnary<RoundOp>);
  r.add("Sigmoid", {6, 13}, importUnary<SigmoidOp>);
  r.add("Sign", {9, 13}, importUnary<SignOp>);
  r.add("Sin", {7}, importUnary<SinOp>);
  r.add("Softplus", {1, 22}, importUnary<SoftplusOp>);
  r.add("Sqrt", {6, 13}, importUnary<SqrtOp>);
  r.add("Tanh", {6, 13}, importUnary<TanhOp>);
  r.add("Acos", {7, 22}, importUnary<AcosOp>);
  r.add("Acosh", {9, 22}, importUnary<AcoshOp>);
  r.add("Asin", {7, 22}, importUnary<AsinOp>);
  r.add("Asinh", {9, 22}, importUnary<AsinhOp>);
  r.add("Atan", {7, 22}, importUnary<AtanOp>);
  r.add("Atanh", {9, 22}, importUnary<AtanhOp>);
  r.add("BitwiseNot", {18}, importUnary<BitwiseNotOp>);
  r.add("Cosh", {9, 22}, importUnary<CoshOp>);
  r.add("Mish", {18, 22}, importUnary<MishOp>);
  r.add("Sinh", {9, 22}, importUnary<SinhOp>);
  r.add("Softsign", {1, 22}, importUnary<SoftsignOp>);
  r.add("Tan", {7, 22}, importUnary<TanOp>);
  r.add("IsInf", {10, 20}, importIsInf);
  r.add("Shrink", {9}, importShrink);
  r.add("Celu", {12}, [](NodeContext &c) { return importAlpha<CeluOp>(c, 1.0f); });
  r.add("ThresholdedRelu", {10, 22},
        [](NodeContext &c) { return importAlpha<ThresholdedReluOp>(c, 1.0f); });
  r.add("PRelu", {7, 9, 16}, importBinary<PReluOp>);
  r.add("BitwiseAnd", {18}, importBinary<BitwiseAndOp>);
  r.add("BitwiseOr", {18}, importBinary<BitwiseOrOp>);
  r.add("BitwiseXor", {18}, importBinary<BitwiseXorOp>);

  r.add("Elu", {6, 22}, [](NodeContext &c) { return importAlpha<EluOp>(c, 1.0f); });
  r.add("LeakyRelu", {6, 16}, [](NodeContext &c) { return importAlpha<LeakyReluOp>(c, 0.01f); });
  r.add("Gelu", {20}, importGelu);
  r.add("HardSigmoid", {6, 22}, importHardSigmoid);
  r.add("Selu", {6, 22}, importSelu);
  r.add("Identity", {1, 13, 14, 16, 19, 21, 23}, importIdentity);
  r.add("Dropout", {7, 10, 12, 13, 22}, importDropout);

  r.add("Add", {7, 13, 14}, importBinary<AddOp>);
  r.add("Sub", {7, 13, 14}, importBinary<SubOp>);
  r.add("Mul", {7, 13, 14}, importBinary<MulOp>);
  r.add("Div", {7, 13, 14}, importBinary<DivOp>);
  r.add("Pow", {7, 12, 13, 15}, importPow);
  r.add("Mod", {10, 13}, importMod);
  r.add("Max", {8, 12, 13}, importVariadic<MaxOp>);
  r.add("Min", {8, 12, 13}, importVariadic<MinOp>);
  r.add("Sum", {8, 13}, importVariadic<AddOp>);
  r.add("Mean", {8, 13}, importMean);
  r.add("And", {7}, importBinary<AndOp>);
  r.add("Or", {7}, importBinary<OrOp>);
  r.add("Xor", {7}, importBinary<XorOp>);
  r.add("BitShift", {11}, importBitShift);
  r.add("Equal", {7, 11, 13, 19}, importBinary<EqualOp>);
  r.add("Greater", {7, 9, 13}, importBinary<GreaterOp>);
  r.add("GreaterOrEqual", {12, 16}, importBinary<GreaterOrEqualOp>);
  r.add("Less", {7, 9, 13}, importBinary<LessOp>);
  r.add("LessOrEqual", {12, 16}, importBinary<LessOrEqualOp>);
  r.add("Where", {9, 16}, importWhere);
  r.add("Clip", {6, 11, 12, 13}, importClip);
  r.add("Cast", {6, 9, 13, 19, 21, 23, 24}, importCast);
  r.add("CastLike", {15, 19, 21, 23, 24}, importCastLike);
}
