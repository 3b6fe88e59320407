//===- Elementwise.cpp - elementwise `infer` ops to linalg.generic --------===//
//
// Every elementwise op becomes one linalg.generic whose indexing maps do the
// ONNX broadcasting and whose body is the scalar computation below. Signless
// integers are treated as signed; unsigned element types are not lowered yet.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "infer-opt/Conversion/InferToLinalg/InferToLinalg.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

namespace {

bool isFloat(Type t) { return isa<FloatType>(t); }
Value cst(OpBuilder &b, Location loc, Type t, double v) { return scalarConstant(b, loc, t, v); }

/// exp, tanh, ... only exist for floats.
template <typename MathOp>
Value unaryFloat(OpBuilder &b, Location loc, Value x) {
  return MathOp::create(b, loc, x);
}

/// The scalar body of each unary op, or null for unsupported element types.
Value unaryBody(Operation *op, OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  bool fp = isFloat(t);
  auto f32 = [&](StringRef attr) {
    return cast<FloatAttr>(op->getAttr(attr)).getValueAsDouble();
  };
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AbsOp) -> Value {
        return fp ? Value(math::AbsFOp::create(b, loc, x)) : Value(math::AbsIOp::create(b, loc, x));
      })
      .Case([&](NegOp) -> Value {
        return fp ? Value(arith::NegFOp::create(b, loc, x))
                  : Value(arith::SubIOp::create(b, loc, cst(b, loc, t, 0), x));
      })
      .Case([&](CeilOp) -> Value { return fp ? unaryFloat<math::CeilOp>(b, loc, x) : x; })
      .Case([&](FloorOp) -> Value { return fp ? unaryFloat<math::FloorOp>(b, loc, x) : x; })
      .Case([&](RoundOp) -> Value { return fp ? unaryFloat<math::RoundEvenOp>(b, loc, x) : x; })
      .Case([&](ExpOp) -> Value { return fp ? unaryFloat<math::ExpOp>(b, loc, x) : Value(); })
      .Case([&](LogOp) -> Value { return fp ? unaryFloat<math::LogOp>(b, loc, x) : Value(); })
      .Case([&](SqrtOp) -> Value { return fp ? unaryFloat<math::SqrtOp>(b, loc, x) : Value(); })
      .Case([&](SinOp) -> Value { return fp ? unaryFloat<math::SinOp>(b, loc, x) : Value(); })
      .Case([&](CosOp) -> Value { return fp ? unaryFloat<math::CosOp>(b, loc, x) : Value(); })
      .Case([&](TanOp) -> Value { return fp ? unaryFloat<math::TanOp>(b, loc, x) : Value(); })
      .Case([&](AsinOp) -> Value { return fp ? unaryFloat<math::AsinOp>(b, loc, x) : Value(); })
      .Case([&](AcosOp) -> Value { return fp ? unaryFloat<math::AcosOp>(b, loc, x) : Value(); })
      .Case([&](AtanOp) -> Value { return fp ? unaryFloat<math::AtanOp>(b, loc, x) : Value(); })
      .Case([&](SinhOp) -> Value { return fp ? unaryFloat<math::SinhOp>(b, loc, x) : Value(); })
      .Case([&](CoshOp) -> Value { return fp ? unaryFloat<math::CoshOp>(b, loc, x) : Value(); })
      .Case([&](AsinhOp) -> Value { return fp ? unaryFloat<math::AsinhOp>(b, loc, x) : Value(); })
      .Case([&](AcoshOp) -> Value { return fp ? unaryFloat<math::AcoshOp>(b, loc, x) : Value(); })
      .Case([&](AtanhOp) -> Value { return fp ? unaryFloat<math::AtanhOp>(b, loc, x) : Value(); })
      .Case([&](TanhOp) -> Value { return fp ? unaryFloat<math::TanhOp>(b, loc, x) : Value(); })
      .Case([&](ErfOp) -> Value { return fp ? unaryFloat<math::ErfOp>(b, loc, x) : Value(); })
      .Case([&](ReciprocalOp) -> Value {
        return fp ? Value(arith::DivFOp::create(b, loc, cst(b, loc, t, 1), x)) : Value();
      })
      .Case([&](ReluOp) -> Value {
        return fp ? Value(arith::MaximumFOp::create(b, loc, x, cst(b, loc, t, 0)))
                  : Value(arith::MaxSIOp::create(b, loc, x, cst(b, loc, t, 0)));
      })
      .Case([&](SigmoidOp) -> Value {
        if (!fp)
          return {};
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, cst(b, loc, t, 1),
                                     arith::AddFOp::create(b, loc, cst(b, loc, t, 1), e));
      })
      .Case([&](SoftplusOp) -> Value {
        if (!fp)
          return {};
        // max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
        Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
        return arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, cst(b, loc, t, 0)),
                                     math::Log1pOp::create(b, loc, e));
      })
      .Case([&](SoftsignOp) -> Value {
        if (!fp)
          return {};
        Value d = arith::AddFOp::create(b, loc, cst(b, loc, t, 1), math::AbsFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, x, d);
      })
      .Case([&](SignOp) -> Value {
        Value zero = cst(b, loc, t, 0);
        if (fp) {
          Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
          Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
          Value s = arith::SelectOp::create(b, loc, pos, cst(b, loc, t, 1), zero);
          return arith::SelectOp::create(b, loc, neg, cst(b, loc, t, -1), s);
        }
        Value pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
        Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
        Value s = arith::SelectOp::create(b, loc, pos, cst(b, loc, t, 1), zero);
        return arith::SelectOp::create(b, loc, neg, cst(b, loc, t, -1), s);
      })
      .Case([&](NotOp) -> Value {
        return arith::XOrIOp::create(b, loc, x, cst(b, loc, t, 1));
      })
      .Case([&](BitwiseNotOp) -> Value {
        return fp ? Value() : Value(arith::XOrIOp::create(b, loc, x, cst(b, loc, t, -1)));
      })
      .Case([&](HardSigmoidOp) -> Value {
        if (!fp)
          return {};
        Value y = arith::AddFOp::create(
            b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, t, f32("alpha"))),
            cst(b, loc, t, f32("beta")));
        y = arith::MaximumFOp::create(b, loc, y, cst(b, loc, t, 0));
        return arith::MinimumFOp::create(b, loc, y, cst(b, loc, t, 1));
      })
      .Case([&](HardSwishOp) -> Value {
        if (!fp)
          return {};
        Value y = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, t, 1.0 / 6)),
                                        cst(b, loc, t, 0.5));
        y = arith::MaximumFOp::create(b, loc, y, cst(b, loc, t, 0));
        y = arith::MinimumFOp::create(b, loc, y, cst(b, loc, t, 1));
        return arith::MulFOp::create(b, loc, x, y);
      })
      .Case([&](LeakyReluOp) -> Value {
        if (!fp)
          return {};
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, t, 0));
        Value scaled = arith::MulFOp::create(b, loc, x, cst(b, loc, t, f32("alpha")));
        return arith::SelectOp::create(b, loc, neg, scaled, x);
      })
      .Case([&](ThresholdedReluOp) -> Value {
        if (!fp)
          return {};
        Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                            cst(b, loc, t, f32("alpha")));
        return arith::SelectOp::create(b, loc, above, x, cst(b, loc, t, 0));
      })
      .Case([&](EluOp) -> Value {
        if (!fp)
          return {};
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, t, 0));
        Value em1 = math::ExpM1Op::create(b, loc, x);
        Value scaled = arith::MulFOp::create(b, loc, em1, cst(b, loc, t, f32("alpha")));
        return arith::SelectOp::create(b, loc, neg, scaled, x);
      })
      .Case([&](SeluOp) -> Value {
        if (!fp)
          return {};
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, x, cst(b, loc, t, 0));
        Value em1 = math::ExpM1Op::create(b, loc, x);
        Value scaled = arith::MulFOp::create(b, loc, em1, cst(b, loc, t, f32("alpha")));
        Value y = arith::SelectOp::create(b, loc, neg, scaled, x);
        return arith::MulFOp::create(b, loc, y, cst(b, loc, t, f32("gamma")));
      })
      .Case([&](CeluOp) -> Value {
        if (!fp)
          return {};
        double alpha = f32("alpha");
        Value em1 = math::ExpM1Op::create(b, loc, arith::DivFOp::create(b, loc, x, cst(b, loc, t, alpha)));
        Value negPart = arith::MinimumFOp::create(
            b, loc, cst(b, loc, t, 0), arith::MulFOp::create(b, loc, em1, cst(b, loc, t, alpha)));
        return arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, cst(b, loc, t, 0)),
                                     negPart);
      })
      .Case([&](MishOp) -> Value {
        if (!fp)
          return {};
        Value sp = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
        return arith::MulFOp::create(b, loc, x, math::TanhOp::create(b, loc, sp));
      })
      .Case([&](ShrinkOp) -> Value {
        if (!fp)
          return {};
        double bias = f32("bias"), lambd = f32("lambd");
        Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, cst(b, loc, t, -lambd));
        Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, cst(b, loc, t, lambd));
        Value y = arith::SelectOp::create(b, loc, below, arith::AddFOp::create(b, loc, x, cst(b, loc, t, bias)),
                                          cst(b, loc, t, 0));
        return arith::SelectOp::create(b, loc, above, arith::SubFOp::create(b, loc, x, cst(b, loc, t, bias)), y);
      })
      .Case([&](GeluOp gelu) -> Value {
        if (!fp)
          return {};
        Value half = arith::MulFOp::create(b, loc, x, cst(b, loc, t, 0.5));
        Value inner;
        if (gelu.getTanhApproximation()) {
          Value x3 = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
          Value poly = arith::AddFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x3, cst(b, loc, t, 0.044715)));
          inner = math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, poly, cst(b, loc, t, 0.7978845608028654)));
        } else {
          inner = math::ErfOp::create(b, loc, arith::MulFOp::create(b, loc, x, cst(b, loc, t, 0.7071067811865476)));
        }
        return arith::MulFOp::create(b, loc, half, arith::AddFOp::create(b, loc, inner, cst(b, loc, t, 1)));
      })
      .Default([](Operation *) { return Value(); });
}

