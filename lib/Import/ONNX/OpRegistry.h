//===- OpRegistry.h - ONNX op handlers keyed by (op_type, version) -*- C++ -*-===//
//
// Each supported operator registers the ONNX versions of its definition
// (the since_versions in the ONNX operator docs) and one handler. At import
// the handler runs with the newest definition version not above the model's
// opset, so a handler branches on NodeContext::sinceVersion() where the
// operator's form changed (attribute -> input moves, new attributes, ...).
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_IMPORT_ONNX_OPREGISTRY_H
#define INFER_OPT_LIB_IMPORT_ONNX_OPREGISTRY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <vector>

namespace mlir::infer::onnx_import {

class NodeContext;
using OpHandler = LogicalResult (*)(NodeContext &);

struct OpRegistration {
  std::vector<int64_t> sinceVersions; // Ascending.
  OpHandler handler;
};

class OpRegistry {
public:
  /// The registry with every supported operator.
  static const OpRegistry &get();

  void add(StringRef opType, std::vector<int64_t> sinceVersions, OpHandler handler);
  const OpRegistration *lookup(StringRef opType) const;
  /// The version of `reg`'s definition in force at `opset`: the newest
  /// since_version not above it, or 0 when the operator is younger.
  static int64_t resolveVersion(const OpRegistration &reg, int64_t opset);
  /// Names of all registered operators, sorted.
  std::vector<std::string> opTypes() const;

private:
  llvm::StringMap<OpRegistration> handlers_;
};

// One function per op family, each in ops/<Family>.cpp.
void registerElementwiseOps(OpRegistry &registry);
void registerNNOps(OpRegistry &registry);
void registerReductionOps(OpRegistry &registry);
void registerTensorOps(OpRegistry &registry);

} // namespace mlir::infer::onnx_import

#endif // INFER_OPT_LIB_IMPORT_ONNX_OPREGISTRY_H
