//===- InferShapeInference.cpp - result types of `infer` ops -------------===//
//
// Every op computes its result types from its operand types, attributes and
// the values of constant operands (shape vectors). The importer builds ops
// through these functions, so a graph whose inputs are static becomes static
// op by op; and a bad model is reported here, at the node, instead of
// crashing later. Nothing here asserts on model data.
//
//===----------------------------------------------------------------------===//

#include "Infer/InferOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::infer;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

namespace {
using Types = SmallVectorImpl<Type>;
using OptLoc = std::optional<Location>;
} // namespace

static RankedTensorType rankedType(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

static LogicalResult pushTensor(Types &inferred, ArrayRef<int64_t> shape, Type elementType) {
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

/// Multiplies dims; dynamic if any is dynamic or the product overflows
/// (a malicious model can declare such dims; the importer's size limit
/// reports them).
static int64_t productOfDims(ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d) || __builtin_mul_overflow(product, d, &product))
      return kDynamic;
  }
  return product;
}

/// Validates a list of axes against `rank`: in range, no repeats.
static LogicalResult checkAxes(OptLoc loc, ArrayRef<int64_t> axes, int64_t rank, StringRef what) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, what, " axis ", axis, " is out of range for rank ", rank);
    if (!seen.insert(axis).second)
      return emitOptionalError(loc, what, " axis ", axis, " is repeated");
  }
  return success();
}

static LogicalResult checkAxis(OptLoc loc, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", rank);
  return success();
}

/// A shape operand (Reshape, Expand, ConstantOfShape, ...) must be a 1-D
/// tensor of static length: its length is the result's rank.
static FailureOr<int64_t> shapeOperandLength(OptLoc loc, Value shape, StringRef name) {
  RankedTensorType type = rankedType(shape);
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return emitOptionalError(loc, name, " must be a 1-D tensor of static length, got ",
                             shape.getType());
  return type.getDimSize(0);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static LogicalResult inferBroadcast(OptLoc loc, ValueRange operands, Type resultElementType,
                                    Types &inferred) {
  SmallVector<int64_t> shape;
  Type elementType;
  for (Value operand : operands) {
    RankedTensorType type = rankedType(operand);
    if (!type)
      return emitOptionalError(loc, "expects ranked tensor operands");
    if (!elementType)
      elementType = type.getElementType();
    else if (type.getElementType() != elementType)
      return emitOptionalError(loc, "operand element types differ: ", elementType, " vs ",
                               type.getElementType());
    FailureOr<SmallVector<int64_t>> merged = broadcastShapes(shape, type.getShape());
    if (failed(merged))
      return emitOptionalError(loc, "operand shapes cannot be broadcast together: ",
                               operands.front().getType(), " and ", type);
    shape = *merged;
  }
  return pushTensor(inferred, shape, resultElementType ? resultElementType : elementType);
}

#define INFER_BINARY(OP, RESULT_ELEMENT)                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *ctx, OptLoc loc,             \
                                     Adaptor adaptor, Types &inferred) {       \
    return inferBroadcast(loc, {adaptor.getLhs(), adaptor.getRhs()},           \
                          RESULT_ELEMENT, inferred);                           \
  }
INFER_BINARY(AddOp, Type())
INFER_BINARY(SubOp, Type())
INFER_BINARY(MulOp, Type())
INFER_BINARY(DivOp, Type())
INFER_BINARY(PowOp, Type())
INFER_BINARY(MaxOp, Type())
INFER_BINARY(MinOp, Type())
INFER_BINARY(ModOp, Type())
INFER_BINARY(AndOp, Type())
INFER_BINARY(OrOp, Type())
INFER_BINARY(XorOp, Type())
INFER_BINARY(BitShiftOp, Type())
INFER_BINARY(EqualOp, IntegerType::get(ctx, 1))
INFER_BINARY(GreaterOp, IntegerType::get(ctx, 1))
INFER_BINARY(GreaterOrEqualOp, IntegerType::get(ctx, 1))
INFER_BINARY(LessOp, IntegerType::get(ctx, 1))
INFER_BINARY(LessOrEqualOp, IntegerType::get(ctx, 1))
#undef INFER_BINARY

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  SmallVector<Type> valueType;
  if (failed(inferBroadcast(loc, {adaptor.getLhs(), adaptor.getRhs()}, Type(), valueType)))
    return failure();
  auto merged = broadcastShapes(cast<RankedTensorType>(valueType[0]).getShape(),
                                rankedType(adaptor.getCondition()).getShape());
  if (failed(merged))
    return emitOptionalError(loc, "condition shape cannot be broadcast with the values");
  return pushTensor(inferred, *merged, getElementTypeOrSelf(valueType[0]));
}

