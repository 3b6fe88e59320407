//===- InferFolds.cpp - constant folding of `infer` ops ------------------===//
//
// Folding exists mainly to turn shape computations (Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape, Range, ConstantOfShape, ...) into
// constants once input shapes are known. Every folder that materializes a
// non-splat tensor respects the dialect's element limit
// (`--max-fold-elements`), so a tiny model cannot exhaust memory.
//
//===----------------------------------------------------------------------===//

#include "Infer/InferOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::infer;

static int64_t maxFoldElements(Operation *op) {
  auto *dialect = op->getContext()->getLoadedDialect<InferDialect>();
  return dialect ? dialect->getMaxFoldElements() : 0;
}

/// The static result type of `op`, or null when folding must not happen
/// (dynamic result, or more elements than the fold limit allows).
static RankedTensorType foldableResultType(Operation *op, bool splat = false) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return {};
  if (!splat && type.getNumElements() > maxFoldElements(op))
    return {};
  return type;
}

//===----------------------------------------------------------------------===//
// Numeric constants as int64 / double vectors
//===----------------------------------------------------------------------===//

namespace {
/// A small constant tensor read into host numbers, for arithmetic folds.
struct HostTensor {
  SmallVector<int64_t> shape;
  SmallVector<int64_t> ints;
  SmallVector<double> floats;
  bool isFloat = false;

  int64_t size() const { return isFloat ? floats.size() : ints.size(); }
  double asDouble(int64_t i) const { return isFloat ? floats[i] : static_cast<double>(ints[i]); }
};
} // namespace

static std::optional<HostTensor> readHostTensor(Attribute attr, int64_t limit) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || dense.getNumElements() > limit)
    return std::nullopt;
  HostTensor t;
  t.shape.assign(dense.getType().getShape().begin(), dense.getType().getShape().end());
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    t.isFloat = true;
    for (APFloat v : dense.getValues<APFloat>())
      t.floats.push_back(v.convertToDouble());
  } else if (et.isInteger()) {
    bool isUnsigned = et.isUnsignedInteger() || et.isInteger(1);
    for (APInt v : dense.getValues<APInt>())
      t.ints.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue()) : v.getSExtValue());
  } else {
    return std::nullopt;
  }
  return t;
}

