//===- NodeContext.h - what an op handler sees of one ONNX node -*- C++ -*-===//
//
// An op handler turns one ONNX node into `infer` ops through this class:
// typed attribute access that remembers which attributes were read (any
// attribute left unread is reported as unsupported), inputs, constant
// helpers, op creation with result type inference and folding, and errors
// that name the node.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_IMPORT_ONNX_NODECONTEXT_H
#define INFER_OPT_LIB_IMPORT_ONNX_NODECONTEXT_H

#include "Infer/InferOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <optional>

/// `ASSIGN_OR_FAIL(int64_t axis, ctx.intAttr("axis", 0));` declares `axis`
/// from a FailureOr, returning failure() from the handler when it failed
/// (the error is already reported).
#define INFER_CONCAT_INNER(a, b) a##b
#define INFER_CONCAT(a, b) INFER_CONCAT_INNER(a, b)
#define ASSIGN_OR_FAIL(lhs, expr) ASSIGN_OR_FAIL_IMPL(INFER_CONCAT(orFailure_, __LINE__), lhs, expr)
#define ASSIGN_OR_FAIL_IMPL(tmp, lhs, expr)                                    \
  auto tmp = (expr);                                                           \
  if (failed(tmp))                                                             \
    return failure();                                                          \
  lhs = std::move(*tmp);

namespace mlir::infer::onnx_import {

class GraphImporter;

class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node, StringRef name,
              int64_t opset, int64_t sinceVersion, OpBuilder &builder, Location loc);

  const onnx::NodeProto &node() const { return node_; }
  StringRef opType() const { return node_.op_type(); }
  /// The default-domain opset the model imports.
  int64_t opset() const { return opset_; }
  /// The version of the operator's definition in force at that opset.
  int64_t sinceVersion() const { return sinceVersion_; }
  OpBuilder &builder() { return builder_; }
  Location loc() const { return loc_; }
  MLIRContext *context() const { return builder_.getContext(); }
  GraphImporter &importer() { return importer_; }

  /// An error that names the node: "node 'n' (Op): ...".
  InFlightDiagnostic emitError();

  //===--- Inputs and outputs -------------------------------------------===//

  /// Number of inputs, counting empty (absent optional) trailing ones.
  int numInputs() const { return node_.input_size(); }
  bool hasInput(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }
  /// The i-th input, or null when absent.
  Value input(int i);
  RankedTensorType inputType(int i) { return cast<RankedTensorType>(input(i).getType()); }
  /// Checks the number of inputs present: at least `min`, at most `max`.
  LogicalResult expectInputs(int min, int max);
  LogicalResult setOutputs(ValueRange values);
  int numOutputs() const { return node_.output_size(); }

  //===--- Attributes ---------------------------------------------------===//

  bool hasAttr(StringRef name) const;
  FailureOr<int64_t> intAttr(StringRef name, std::optional<int64_t> defaultValue);
  FailureOr<float> floatAttr(StringRef name, std::optional<float> defaultValue);
  FailureOr<std::string> stringAttr(StringRef name, std::optional<std::string> defaultValue);
  /// Absent attribute: `defaultValue` if given, else failure if required.
  FailureOr<SmallVector<int64_t>> intsAttr(StringRef name,
                                           std::optional<SmallVector<int64_t>> defaultValue);
  FailureOr<SmallVector<float>> floatsAttr(StringRef name,
                                           std::optional<SmallVector<float>> defaultValue);
  /// The raw attribute, marked as read; null when absent.
  const onnx::AttributeProto *rawAttr(StringRef name);
  /// Reports the first attribute no handler code read.
  LogicalResult checkAllAttributesRead();

  //===--- Values -------------------------------------------------------===//

  /// The integer values of `value` when it is a constant (after folding).
  std::optional<SmallVector<int64_t>> constantInts(Value value);
  /// Like constantInts, but an error naming `what` when not constant.
  FailureOr<SmallVector<int64_t>> requireConstantInts(Value value, StringRef what);
  Value constantI64(ArrayRef<int64_t> values);
  Value scalarI64(int64_t value);
  /// A rank-0 constant of `elementType` holding `value`.
  Value scalar(Type elementType, double value);
  /// Normalizes a possibly negative axis; an error if out of range.
  FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  FailureOr<SmallVector<int64_t>> normalizeAxes(ArrayRef<int64_t> axes, int64_t rank);

  //===--- Op creation --------------------------------------------------===//

  /// Builds OpTy with inferred result types, verifies it and folds it.
  /// Inference or verification errors become errors naming the node.
  template <typename OpTy>
  FailureOr<SmallVector<Value>> create(ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    using Props = typename OpTy::template InferredProperties<OpTy>;
    Props properties{};
    return createImpl(OpTy::getOperationName(), operands, attrs, OpaqueProperties(&properties),
                      &OpTy::inferReturnTypes);
  }
  /// create() for single-result ops.
  template <typename OpTy>
  FailureOr<Value> create1(ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    auto results = create<OpTy>(operands, attrs);
    if (failed(results))
      return failure();
    return (*results)[0];
  }

  NamedAttribute attr(StringRef name, Attribute value) {
    return builder_.getNamedAttr(name, value);
  }
  NamedAttribute i64Attr(StringRef name, int64_t v) { return attr(name, builder_.getI64IntegerAttr(v)); }
  NamedAttribute f32Attr(StringRef name, float v) { return attr(name, builder_.getF32FloatAttr(v)); }
  NamedAttribute boolAttr(StringRef name, bool v) { return attr(name, builder_.getBoolAttr(v)); }
  NamedAttribute strAttr(StringRef name, StringRef v) { return attr(name, builder_.getStringAttr(v)); }
  NamedAttribute arrayAttr(StringRef name, ArrayRef<int64_t> v) {
    return attr(name, builder_.getDenseI64ArrayAttr(v));
  }

private:
  using InferFn = LogicalResult (*)(MLIRContext *, std::optional<Location>, ValueRange,
                                    DictionaryAttr, OpaqueProperties, RegionRange,
                                    SmallVectorImpl<Type> &);
  FailureOr<SmallVector<Value>> createImpl(StringRef opName, ValueRange operands,
                                           ArrayRef<NamedAttribute> attrs,
                                           OpaqueProperties properties, InferFn infer);
  const onnx::AttributeProto *findAttr(StringRef name) const;
  LogicalResult checkAttrType(const onnx::AttributeProto &attr, int expected);

  GraphImporter &importer_;
  const onnx::NodeProto &node_;
  std::string name_;
  int64_t opset_;
  int64_t sinceVersion_;
  OpBuilder &builder_;
  Location loc_;
  llvm::StringSet<> readAttrs_;
};

/// Converts an ONNX element type (TensorProto::DataType) to MLIR; null when
/// unsupported.
Type convertElementType(int32_t onnxType, MLIRContext *context);
/// The ONNX name of an element type number ("FLOAT", "STRING", ...).
std::string elementTypeName(int32_t onnxType);

} // namespace mlir::infer::onnx_import

#endif // INFER_OPT_LIB_IMPORT_ONNX_NODECONTEXT_H
