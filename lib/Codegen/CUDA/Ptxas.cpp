//===- Ptxas.cpp - find the toolkit's ptxas and assemble PTX with it ------===//
//
// The cubins come from the CUDA toolkit's own assembler, the one NVIDIA
// supports for each architecture; its -v report (registers, shared memory,
// spills) is kept for --dump-kernels and the SASS checks.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::string mlir::infer::findPtxas(std::string &error) {
  // CUDA_PATH, when set, is the toolkit the user chose: no fallback.
  if (const char *cudaPath = std::getenv("CUDA_PATH")) {
    llvm::SmallString<256> path(cudaPath);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
    error = "ptxas not found: CUDA_PATH is '" + std::string(cudaPath) + "', which has no bin/ptxas";
    return "";
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  error = "ptxas not found: install the CUDA toolkit, and set CUDA_PATH to it or put its bin "
          "directory on PATH (--target=cuda assembles the kernels with it)";
  return "";
}

static std::string readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

bool mlir::infer::assemblePTX(const std::string &ptxas, const std::string &ptx,
                              const std::string &arch, std::string &cubin, std::string &log) {
  llvm::SmallString<256> ptxPath, cubinPath, logPath;
  if (llvm::sys::fs::createTemporaryFile("infer-opt", "ptx", ptxPath) ||
      llvm::sys::fs::createTemporaryFile("infer-opt", "cubin", cubinPath) ||
      llvm::sys::fs::createTemporaryFile("infer-opt", "log", logPath)) {
    log = "cannot create temporary files";
    return false;
  }
  llvm::FileRemover removePtx(ptxPath), removeCubin(cubinPath), removeLog(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec);
    if (ec) {
      log = "cannot write " + std::string(ptxPath) + ": " + ec.message();
      return false;
    }
    os << ptx;
  }
  std::string archFlag = "-arch=" + arch;
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archFlag, "-O3", "-v", "--warn-on-spills",
                                             ptxPath, "-o", cubinPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(), logPath.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &error);
  log = readFile(logPath);
  if (rc != 0) {
    if (!error.empty())
      log += error;
    return false;
  }
  cubin = readFile(cubinPath);
  if (cubin.empty()) {
    log += "ptxas wrote no cubin";
    return false;
  }
  return true;
}
