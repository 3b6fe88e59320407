//===- CPUCodegen.h - linalg on tensors to x86-64 code ----------*- C++ -*-===//
//
// The CPU back end (lib/Codegen/CPU): after the shared front half
// (Common/CommonCodegen.h), linalg ops are tiled to register tiles and
// vectorized, lowered to loops and the LLVM dialect, emitted as object
// code in-process through LLVM's TargetMachine, and linked into a shared
// object with the system linker driver.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H
#define INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H

#include "infer-opt/Codegen/Common/CommonCodegen.h"

#include <string>

namespace mlir::infer {

/// The OpenMP runtime the kernels link against: libomp.so.5 in a directory
/// the dynamic loader searches by default (so that engines load anywhere it
/// is installed), or "" if there is none.
std::string findOpenMPRuntime();

struct CPUCodegenOptions {
  /// Target CPU for instruction selection: "native" (the host, with its
  /// features) or an LLVM CPU name such as "x86-64-v3" or "skylake-avx512".
  std::string cpu = "native";
  /// Tile and vectorize linalg ops; off gives plain scalar loops (a
  /// reference for debugging numerics).
  bool vectorize = true;
  /// Fuse elementwise producers into their consumers (infer-fuse-elementwise).
  bool fuse = true;
  /// Print the module to stderr after every pass of the pipeline (debugging).
  bool printIRAfterAll = false;
  /// Run parallel tiles on OpenMP threads; needs the OpenMP runtime
  /// (findOpenMPRuntime), else they run as sequential loops.
  bool threads = !findOpenMPRuntime().empty();
};

/// linalg/tensor/arith/math on tensors -> LLVM dialect. @main is renamed
/// @inferrt_main and gets a C wrapper (`_mlir_ciface_inferrt_main`) taking
/// memref descriptors: inputs, weights, one out-parameter per result, the
/// arena; and `void inferrt_entry(void **descriptors)` calls it with an
/// array of them.
void buildCPUCodegenPipeline(OpPassManager &pm, const CPUCodegenOptions &options);

/// Runs the pipeline on `module` (which must be static linalg on tensors)
/// and fills `artifacts` when given.
LogicalResult lowerToLLVMDialect(ModuleOp module, const CPUCodegenOptions &options,
                                 CodegenArtifacts *artifacts = nullptr);

/// True for "native" and for CPU names LLVM knows for the host target.
bool isValidCPU(const std::string &cpu);

/// Translates an LLVM-dialect module to an x86-64 object file (optimized at
/// -O3 for `options.cpu`). Errors are emitted at the module's location.
FailureOr<std::string> emitObjectFile(ModuleOp module, const CPUCodegenOptions &options);

/// Links an object file into a shared object at `outputPath` with the system
/// C compiler driver (cc), adding libm. Returns an error message on failure.
std::string linkSharedObject(const std::string &objectPath, const std::string &outputPath);

/// `object` (an object file's bytes) linked into a shared object, its bytes;
/// failure with `error` set if it cannot be.
FailureOr<std::string> linkSharedObjectBytes(const std::string &object, std::string &error);

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H
