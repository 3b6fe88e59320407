//===- infer-opt.cpp - the infer-opt compiler driver ----------------------===//
//
// Two faces:
//  * `infer-opt model.onnx [flags]` imports an ONNX model (binary or
//    .onnxtext), simplifies it and emits the `infer` dialect. Flags are
//    parsed by CLI11 and documented in --help and docs/cli.md.
//  * `infer-opt file.mlir [mlir-opt flags]` runs passes over MLIR like
//    mlir-opt, with the infer dialect and our passes registered (for lit).
//
// Exit codes: 0 success, 1 bad input (model, flags, files), 2 internal error.
//
//===----------------------------------------------------------------------===//

#include "Infer/InferDialect.h"
#include "Infer/InferOps.h"
#include "infer-opt/Codegen/CPU/CPUCodegen.h"
#include "infer-opt/Codegen/CUDA/Binary.h"
#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"
#include "infer-opt/Codegen/CPU/Passes.h"
#include "infer-opt/Codegen/Common/Passes.h"
#include "infer-opt/Conversion/Passes.h"
#include "infer-opt/Import/ONNX/ONNXImporter.h"
#include "infer-opt/Pipelines/Pipelines.h"
#include "infer-opt/Target/Engine/EngineReader.h"
#include "infer-opt/Target/Engine/EngineWriter.h"
#include "inferrt/engine_format.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <cstring>
#include <unistd.h>

using namespace mlir;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitInternal = 2;

struct Options {
  std::string input;
  std::string output = "-";
  std::string emit = "infer";
  std::vector<std::string> inputShapes;
  int64_t maxFoldElements = 1 << 22;
  int64_t maxTensorBytes = int64_t(16) << 30;
  int64_t elideWeights = -1;
  bool noSimplify = false;
  bool printLocations = false;
  bool printIRAfterAll = false;
  std::string cpu = "native";
  std::string target = "cpu";
  bool allowTF32 = true;
  bool tf32Asked = false; // --allow-tf32 given, not only defaulted.
  bool stageTiles = true;
  bool stageTilesAsked = false; // --cuda-stage-tiles given, not only defaulted.
  std::string tilePlanText;      // --cuda-tile-plan.
  bool tilePlanGiven = false;    // Even as "".
  infer::TilePlanChoice tilePlan; // tilePlanText, parsed.
  std::string tunedPlansFile;    // --cuda-tile-plans.
  bool tunedPlansGiven = false;  // Even as "".
  infer::TunedTilePlans tunedPlans; // Read from tunedPlansFile.
  bool cudaLayoutsOnCPU = false;
  std::string dumpKernels;
  bool inspect = false;
  bool report = false;
};

/// MLIR mode when the input file (the first argument that is neither a flag
/// nor a flag's value) ends in .mlir, or when --mlir-help is asked for.
bool isMLIRInput(int argc, char **argv) {
  static const char *valueFlags[] = {"-o", "--output", "--emit", "--input-shape",
                                     "--max-fold-elements", "--max-tensor-bytes",
                                     "--elide-weights", "--cpu", "--target",
                                     "--dump-kernels"};
  for (int i = 1; i < argc; ++i) {
    StringRef arg(argv[i]);
    if (arg == "--mlir-help")
      return true;
    if (arg.starts_with("-")) {
      if (!arg.contains('=') && llvm::is_contained(valueFlags, arg))
        ++i; // Skip the flag's value.
      continue;
    }
    return arg.ends_with(".mlir");
  }
  return false;
}

void registerEverything(DialectRegistry &registry) {
  registry.insert<infer::InferDialect, func::FuncDialect, affine::AffineDialect,
                  arith::ArithDialect, linalg::LinalgDialect, math::MathDialect,
                  tensor::TensorDialect>();
  infer::registerCUDACodegenDialects(registry);
}

/// Prints diagnostics of the ONNX path: "infer-opt: error: <where><message>".
/// Importer messages already name their subject (node, initializer, graph
/// input); op verifier messages ("'infer.conv' op ...") get the node's name
/// from the op's NameLoc.
LogicalResult printDiagnostic(Diagnostic &diag) {
  const char *severity = "error";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Warning: severity = "warning"; break;
  case DiagnosticSeverity::Note: severity = "note"; break;
  case DiagnosticSeverity::Remark: severity = "remark"; break;
  default: break;
  }
  std::string message = diag.str();
  std::string where;
  if (auto name = dyn_cast<NameLoc>(diag.getLocation())) {
    // Importer messages name their subject already; the rest (verifier and
    // lowering errors) get the node from the op's location.
    StringRef text(message);
    if (!text.starts_with("node '") && !text.starts_with("initializer '") &&
        !text.starts_with("graph ") && !text.starts_with("the graph") &&
        !text.starts_with("--input-shape"))
      where = "node '" + name.getName().str() + "': ";
  } else if (auto file = dyn_cast<FileLineColLoc>(diag.getLocation())) {
    where = file.getFilename().str() + ": ";
  }
  llvm::errs() << "infer-opt: " << severity << ": " << where << message << "\n";
  for (Diagnostic &note : diag.getNotes())
    llvm::errs() << "infer-opt: note: " << note.str() << "\n";
  return success();
}