/// The scalar body of each binary op (lhs, rhs already of one type).
Value binaryBody(Operation *op, OpBuilder &b, Location loc, Value l, Value r) {
  Type t = l.getType();
  bool fp = isFloat(t);
  auto cmp = [&](arith::CmpFPredicate f, arith::CmpIPredicate i) -> Value {
    if (fp)
      return arith::CmpFOp::create(b, loc, f, l, r);
    return arith::CmpIOp::create(b, loc, i, l, r);
  };
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) -> Value {
        return fp ? Value(arith::AddFOp::create(b, loc, l, r)) : Value(arith::AddIOp::create(b, loc, l, r));
      })
      .Case([&](SubOp) -> Value {
        return fp ? Value(arith::SubFOp::create(b, loc, l, r)) : Value(arith::SubIOp::create(b, loc, l, r));
      })
      .Case([&](MulOp) -> Value {
        return fp ? Value(arith::MulFOp::create(b, loc, l, r)) : Value(arith::MulIOp::create(b, loc, l, r));
      })
      .Case([&](DivOp) -> Value {
        return fp ? Value(arith::DivFOp::create(b, loc, l, r)) : Value(arith::DivSIOp::create(b, loc, l, r));
      })
      .Case([&](PowOp) -> Value {
        return fp ? Value(math::PowFOp::create(b, loc, l, r)) : Value(math::IPowIOp::create(b, loc, l, r));
      })
      .Case([&](MaxOp) -> Value {
        return fp ? Value(arith::MaximumFOp::create(b, loc, l, r)) : Value(arith::MaxSIOp::create(b, loc, l, r));
      })
      .Case([&](MinOp) -> Value {
        return fp ? Value(arith::MinimumFOp::create(b, loc, l, r)) : Value(arith::MinSIOp::create(b, loc, l, r));
      })
      .Case([&](ModOp mod) -> Value {
        if (fp)
          return arith::RemFOp::create(b, loc, l, r);
        Value rem = arith::RemSIOp::create(b, loc, l, r);
        if (mod.getFmod())
          return rem;
        // Python semantics: the result takes the divisor's sign.
        Value zero = cst(b, loc, t, 0);
        Value nonzero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rem, zero);
        Value remNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
        Value divNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
        Value differ = arith::XOrIOp::create(b, loc, remNeg, divNeg);
        Value fix = arith::AndIOp::create(b, loc, nonzero, differ);
        return arith::SelectOp::create(b, loc, fix, arith::AddIOp::create(b, loc, rem, r), rem);
      })
      .Case<AndOp, BitwiseAndOp>([&](Operation *) -> Value {
        return fp ? Value() : Value(arith::AndIOp::create(b, loc, l, r));
      })
      .Case<OrOp, BitwiseOrOp>([&](Operation *) -> Value {
        return fp ? Value() : Value(arith::OrIOp::create(b, loc, l, r));
      })
      .Case<XorOp, BitwiseXorOp>([&](Operation *) -> Value {
        return fp ? Value() : Value(arith::XOrIOp::create(b, loc, l, r));
      })
      .Case([&](BitShiftOp shift) -> Value {
        if (fp)
          return {};
        return shift.getLeft() ? Value(arith::ShLIOp::create(b, loc, l, r))
                               : Value(arith::ShRUIOp::create(b, loc, l, r));
      })
      .Case([&](EqualOp) { return cmp(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq); })
      .Case([&](LessOp) { return cmp(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt); })
      .Case([&](LessOrEqualOp) { return cmp(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle); })
      .Case([&](GreaterOp) { return cmp(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt); })
      .Case([&](GreaterOrEqualOp) { return cmp(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge); })
      .Case([&](PReluOp) -> Value {
        if (!fp)
          return {};
        Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, l, cst(b, loc, t, 0));
        return arith::SelectOp::create(b, loc, neg, arith::MulFOp::create(b, loc, l, r), l);
      })
      .Default([](Operation *) { return Value(); });
}

