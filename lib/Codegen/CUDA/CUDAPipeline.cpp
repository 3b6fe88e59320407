//===- CUDAPipeline.cpp - linalg on tensors to PTX, then cubins -----------===//
//
// The front half is the CPU back end's (fusion, bufferization, arena,
// outlining); then infer-cuda-map-to-gpu, upstream's GPU to NVVM lowering
// with bare-pointer kernel arguments (each argument is one buffer's base
// address), upstream's NVVM serialization to PTX (libdevice linked in for
// math functions), and the toolkit's ptxas for each architecture.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Binary.h"
#include "infer-opt/Codegen/CUDA/Passes.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <future>

using namespace mlir;
using namespace mlir::infer;

/// The architectures both LLVM 22's NVPTX back end and CUDA 13's ptxas
/// know, each with the PTX ISA version LLVM is asked for (`+ptxNN`): the
/// lowest that LLVM accepts for it (sm_90 and older get 8.0, as before).
/// Any other number made LLVM warn and ptxas fail, or LLVM abort (sm_95,
/// or sm_121 at PTX 8.7); sm_101 is CUDA 13's sm_110.
static constexpr std::pair<unsigned, const char *> kCUDAArchs[] = {
    {75, "+ptx80"},  {80, "+ptx80"},  {86, "+ptx80"},  {87, "+ptx80"},
    {88, "+ptx90"},  {89, "+ptx80"},  {90, "+ptx80"},  {100, "+ptx86"},
    {103, "+ptx88"}, {110, "+ptx90"}, {120, "+ptx87"}, {121, "+ptx88"}};

static const char *ptxFeaturesOf(unsigned number) {
  for (auto [known, features] : kCUDAArchs)
    if (known == number)
      return features;
  return nullptr;
}

unsigned mlir::infer::cudaArchNumber(StringRef arch) {
  unsigned number = 0;
  if (!arch.consume_front("sm_") || arch.take_while(llvm::isDigit).getAsInteger(10, number))
    return 0;
  return number;
}

std::string mlir::infer::checkCUDAArch(const std::string &arch) {
  StringRef name(arch);
  unsigned number = 0;
  if (!name.consume_front("sm_") || name.getAsInteger(10, number))
    return "'" + arch + "' is not a CUDA architecture; expected sm_XY, e.g. sm_80 or sm_90";
  if (!ptxFeaturesOf(number)) {
    std::string known;
    for (auto [n, features] : kCUDAArchs)
      known += (known.empty() ? "sm_" : ", sm_") + std::to_string(n);
    return "architecture '" + arch + "' is not supported: use one of " + known;
  }
  return "";
}

void mlir::infer::registerCUDACodegenDialects(DialectRegistry &registry) {
  registerCodegenDialects(registry);
  registry.insert<plan::PlanDialect, gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  // convert-gpu-to-nvvm lowers every dialect inside the kernels through
  // these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry); // VectorAccesses.cpp's loads and stores.
}

/// The PTX ISA version an architecture needs (LLVM's NVPTX defaults to one
/// too old for sm_90); checkCUDAArch let only known ones through.
static std::string ptxFeatures(const std::string &arch) {
  const char *features = ptxFeaturesOf(cudaArchNumber(arch));
  return features ? features : "+ptx80";
}

void mlir::infer::addCUDATensorRewrites(OpPassManager &pm, const CUDACodegenOptions &options) {
  pm.addPass(createReshapesAsViewsPass());
  if (options.fuse) {
    pm.addPass(createFuseElementwisePass());
    pm.addPass(createAddsIntoInitPass());
  }
  if (options.allowTF32) {
    pm.addPass(createMergeProjectionsPass());
    pm.addPass(createFoldTransposesPass());
    pm.addPass(createAlignContractionsPass());
    pm.addPass(createSplitContractionsPass());
  }
}

void mlir::infer::buildCUDAKernelsPipeline(OpPassManager &pm, const CUDACodegenOptions &options) {
  addCUDATensorRewrites(pm, options);
  if (options.fuse && options.fuseRows) {
    pm.addPass(createFuseRowsPass());
    pm.addPass(createCSEPass()); // A producer read through two slices is fused twice.
  }
  bool fuseEpilogues = options.allowTF32 && options.fuse && options.fuseEpilogues;
  if (fuseEpilogues)
    pm.addPass(createPrepareEpiloguesPass()); // After the last CSE.
  if (fuseEpilogues) // Point groups: the reductions it rewrites then keep their neighbours.
    pm.addPass(createGuardedPadReadsPass());
  if (options.fuse)
    pm.addPass(createPadsInPlacePass());
  // An op whose result is inserted into a larger tensor (a Concat's input,
  // a Resize's output) writes into that tensor's slice instead of a
  // tensor.empty of its own, which bufferization would copy into place.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  addBufferizationPasses(pm);
  pm.addPass(createStaticReshapesPass());
  pm.addPass(createCanonicalizerPass()); // The shape constants are dead now.
  if (fuseEpilogues)
    pm.addPass(createFuseEpiloguesPass());
  pm.addPass(createOutlineKernelsPass({/*rootArguments=*/true}));
  pm.addPass(createConvertMathToFuncs()); // Integer powers: functions the kernels call.
  pm.addPass(createMapToGPUPass(
      {options.allowTF32, options.stageTiles, options.tilePlan, options.tunedPlans}));
  pm.addPass(createCanonicalizerPass());
  // An accumulator's load and store index with one set of values only once
  // CSE has merged the index arithmetic each was given.
  pm.addPass(createCSEPass());
  pm.addPass(createPromoteAccumulatorsPass());
  pm.addPass(createContractMultiplyAddsPass());
}