LogicalResult IsNaNOp::inferReturnTypes(MLIRContext *ctx, OptLoc, Adaptor adaptor,
                                        Types &inferred) {
  return pushTensor(inferred, rankedType(adaptor.getInput()).getShape(),
                    IntegerType::get(ctx, 1));
}

LogicalResult ClipOp::inferReturnTypes(MLIRContext *, OptLoc, Adaptor adaptor, Types &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  Type to = adaptor.getTo();
  if (!to || !to.isIntOrFloat())
    return emitOptionalError(loc, "cannot cast to ", to);
  return pushTensor(inferred, rankedType(adaptor.getInput()).getShape(), to);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType lhs = rankedType(adaptor.getLhs()), rhs = rankedType(adaptor.getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "operand element types differ: ", lhs.getElementType(),
                             " vs ", rhs.getElementType());
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOptionalError(loc, "operands must have rank >= 1");
  // numpy.matmul: 1-D operands become matrices, the added dim is dropped.
  SmallVector<int64_t> a(lhs.getShape()), b(rhs.getShape());
  bool vecLhs = a.size() == 1, vecRhs = b.size() == 1;
  if (vecLhs)
    a.insert(a.begin(), 1);
  if (vecRhs)
    b.push_back(1);
  int64_t k1 = a.back(), k2 = b[b.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitOptionalError(loc, "inner dimensions differ: ", lhs, " x ", rhs);
  auto batch = broadcastShapes(ArrayRef(a).drop_back(2), ArrayRef(b).drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc, "batch dimensions cannot be broadcast: ", lhs, " x ", rhs);
  SmallVector<int64_t> shape = *batch;
  if (!vecLhs)
    shape.push_back(a[a.size() - 2]);
  if (!vecRhs)
    shape.push_back(b.back());
  return pushTensor(inferred, shape, lhs.getElementType());
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType a = rankedType(adaptor.getA()), b = rankedType(adaptor.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "expects 2-D A and B, got ", a, " and ", b);
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "operand element types differ");
  int64_t m = a.getDimSize(adaptor.getTransA() ? 1 : 0);
  int64_t ka = a.getDimSize(adaptor.getTransA() ? 0 : 1);
  int64_t kb = b.getDimSize(adaptor.getTransB() ? 1 : 0);
  int64_t n = b.getDimSize(adaptor.getTransB() ? 0 : 1);
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return emitOptionalError(loc, "inner dimensions differ: ", ka, " vs ", kb);
  if (Value c = adaptor.getC()) {
    if (failed(broadcastShapes({m, n}, rankedType(c).getShape())) || rankedType(c).getRank() > 2)
      return emitOptionalError(loc, "C of type ", c.getType(), " does not broadcast to [", m,
                               ", ", n, "]");
  }
  return pushTensor(inferred, {m, n}, a.getElementType());
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  StringRef equation = adaptor.getEquation();
  auto [inputsPart, output] = equation.split("->");
  if (!equation.contains("->"))
    return emitOptionalError(loc, "einsum equation '", equation, "' has no explicit output");
  SmallVector<StringRef> terms;
  inputsPart.split(terms, ',');
  if (terms.size() != adaptor.getInputs().size())
    return emitOptionalError(loc, "einsum equation has ", terms.size(), " inputs, the op has ",
                             adaptor.getInputs().size());
  llvm::DenseMap<char, int64_t> sizes;
  SmallVector<int64_t> ellipsisShape;
  Type elementType;
  for (auto [term, value] : llvm::zip(terms, adaptor.getInputs())) {
    RankedTensorType type = rankedType(value);
    elementType = type.getElementType();
    term = term.trim();
    size_t ellipsis = term.find("...");
    std::string letters = term.str();
    if (ellipsis != StringRef::npos)
      letters.erase(ellipsis, 3);
    int64_t ellipsisRank = type.getRank() - static_cast<int64_t>(letters.size());
    if (ellipsisRank < 0 || (ellipsis == StringRef::npos && ellipsisRank != 0))
      return emitOptionalError(loc, "einsum term '", term, "' does not match rank ",
                               type.getRank());
    size_t dim = 0;
    for (size_t i = 0; i < letters.size(); ++i) {
      if (ellipsis != StringRef::npos && i == ellipsis) {
        auto merged = broadcastShapes(ellipsisShape, type.getShape().slice(dim, ellipsisRank));
        if (failed(merged))
          return emitOptionalError(loc, "einsum ellipsis dims do not broadcast");
        ellipsisShape = *merged;
        dim += ellipsisRank;
      }
      char c = letters[i];
      if (!llvm::isAlpha(c))
        return emitOptionalError(loc, "bad einsum label '", StringRef(&c, 1), "'");
      int64_t size = type.getDimSize(dim++);
      auto [it, inserted] = sizes.try_emplace(c, size);
      if (!inserted && it->second != size) {
        if (ShapedType::isDynamic(it->second) || it->second == 1)
          it->second = size;
        else if (!ShapedType::isDynamic(size) && size != 1)
          return emitOptionalError(loc, "einsum label '", StringRef(&c, 1),
                                   "' has sizes ", it->second, " and ", size);
      }
    }
    if (ellipsis != StringRef::npos && ellipsis == letters.size()) {
      auto merged = broadcastShapes(ellipsisShape, type.getShape().slice(dim, ellipsisRank));
      if (failed(merged))
        return emitOptionalError(loc, "einsum ellipsis dims do not broadcast");
      ellipsisShape = *merged;
    }
  }
  SmallVector<int64_t> shape;
  output = output.trim();
  for (size_t i = 0; i < output.size(); ++i) {
    if (output.substr(i).starts_with("...")) {
      llvm::append_range(shape, ellipsisShape);
      i += 2;
      continue;
    }
    auto it = sizes.find(output[i]);
    if (it == sizes.end())
      return emitOptionalError(loc, "einsum output label '", output.substr(i, 1),
                               "' appears in no input");
    shape.push_back(it->second);
  }
  return pushTensor(inferred, shape, elementType);
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling
//===----------------------------------------------------------------------===//

/// Checks the window attributes of a conv or pool over `spatialRank` dims.
static LogicalResult checkWindow(OptLoc loc, int64_t spatialRank, ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  if (static_cast<int64_t>(strides.size()) != spatialRank ||
      static_cast<int64_t>(dilations.size()) != spatialRank ||
      static_cast<int64_t>(pads.size()) != 2 * spatialRank)
    return emitOptionalError(loc, "expects ", spatialRank, " strides and dilations and ",
                             2 * spatialRank, " pads");
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return emitOptionalError(loc, "strides and dilations must be positive");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, "pads must be non-negative");
  return success();
}