/// Builds a dense attribute of `type` from host numbers (integers or
/// doubles, whichever `values` holds).
static Attribute makeElements(RankedTensorType type, const HostTensor &values) {
  Type et = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> out;
    for (int64_t i = 0; i < values.size(); ++i) {
      APFloat v(values.asDouble(i));
      bool lostInfo;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lostInfo);
      out.push_back(v);
    }
    return DenseElementsAttr::get(type, out);
  }
  if (!et.isInteger())
    return {};
  unsigned width = et.getIntOrFloatBitWidth();
  if (width == 1) {
    SmallVector<bool> out;
    for (int64_t i = 0; i < values.size(); ++i)
      out.push_back(values.asDouble(i) != 0);
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> out;
  for (int64_t i = 0; i < values.size(); ++i) {
    int64_t v;
    if (values.isFloat) {
      double d = values.floats[i];
      if (!std::isfinite(d) || std::fabs(d) > 9.2e18)
        return {}; // Undefined in ONNX too; leave it to run time.
      v = static_cast<int64_t>(d); // Truncates toward zero, as ONNX Cast.
    } else {
      v = values.ints[i];
    }
    out.push_back(APInt(width, static_cast<uint64_t>(v), /*isSigned=*/!et.isUnsignedInteger(),
                        /*implicitTrunc=*/true));
  }
  return DenseElementsAttr::get(type, out);
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Index into a broadcast operand of shape `shape` for the flat result
/// index `flat` of a result with shape `resultShape`.
static int64_t broadcastIndex(int64_t flat, ArrayRef<int64_t> resultShape,
                              ArrayRef<int64_t> resultStrides, ArrayRef<int64_t> shape) {
  int64_t offset = resultShape.size() - shape.size();
  SmallVector<int64_t> strides = stridesOf(shape);
  int64_t index = 0;
  for (size_t d = 0; d < resultShape.size(); ++d) {
    int64_t coord = (flat / resultStrides[d]) % resultShape[d];
    if (static_cast<int64_t>(d) >= offset && shape[d - offset] != 1)
      index += coord * strides[d - offset];
  }
  return index;
}

using BinaryFn = std::function<std::optional<double>(double, double)>;
using BinaryIntFn = std::function<std::optional<int64_t>(int64_t, int64_t)>;

/// Folds an elementwise op over constant operands with broadcasting.
static OpFoldResult foldElementwise(Operation *op, ArrayRef<Attribute> operands,
                                    const BinaryIntFn &intFn, const BinaryFn &floatFn) {
  RankedTensorType type = foldableResultType(op);
  if (!type)
    return {};
  int64_t limit = maxFoldElements(op);
  std::optional<HostTensor> lhs = readHostTensor(operands[0], limit);
  std::optional<HostTensor> rhs = readHostTensor(operands[1], limit);
  if (!lhs || !rhs || lhs->isFloat != rhs->isFloat)
    return {};
  HostTensor result;
  result.isFloat = lhs->isFloat && isa<FloatType>(type.getElementType());
  SmallVector<int64_t> strides = stridesOf(type.getShape());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    int64_t li = broadcastIndex(i, type.getShape(), strides, lhs->shape);
    int64_t ri = broadcastIndex(i, type.getShape(), strides, rhs->shape);
    if (lhs->isFloat) {
      std::optional<double> v = floatFn ? floatFn(lhs->floats[li], rhs->floats[ri]) : std::nullopt;
      if (!v)
        return {};
      if (result.isFloat)
        result.floats.push_back(*v);
      else
        result.ints.push_back(static_cast<int64_t>(*v));
    } else {
      std::optional<int64_t> v = intFn ? intFn(lhs->ints[li], rhs->ints[ri]) : std::nullopt;
      if (!v)
        return {};
      result.ints.push_back(*v);
    }
  }
  return makeElements(type, result);
}

template <typename T>
static std::optional<T> some(T v) {
  return v;
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some(a + b); },
      [](double a, double b) { return some(a + b); });
}
OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some(a - b); },
      [](double a, double b) { return some(a - b); });
}
OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some(a * b); },
      [](double a, double b) { return some(a * b); });
}
OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(),
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b == 0 || (a == INT64_MIN && b == -1))
          return std::nullopt;
        return a / b;
      },
      [](double a, double b) { return some(a / b); });
}
OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some(std::max(a, b)); },
      [](double a, double b) { return some(std::fmax(a, b)); });
}
OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some(std::min(a, b)); },
      [](double a, double b) { return some(std::fmin(a, b)); });
}
OpFoldResult EqualOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a == b); },
      [](double a, double b) { return some<double>(a == b); });
}
OpFoldResult LessOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a < b); },
      [](double a, double b) { return some<double>(a < b); });
}
OpFoldResult GreaterOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a > b); },
      [](double a, double b) { return some<double>(a > b); });
}
OpFoldResult LessOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a <= b); },
      [](double a, double b) { return some<double>(a <= b); });
}
OpFoldResult GreaterOrEqualOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a >= b); },
      [](double a, double b) { return some<double>(a >= b); });
}
OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a && b); },
      nullptr);
}
OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>(a || b); },
      nullptr);
}
OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(*this, adaptor.getOperands(), nullptr,
                         [](double a, double b) { return some(std::pow(a, b)); });
}
OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool fmod = getFmod();
  return foldElementwise(
      *this, adaptor.getOperands(),
      [fmod](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b == 0 || (a == INT64_MIN && b == -1))
          return std::nullopt;
        int64_t r = a % b; // C semantics: the sign of the dividend (fmod).
        if (!fmod && r != 0 && ((r < 0) != (b < 0)))
          r += b; // Python semantics: the sign of the divisor.
        return r;
      },
      [](double a, double b) { return some(std::fmod(a, b)); });
}
OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldElementwise(
      *this, adaptor.getOperands(), [](int64_t a, int64_t b) { return some<int64_t>((a != 0) != (b != 0)); },
      nullptr);
}
// Left to run time: not part of shape computations.
OpFoldResult BitShiftOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseAndOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseOrOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BitwiseXorOp::fold(FoldAdaptor) { return {}; }
OpFoldResult PReluOp::fold(FoldAdaptor) { return {}; }