/// Converts a scalar between element types with ONNX Cast semantics.
Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromFp = isFloat(from), toFp = isFloat(to);
  if (to.isInteger(1)) {
    if (fromFp)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, cst(b, loc, from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, cst(b, loc, from, 0));
  }
  if (fromFp && toFp) {
    unsigned fromBits = from.getIntOrFloatBitWidth(), toBits = to.getIntOrFloatBitWidth();
    if (fromBits == toBits) // f16 <-> bf16: through f32.
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x), fromBits = 32;
    if (fromBits < toBits)
      return arith::ExtFOp::create(b, loc, to, x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  if (fromFp)
    return arith::FPToSIOp::create(b, loc, to, x);
  bool fromBool = from.isInteger(1);
  if (toFp)
    return fromBool ? Value(arith::UIToFPOp::create(b, loc, to, x))
                    : Value(arith::SIToFPOp::create(b, loc, to, x));
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return fromBool ? Value(arith::ExtUIOp::create(b, loc, to, x))
                    : Value(arith::ExtSIOp::create(b, loc, to, x));
  return arith::TruncIOp::create(b, loc, to, x);
}

bool isSignlessOrFloat(Type t) {
  return isFloat(t) || t.isSignlessInteger();
}

/// Whether the scalar bodies above handle `op` on elements of `type` (math
/// functions need floats, logic and bit operations integers).
bool supportsElementType(Operation *op, Type type) {
  bool floatOnly =
      isa<ExpOp, LogOp, SqrtOp, SinOp, CosOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp,
          AsinhOp, AcoshOp, AtanhOp, TanhOp, ErfOp, ReciprocalOp, SigmoidOp, SoftplusOp,
          SoftsignOp, HardSigmoidOp, HardSwishOp, LeakyReluOp, ThresholdedReluOp, EluOp, SeluOp,
          CeluOp, MishOp, ShrinkOp, GeluOp, PReluOp, IsNaNOp, IsInfOp>(op);
  bool intOnly = isa<AndOp, OrOp, XorOp, BitShiftOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp,
                     NotOp, BitwiseNotOp>(op);
  return (!floatOnly || isFloat(type)) && (!intOnly || !isFloat(type));
}