/// Output length of one windowed dim; dynamic in, dynamic out.
static FailureOr<int64_t> windowOutputSize(OptLoc loc, int64_t in, int64_t kernel,
                                           int64_t stride, int64_t padBegin, int64_t padEnd,
                                           int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return kDynamic;
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = in + padBegin + padEnd;
  if (padded < span)
    return emitOptionalError(loc, "window of extent ", span, " is larger than the padded input (",
                             padded, ")");
  int64_t out = (padded - span) / stride + 1;
  if (ceilMode && (padded - span) % stride != 0) {
    // Like ONNX and PyTorch: the last window must start inside the input or
    // its begin padding.
    if (out * stride < in + padBegin)
      ++out;
  }
  return out;
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput()), w = rankedType(adaptor.getWeight());
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOptionalError(loc, "expects input and weight of equal rank >= 3, got ", x,
                             " and ", w);
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "input and weight element types differ");
  int64_t spatial = x.getRank() - 2;
  if (failed(checkWindow(loc, spatial, adaptor.getStrides(), adaptor.getPads(),
                         adaptor.getDilations())))
    return failure();
  int64_t group = static_cast<int64_t>(adaptor.getGroup());
  if (group < 1)
    return emitOptionalError(loc, "group must be positive");
  int64_t channels = x.getDimSize(1), weightChannels = w.getDimSize(1), m = w.getDimSize(0);
  if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(weightChannels) &&
      channels != weightChannels * group)
    return emitOptionalError(loc, "input has ", channels, " channels, weight expects ",
                             weightChannels, " x group ", group);
  if (!ShapedType::isDynamic(m) && m % group != 0)
    return emitOptionalError(loc, "output channels ", m, " not divisible by group ", group);
  if (Value b = adaptor.getBias()) {
    RankedTensorType bt = rankedType(b);
    if (bt.getRank() != 1 || (!bt.isDynamicDim(0) && !ShapedType::isDynamic(m) && bt.getDimSize(0) != m))
      return emitOptionalError(loc, "bias must be 1-D of size ", m, ", got ", bt);
  }
  SmallVector<int64_t> shape = {x.getDimSize(0), m};
  for (int64_t i = 0; i < spatial; ++i) {
    auto out = windowOutputSize(loc, x.getDimSize(i + 2), w.getDimSize(i + 2),
                                adaptor.getStrides()[i], adaptor.getPads()[i],
                                adaptor.getPads()[i + spatial], adaptor.getDilations()[i], false);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput()), w = rankedType(adaptor.getWeight());
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOptionalError(loc, "expects input and weight of equal rank >= 3");
  int64_t spatial = x.getRank() - 2;
  if (failed(checkWindow(loc, spatial, adaptor.getStrides(), adaptor.getPads(),
                         adaptor.getDilations())))
    return failure();
  if (static_cast<int64_t>(adaptor.getOutputPadding().size()) != spatial)
    return emitOptionalError(loc, "expects ", spatial, " output_padding values");
  int64_t group = static_cast<int64_t>(adaptor.getGroup());
  if (group < 1)
    return emitOptionalError(loc, "group must be positive");
  int64_t channels = x.getDimSize(1);
  if (!ShapedType::isDynamic(channels) && !w.isDynamicDim(0) && channels != w.getDimSize(0))
    return emitOptionalError(loc, "input has ", channels, " channels, weight expects ",
                             w.getDimSize(0));
  int64_t m = w.isDynamicDim(1) ? kDynamic : w.getDimSize(1) * group;
  SmallVector<int64_t> shape = {x.getDimSize(0), m};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = x.getDimSize(i + 2), k = w.getDimSize(i + 2);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t out = adaptor.getStrides()[i] * (in - 1) + adaptor.getOutputPadding()[i] +
                  (k - 1) * adaptor.getDilations()[i] + 1 - adaptor.getPads()[i] -
                  adaptor.getPads()[i + spatial];
    if (out < 1)
      return emitOptionalError(loc, "output size ", out, " of spatial dim ", i, " is not positive");
    shape.push_back(out);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

