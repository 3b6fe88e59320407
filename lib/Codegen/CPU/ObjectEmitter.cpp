//===- ObjectEmitter.cpp - LLVM dialect to x86-64 object, shared object ---===//

#include "infer-opt/Codegen/CPU/CPUCodegen.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::infer;

/// The CPU name and feature string for `cpu` ("native": the host's).
static std::pair<std::string, std::string> resolveCPU(const std::string &cpu) {
  if (cpu != "native")
    return {cpu, ""};
  std::string features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features += (features.empty() ? "" : ",") + std::string(feature.second ? "+" : "-") +
                feature.first().str();
  return {llvm::sys::getHostCPUName().str(), features};
}

bool mlir::infer::isValidCPU(const std::string &cpu) {
  if (cpu == "native")
    return true;
  llvm::InitializeNativeTarget();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  // A generic subtarget answers without printing LLVM's own complaint.
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
  return info && info->isCPUStringValid(cpu);
}

FailureOr<std::string> mlir::infer::emitObjectFile(ModuleOp module,
                                                   const CPUCodegenOptions &options) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc()) << "internal: translation to LLVM IR failed";

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(module.getLoc()) << "no LLVM target for " << triple.str() << ": " << error;
  auto [cpu, features] = resolveCPU(options.cpu);
  if (!isValidCPU(options.cpu))
    return emitError(module.getLoc()) << "unknown CPU '" << cpu << "' for --cpu";
  llvm::TargetOptions targetOptions;
  // A multiply feeding an add may become one fused multiply-add (one
  // rounding instead of two, as ONNX Runtime's kernels and C compilers'
  // -ffp-contract=fast do): the accumulations of contractions and
  // convolutions run on the FMA units at twice the rate of mul + add.
  targetOptions.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return emitError(module.getLoc()) << "internal: LLVM optimization failed: "
                                      << llvm::toString(std::move(err));

  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return emitError(module.getLoc()) << "internal: the target cannot emit object files";
  codegen.run(*llvmModule);
  return std::string(buffer.begin(), buffer.end());
}

std::string mlir::infer::findOpenMPRuntime() {
  for (const char *path : {"/usr/lib/x86_64-linux-gnu/libomp.so.5", "/lib/x86_64-linux-gnu/libomp.so.5",
                           "/usr/lib64/libomp.so.5", "/usr/lib/libomp.so.5",
                           "/usr/local/lib/libomp.so.5"})
    if (llvm::sys::fs::exists(path))
      return path;
  return "";
}

std::string mlir::infer::linkSharedObject(const std::string &objectPath,
                                          const std::string &outputPath) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return "no system C compiler driver ('cc') on PATH to link the shared object; install gcc "
           "or clang";
  std::string message;
  // -Bsymbolic: the library's own calls bind inside it, whatever the
  // loading program exports. libomp runs the parallel loops (its ABI,
  // __kmpc_*, is what MLIR's OpenMP lowering calls); linked by its path, so
  // no development symlink is needed, and recorded by its soname.
  std::string openmp = findOpenMPRuntime();
  llvm::SmallVector<llvm::StringRef> args = {*cc, "-shared", "-Wl,-Bsymbolic", "-o", outputPath,
                                             objectPath, "-lm"};
  if (!openmp.empty()) {
    args.push_back("-Wl,--as-needed");
    args.push_back(openmp);
  }
  int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return "linking with '" + *cc + "' failed" + (message.empty() ? "" : ": " + message) +
           " (the kernels need libm, and libomp.so.5 when found)";
  return "";
}

FailureOr<std::string> mlir::infer::linkSharedObjectBytes(const std::string &object,
                                                          std::string &error) {
  llvm::SmallString<256> objectPath, soPath;
  if (llvm::sys::fs::createTemporaryFile("infer-opt", "o", objectPath) ||
      llvm::sys::fs::createTemporaryFile("infer-opt", "so", soPath)) {
    error = "cannot create a temporary file to link the kernels";
    return failure();
  }
  llvm::FileRemover removeObject(objectPath), removeSo(soPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec);
    if (!ec)
      os << object;
    if (ec || os.has_error()) {
      error = "cannot write the kernels' object file to '" + objectPath.str().str() + "'";
      os.clear_error();
      return failure();
    }
  }
  error = linkSharedObject(std::string(objectPath), std::string(soPath));
  if (!error.empty())
    return failure();
  auto buffer = llvm::MemoryBuffer::getFile(soPath, /*IsText=*/false);
  if (!buffer) {
    error = "cannot read the linked kernels";
    return failure();
  }
  return (*buffer)->getBuffer().str();
}