/// Folds a unary op over a constant operand; `intFn` may be null for ops
/// that only make sense on floats.
static OpFoldResult foldUnary(Operation *op, Attribute operand,
                              const std::function<std::optional<int64_t>(int64_t)> &intFn,
                              const std::function<std::optional<double>(double)> &floatFn) {
  RankedTensorType type = foldableResultType(op);
  if (!type)
    return {};
  auto input = readHostTensor(operand, maxFoldElements(op));
  if (!input)
    return {};
  HostTensor result;
  result.isFloat = input->isFloat;
  for (int64_t i = 0, e = input->size(); i < e; ++i) {
    if (input->isFloat) {
      std::optional<double> v = floatFn ? floatFn(input->floats[i]) : std::nullopt;
      if (!v)
        return {};
      result.floats.push_back(*v);
    } else {
      std::optional<int64_t> v = intFn ? intFn(input->ints[i]) : std::nullopt;
      if (!v)
        return {};
      result.ints.push_back(*v);
    }
  }
  return makeElements(type, result);
}

#define INFER_FOLD_UNARY(OP, INT_FN, FLOAT_FN)                                 \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldUnary(*this, adaptor.getInput(), INT_FN, FLOAT_FN);             \
  }
INFER_FOLD_UNARY(AbsOp, [](int64_t a) { return some(a < 0 ? -a : a); },
                 [](double a) { return some(std::fabs(a)); })
INFER_FOLD_UNARY(NegOp, [](int64_t a) { return some(-a); }, [](double a) { return some(-a); })
INFER_FOLD_UNARY(SignOp, [](int64_t a) { return some<int64_t>((a > 0) - (a < 0)); },
                 [](double a) { return some<double>((a > 0) - (a < 0)); })
INFER_FOLD_UNARY(ReluOp, [](int64_t a) { return some(std::max<int64_t>(a, 0)); },
                 [](double a) { return some(std::fmax(a, 0.0)); })
INFER_FOLD_UNARY(NotOp, [](int64_t a) { return some<int64_t>(a == 0); }, nullptr)
INFER_FOLD_UNARY(CeilOp, nullptr, [](double a) { return some(std::ceil(a)); })
INFER_FOLD_UNARY(FloorOp, nullptr, [](double a) { return some(std::floor(a)); })
INFER_FOLD_UNARY(SqrtOp, nullptr, [](double a) { return some(std::sqrt(a)); })
INFER_FOLD_UNARY(ExpOp, nullptr, [](double a) { return some(std::exp(a)); })
INFER_FOLD_UNARY(LogOp, nullptr, [](double a) { return some(std::log(a)); })
INFER_FOLD_UNARY(ReciprocalOp, nullptr, [](double a) { return some(1.0 / a); })
#undef INFER_FOLD_UNARY

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = foldableResultType(*this);
  if (!type)
    return {};
  int64_t limit = maxFoldElements(*this);
  auto cond = readHostTensor(adaptor.getCondition(), limit);
  auto lhs = readHostTensor(adaptor.getLhs(), limit);
  auto rhs = readHostTensor(adaptor.getRhs(), limit);
  if (!cond || !lhs || !rhs)
    return {};
  HostTensor result;
  result.isFloat = lhs->isFloat;
  SmallVector<int64_t> strides = stridesOf(type.getShape());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    bool pick = cond->ints[broadcastIndex(i, type.getShape(), strides, cond->shape)] != 0;
    const HostTensor &src = pick ? *lhs : *rhs;
    int64_t j = broadcastIndex(i, type.getShape(), strides, src.shape);
    if (result.isFloat)
      result.floats.push_back(src.floats[j]);
    else
      result.ints.push_back(src.ints[j]);
  }
  return makeElements(type, result);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  RankedTensorType type = foldableResultType(*this);
  if (!type)
    return {};
  auto input = readHostTensor(adaptor.getInput(), maxFoldElements(*this));
  if (!input)
    return {};
  return makeElements(type, *input);
}