template <typename Adaptor>
static LogicalResult inferPool(OptLoc loc, Adaptor adaptor, Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "expects an input of rank >= 3, got ", x);
  int64_t spatial = x.getRank() - 2;
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  if (static_cast<int64_t>(kernel.size()) != spatial ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return emitOptionalError(loc, "expects ", spatial, " positive kernel_shape values");
  if (failed(checkWindow(loc, spatial, adaptor.getStrides(), adaptor.getPads(),
                         adaptor.getDilations())))
    return failure();
  SmallVector<int64_t> shape(x.getShape().take_front(2));
  for (int64_t i = 0; i < spatial; ++i) {
    auto out = windowOutputSize(loc, x.getDimSize(i + 2), kernel[i], adaptor.getStrides()[i],
                                adaptor.getPads()[i], adaptor.getPads()[i + spatial],
                                adaptor.getDilations()[i], adaptor.getCeilMode());
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  return inferPool(loc, adaptor, inferred);
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                              Types &inferred) {
  return inferPool(loc, adaptor, inferred);
}

static LogicalResult inferGlobalPool(OptLoc loc, Value input, Types &inferred) {
  RankedTensorType x = rankedType(input);
  if (x.getRank() < 3)
    return emitOptionalError(loc, "expects an input of rank >= 3, got ", x);
  SmallVector<int64_t> shape(x.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult GlobalAveragePoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                    Types &inferred) {
  return inferGlobalPool(loc, adaptor.getInput(), inferred);
}

LogicalResult GlobalMaxPoolOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                Types &inferred) {
  return inferGlobalPool(loc, adaptor.getInput(), inferred);
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t rank = x.getRank();
  SmallVector<int64_t> shape(rank, kDynamic);
  if (Value sizes = adaptor.getSizes()) {
    if (auto values = getConstantIntValues(sizes)) {
      if (static_cast<int64_t>(values->size()) != rank)
        return emitOptionalError(loc, "expects ", rank, " sizes, got ", values->size());
      for (int64_t i = 0; i < rank; ++i) {
        if ((*values)[i] < 1)
          return emitOptionalError(loc, "sizes must be positive");
        shape[i] = (*values)[i];
      }
    }
  } else if (Value scales = adaptor.getScales()) {
    DenseFPElementsAttr attr;
    if (matchPattern(scales, m_Constant(&attr))) {
      if (attr.getNumElements() != rank)
        return emitOptionalError(loc, "expects ", rank, " scales, got ", attr.getNumElements());
      int64_t i = 0;
      for (APFloat scale : attr.getValues<APFloat>()) {
        double s = scale.convertToDouble();
        if (!(s > 0))
          return emitOptionalError(loc, "scales must be positive");
        int64_t in = x.getDimSize(i);
        shape[i++] = ShapedType::isDynamic(in) ? (s == 1.0 ? in : kDynamic)
                                               : static_cast<int64_t>(std::floor(in * s));
      }
    }
  }
  return pushTensor(inferred, shape, x.getElementType());
}

//===----------------------------------------------------------------------===//
// Normalization, softmax, quantization: shape-preserving
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (x.getRank() < 2)
    return emitOptionalError(loc, "expects an input of rank >= 2");
  for (Value param : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                      adaptor.getVariance()}) {
    RankedTensorType t = rankedType(param);
    if (t.getRank() != 1 || (!t.isDynamicDim(0) && !x.isDynamicDim(1) &&
                             t.getDimSize(0) != x.getDimSize(1)))
      return emitOptionalError(loc, "expects 1-D parameters of size ", x.getDimSize(1),
                               ", got ", t);
  }
  inferred.push_back(x);
  return success();
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                               Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "expects an input of rank >= 3");
  inferred.push_back(x);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), x.getRank())))
    return failure();
  inferred.push_back(x);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), x.getRank())))
    return failure();
  inferred.push_back(x);
  return success();
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                             Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), x.getRank())))
    return failure();
  inferred.push_back(x);
  return success();
}