void mlir::infer::buildCUDALoweringPipeline(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expand));
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertNVGPUToNVVMPass()); // The staged tiles' cp.async copies.
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true; // One pointer per buffer: what the runtime passes.
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

/// Moves the launch records of infer-cuda-map-to-gpu into `artifacts`.
static void collectLaunches(ModuleOp module, CUDAArtifacts &artifacts) {
  auto launches = module->getAttrOfType<ArrayAttr>(plan::kLaunchesAttr);
  module->removeAttr(plan::kLaunchesAttr);
  if (!launches)
    return;
  for (auto launch : launches.getAsRange<plan::LaunchAttr>())
    artifacts.launches.push_back(fromAttr(launch));
}

/// The lowest architecture: its PTX runs on every requested one.
static std::string lowestArch(const std::vector<std::string> &archs) {
  return *std::min_element(archs.begin(), archs.end(), [](const std::string &a, const std::string &b) {
    return cudaArchNumber(a) < cudaArchNumber(b);
  });
}

LogicalResult mlir::infer::compileForCUDA(ModuleOp module, const CUDACodegenOptions &options,
                                          CUDAArtifacts &artifacts) {
  std::string error;
  std::string ptxas = options.ptxas.empty() ? findPtxas(error) : options.ptxas;
  if (ptxas.empty())
    return module.emitError(error);
  auto passManager = [&] {
    auto pm = std::make_unique<PassManager>(module.getContext());
    if (options.printIRAfterAll) {
      module.getContext()->disableMultithreading();
      auto never = [](Pass *, Operation *) { return false; };
      auto always = [](Pass *, Operation *) { return true; };
      pm->enableIRPrinting(never, always, /*printModuleScope=*/true,
                           /*printAfterOnlyOnChange=*/true, /*printAfterOnlyOnFailure=*/false,
                           llvm::errs(), OpPrintingFlags().elideLargeElementsAttrs(16));
    }
    return pm;
  };
  // In two runs, so that the kernels can be kept as gpu.funcs in between.
  std::unique_ptr<PassManager> kernels = passManager();
  buildCUDAKernelsPipeline(*kernels, options);
  if (failed(kernels->run(module)))
    return failure();
  if (options.keepKernelsMLIR) {
    llvm::raw_string_ostream os(artifacts.kernelsMLIR);
    module.print(os, OpPrintingFlags().printGenericOpForm());
  }
  std::unique_ptr<PassManager> lowering = passManager();
  PassManager &pm = *lowering;
  buildCUDALoweringPipeline(pm);
  artifacts.ptxArch = lowestArch(options.archs);
  GpuNVVMAttachTargetOptions target;
  target.chip = artifacts.ptxArch;
  target.features = ptxFeatures(artifacts.ptxArch);
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa"; // PTX; ptxas makes the cubins below.
  binary.toolkitPath = llvm::sys::path::parent_path(llvm::sys::path::parent_path(ptxas)).str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(module)))
    return failure();
  collectArtifacts(module, &artifacts);
  collectLaunches(module, artifacts);

  auto binaries = module.getOps<gpu::BinaryOp>();
  if (binaries.empty())
    return module.emitError("internal: no GPU binary was produced");
  gpu::BinaryOp binaryOp = *binaries.begin();
  auto object = cast<gpu::ObjectAttr>(binaryOp.getObjects()[0]);
  // TF32 fragments rounded to nearest, after LLVM's optimizations (RoundTF32.cpp).
  artifacts.ptx = withTF32Rounding(object.getObject());
  // The architectures' cubins are assembled at once: ptxas runs on one
  // thread, and it is most of a large model's compile.
  struct Assembled {
    bool ok = false;
    std::string cubin, log;
  };
  std::vector<std::future<Assembled>> runs;
  for (const std::string &arch : options.archs)
    runs.push_back(std::async(std::launch::async, [&ptxas, &ptx = artifacts.ptx, arch] {
      Assembled a;
      a.ok = assemblePTX(ptxas, ptxForArchitecture(ptx, arch), arch, a.cubin, a.log);
      return a;
    }));
  for (auto [arch, run] : llvm::zip(options.archs, runs)) {
    Assembled a = run.get();
    if (!a.ok)
      return module.emitError("ptxas failed for ") << arch << ":\n" << a.log;
    artifacts.cubins.push_back({arch, std::move(a.cubin)});
    artifacts.ptxasLogs.push_back({arch, std::move(a.log)});
  }
  return success();
}
