//===- EngineWriter.h - serialize an engine file ----------------*- C++ -*-===//
//
// The compiler side of include/inferrt/engine_format.h: collects what the
// runtime needs (tensor names, dtypes and shapes, the kernels, the plan)
// from the model's signature and what code generation made
// (EngineAssembly.cpp), and writes the sections with their checksums
// (EngineWriter.cpp). docs/engine-format.md is the specification.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H
#define INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Plan/KernelPlan.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::infer {

struct EngineTensor {
  std::string name;
  std::string dtype; // "float32", "int64", "bool", ...
  std::vector<int64_t> shape;
};

/// A weight of the weights section: raw little-endian elements.
struct EngineWeight {
  std::string dtype;
  std::vector<int64_t> shape;
  ArrayRef<char> bytes;
};

/// The memory plan: the arena each context allocates, and how it compares.
struct EngineArena {
  uint64_t bytes = 0, lowerBound = 0, noReuse = 0, buffers = 0;
};

/// A GPU module image in the KERNELS section: a cubin for one
/// architecture, or PTX for the runtime to JIT on newer GPUs.
struct EngineModule {
  std::string format; // "cubin" or "ptx"
  std::string arch;   // "sm_90"
  std::string bytes;
};

struct EngineDescription {
  std::string target = "cpu-x86_64";
  std::vector<EngineTensor> inputs, outputs;
  std::string compilerVersion;
  /// The flags that decide the engine, without paths (infer-opt's
  /// semanticFlags): what reproduces it from the model.
  std::vector<std::string> flags;
  std::string modelSha256; // The model file's digest, in hex.
  std::string kernels;            // CPU: the shared object's bytes.
  std::vector<EngineWeight> weights; // In the kernels' argument order.
  EngineArena arena;
  std::vector<std::string> nodes; // The ONNX nodes the kernel computes.
  /// The kernels inside the entry, in call order, with their ONNX nodes.
  std::vector<std::pair<std::string, std::vector<std::string>>> kernelNodes;
  /// CUDA (target "cuda"): the module images and the launches, in order
  /// (each kernel's ONNX nodes are in kernelNodes).
  std::vector<EngineModule> modules;
  std::vector<KernelLaunch> launches;
  std::vector<std::string> cudaArchs;
  bool tf32 = true;
};

/// The engine dtype name of an element type ("float32", "int64", "bool"),
/// or "" if the runtime does not know it.
std::string dtypeName(Type type);

/// Alignment of each weight inside the weights section. The section itself
/// starts at a 256-byte boundary, so every weight is 256-byte aligned in the
/// file and in the loader's buffer (DESIGN.md's contract).
constexpr uint64_t kWeightAlignment = 256;

/// Reads @main's inputs and outputs (names from `infer.name`) from a
/// module whose function types are static tensors. Emits an error and fails
/// on dynamic dims or element types the runtime does not know.
LogicalResult describeSignature(ModuleOp module, EngineDescription &description);

/// A CPU compile's kernels, weights and arena into `engine`; `sharedObject`
/// is the kernels linked (linkSharedObjectBytes).
void addCPUKernels(EngineDescription &engine, const CodegenArtifacts &artifacts,
                   std::string sharedObject);

/// A CUDA compile's module images (a cubin per architecture, then the PTX),
/// launches, weights and arena into `engine`, for target "cuda".
void addCUDAKernels(EngineDescription &engine, CUDAArtifacts artifacts, bool tf32);

/// The engine file's bytes.
std::string serializeEngine(const EngineDescription &description);

} // namespace mlir::infer

#endif // INFER_OPT_TARGET_ENGINE_ENGINEWRITER_H