LogicalResult QuantizeLinearOp::inferReturnTypes(MLIRContext *, OptLoc, Adaptor adaptor,
                                                 Types &inferred) {
  return pushTensor(inferred, rankedType(adaptor.getInput()).getShape(),
                    rankedType(adaptor.getZeroPoint()).getElementType());
}

LogicalResult DequantizeLinearOp::inferReturnTypes(MLIRContext *, OptLoc, Adaptor adaptor,
                                                   Types &inferred) {
  return pushTensor(inferred, rankedType(adaptor.getInput()).getShape(),
                    rankedType(adaptor.getScale()).getElementType());
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (x.getRank() < 2)
    return emitOptionalError(loc, "expects an input of rank >= 2");
  inferred.push_back(x);
  return success();
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), x.getRank())))
    return failure();
  inferred.push_back(x);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape queries and generators
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  int64_t rank = rankedType(adaptor.getInput()).getRank();
  int64_t start = static_cast<int64_t>(adaptor.getStart());
  int64_t end = static_cast<int64_t>(adaptor.getEnd());
  if (start < 0 || end < start || end > rank)
    return emitOptionalError(loc, "bad dim range [", start, ", ", end, ") for rank ", rank);
  return pushTensor(inferred, {end - start}, IntegerType::get(ctx, 64));
}