/// The ONNX nodes left to compute after folding, in program order: the
/// names of the non-constant ops of @main (from their NameLocs).
std::vector<std::string> computedNodes(ModuleOp module) {
  std::vector<std::string> nodes;
  llvm::StringSet<> seen;
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return nodes;
  for (Operation &op : main.getBody().front()) {
    if (isa<infer::ConstantOp, func::ReturnOp>(op))
      continue;
    if (auto name = dyn_cast<NameLoc>(op.getLoc()))
      if (seen.insert(name.getName().strref()).second)
        nodes.push_back(name.getName().str());
  }
  return nodes;
}

std::string formatBytes(uint64_t bytes) {
  char text[64];
  if (bytes >= (uint64_t(1) << 20))
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / double(1 << 20));
  else
    std::snprintf(text, sizeof(text), "%.1f KiB", bytes / 1024.0);
  return text;
}

/// `--report`: the memory plan against its bounds.
void printReport(const infer::CodegenArtifacts &a, raw_ostream &os) {
  uint64_t weightBytes = 0;
  for (const auto &w : a.weights)
    weightBytes += w.bytes.size();
  // A model whose tensors all live in its inputs and outputs has bounds of
  // 0 and the arena's 64-byte minimum: no percentage of 0.
  auto percent = [](uint64_t part, uint64_t whole) {
    if (!whole)
      return std::string("no buffer lives in the arena (").append(std::to_string(part)) +
             " bytes: its minimum)";
    char text[64];
    std::snprintf(text, sizeof(text), "arena is %.1f%% of it", 100.0 * part / whole);
    return std::string(text);
  };
  os << "memory plan:\n"
     << "  arena (peak)      " << a.arenaBytes << " bytes (" << formatBytes(a.arenaBytes) << "), "
     << a.arenaBuffers << " buffers\n"
     << "  lower bound       " << a.arenaLowerBound << " bytes (" << formatBytes(a.arenaLowerBound)
     << "): " << percent(a.arenaBytes, a.arenaLowerBound) << "\n"
     << "  without reuse     " << a.arenaNoReuse << " bytes (" << formatBytes(a.arenaNoReuse)
     << "): " << percent(a.arenaBytes, a.arenaNoReuse) << "\n"
     << "  weights           " << weightBytes << " bytes (" << formatBytes(weightBytes) << ") in "
     << a.weights.size() << " tensors, shared by all contexts\n";
}

/// Writes through a temporary file renamed into place, so an existing
/// output is never left half-written and no file appears on failure.
bool writeOutput(const std::string &path, llvm::function_ref<void(raw_ostream &)> write) {
  if (path == "-") {
    write(llvm::outs());
    llvm::outs().flush();
    return true;
  }
  SmallString<256> temp;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp)) {
    llvm::errs() << "infer-opt: error: cannot write '" << path << "': " << ec.message() << "\n";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    write(os);
    os.flush();
    if (os.has_error()) {
      llvm::errs() << "infer-opt: error: cannot write '" << path << "': " << os.error().message()
                   << "\n";
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::errs() << "infer-opt: error: cannot write '" << path << "': " << ec.message() << "\n";
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

/// One paragraph on the plan: kernels, ONNX nodes, weights, arena.
void printPlanSummary(StringRef text) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  const llvm::json::Object *plan = parsed ? parsed->getAsObject() : nullptr;
  if (!plan) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    llvm::outs() << "  plan: not valid JSON\n";
    return;
  }
  size_t kernels = 0, nodes = 0, weights = 0;
  uint64_t weightBytes = 0;
  const llvm::json::Array *kernelList = plan->getArray("kernels");
  if (!kernelList)
    kernelList = plan->getArray("launches"); // CUDA: one entry a kernel launch.
  if (const llvm::json::Array *list = kernelList)
    for (const llvm::json::Value &kernel : *list) {
      ++kernels;
      if (const llvm::json::Object *k = kernel.getAsObject())
        if (const llvm::json::Array *n = k->getArray("nodes"))
          nodes += n->size();
    }
  if (const llvm::json::Array *list = plan->getArray("weights"))
    for (const llvm::json::Value &weight : *list) {
      ++weights;
      if (const llvm::json::Object *w = weight.getAsObject())
        weightBytes += w->getInteger("bytes").value_or(0);
    }
  llvm::outs() << "  plan: " << kernels << " kernel(s) computing " << nodes << " ONNX node(s); "
               << weights << " weights (" << weightBytes << " bytes)\n";
  if (const llvm::json::Object *arena = plan->getObject("arena"))
    llvm::outs() << "  arena: " << arena->getInteger("bytes").value_or(0) << " bytes (lower bound "
                 << arena->getInteger("lower_bound").value_or(0) << ", without reuse "
                 << arena->getInteger("no_reuse").value_or(0) << ", "
                 << arena->getInteger("buffers").value_or(0) << " buffers)\n";
}

