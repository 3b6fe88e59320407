//===- Pipelines.h - infer-opt's pipelines, by stage and by name -*- C++ -*-===//
//
// Every pass pipeline of a compile is built here, from typed options, and
// registered by name, so that `infer-opt FILE.mlir --pass-pipeline=...`
// replays any stage of what `infer-opt MODEL.onnx` does:
//
//   infer-simplify              canonicalize and CSE the imported dialect
//   infer-to-linalg             `infer` ops to linalg, tensor, arith, math
//   infer-cpu-codegen           linalg on tensors to the LLVM dialect (CPU)
//   infer-cuda-tensor-rewrites  the CUDA back end's rewrites on tensors
//   infer-cuda-kernels          linalg on tensors to gpu.funcs and launches
//   infer-cuda-lowering         gpu.funcs to NVVM
//   infer-compile               the imported dialect to a stage, for a
//                               target and a precision
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_PIPELINES_PIPELINES_H
#define INFER_OPT_PIPELINES_PIPELINES_H

#include "infer-opt/Codegen/CPU/CPUCodegen.h"
#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Plan/KernelPlan.h"

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace mlir::infer {

/// What float32 contractions compute in on the GPU: full float32, or TF32
/// on the tensor cores (sm_80 and newer).
enum class Precision { FP32, TF32 };

/// Where a compile's passes stop: linalg on tensors; CUDA's kernels as
/// gpu.funcs with their launch records; or the LLVM dialect (CUDA: NVVM in
/// the gpu.module), from which the machine code is made.
enum class CompileStage { Linalg, Kernels, LLVM };

/// What a compile is for: the host CPU (x86-64, `cpu` an LLVM CPU name or
/// "native") or NVIDIA GPUs (`cudaArchs`, "sm_80"...).
struct CompileTarget {
  std::vector<std::string> cudaArchs;
  std::string cpu = "native";
  bool isCUDA() const { return !cudaArchs.empty(); }
};

/// Parses "cpu" or "cuda:sm_80,sm_90" (the --target flag's form) into
/// `target`'s kind and architectures; returns an error message, empty if fine.
std::string parseCompileTarget(llvm::StringRef text, CompileTarget &target);

/// The --target flag's form of `target`.
std::string describe(const CompileTarget &target);

/// Everything that decides a compile's passes.
struct CompileOptions {
  CompileTarget target;
  Precision precision = Precision::TF32;
  CompileStage stop = CompileStage::LLVM;
  /// Canonicalize and CSE the imported dialect first.
  bool simplify = true;
  /// CUDA: tensor-core kernels stage their tiles in shared memory, with
  /// these plans where given.
  bool stageTiles = true;
  TilePlanChoice tilePlan;
  TunedTilePlans tunedPlans;
  /// CPU: run the CUDA back end's tensor rewrites first (a test of them).
  bool cudaLayoutsOnCPU = false;
};

CPUCodegenOptions cpuCodegenOptions(const CompileOptions &options);
CUDACodegenOptions cudaCodegenOptions(const CompileOptions &options);

/// canonicalize and CSE (infer-simplify).
void buildSimplifyPipeline(OpPassManager &pm);
/// `infer` to linalg, then canonicalize and CSE (infer-to-linalg).
void buildToLinalgPipeline(OpPassManager &pm);
/// From the imported dialect to `options.stop` (infer-compile).
void buildCompilePipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers the named pipelines above.
void registerInferPipelines();

} // namespace mlir::infer

namespace mlir::infer {
struct CompileTargetText {
  static std::string parse(llvm::StringRef text, CompileTarget &value) {
    return parseCompileTarget(text, value);
  }
  static void print(llvm::raw_ostream &os, const CompileTarget &value) { os << describe(value); }
};
} // namespace mlir::infer

namespace llvm::cl {

/// A pipeline option's target, in the --target flag's form ("" is cpu).
template <>
class parser<mlir::infer::CompileTarget>
    : public mlir::infer::TextOptionParser<mlir::infer::CompileTarget,
                                           mlir::infer::CompileTargetText> {
public:
  using TextOptionParser::TextOptionParser;
  StringRef getValueName() const override { return "target"; }
};

} // namespace llvm::cl

#endif // INFER_OPT_PIPELINES_PIPELINES_H