LogicalResult SizeOp::inferReturnTypes(MLIRContext *ctx, OptLoc, Adaptor, Types &inferred) {
  return pushTensor(inferred, {}, IntegerType::get(ctx, 64));
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                  Types &inferred) {
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  ElementsAttr value = adaptor.getValue();
  if (!value || value.getNumElements() != 1)
    return emitOptionalError(loc, "value must hold exactly one element");
  SmallVector<int64_t> shape(*length, kDynamic);
  if (auto values = getPartialIntValues(adaptor.getShape())) {
    for (auto [i, d] : llvm::enumerate(*values)) {
      if (ShapedType::isDynamic(d))
        continue;
      if (d < 0)
        return emitOptionalError(loc, "shape has a negative dim ", d);
      shape[i] = d;
    }
  }
  return pushTensor(inferred, shape, value.getElementType());
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  Type elementType = rankedType(adaptor.getStart()).getElementType();
  for (Value v : {adaptor.getStart(), adaptor.getLimit(), adaptor.getDelta()}) {
    RankedTensorType t = rankedType(v);
    if (t.getNumElements() != 1 || t.getRank() > 1 || t.getElementType() != elementType)
      return emitOptionalError(loc, "start, limit and delta must be scalars of one type");
  }
  int64_t count = kDynamic;
  DenseElementsAttr start, limit, delta;
  if (matchPattern(adaptor.getStart(), m_Constant(&start)) &&
      matchPattern(adaptor.getLimit(), m_Constant(&limit)) &&
      matchPattern(adaptor.getDelta(), m_Constant(&delta))) {
    auto asDouble = [](DenseElementsAttr a) {
      if (a.getElementType().isIntOrIndex())
        return static_cast<double>((*a.getValues<APInt>().begin()).getSExtValue());
      return (*a.getValues<APFloat>().begin()).convertToDouble();
    };
    double s = asDouble(start), l = asDouble(limit), d = asDouble(delta);
    if (d == 0)
      return emitOptionalError(loc, "delta must not be zero");
    count = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((l - s) / d)));
  }
  return pushTensor(inferred, {count}, elementType);
}

