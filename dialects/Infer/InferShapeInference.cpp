//===- InferShapeInference.cpp - result types of `infer` ops -------------===//
//
// Every op computes its result types from its operand types, attributes and
// the values of constant operands (shape vectors). The importer builds ops
// through these functions, so a graph whose inputs are static becomes static
// op by op; and a bad model is reported here, at the node, instead of
// crashing later. Nothing here asserts on model data.
//
//===----------------------------------------------------------------------===//

#include "InferShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::shape_utils;

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
INFER_BINARY(BitwiseAndOp, Type())
INFER_BINARY(BitwiseOrOp, Type())
INFER_BINARY(BitwiseXorOp, Type())
INFER_BINARY(PReluOp, Type())
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

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *ctx, OptLoc, Adaptor adaptor,
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
  WideDim wideSpan = WideDim(dilation) * (kernel - 1) + 1;
  WideDim widePadded = WideDim(in) + padBegin + padEnd;
  if (!fitsDim(wideSpan) || !fitsDim(widePadded))
    return emitOptionalError(loc, "window or padding is too large (dim sizes overflow int64)");
  int64_t span = static_cast<int64_t>(wideSpan), padded = static_cast<int64_t>(widePadded);
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
    WideDim out = WideDim(adaptor.getStrides()[i]) * (in - 1) + adaptor.getOutputPadding()[i] +
                  WideDim(k - 1) * adaptor.getDilations()[i] + 1 - adaptor.getPads()[i] -
                  adaptor.getPads()[i + spatial];
    if (out > INT64_MAX || out < INT64_MIN)
      return emitOptionalError(loc, "output size of spatial dim ", i, " overflows int64");
    if (out < 1)
      return emitOptionalError(loc, "output size ", static_cast<int64_t>(out), " of spatial dim ",
                               i, " is not positive");
    shape.push_back(static_cast<int64_t>(out));
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

/// Shape-preserving ops over one axis: the result has the input's type.
static LogicalResult inferSameTypeAlongAxis(OptLoc loc, Value input, int64_t axis,
                                            Types &inferred) {
  RankedTensorType x = rankedType(input);
  if (failed(checkAxis(loc, axis, x.getRank())))
    return failure();
  inferred.push_back(x);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                 Types &inferred) {
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
}

LogicalResult HardmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
}

LogicalResult LpNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  if (adaptor.getP() != 1 && adaptor.getP() != 2)
    return emitOptionalError(loc, "p must be 1 or 2, got ", adaptor.getP());
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t groups = static_cast<int64_t>(adaptor.getNumGroups());
  if (x.getRank() < 3)
    return emitOptionalError(loc, "expects an input of rank >= 3");
  if (groups < 1 || (!x.isDynamicDim(1) && x.getDimSize(1) % groups != 0))
    return emitOptionalError(loc, "channels ", x.getDimSize(1), " do not split into ", groups,
                             " groups");
  inferred.push_back(x);
  return success();
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                      Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  if (x.getRank() < 3 || adaptor.getSize() < 1)
    return emitOptionalError(loc, "expects an input of rank >= 3 and a positive size");
  inferred.push_back(x);
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                 Types &inferred) {
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                 Types &inferred) {
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
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
  return inferSameTypeAlongAxis(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getAxis()),
                                inferred);
}