//===----------------------------------------------------------------------===//
// Constants, shape queries and generators
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto type = getInput().getType();
  ArrayRef<int64_t> dims = type.getShape().slice(getStart(), getEnd() - getStart());
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return {};
  return DenseElementsAttr::get(getType(), ArrayRef<int64_t>(dims));
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto type = getInput().getType();
  if (!type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(getType(), type.getNumElements());
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  // A splat costs one element whatever its shape.
  RankedTensorType type = foldableResultType(*this, /*splat=*/true);
  auto value = dyn_cast<DenseElementsAttr>(getValue());
  if (!type || !value)
    return {};
  return DenseElementsAttr::get(type, *value.getValues<Attribute>().begin());
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = foldableResultType(*this);
  if (!type)
    return {};
  auto start = readHostTensor(adaptor.getStart(), 1);
  auto delta = readHostTensor(adaptor.getDelta(), 1);
  if (!start || !delta)
    return {};
  HostTensor result;
  result.isFloat = start->isFloat;
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    if (result.isFloat)
      result.floats.push_back(start->floats[0] + i * delta->floats[0]);
    else
      result.ints.push_back(start->ints[0] + i * delta->ints[0]);
  }
  return makeElements(type, result);
}

//===----------------------------------------------------------------------===//
// Data movement: reshapes are free, the rest moves raw bytes
//===----------------------------------------------------------------------===//

static OpFoldResult foldReshapeLike(Operation *op, Value input, Attribute inputAttr) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (input.getType() == resultType)
    return input;
  auto dense = dyn_cast_or_null<DenseElementsAttr>(inputAttr);
  if (!dense || !resultType.hasStaticShape())
    return {};
  return dense.reshape(resultType);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return foldReshapeLike(*this, getInput(), adaptor.getInput());
}
OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  return foldReshapeLike(*this, getInput(), adaptor.getInput());
}
OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  return foldReshapeLike(*this, getInput(), adaptor.getInput());
}