//===----------------------------------------------------------------------===//
// Reshaping and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  SmallVector<int64_t> shape(*length, kDynamic);
  auto values = getPartialIntValues(adaptor.getShape());
  if (!values)
    return pushTensor(inferred, shape, x.getElementType());
  bool allowZero = adaptor.getAllowZero();
  int64_t inferredDim = -1;
  SmallVector<bool> copied(*length, false);
  for (auto [i, d] : llvm::enumerate(*values)) {
    if (ShapedType::isDynamic(d))
      continue; // Unknown element: the dim stays dynamic.
    if (d == -1) {
      if (inferredDim >= 0)
        return emitOptionalError(loc, "shape has more than one -1");
      inferredDim = i;
    } else if (d < -1) {
      return emitOptionalError(loc, "shape has an invalid dim ", d);
    } else if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= x.getRank())
        return emitOptionalError(loc, "shape copies dim ", i, " of a rank-", x.getRank(),
                                 " input");
      shape[i] = x.getDimSize(i);
      copied[i] = true;
    } else {
      shape[i] = d;
    }
  }
  if (inferredDim >= 0) {
    // Dims copied from the input at the same position cancel out, dynamic
    // or not: Reshape(?x4x6, [0, -1]) is ?x24.
    SmallVector<int64_t> inRest, outRest;
    for (int64_t i = 0; i < x.getRank(); ++i)
      if (i >= *length || !copied[i])
        inRest.push_back(x.getDimSize(i));
    for (int64_t i = 0; i < *length; ++i)
      if (i != inferredDim && !copied[i])
        outRest.push_back(shape[i]);
    int64_t total = productOfDims(inRest), rest = productOfDims(outRest);
    if (!ShapedType::isDynamic(total) && !ShapedType::isDynamic(rest)) {
      if (rest == 0 || total % rest != 0)
        return emitOptionalError(loc, "cannot reshape ", x, " into a shape with ", rest,
                                 " elements per -1");
      shape[inferredDim] = total / rest;
    }
  } else {
    int64_t total = productOfDims(x.getShape()), count = productOfDims(shape);
    if (!ShapedType::isDynamic(total) && !ShapedType::isDynamic(count) && total != count)
      return emitOptionalError(loc, "cannot reshape ", x, " (", total, " elements) into ",
                               count, " elements");
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != x.getRank())
    return emitOptionalError(loc, "perm has ", perm.size(), " entries for rank ", x.getRank());
  if (failed(checkAxes(loc, perm, x.getRank(), "perm")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.getDimSize(p));
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (failed(checkAxes(loc, axes, x.getRank(), "squeeze")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!llvm::is_contained(axes, i)) {
      shape.push_back(x.getDimSize(i));
      continue;
    }
    if (!x.isDynamicDim(i) && x.getDimSize(i) != 1)
      return emitOptionalError(loc, "cannot squeeze dim ", i, " of size ", x.getDimSize(i));
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = x.getRank() + static_cast<int64_t>(axes.size());
  if (failed(checkAxes(loc, axes, rank, "unsqueeze")))
    return failure();
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(llvm::is_contained(axes, i) ? 1 : x.getDimSize(next++));
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis > x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", x.getRank());
  return pushTensor(inferred,
                    {productOfDims(x.getShape().take_front(axis)),
                     productOfDims(x.getShape().drop_front(axis))},
                    x.getElementType());
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one input");
  RankedTensorType first = rankedType(adaptor.getInputs().front());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Value input : adaptor.getInputs().drop_front()) {
    RankedTensorType t = rankedType(input);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "inputs differ in rank or element type: ", first, " vs ", t);
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t d = t.getDimSize(i);
      if (i == axis) {
        shape[i] = ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(d) ? kDynamic
                                                                              : shape[i] + d;
      } else if (ShapedType::isDynamic(shape[i])) {
        shape[i] = d;
      } else if (!ShapedType::isDynamic(d) && d != shape[i]) {
        return emitOptionalError(loc, "inputs differ in dim ", i, ": ", shape[i], " vs ", d);
      }
    }
  }
  return pushTensor(inferred, shape, first.getElementType());
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, x.getRank())))
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (sizes.empty() || llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
    return emitOptionalError(loc, "split sizes must be non-negative and non-empty");
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s;
  if (!x.isDynamicDim(axis) && total != x.getDimSize(axis))
    return emitOptionalError(loc, "split sizes add up to ", total, ", dim ", axis, " is ",
                             x.getDimSize(axis));
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(x.getShape());
    shape[axis] = s;
    inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  }
  return success();
}