/// `infer-opt --inspect model.engine`: a readable summary of an engine,
/// every section's checksum checked, and what makes it unsound if anything.
int inspectEngine(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    llvm::errs() << "infer-opt: error: cannot read '" << path << "': "
                 << buffer.getError().message() << "\n";
    return kExitBadInput;
  }
  StringRef file = (*buffer)->getBuffer();
  inferrt::EngineLayout layout;
  std::string problem = inferrt::readEngineLayout(std::string_view(file.data(), file.size()),
                                                  path, layout);
  if (!layout.tableRead) {
    llvm::errs() << "infer-opt: error: " << problem << "\n";
    return kExitBadInput;
  }
  const inferrt_engine_header &header = layout.header;
  llvm::outs() << "engine " << path << "\n  format " << header.formatMajor << "."
               << header.formatMinor << ", target " << layout.target << ", " << file.size()
               << " bytes (header says " << header.fileSize << ")\n";
  static const char *kinds[] = {"?", "metadata", "kernels", "weights", "plan"};
  for (auto [entry, intact] : llvm::zip(layout.table, layout.sectionIntact))
    llvm::outs() << "  section " << (entry.kind < 5 ? kinds[entry.kind] : "?") << ": offset "
                 << entry.offset << ", " << entry.size << " bytes, checksum "
                 << (intact ? "ok" : "BAD") << "\n";
  StringRef plan(layout.sections[INFERRT_SECTION_PLAN].data(),
                 layout.sections[INFERRT_SECTION_PLAN].size());
  StringRef metadata(layout.sections[INFERRT_SECTION_METADATA].data(),
                     layout.sections[INFERRT_SECTION_METADATA].size());
  if (!plan.empty())
    printPlanSummary(plan);
  if (!metadata.empty())
    llvm::outs() << "  metadata:\n" << metadata << "\n";
  if (problem.empty())
    return kExitOk;
  llvm::errs() << "infer-opt: error: " << problem << "\n";
  return kExitBadInput;
}

/// `--dump-kernels DIR`: the PTX, each architecture's cubin and ptxas
/// report, and the launches, for inspection (cuobjdump -sass DIR/*.cubin).
bool dumpKernels(const std::string &dir, const infer::CUDAArtifacts &a) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "infer-opt: error: cannot create '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  auto write = [&](const std::string &name, StringRef bytes) {
    return writeOutput(dir + "/" + name, [&](raw_ostream &os) { os << bytes; });
  };
  bool ok = write("kernels." + a.ptxArch + ".ptx", a.ptx) && write("kernels.mlir", a.kernelsMLIR);
  for (const auto &[arch, cubin] : a.cubins)
    ok &= write("kernels." + arch + ".cubin", cubin);
  for (const auto &[arch, log] : a.ptxasLogs)
    ok &= write("ptxas." + arch + ".log", log);
  std::string launches;
  llvm::raw_string_ostream os(launches);
  for (const infer::KernelLaunch &l : a.launches) {
    os << l.kernel << " grid " << l.grid << " block " << l.block
       << (l.config.usesTensorCores() ? " tensor-cores" : "");
    if (l.config.tile)
      os << " " << infer::plan::stringifyKernelStrategy(l.config.strategy) << "("
         << infer::describe(*l.config.tile) << ")";
    os << " args";
    for (unsigned arg : l.args)
      os << " " << arg;
    if (l.config.contraction)
      os << " contraction(" << infer::describe(*l.config.contraction) << ")";
    os << "\n";
  }
  return ok && write("launches.txt", launches);
}

