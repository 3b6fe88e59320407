//===- ONNXImporter.h - ONNX model to the `infer` dialect -------*- C++ -*-===//
//
// The importer reads a binary .onnx or a text .onnxtext model and builds a
// module with one function, @main, of `infer` ops. Errors are reported
// through the context's diagnostic engine; each names the ONNX node (name
// and op type) it comes from. Nothing here asserts on model data.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_IMPORT_ONNX_ONNXIMPORTER_H
#define INFER_OPT_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::infer {

/// Options of one import.
struct ONNXImportOptions {
  /// Shapes that replace the declared (possibly symbolic) shapes of graph
  /// inputs, by input name: `--input-shape x:1x3x224x224`.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Largest static tensor (in bytes) a model may declare or compute. Larger
  /// ones are model errors (a ConstantOfShape of 10^12 elements, say).
  int64_t maxTensorBytes = int64_t(16) << 30;
};

/// The lowest and highest default-domain opsets the importer accepts.
inline constexpr int64_t kMinOpset = 7;
inline constexpr int64_t kMaxOpset = 24;

/// What an import gives: the module, or null after diagnostics were
/// emitted. `internalError` tells an importer bug (the built module does not
/// verify) from a bad or unsupported model.
struct ONNXImportResult {
  OwningOpRef<ModuleOp> module;
  bool internalError = false;
};

/// Imports the model at `path`.
ONNXImportResult importONNXModel(MLIRContext &context, const std::string &path,
                                 const ONNXImportOptions &options);

/// Parses "NAME:D0xD1x...". Returns false on malformed text.
bool parseInputShapeFlag(const std::string &text, std::string &name,
                         std::vector<int64_t> &dims);

} // namespace mlir::infer

#endif // INFER_OPT_IMPORT_ONNX_ONNXIMPORTER_H