/// The number of elements ONNX Slice takes from a dim of static size `dim`.
static int64_t sliceCount(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return start > end ? (start - end - step - 1) / -step : 0;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t rank = x.getRank();
  SmallVector<int64_t> shape(x.getShape());
  auto axes = getConstantIntValues(adaptor.getAxes());
  if (!axes) {
    // Any dim may be sliced.
    return pushTensor(inferred, SmallVector<int64_t>(rank, kDynamic), x.getElementType());
  }
  auto starts = getConstantIntValues(adaptor.getStarts());
  auto ends = getConstantIntValues(adaptor.getEnds());
  auto steps = getConstantIntValues(adaptor.getSteps());
  size_t n = axes->size();
  if ((starts && starts->size() != n) || (ends && ends->size() != n) ||
      (steps && steps->size() != n))
    return emitOptionalError(loc, "starts, ends, axes and steps differ in length");
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, "slice axis ", (*axes)[i], " is out of range for rank ", rank);
    if (steps && (*steps)[i] == 0)
      return emitOptionalError(loc, "slice step must not be zero");
    if (!starts || !ends || !steps || x.isDynamicDim(axis)) {
      shape[axis] = kDynamic;
      continue;
    }
    shape[axis] = sliceCount(x.getDimSize(axis), (*starts)[i], (*ends)[i], (*steps)[i]);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType data = rankedType(adaptor.getData()), indices = rankedType(adaptor.getIndices());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, data.getRank())))
    return failure();
  if (!indices.getElementType().isInteger())
    return emitOptionalError(loc, "indices must be integers, got ", indices.getElementType());
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  return pushTensor(inferred, shape, data.getElementType());
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                 Types &inferred) {
  RankedTensorType data = rankedType(adaptor.getData()), indices = rankedType(adaptor.getIndices());
  if (data.getRank() != indices.getRank())
    return emitOptionalError(loc, "data and indices must have the same rank");
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), data.getRank())))
    return failure();
  return pushTensor(inferred, indices.getShape(), data.getElementType());
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  auto values = getPartialIntValues(adaptor.getShape());
  if (!values) {
    int64_t rank = std::max<int64_t>(*length, x.getRank());
    return pushTensor(inferred, SmallVector<int64_t>(rank, kDynamic), x.getElementType());
  }
  auto merged = broadcastShapes(x.getShape(), *values);
  if (failed(merged))
    return emitOptionalError(loc, "cannot expand ", x, " to the requested shape");
  return pushTensor(inferred, *merged, x.getElementType());
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getRepeats(), "repeats");
  if (failed(length))
    return failure();
  if (*length != x.getRank())
    return emitOptionalError(loc, "expects ", x.getRank(), " repeats, got ", *length);
  SmallVector<int64_t> shape(x.getRank(), kDynamic);
  if (auto repeats = getPartialIntValues(adaptor.getRepeats())) {
    for (int64_t i = 0; i < x.getRank(); ++i) {
      int64_t r = (*repeats)[i];
      if (ShapedType::isDynamic(r))
        continue;
      if (r < 0)
        return emitOptionalError(loc, "repeats must be non-negative");
      shape[i] = x.isDynamicDim(i) ? kDynamic : x.getDimSize(i) * r;
    }
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                      Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getPads(), "pads");
  if (failed(length))
    return failure();
  int64_t rank = x.getRank();
  if (*length != 2 * rank)
    return emitOptionalError(loc, "expects ", 2 * rank, " pads, got ", *length);
  SmallVector<int64_t> shape(rank, kDynamic);
  if (auto pads = getConstantIntValues(adaptor.getPads())) {
    for (int64_t i = 0; i < rank; ++i) {
      if (x.isDynamicDim(i))
        continue;
      shape[i] = x.getDimSize(i) + (*pads)[i] + (*pads)[i + rank];
      if (shape[i] < 0)
        return emitOptionalError(loc, "pads crop dim ", i, " below zero");
    }
  }
  return pushTensor(inferred, shape, x.getElementType());
}

//===----------------------------------------------------------------------===//
// Reductions and selection
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(OptLoc loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
                                 Type elementType, Types &inferred) {
  RankedTensorType x = rankedType(input);
  if (failed(checkAxes(loc, axes, x.getRank(), "reduction")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!llvm::is_contained(axes, i))
      shape.push_back(x.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  return pushTensor(inferred, shape, elementType ? elementType : x.getElementType());
}

#define INFER_REDUCE(OP)                                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor, Types &inferred) {       \
    return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),             \
                       adaptor.getKeepDims(), Type(), inferred);               \
  }
INFER_REDUCE(ReduceL1Op)
INFER_REDUCE(ReduceL2Op)
INFER_REDUCE(ReduceLogSumExpOp)
INFER_REDUCE(ReduceMaxOp)
INFER_REDUCE(ReduceMeanOp)
INFER_REDUCE(ReduceMinOp)
INFER_REDUCE(ReduceProdOp)
INFER_REDUCE(ReduceSumOp)
INFER_REDUCE(ReduceSumSquareOp)
#undef INFER_REDUCE

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  return inferReduce(loc, adaptor.getInput(), {axis}, adaptor.getKeepDims(),
                     IntegerType::get(ctx, 64), inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  return inferReduce(loc, adaptor.getInput(), {axis}, adaptor.getKeepDims(),
                     IntegerType::get(ctx, 64), inferred);
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (failed(checkAxis(loc, axis, x.getRank())))
    return failure();
  if (k < 0 || (!x.isDynamicDim(axis) && k > x.getDimSize(axis)))
    return emitOptionalError(loc, "k = ", k, " is out of range for dim of size ",
                             x.getDimSize(axis));
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  (void)pushTensor(inferred, shape, x.getElementType());
  return pushTensor(inferred, shape, IntegerType::get(ctx, 64));
}