/// The SHA-256 of a file's bytes, in hex; empty if it cannot be read.
std::string fileDigest(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return "";
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      ArrayRef(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
               (*buffer)->getBufferSize()));
  return llvm::toHex(hash, /*LowerCase=*/true);
}

/// The flags that decide what the engine holds, in one canonical form: no
/// paths (the model is recorded by its digest, a tuned-plans file by its
/// contents' digest), no output or reporting flags, defaults written out,
/// input shapes sorted by name. The same model bytes and these flags give
/// the same engine bytes, wherever the files are.
std::vector<std::string> semanticFlags(const Options &opts,
                                       const std::map<std::string, std::vector<int64_t>> &shapes,
                                       const infer::CompileTarget &target) {
  bool cuda = target.isCUDA();
  std::vector<std::string> flags = {"--target=" + infer::describe(target)};
  for (const auto &[name, dims] : shapes) {
    std::string flag = "--input-shape=" + name + ":";
    for (size_t i = 0; i < dims.size(); ++i)
      flag += (i ? "x" : "") + std::to_string(dims[i]);
    flags.push_back(flag);
  }
  flags.push_back("--max-fold-elements=" + std::to_string(opts.maxFoldElements));
  flags.push_back("--max-tensor-bytes=" + std::to_string(opts.maxTensorBytes));
  if (opts.noSimplify)
    flags.push_back("--no-simplify");
  if (!cuda) {
    flags.push_back("--cpu=" + opts.cpu);
    return flags;
  }
  flags.push_back(opts.allowTF32 ? "--allow-tf32" : "--no-tf32");
  flags.push_back(opts.stageTiles ? "--cuda-stage-tiles" : "--no-cuda-stage-tiles");
  if (opts.tilePlanGiven)
    flags.push_back("--cuda-tile-plan=" + infer::describe(opts.tilePlan));
  if (opts.tunedPlansGiven)
    flags.push_back("--cuda-tile-plans=sha256:" + fileDigest(opts.tunedPlansFile));
  return flags;
}