/// Lowers every elementwise `infer` op (found by its traits and result
/// shape) into one broadcasting linalg.generic.
struct ElementwiseLowering : public RewritePattern {
  ElementwiseLowering(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<InferDialect>(op->getDialect()) || op->getNumResults() != 1)
      return failure();
    bool unary = op->hasTrait<OpTrait::SameOperandsAndResultType>() && op->getNumOperands() == 1;
    bool binary = isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, ModOp, AndOp, OrOp, XorOp,
                      BitShiftOp, BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, EqualOp, LessOp,
                      LessOrEqualOp, GreaterOp, GreaterOrEqualOp, PReluOp>(op);
    bool other = isa<WhereOp, ClipOp, CastOp, IsNaNOp, IsInfOp>(op);
    if (!unary && !binary && !other)
      return failure();
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (!isSignlessOrFloat(getElementTypeOrSelf(t)))
        return rewriter.notifyMatchFailure(op, "unsigned element types");
    Type operandElement = getElementTypeOrSelf(op->getOperand(isa<WhereOp>(op) ? 1 : 0).getType());
    if (!supportsElementType(op, operandElement))
      return rewriter.notifyMatchFailure(op, "element type not supported by this op");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Location loc = op->getLoc();
    auto body = [&](OpBuilder &b, Location l, ValueRange args) -> Value {
      Value v;
      if (unary) {
        v = unaryBody(op, b, l, args[0]);
      } else if (binary) {
        v = binaryBody(op, b, l, args[0], args[1]);
      } else if (isa<WhereOp>(op)) {
        v = arith::SelectOp::create(b, l, args[0], args[1], args[2]);
      } else if (isa<ClipOp>(op)) {
        Value x = args[0];
        if (isFloat(x.getType())) {
          v = arith::MinimumFOp::create(b, l, arith::MaximumFOp::create(b, l, x, args[1]), args[2]);
        } else {
          v = arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, x, args[1]), args[2]);
        }
      } else if (isa<CastOp>(op)) {
        v = castScalar(b, l, args[0], resultType.getElementType());
      } else if (isa<IsNaNOp>(op)) {
        v = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, args[0], args[0]);
      } else if (auto isInf = dyn_cast<IsInfOp>(op)) {
        Type t = args[0].getType();
        Value inf = cst(b, l, t, std::numeric_limits<double>::infinity());
        Value pos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, args[0], inf);
        Value neg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, args[0],
                                          arith::NegFOp::create(b, l, inf));
        Value no = cst(b, l, b.getI1Type(), 0);
        v = arith::OrIOp::create(b, l, isInf.getDetectPositive() ? pos : no,
                                 isInf.getDetectNegative() ? neg : no);
      }
      assert(v && "supportsElementType admitted an op without a scalar body");
      return v;
    };
    Value result = buildElementwise(rewriter, loc, resultType, op->getOperands(), body);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::infer::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}
