//===- Pipelines.cpp - infer-opt's pipelines, by stage and by name --------===//

#include "infer-opt/Pipelines/Pipelines.h"

#include "infer-opt/Codegen/CUDA/Binary.h"
#include "infer-opt/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::infer;

std::string mlir::infer::parseCompileTarget(llvm::StringRef text, CompileTarget &target) {
  target.cudaArchs.clear();
  if (text == "cpu")
    return "";
  llvm::StringRef rest = text;
  if (!rest.consume_front("cuda:"))
    return ("unknown target '" + text +
            "': use cpu, or cuda:ARCH[,ARCH...] such as cuda:sm_80,sm_90")
        .str();
  llvm::SmallVector<llvm::StringRef> names;
  rest.split(names, ',');
  for (llvm::StringRef name : names) {
    std::string arch = name.trim().str();
    std::string error = checkCUDAArch(arch);
    if (!error.empty())
      return error;
    if (!llvm::is_contained(target.cudaArchs, arch))
      target.cudaArchs.push_back(arch);
  }
  return "";
}

std::string mlir::infer::describe(const CompileTarget &target) {
  return target.isCUDA() ? "cuda:" + llvm::join(target.cudaArchs, ",") : "cpu";
}

CPUCodegenOptions mlir::infer::cpuCodegenOptions(const CompileOptions &options) {
  CPUCodegenOptions cpu;
  cpu.cpu = options.target.cpu;
  return cpu;
}

CUDACodegenOptions mlir::infer::cudaCodegenOptions(const CompileOptions &options) {
  CUDACodegenOptions cuda;
  cuda.archs = options.target.cudaArchs;
  cuda.allowTF32 = options.precision == Precision::TF32;
  cuda.stageTiles = options.stageTiles && cuda.allowTF32;
  cuda.tilePlan = options.tilePlan;
  cuda.tunedPlans = options.tunedPlans;
  return cuda;
}

