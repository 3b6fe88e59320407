//===- EngineWriter.h - serialize an engine file ----------------*- C++ -*-===//
//
// The compiler side of include/inferrt/engine_format.h: collects what the
// runtime needs (tensor names, dtypes and shapes, the kernels, the plan) and
// writes the sections with their checksums. docs/engine-format.md is the
// specification.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H
#define INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::infer {

struct EngineTensor {
  std::string name;
  std::string dtype; // "float32", "int64", "bool", ...
  std::vector<int64_t> shape;
};

struct EngineDescription {
  std::string target = "cpu-x86_64";
  std::vector<EngineTensor> inputs, outputs;
  std::string compilerVersion;
  std::vector<std::string> flags; // The command line, for reproducibility.
  std::string kernels;            // CPU: the shared object's bytes.
};

/// Reads @main's inputs and outputs (names from `infer.name`) from a
/// module whose function types are static tensors. Emits an error and fails
/// on dynamic dims or element types the runtime does not know.
LogicalResult describeSignature(ModuleOp module, EngineDescription &description);

/// The engine file's bytes.
std::string serializeEngine(const EngineDescription &description);

} // namespace mlir::infer

#endif // INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H
