//===- GraphImporter.h - one ONNX graph to one func.func --------*- C++ -*-===//

#ifndef INFER_OPT_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
#define INFER_OPT_LIB_IMPORT_ONNX_GRAPHIMPORTER_H

#include "infer-opt/Import/ONNX/ONNXImporter.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

namespace mlir::infer::onnx_import {

/// Reads the model file (binary protobuf, or ONNX text for .onnxtext/.txt).
FailureOr<std::unique_ptr<onnx::ModelProto>> readModelFile(MLIRContext &context,
                                                           const std::string &path);

/// Converts an initializer or Constant tensor to an attribute, reading
/// external data from files inside `modelDir`. `what` names the tensor's
/// owner for errors ("initializer 'w'", "node 'c0' (Constant)").
FailureOr<DenseElementsAttr> readTensor(MLIRContext &context, Location loc,
                                        const onnx::TensorProto &tensor,
                                        const std::string &modelDir, StringRef what,
                                        int64_t maxTensorBytes);

class GraphImporter {
public:
  GraphImporter(MLIRContext &context, const onnx::ModelProto &model, std::string modelPath,
                const ONNXImportOptions &options);

  OwningOpRef<ModuleOp> run();
  /// True when run() failed on a module that does not verify (a bug here).
  bool hadInternalError() const { return internalError_; }

  /// The value bound to an ONNX value name; initializers become constants
  /// on first use. Null (after an error) when nothing produces the name.
  Value lookup(StringRef name, Location loc);
  /// Like lookup, for an input of `node`: errors in an initializer name the
  /// node that uses it (when given).
  Value lookupInput(StringRef name, const onnx::NodeProto *node, StringRef nodeName);
  void bind(StringRef name, Value value) { values_[name] = value; }
  const ONNXImportOptions &options() const { return options_; }
  const std::string &modelDir() const { return modelDir_; }

private:
  LogicalResult checkOpsets();
  LogicalResult collectInitializers();
  FailureOr<RankedTensorType> importInputType(const onnx::ValueInfoProto &input,
                                              SmallVectorImpl<Attribute> &dimNames);
  FailureOr<std::vector<int>> sortNodes();
  Value importInitializer(StringRef name, const onnx::TensorProto &tensor, StringRef what);
  LogicalResult checkOutputType(const onnx::ValueInfoProto &output, Value value);
  int64_t domainOpset(const std::string &domain) const;
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  Location nodeLoc(const onnx::NodeProto &node, int index);

  MLIRContext &context_;
  const onnx::ModelProto &model_;
  std::string modelPath_;
  std::string modelDir_;
  const ONNXImportOptions &options_;
  OpBuilder builder_;
  int64_t opset_ = 0;
  bool internalError_ = false;
  llvm::StringMap<Value> values_;
  llvm::StringMap<const onnx::TensorProto *> initializers_;
};

} // namespace mlir::infer::onnx_import

#endif // INFER_OPT_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