int runONNX(Options opts) {
  infer::ONNXImportOptions importOptions;
  importOptions.maxTensorBytes = opts.maxTensorBytes;
  for (const std::string &flag : opts.inputShapes) {
    std::string name;
    std::vector<int64_t> dims;
    if (!infer::parseInputShapeFlag(flag, name, dims)) {
      llvm::errs() << "infer-opt: error: --input-shape '" << flag
                   << "' is malformed; expected NAME:D0xD1x... with non-negative dims\n";
      return kExitBadInput;
    }
    if (!importOptions.inputShapes.emplace(name, dims).second) {
      llvm::errs() << "infer-opt: error: --input-shape gives '" << name << "' twice\n";
      return kExitBadInput;
    }
  }
  infer::CompileOptions compile;
  std::string targetError = infer::parseCompileTarget(opts.target, compile.target);
  if (!targetError.empty()) {
    llvm::errs() << "infer-opt: error: --target: " << targetError << "\n";
    return kExitBadInput;
  }
  const std::vector<std::string> &cudaArchs = compile.target.cudaArchs;
  if (!cudaArchs.empty() && opts.emit != "engine" && opts.emit != "infer" && opts.emit != "linalg") {
    llvm::errs() << "infer-opt: error: --emit=" << opts.emit
                 << " is a CPU output; with --target=cuda use --emit=engine (and --dump-kernels "
                    "DIR for the PTX and cubins)\n";
    return kExitBadInput;
  }
  if (opts.cudaLayoutsOnCPU && (!cudaArchs.empty() || opts.emit == "infer")) {
    llvm::errs() << "infer-opt: error: --cuda-layouts-on-cpu rewrites linalg for the CPU target: "
                    "use it with --target=cpu and --emit=linalg or later\n";
    return kExitBadInput;
  }
  if (opts.stageTilesAsked && (cudaArchs.empty() || !opts.allowTF32)) {
    llvm::errs() << "infer-opt: error: --cuda-stage-tiles changes the CUDA tensor-core kernels: "
                    "use it with --target=cuda:... and without --no-tf32\n";
    return kExitBadInput;
  }
  // cp.async and TF32 tensor cores are sm_80's and newer's, and the kernels
  // are made once, for the lowest architecture of the list.
  auto preAmpere = llvm::find_if(cudaArchs, [](const std::string &arch) {
    return infer::cudaArchNumber(arch) < 80;
  });
  if (preAmpere != cudaArchs.end() && opts.stageTilesAsked) {
    llvm::errs() << "infer-opt: error: --cuda-stage-tiles copies tiles with cp.async, which "
                 << *preAmpere << " does not have: target sm_80 or newer\n";
    return kExitBadInput;
  }
  // With an older one in the list, float32 contractions stay in full float32
  // (LLVM could not compile TF32 for it).
  if (preAmpere != cudaArchs.end() && opts.allowTF32) {
    if (opts.tf32Asked) {
      llvm::errs() << "infer-opt: error: --allow-tf32: " << *preAmpere
                   << " has no TF32 tensor cores (sm_80 and newer have): leave it out of "
                      "--target, or leave out --allow-tf32\n";
      return kExitBadInput;
    }
    llvm::errs() << "infer-opt: note: " << *preAmpere
                 << " has no TF32 tensor cores: float32 matmuls and convolutions run in full "
                    "float32 (as with --no-tf32)\n";
    opts.allowTF32 = false;
  }
  // Tiles staged in shared memory by default where they can be (TF32 on an
  // sm_80 or newer list): the warps of a block share their loads instead
  // of each fetching its fragments from global memory.
  opts.stageTiles = opts.stageTiles && !cudaArchs.empty() && opts.allowTF32;
  if (opts.tilePlanGiven) {
    std::string error = infer::parseTilePlanChoice(opts.tilePlanText, opts.tilePlan);
    if (!error.empty()) {
      llvm::errs() << "infer-opt: error: --cuda-tile-plan: " << error << "\n";
      return kExitBadInput;
    }
  }
  if (opts.tunedPlansGiven) {
    std::string error = infer::readTunedTilePlans(opts.tunedPlansFile, opts.tunedPlans);
    if (!error.empty()) {
      llvm::errs() << "infer-opt: error: --cuda-tile-plans: " << error << "\n";
      return kExitBadInput;
    }
  }
  for (auto [given, flag] : {std::pair{opts.tilePlanGiven, "--cuda-tile-plan"},
                             {opts.tunedPlansGiven, "--cuda-tile-plans"}})
    if (given && !opts.stageTiles) {
      llvm::errs() << "infer-opt: error: " << flag
                   << " sets the plans of the staged-tiles kernels, which this compile does not "
                      "make: use it with --target=cuda:sm_80 or newer, TF32, and without "
                      "--no-cuda-stage-tiles\n";
      return kExitBadInput;
    }
  if (!opts.dumpKernels.empty() && cudaArchs.empty()) {
    llvm::errs() << "infer-opt: error: --dump-kernels needs --target=cuda:...\n";
    return kExitBadInput;
  }
  bool binary = opts.emit == "obj" || opts.emit == "shared-lib" || opts.emit == "engine";
  if (binary && opts.output == "-") {
    llvm::errs() << "infer-opt: error: --emit=" << opts.emit << " writes a binary file: give -o\n";
    return kExitBadInput;
  }
  if (binary && !infer::isValidCPU(opts.cpu)) {
    llvm::errs() << "infer-opt: error: unknown CPU '" << opts.cpu
                 << "' for --cpu (use native, or an LLVM CPU name such as x86-64-v3)\n";
    return kExitBadInput;
  }
  if (!llvm::sys::fs::exists(opts.input)) {
    llvm::errs() << "infer-opt: error: no such file: '" << opts.input << "'\n";
    return kExitBadInput;
  }
  if (llvm::sys::fs::is_directory(opts.input)) {
    llvm::errs() << "infer-opt: error: '" << opts.input << "' is a directory, not a model\n";
    return kExitBadInput;
  }

  DialectRegistry registry;
  registerEverything(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the ONNX node; dumping the failing op is noise here.
  context.printOpOnDiagnostic(false);
  context.getOrLoadDialect<infer::InferDialect>()->setMaxFoldElements(opts.maxFoldElements);
  ScopedDiagnosticHandler diagnostics(&context, printDiagnostic);

  infer::ONNXImportResult imported = infer::importONNXModel(context, opts.input, importOptions);
  if (!imported.module)
    return imported.internalError ? kExitInternal : kExitBadInput;
  OwningOpRef<ModuleOp> module = std::move(imported.module);

  compile.target.cpu = opts.cpu;
  compile.precision = opts.allowTF32 ? infer::Precision::TF32 : infer::Precision::FP32;
  compile.simplify = !opts.noSimplify;
  compile.stageTiles = opts.stageTiles;
  compile.tilePlan = opts.tilePlan;
  compile.tunedPlans = opts.tunedPlans;
  compile.cudaLayoutsOnCPU = opts.cudaLayoutsOnCPU;
  auto run = [&](llvm::function_ref<void(OpPassManager &)> build) {
    PassManager pm(&context);
    build(pm);
    return pm.run(*module);
  };
  if (compile.simplify && failed(run(infer::buildSimplifyPipeline))) {
    llvm::errs() << "infer-opt: error: internal: simplification failed\n";
    return kExitInternal;
  }
  // Read while the ops are still ONNX nodes (initializers are constants).
  std::vector<std::string> nodes = computedNodes(*module);
  // A failure here names the op that cannot be lowered yet: an unsupported
  // model feature, reported as bad input.
  if (opts.emit != "infer" && failed(run(infer::buildToLinalgPipeline)))
    return kExitBadInput;
  if (opts.cudaLayoutsOnCPU &&
      failed(run([](OpPassManager &pm) { infer::addCUDATensorRewrites(pm, {}); }))) {
    llvm::errs() << "infer-opt: error: internal: the CUDA layout passes failed\n";
    return kExitInternal;
  }
  infer::CPUCodegenOptions cpuOptions = infer::cpuCodegenOptions(compile);
  cpuOptions.printIRAfterAll = opts.printIRAfterAll;
  if (binary && cudaArchs.empty() && !cpuOptions.threads)
    llvm::errs() << "infer-opt: warning: no OpenMP runtime (libomp.so.5) found: the kernels will "
                    "run on one thread (install libomp5 or libomp-dev)\n";
  // The engine's metadata comes from the signature before lowering erases
  // the names.
  infer::EngineDescription engine;
  if (opts.emit == "engine") {
    if (failed(infer::describeSignature(*module, engine)))
      return kExitBadInput;
    engine.compilerVersion = INFER_VERSION;
    engine.flags = semanticFlags(opts, importOptions.inputShapes, compile.target);
    engine.modelSha256 = fileDigest(opts.input);
    engine.nodes = std::move(nodes);
  }
  auto writeBytes = [&](const std::string &bytes) {
    return writeOutput(opts.output, [&](raw_ostream &os) { os << bytes; }) ? kExitOk
                                                                           : kExitBadInput;
  };
  if (!cudaArchs.empty() && opts.emit == "engine") {
    infer::CUDACodegenOptions options = infer::cudaCodegenOptions(compile);
    options.keepKernelsMLIR = !opts.dumpKernels.empty();
    options.printIRAfterAll = opts.printIRAfterAll;
    std::string error;
    options.ptxas = infer::findPtxas(error);
    if (options.ptxas.empty()) {
      llvm::errs() << "infer-opt: error: " << error << "\n";
      return kExitBadInput;
    }
    infer::CUDAArtifacts artifacts;
    if (failed(infer::compileForCUDA(*module, options, artifacts)))
      return kExitInternal;
    if (opts.report)
      printReport(artifacts, opts.output == "-" ? llvm::errs() : llvm::outs());
    if (!opts.dumpKernels.empty() && !dumpKernels(opts.dumpKernels, artifacts))
      return kExitBadInput;
    infer::addCUDAKernels(engine, std::move(artifacts), options.allowTF32);
    return writeBytes(infer::serializeEngine(engine));
  }
  infer::CodegenArtifacts artifacts;
  if (opts.emit == "llvm" || binary) {
    if (failed(infer::lowerToLLVMDialect(*module, cpuOptions, &artifacts))) {
      llvm::errs() << "infer-opt: error: internal: lowering to the LLVM dialect failed\n";
      return kExitInternal;
    }
    if (opts.report)
      printReport(artifacts, opts.output == "-" ? llvm::errs() : llvm::outs());
  } else if (opts.report) {
    llvm::errs() << "infer-opt: error: --report needs code generation "
                    "(--emit=llvm, obj, shared-lib or engine)\n";
    return kExitBadInput;
  }
  if (binary) {
    FailureOr<std::string> object = infer::emitObjectFile(*module, cpuOptions);
    if (failed(object))
      return kExitInternal;
    if (opts.emit == "obj")
      return writeBytes(*object);
    std::string error;
    FailureOr<std::string> sharedObject = infer::linkSharedObjectBytes(*object, error);
    if (failed(sharedObject)) {
      llvm::errs() << "infer-opt: error: " << error << "\n";
      return kExitInternal;
    }
    if (opts.emit == "shared-lib")
      return writeBytes(*sharedObject);
    infer::addCPUKernels(engine, artifacts, std::move(*sharedObject));
    return writeBytes(infer::serializeEngine(engine));
  }

  OpPrintingFlags flags;
  if (opts.elideWeights >= 0)
    flags.elideLargeElementsAttrs(opts.elideWeights);
  if (opts.printLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  bool written = writeOutput(opts.output, [&](raw_ostream &os) {
    module->print(os, flags);
    os << "\n";
  });
  return written ? kExitOk : kExitBadInput;
}

} // namespace

int main(int argc, char **argv) {
  if (isMLIRInput(argc, argv)) {
    // --mlir-help lists the mlir-opt flags of MLIR mode.
    for (int i = 1; i < argc; ++i)
      if (StringRef(argv[i]) == "--mlir-help")
        argv[i] = const_cast<char *>("--help");
    DialectRegistry registry;
    registerEverything(registry);
    registerTransformsPasses();
    infer::registerInferConversionPasses();
    infer::registerInferCodegenCommonPasses();
    infer::registerInferCodegenCPUPasses();
    infer::registerInferCodegenCUDAPasses();
    infer::registerInferPipelines();
    return failed(MlirOptMain(argc, argv, "infer-opt (MLIR mode)", registry)) ? kExitBadInput
                                                                              : kExitOk;
  }

  Options opts;
  CLI::App app{"infer-opt: ahead-of-time compiler for ONNX models.\n\n"
               "  infer-opt MODEL.onnx|MODEL.onnxtext [options]   import and optimize a model\n"
               "  infer-opt FILE.mlir [mlir-opt options]          run passes on MLIR "
               "(see --mlir-help)\n\n"
               "Exit codes: 0 success, 1 bad input (model, flags, files), 2 internal error.",
               "infer-opt"};
  app.set_version_flag("--version", std::string("infer-opt ") + INFER_VERSION +
                                        " (LLVM/MLIR " + INFER_LLVM_VERSION + ")");
  app.add_option("model", opts.input,
                 "ONNX model: binary .onnx or ONNX text .onnxtext (an engine with --inspect)")
      ->required();
  app.add_option("-o,--output", opts.output,
                 "Output file; '-' is stdout. Written atomically: nothing is written on error")
      ->capture_default_str();
  app.add_option("--emit", opts.emit,
                 "What to emit. infer: the imported, simplified dialect; linalg: lowered to "
                 "linalg/tensor/arith/math on tensors; llvm: the LLVM dialect; obj: an x86-64 "
                 "object file; shared-lib: a shared object (linked with cc); engine: an engine "
                 "file for infer-run and the runtime. All but infer need static shapes "
                 "(--input-shape)")
      ->check(CLI::IsMember({"infer", "linalg", "llvm", "obj", "shared-lib", "engine"}))
      ->capture_default_str();
  app.add_option("--input-shape", opts.inputShapes,
                 "Specialize a graph input: NAME:D0xD1x... (e.g. x:1x3x224x224; NAME: alone for "
                 "a scalar). Repeatable. Shape computations then fold to constants")
      ->allow_extra_args(false);
  app.add_option("--max-fold-elements", opts.maxFoldElements,
                 "Largest non-splat tensor (in elements) constant folding may create "
                 "(transposes of constants are exempt: they only move bytes)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-tensor-bytes", opts.maxTensorBytes,
                 "Largest tensor (in bytes) a model may declare or compute; larger is an error")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--elide-weights", opts.elideWeights,
                 "Print constants with more than N elements as dense_resource<__elided__> "
                 "placeholders: short output, but the weight values are gone")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--cpu", opts.cpu,
                 "CPU to generate code for: native (the host and its features) or an LLVM CPU "
                 "name such as x86-64-v3 or skylake-avx512")
      ->capture_default_str();
  app.add_option("--target", opts.target,
                 "What to compile for: cpu (x86-64, this machine's CPU by default, see --cpu) or "
                 "cuda:ARCH[,ARCH...] (NVIDIA GPUs, e.g. cuda:sm_80,sm_90: one cubin per "
                 "architecture plus PTX of the lowest for newer GPUs; needs the CUDA toolkit's "
                 "ptxas, found through CUDA_PATH, PATH or /usr/local/cuda)")
      ->capture_default_str();
  CLI::Option *tf32 = app.add_flag(
      "--allow-tf32,!--no-tf32", opts.allowTF32,
      "CUDA: let float32 matmuls and convolutions use TF32 tensor cores, their inputs rounded to "
      "TF32 (the default, as in TensorRT; off when --target names an architecture older than "
      "sm_80, which has none); --no-tf32 keeps them in full float32");
  CLI::Option *stageTiles = app.add_flag(
      "--cuda-stage-tiles,!--no-cuda-stage-tiles", opts.stageTiles,
      "CUDA: float32 tensor-core kernels stage their A and B tiles in shared memory (16-byte "
      "cp.async copies, blocks of up to 128x64, several fragments a warp, the next tiles copied "
      "while the tensor cores work); the default with TF32 on sm_80 and newer. "
      "--no-cuda-stage-tiles has each warp load its fragments from global memory");
  CLI::Option *tilePlan = app.add_option("--cuda-tile-plan", opts.tilePlanText,
                 "CUDA, for tuning sweeps: fix parts of every staged-tiles kernel's plan, any "
                 "of warp=MxN (16x16 fragments a warp along m and n: 1, 2 or 4 each; a block is "
                 "2x2 warps), step=K (k a round: 8, 16, 32), stages=S (2 to 4), groups=G (groups "
                 "of 4 warps splitting k: 1, 2, 4), mma=wmma|sync (how a warp multiplies: mma.sync "
                 "m16n8k8 on ldmatrix fragments, the default, or WMMA), e.g. "
                 "warp=4x2,step=16,mma=sync. A contraction the other parts do not suit (k does "
                 "not split evenly, the tiles pass 48 KiB of shared memory, the blocks waste over "
                 "1/8 of their work) keeps the heuristic's plan, with the mma given; each "
                 "launch's plan is in the engine's launch records ('config') and --dump-kernels' "
                 "launches.txt");
  CLI::Option *tunedPlans = app.add_option("--cuda-tile-plans", opts.tunedPlansFile,
                 "CUDA: tuned plans for particular contractions, from a JSON file that "
                 "scripts/bench/sweep.py --tuned-plans writes from a sweep's timings on a GPU "
                 "({\"plans\": [{\"contraction\": {\"batch\": 8, \"m\": 1024, \"n\": 768, "
                 "\"k\": 768, \"a\": \"row\", \"b\": \"col\"}, \"plan\": {\"warp\": [4, 2], "
                 "\"step\": 16, \"stages\": 3, \"groups\": 1, \"mma\": \"sync\"}}, ...]}: the "
                 "contraction as the engine's launch records give it, any parts of the plan). A "
                 "listed contraction gets its plan (where it fits) before --cuda-tile-plan and the "
                 "heuristic");
  app.add_flag("--cuda-layouts-on-cpu", opts.cudaLayoutsOnCPU,
               "Testing: compile for the CPU the tensor program that --target=cuda makes its "
               "kernels from (bias adds as contractions' initial values, Q, K and V merged, "
               "transposes read through, contractions grown and split at tensor-core tiles, "
               "misaligned rows padded or transposed), so that those rewrites can be checked "
               "against ONNX Runtime without a GPU");
  app.add_option("--dump-kernels", opts.dumpKernels,
                 "CUDA: write every kernel's PTX, each architecture's cubin and ptxas report, "
                 "the launch list, and the kernels before their lowering to NVVM (kernels.mlir, "
                 "which scripts/cuda_plan_exec.py --emulate runs on the CPU) into this "
                 "directory");
  app.add_flag("--inspect", opts.inspect,
               "Treat the positional file as an engine and print a summary: format, target, "
               "sections with checksums, inputs, outputs, compiler flags");
  app.add_flag("--report", opts.report,
               "Print the memory plan: peak arena bytes against the lower bound (largest sum "
               "of simultaneously live tensors) and against no reuse, and the weight bytes. "
               "On stdout when -o names a file, else on stderr");
  app.add_flag("--no-simplify", opts.noSimplify,
               "Skip canonicalization and CSE after import (show the raw import)");
  app.add_flag("--print-locations", opts.printLocations,
               "Print op locations (the ONNX node names) in the output");
  app.add_flag("--print-ir-after-all", opts.printIRAfterAll,
               "Print the module to stderr after every pass of the CPU back end, for "
               "debugging code generation (constants of more than 16 elements elided)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  opts.tf32Asked = tf32->count() > 0 && opts.allowTF32;
  opts.stageTilesAsked = stageTiles->count() > 0 && opts.stageTiles;
  opts.tilePlanGiven = tilePlan->count() > 0;
  opts.tunedPlansGiven = tunedPlans->count() > 0;
  if (opts.inspect)
    return inspectEngine(opts.input);
  return runONNX(opts);
}
