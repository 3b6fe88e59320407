//===- Ptxas.cpp - find the toolkit's ptxas and assemble PTX with it ------===//
//
// The cubins come from the CUDA toolkit's own assembler, the one NVIDIA
// supports for each architecture; its -v report (registers, shared memory,
// spills) is kept for --dump-kernels and the SASS checks.
//
// Without a hint, ptxas picks each kernel's register budget for its own
// idea of occupancy, and now and then spills to stay within it (a few
// bytes in a tensor-core kernel held to 40 registers for sm_80). A
// kernel it spilled is assembled again with `.minnctapersm 1`: one block
// an SM is all that is promised, so it may take the registers it needs.
// Only those kernels get the hint, for that architecture's cubin: the
// others keep the budgets that were timed on a GPU.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/Binary.h"

#include "llvm/ADT/StringExtras.h"
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

llvm::SmallVector<std::string> mlir::infer::spillingKernels(llvm::StringRef log) {
  constexpr llvm::StringLiteral marker = "Registers are spilled to local memory in function '";
  llvm::SmallVector<std::string> kernels;
  for (size_t at = log.find(marker); at != llvm::StringRef::npos;
       at = log.find(marker, at + marker.size())) {
    llvm::StringRef name = log.substr(at + marker.size());
    kernels.push_back(name.take_until([](char c) { return c == '\''; }).str());
  }
  return kernels;
}

std::string mlir::infer::withOneBlockPerSM(llvm::StringRef ptx,
                                           llvm::ArrayRef<std::string> kernels) {
  std::string result = ptx.str();
  for (const std::string &kernel : kernels) {
    // The directives between an entry's parameter list and its body.
    size_t entry = result.find(".entry " + kernel + "(");
    size_t body = entry == std::string::npos ? entry : result.find("\n{", entry);
    if (body == std::string::npos)
      continue;
    size_t params = result.rfind(')', body);
    if (llvm::StringRef(result).slice(params, body).contains(".minnctapersm"))
      continue;
    result.insert(body + 1, ".minnctapersm 1\n");
  }
  return result;
}

/// One run of ptxas -v; false with `log` saying why on failure.
static bool runPtxas(const std::string &ptxas, const std::string &ptx, const std::string &arch,
                     std::string &cubin, std::string &log) {
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

bool mlir::infer::assemblePTX(const std::string &ptxas, const std::string &ptx,
                              const std::string &arch, std::string &cubin, std::string &log) {
  if (!runPtxas(ptxas, ptx, arch, cubin, log))
    return false;
  llvm::SmallVector<std::string> spilled = spillingKernels(log);
  std::string hinted = withOneBlockPerSM(ptx, spilled);
  if (spilled.empty() || hinted == ptx)
    return true;
  std::string retryCubin, retryLog;
  if (!runPtxas(ptxas, hinted, arch, retryCubin, retryLog) ||
      spillingKernels(retryLog).size() >= spilled.size())
    return true; // No better: the first cubin stands.
  cubin = std::move(retryCubin);
  // (Worded without "spill": scripts/cuda_kernel_check.py reads the report.)
  log = "infer-opt: assembled again with .minnctapersm 1, the first register budget too "
        "small: " +
        llvm::join(spilled, ", ") + "\n" + retryLog;
  return true;
}