/// Builds result element i from source element sourceIndex(i), copying raw
/// bytes. Only for byte-sized element types (not i1 or 4-bit types).
static Attribute gatherElements(DenseElementsAttr source, RankedTensorType resultType,
                                llvm::function_ref<int64_t(int64_t)> sourceIndex) {
  if (source.isSplat())
    return DenseElementsAttr::get(resultType, *source.getValues<Attribute>().begin());
  unsigned bits = source.getElementType().getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return {};
  size_t bytes = bits / 8;
  ArrayRef<char> raw = source.getRawData();
  std::vector<char> out(resultType.getNumElements() * bytes);
  for (int64_t i = 0, e = resultType.getNumElements(); i < e; ++i) {
    int64_t j = sourceIndex(i);
    if (j < 0 || static_cast<size_t>(j + 1) * bytes > raw.size())
      return {};
    std::memcpy(out.data() + i * bytes, raw.data() + j * bytes, bytes);
  }
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  if (identity && getInput().getType() == getType())
    return getInput();
  // Exempt from the fold limit, like splats: a transpose only moves bytes,
  // and left to run time it re-transposes a weight on every inference (a
  // tied lm_head's tens of millions of elements, a sizeable share of the
  // model's time). The cost is a second copy when the constant has other
  // users.
  RankedTensorType type = foldableResultType(*this, /*splat=*/true);
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!type || !input)
    return {};
  SmallVector<int64_t> inStrides = stridesOf(input.getType().getShape());
  SmallVector<int64_t> outStrides = stridesOf(type.getShape());
  return gatherElements(input, type, [&](int64_t flat) {
    int64_t index = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      index += ((flat / outStrides[d]) % type.getDimSize(d)) * inStrides[perm[d]];
    return index;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  RankedTensorType type = foldableResultType(*this);
  if (!type)
    return {};
  SmallVector<DenseElementsAttr> inputs;
  for (Attribute a : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    inputs.push_back(dense);
  }
  // Concatenation through a flat index map: result element -> (input, index).
  int64_t axis = getAxis();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= type.getDimSize(d);
  SmallVector<int64_t> offsets;
  int64_t total = 0;
  for (DenseElementsAttr in : inputs) {
    offsets.push_back(total);
    total += in.getType().getDimSize(axis);
  }
  HostTensor merged;
  std::optional<HostTensor> first = readHostTensor(inputs[0], maxFoldElements(*this));
  if (!first)
    return {};
  merged.isFloat = first->isFloat;
  SmallVector<HostTensor> hosts;
  for (DenseElementsAttr in : inputs) {
    auto host = readHostTensor(in, maxFoldElements(*this));
    if (!host || host->isFloat != merged.isFloat)
      return {};
    hosts.push_back(std::move(*host));
  }
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    int64_t outer = i / (total * inner), along = (i / inner) % total, in = i % inner;
    size_t k = std::upper_bound(offsets.begin(), offsets.end(), along) - offsets.begin() - 1;
    int64_t dim = inputs[k].getType().getDimSize(axis);
    int64_t j = (outer * dim + (along - offsets[k])) * inner + in;
    if (merged.isFloat)
      merged.floats.push_back(hosts[k].floats[j]);
    else
      merged.ints.push_back(hosts[k].ints[j]);
  }
  return makeElements(type, merged);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape()) {
    // A slice that keeps every element of every dim is the identity only if
    // all steps are positive; a reversed slice has the same type.
    auto steps = getConstantIntValues(getSteps());
    if (steps && llvm::all_of(*steps, [](int64_t s) { return s > 0; }))
      return getInput();
  }
  RankedTensorType type = foldableResultType(*this);
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  auto starts = getConstantIntValues(getStarts());
  auto axes = getConstantIntValues(getAxes());
  auto steps = getConstantIntValues(getSteps());
  if (!type || !input || !starts || !axes || !steps)
    return {};
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t rank = inType.getRank();
  SmallVector<int64_t> begin(rank, 0), step(rank, 1);
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    int64_t dim = inType.getDimSize(axis);
    int64_t s = (*starts)[i];
    if (s < 0)
      s += dim;
    s = (*steps)[i] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
    begin[axis] = s;
    step[axis] = (*steps)[i];
  }
  SmallVector<int64_t> inStrides = stridesOf(inType.getShape());
  SmallVector<int64_t> outStrides = stridesOf(type.getShape());
  return gatherElements(input, type, [&](int64_t flat) {
    int64_t index = 0;
    for (int64_t d = 0; d < rank; ++d)
      index += (begin[d] + ((flat / outStrides[d]) % type.getDimSize(d)) * step[d]) * inStrides[d];
    return index;
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = foldableResultType(*this);
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto indices = readHostTensor(adaptor.getIndices(), maxFoldElements(*this));
  if (!type || !data || !indices || indices->isFloat)
    return {};
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t axis = getAxis();
  int64_t dim = dataType.getDimSize(axis);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
    inner *= dataType.getDimSize(d);
  int64_t numIndices = indices->ints.size();
  for (int64_t &i : indices->ints) {
    if (i < 0)
      i += dim;
    if (i < 0 || i >= dim)
      return {}; // Out of range: the run-time error is the user's to see.
  }
  return gatherElements(data, type, [&](int64_t flat) {
    int64_t in = flat % inner;
    int64_t k = (flat / inner) % numIndices;
    int64_t outer = flat / (inner * numIndices);
    return (outer * dim + indices->ints[k]) * inner + in;
  });
}
