//===- NodeContext.cpp - attribute access, op creation, node errors -------===//

#include "NodeContext.h"
#include "GraphImporter.h"

#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node, StringRef name,
                         int64_t opset, int64_t sinceVersion, OpBuilder &builder, Location loc)
    : importer_(importer), node_(node), name_(name.str()), opset_(opset),
      sinceVersion_(sinceVersion), builder_(builder), loc_(loc) {}

InFlightDiagnostic NodeContext::emitError() {
  return mlir::emitError(loc_) << "node '" << name_ << "' (" << node_.op_type() << "): ";
}

//===----------------------------------------------------------------------===//
// Inputs and outputs
//===----------------------------------------------------------------------===//

Value NodeContext::input(int i) {
  if (!hasInput(i))
    return {};
  return importer_.lookup(node_.input(i), loc_);
}

LogicalResult NodeContext::expectInputs(int min, int max) {
  int present = node_.input_size();
  while (present > 0 && node_.input(present - 1).empty())
    --present;
  if (present < min || present > max) {
    auto diag = emitError() << "expects ";
    if (min == max)
      diag << min;
    else
      diag << min << " to " << max;
    return diag << " inputs, got " << present;
  }
  for (int i = 0; i < min; ++i)
    if (!hasInput(i))
      return emitError() << "required input " << i << " is empty";
  return success();
}

LogicalResult NodeContext::setOutputs(ValueRange values) {
  if (node_.output_size() > static_cast<int>(values.size()))
    return emitError() << "has " << node_.output_size() << " outputs, at most " << values.size()
                       << " are supported";
  for (int i = 0; i < node_.output_size(); ++i)
    if (!node_.output(i).empty())
      importer_.bind(node_.output(i), values[i]);
  return success();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeContext::findAttr(StringRef name) const {
  for (const auto &attr : node_.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

bool NodeContext::hasAttr(StringRef name) const { return findAttr(name) != nullptr; }

const onnx::AttributeProto *NodeContext::rawAttr(StringRef name) {
  readAttrs_.insert(name);
  return findAttr(name);
}

static const char *attrTypeName(int type) {
  switch (type) {
  case onnx::AttributeProto::FLOAT: return "float";
  case onnx::AttributeProto::INT: return "int";
  case onnx::AttributeProto::STRING: return "string";
  case onnx::AttributeProto::TENSOR: return "tensor";
  case onnx::AttributeProto::GRAPH: return "graph";
  case onnx::AttributeProto::FLOATS: return "floats";
  case onnx::AttributeProto::INTS: return "ints";
  case onnx::AttributeProto::STRINGS: return "strings";
  default: return "other";
  }
}

LogicalResult NodeContext::checkAttrType(const onnx::AttributeProto &attr, int expected) {
  // Old exporters leave `type` unset; accept that when the field is present.
  if (attr.type() == expected || attr.type() == onnx::AttributeProto::UNDEFINED)
    return success();
  return emitError() << "attribute '" << attr.name() << "' must be of type "
                     << attrTypeName(expected) << ", got " << attrTypeName(attr.type());
}

FailureOr<int64_t> NodeContext::intAttr(StringRef name, std::optional<int64_t> defaultValue) {
  const onnx::AttributeProto *attr = rawAttr(name);
  if (!attr) {
    if (defaultValue)
      return *defaultValue;
    return emitError() << "missing required attribute '" << name << "'";
  }
  if (failed(checkAttrType(*attr, onnx::AttributeProto::INT)))
    return failure();
  return attr->i();
}

FailureOr<float> NodeContext::floatAttr(StringRef name, std::optional<float> defaultValue) {
  const onnx::AttributeProto *attr = rawAttr(name);
  if (!attr) {
    if (defaultValue)
      return *defaultValue;
    return emitError() << "missing required attribute '" << name << "'";
  }
  if (failed(checkAttrType(*attr, onnx::AttributeProto::FLOAT)))
    return failure();
  return attr->f();
}

FailureOr<std::string> NodeContext::stringAttr(StringRef name,
                                               std::optional<std::string> defaultValue) {
  const onnx::AttributeProto *attr = rawAttr(name);
  if (!attr) {
    if (defaultValue)
      return *defaultValue;
    return emitError() << "missing required attribute '" << name << "'";
  }
  if (failed(checkAttrType(*attr, onnx::AttributeProto::STRING)))
    return failure();
  return attr->s();
}

FailureOr<SmallVector<int64_t>>
NodeContext::intsAttr(StringRef name, std::optional<SmallVector<int64_t>> defaultValue) {
  const onnx::AttributeProto *attr = rawAttr(name);
  if (!attr) {
    if (defaultValue)
      return *defaultValue;
    return emitError() << "missing required attribute '" << name << "'";
  }
  if (failed(checkAttrType(*attr, onnx::AttributeProto::INTS)))
    return failure();
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

FailureOr<SmallVector<float>>
NodeContext::floatsAttr(StringRef name, std::optional<SmallVector<float>> defaultValue) {
  const onnx::AttributeProto *attr = rawAttr(name);
  if (!attr) {
    if (defaultValue)
      return *defaultValue;
    return emitError() << "missing required attribute '" << name << "'";
  }
  if (failed(checkAttrType(*attr, onnx::AttributeProto::FLOATS)))
    return failure();
  return SmallVector<float>(attr->floats().begin(), attr->floats().end());
}

LogicalResult NodeContext::checkAllAttributesRead() {
  for (const auto &attr : node_.attribute())
    if (!readAttrs_.contains(attr.name()))
      return emitError() << "attribute '" << attr.name() << "' is not supported (opset "
                         << opset_ << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>> NodeContext::constantInts(Value value) {
  return getConstantIntValues(value);
}

FailureOr<SmallVector<int64_t>> NodeContext::requireConstantInts(Value value, StringRef what) {
  if (auto values = getConstantIntValues(value))
    return *values;
  auto diag = emitError() << what << " must be known at compile time: a constant, or computed "
                                     "from static shapes";
  // The hint helps only when some graph input still has dynamic dims.
  Block *entry = builder_.getInsertionBlock();
  if (llvm::any_of(entry->getArguments(), [](BlockArgument arg) {
        return !cast<RankedTensorType>(arg.getType()).hasStaticShape();
      }))
    diag << "; pass --input-shape to make the input shapes static";
  return diag;
}

Value NodeContext::constantI64(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, builder_.getI64Type());
  return ConstantOp::create(builder_, loc_, DenseElementsAttr::get(type, values));
}

Value NodeContext::scalarI64(int64_t value) {
  auto type = RankedTensorType::get({}, builder_.getI64Type());
  return ConstantOp::create(builder_, loc_, DenseElementsAttr::get(type, value));
}

Value NodeContext::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat v(value);
    bool lost;
    v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    element = FloatAttr::get(elementType, v);
  } else if (elementType.isInteger(1)) {
    element = BoolAttr::get(context(), value != 0);
  } else {
    // Saturate to the integer type's range (NaN to 0): a float such as
    // Clip's +inf default bound converted to int64 directly is undefined.
    auto it = cast<IntegerType>(elementType);
    unsigned width = std::min(it.getWidth(), 64u);
    bool isUnsigned = it.isUnsigned();
    double low = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double high = std::ldexp(1.0, isUnsigned ? width : width - 1); // Exclusive.
    int64_t v;
    if (std::isnan(value))
      v = 0;
    else if (value <= low)
      v = isUnsigned ? 0 : (width == 64 ? INT64_MIN : -(int64_t(1) << (width - 1)));
    else if (value >= high)
      v = isUnsigned ? (width >= 64 ? -1 : int64_t((uint64_t(1) << width) - 1))
                     : (width == 64 ? INT64_MAX : (int64_t(1) << (width - 1)) - 1);
    else
      v = static_cast<int64_t>(value);
    element = IntegerAttr::get(elementType, v);
  }
  return ConstantOp::create(builder_, loc_, DenseElementsAttr::get(type, element));
}

FailureOr<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitError() << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>> NodeContext::normalizeAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    auto a = normalizeAxis(axis, rank);
    if (failed(a))
      return failure();
    if (llvm::is_contained(result, *a))
      return emitError() << "axis " << axis << " is repeated";
    result.push_back(*a);
  }
  llvm::sort(result);
  return result;
}