void mlir::infer::buildSimplifyPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::infer::buildToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertInferToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::infer::buildCompilePipeline(OpPassManager &pm, const CompileOptions &options) {
  if (options.simplify)
    buildSimplifyPipeline(pm);
  buildToLinalgPipeline(pm);
  if (!options.target.isCUDA()) {
    if (options.cudaLayoutsOnCPU)
      addCUDATensorRewrites(pm, CUDACodegenOptions());
    // The CPU target has no stage between linalg and the LLVM dialect.
    if (options.stop != CompileStage::Linalg)
      buildCPUCodegenPipeline(pm, cpuCodegenOptions(options));
    return;
  }
  if (options.stop == CompileStage::Linalg)
    return;
  CUDACodegenOptions cuda = cudaCodegenOptions(options);
  buildCUDAKernelsPipeline(pm, cuda);
  if (options.stop == CompileStage::LLVM)
    buildCUDALoweringPipeline(pm);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

namespace {

using llvm::cl::desc;
using llvm::cl::init;

auto precisionValues() {
  return llvm::cl::values(
      clEnumValN(Precision::FP32, "fp32", "float32 contractions in full float32"),
      clEnumValN(Precision::TF32, "tf32", "float32 contractions on TF32 tensor cores"));
}

struct CPUCodegenPipelineOptions : public PassPipelineOptions<CPUCodegenPipelineOptions> {
  Option<std::string> cpu{*this, "cpu", desc("native, or an LLVM CPU name such as x86-64-v3"),
                          init("native")};
  Option<bool> vectorize{*this, "vectorize", desc("tile and vectorize linalg ops"), init(true)};
  Option<bool> fuse{*this, "fuse", desc("fuse elementwise producers into consumers"),
                    init(true)};
  CPUCodegenOptions get() const {
    CPUCodegenOptions options;
    options.cpu = cpu;
    options.vectorize = vectorize;
    options.fuse = fuse;
    return options;
  }
};

/// The CUDA back end's options; CUDACodegenOptions is what they make.
struct CUDAPipelineOptions : public PassPipelineOptions<CUDAPipelineOptions> {
  Option<Precision> precision{*this, "precision", desc("how float32 contractions compute"),
                              precisionValues(), init(Precision::TF32)};
  Option<bool> stageTiles{*this, "stage-tiles",
                          desc("tensor-core kernels stage their tiles in shared memory"),
                          init(true)};
  Option<TilePlanChoice> tilePlan{*this, "tile-plan",
                                  desc("parts of the staged kernels' plans fixed by hand")};
  Option<TunedTilePlans> tunedPlans{*this, "tuned-plans",
                                    desc("a file of plans for particular contractions")};
  Option<bool> fuse{*this, "fuse", desc("fuse kernels (elementwise, rows, epilogues)"),
                    init(true)};
  CUDACodegenOptions get() const {
    CUDACodegenOptions options;
    options.allowTF32 = precision == Precision::TF32;
    options.stageTiles = stageTiles && options.allowTF32;
    options.tilePlan = tilePlan;
    options.tunedPlans = tunedPlans;
    options.fuse = fuse;
    return options;
  }
};

struct CompilePipelineOptions : public PassPipelineOptions<CompilePipelineOptions> {
  Option<CompileTarget> target{*this, "target", desc("cpu, or cuda:ARCH[,ARCH...]")};
  Option<Precision> precision{*this, "precision", desc("how float32 contractions compute (CUDA)"),
                              precisionValues(), init(Precision::TF32)};
  Option<CompileStage> emit{
      *this, "emit", desc("the stage to stop at"),
      llvm::cl::values(
          clEnumValN(CompileStage::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(CompileStage::Kernels, "kernels", "CUDA: gpu.funcs and launch records"),
          clEnumValN(CompileStage::LLVM, "llvm", "the LLVM dialect (CUDA: NVVM)")),
      init(CompileStage::LLVM)};
  Option<std::string> cpu{*this, "cpu", desc("CPU: native, or an LLVM CPU name"),
                          init("native")};
  Option<bool> simplify{*this, "simplify", desc("canonicalize and CSE the imported dialect"),
                        init(true)};
  Option<bool> stageTiles{*this, "stage-tiles",
                          desc("CUDA: tensor-core kernels stage their tiles in shared memory"),
                          init(true)};
  Option<TilePlanChoice> tilePlan{*this, "tile-plan",
                                  desc("CUDA: parts of the staged kernels' plans")};
  Option<TunedTilePlans> tunedPlans{*this, "tuned-plans",
                                    desc("CUDA: a file of plans for particular contractions")};
  Option<bool> cudaLayoutsOnCPU{*this, "cuda-layouts-on-cpu",
                                desc("CPU: the CUDA back end's tensor rewrites first"),
                                init(false)};
  CompileOptions get() const {
    CompileOptions options;
    options.target = target;
    options.target.cpu = cpu;
    options.precision = precision;
    options.stop = emit;
    options.simplify = simplify;
    options.stageTiles = stageTiles;
    options.tilePlan = tilePlan;
    options.tunedPlans = tunedPlans;
    options.cudaLayoutsOnCPU = cudaLayoutsOnCPU;
    return options;
  }
};

} // namespace

void mlir::infer::registerInferPipelines() {
  PassPipelineRegistration<>("infer-simplify", "Canonicalize and CSE the imported dialect",
                             buildSimplifyPipeline);
  PassPipelineRegistration<>("infer-to-linalg",
                             "Lower `infer` ops to linalg, tensor, arith and math, then simplify",
                             buildToLinalgPipeline);
  PassPipelineRegistration<CPUCodegenPipelineOptions>(
      "infer-cpu-codegen", "Static linalg on tensors to the LLVM dialect, for the CPU",
      [](OpPassManager &pm, const CPUCodegenPipelineOptions &o) {
        buildCPUCodegenPipeline(pm, o.get());
      });
  PassPipelineRegistration<CUDAPipelineOptions>(
      "infer-cuda-tensor-rewrites",
      "The CUDA back end's rewrites of linalg on tensors, up to the split at whole tiles",
      [](OpPassManager &pm, const CUDAPipelineOptions &o) { addCUDATensorRewrites(pm, o.get()); });
  PassPipelineRegistration<CUDAPipelineOptions>(
      "infer-cuda-kernels",
      "Static linalg on tensors to gpu.funcs and launch records (plan.launches)",
      [](OpPassManager &pm, const CUDAPipelineOptions &o) {
        buildCUDAKernelsPipeline(pm, o.get());
      });
  PassPipelineRegistration<>("infer-cuda-lowering", "The gpu.funcs to NVVM",
                             buildCUDALoweringPipeline);
  PassPipelineRegistration<CompilePipelineOptions>(
      "infer-compile", "The imported `infer` dialect to a stage, for a target and a precision",
      [](OpPassManager &pm, const CompilePipelineOptions &o) {
        buildCompilePipeline(pm, o.get());
      });
}