//===----------------------------------------------------------------------===//
// Op creation
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> NodeContext::createImpl(StringRef opName, ValueRange operands,
                                                      ArrayRef<NamedAttribute> attrs,
                                                      OpaqueProperties properties,
                                                      InferFn infer) {
  MLIRContext *ctx = context();
  OperationState state(loc_, opName);
  state.addOperands(operands);
  state.addAttributes(attrs);
  DictionaryAttr dict = state.attributes.getDictionary(ctx);

  // Inference and verification diagnostics are collected and re-emitted as
  // one error that names the node.
  std::string messages;
  auto collect = [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!messages.empty())
      messages += "; ";
    messages += diag.str();
    return success();
  };
  SmallVector<Type> resultTypes;
  Operation *op = nullptr;
  {
    ScopedDiagnosticHandler handler(ctx, collect);
    auto emitPropertyError = [&]() { return mlir::emitError(loc_); };
    bool hasProperties = state.name.getRegisteredInfo()->getOpPropertyByteSize() > 0;
    if ((hasProperties && failed(state.name.getRegisteredInfo()->setOpPropertiesFromAttribute(
                              state.name, properties, dict, emitPropertyError))) ||
        failed(infer(ctx, loc_, state.operands, dict, properties, {}, resultTypes))) {
      op = nullptr;
    } else {
      state.addTypes(resultTypes);
      op = builder_.create(state);
      if (failed(mlir::verify(op))) {
        op->erase();
        op = nullptr;
      }
    }
  }
  if (!op)
    return emitError() << (messages.empty() ? std::string("cannot build ") + opName.str()
                                            : messages);

  int64_t limit = importer_.options().maxTensorBytes;
  for (Type t : op->getResultTypes()) {
    auto tensor = cast<RankedTensorType>(t);
    if (!tensor.hasStaticShape())
      continue;
    unsigned bits = tensor.getElementTypeBitWidth();
    int64_t bytes = std::max<int64_t>(1, bits / 8);
    bool tooLarge = false;
    for (int64_t d : tensor.getShape())
      tooLarge |= __builtin_mul_overflow(bytes, d, &bytes);
    if (tooLarge || bytes > limit) {
      op->erase();
      return emitError() << "result " << tensor << " would need more than --max-tensor-bytes="
                         << limit << " bytes";
    }
  }

  SmallVector<Value> folded;
  if (succeeded(builder_.tryFold(op, folded)) && !folded.empty()) {
    op->erase();
    return folded;
  }
  return SmallVector<Value>(op->getResults());
}
