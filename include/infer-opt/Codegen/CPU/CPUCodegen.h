//===- CPUCodegen.h - linalg on tensors to x86-64 code ----------*- C++ -*-===//
//
// The CPU back end: bufferize the lowered module, turn linalg into loops and
// LLVM, then emit object code in-process through LLVM's TargetMachine, and
// link it into a shared object with the system linker driver.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H
#define INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace infer {

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

/// What the lowering leaves outside the code: the weights (in argument
/// order) and the arena's plan. The weights' bytes point into attributes of
/// the MLIRContext, valid while it lives.
struct CPUArtifacts {
  struct Weight {
    Type elementType;
    std::vector<int64_t> shape;
    ArrayRef<char> bytes; // Raw little-endian elements.
  };
  std::vector<Weight> weights;
  uint64_t arenaBytes = 0;      // The arena each context allocates.
  uint64_t arenaLowerBound = 0; // Largest sum of simultaneously live buffers.
  uint64_t arenaNoReuse = 0;    // Every buffer its own memory.
  uint64_t arenaBuffers = 0;    // Buffers placed in the arena.
  /// The kernels the entry calls, in order, with the ONNX nodes of each
  /// (several when elementwise ops were fused).
  std::vector<std::pair<std::string, std::vector<std::string>>> kernelNodes;
};

/// Dialects, bufferization models and LLVM IR translations the pipeline uses.
void registerCPUCodegenDialects(DialectRegistry &registry);

/// linalg/tensor/arith/math on tensors -> LLVM dialect. @main is renamed
/// @inferrt_main and gets a C wrapper (`_mlir_ciface_inferrt_main`) taking
/// memref descriptors: inputs, weights, one out-parameter per result, the
/// arena; and `void inferrt_entry(void **descriptors)` calls it with an
/// array of them.
void buildCPUCodegenPipeline(OpPassManager &pm, const CPUCodegenOptions &options);

/// Tensors to memrefs, shared by the CPU and CUDA back ends: large
/// constants become weight arguments, results out-params, intermediate
/// buffers views into the arena; memref.copy becomes linalg.copy.
void addBufferizationPasses(OpPassManager &pm);

/// Moves what the passes recorded on the module (weights, arena, kernels)
/// into `artifacts` (may be null: then only removes it).
void collectArtifacts(ModuleOp module, CPUArtifacts *artifacts);

/// Runs the pipeline on `module` (which must be static linalg on tensors)
/// and fills `artifacts` when given.
LogicalResult lowerToLLVMDialect(ModuleOp module, const CPUCodegenOptions &options,
                                 CPUArtifacts *artifacts = nullptr);

/// The entry function: @inferrt_main once renamed, else @main.
func::FuncOp lookupEntryFunction(ModuleOp module);

/// The passes of WeightsAndArena.cpp, and their registration for MLIR mode.
std::unique_ptr<Pass> createHoistWeightsPass();
std::unique_ptr<Pass> createPlanArenaPass();
void registerCPUCodegenPasses();

/// OutputsInPlace.cpp: results that reach an output argument through a copy
/// of a (reshaped) allocation are computed in the output argument itself.
std::unique_ptr<Pass> createOutputsInPlacePass();
void registerOutputsInPlacePass();

/// FuseElementwise.cpp: elementwise linalg.generic producers merged into
/// their only consumer, on tensors before tiling.
std::unique_ptr<Pass> createFuseElementwisePass();
void registerFuseElementwisePass();

/// The passes of TileAndVectorize.cpp: register tiles and vector code on
/// tensors, then (after bufferization) vector ops down to 1-D and FMAs.
/// Splits the linalg op `op` along loop `dim` at `position` (linalg::splitOp)
/// into the ops covering [0, position) and [position, end); `op` alone if
/// the position is not inside the range. The pieces replace `op`.
SmallVector<Operation *> splitAt(RewriterBase &rewriter, Operation *op, unsigned dim,
                                 int64_t position);

std::unique_ptr<Pass> createVectorizePass();
std::unique_ptr<Pass> createLowerVectorsPass();
void registerVectorPasses();

/// OutlineKernels.cpp: each top-level loop nest of the entry in its own
/// never-inlined function, recorded with its ONNX node (`infer.kernels`).
std::unique_ptr<Pass> createOutlineKernelsPass(bool rootArguments = false);
void registerOutlineKernelsPass();

/// True for "native" and for CPU names LLVM knows for the host target.
bool isValidCPU(const std::string &cpu);

/// Translates an LLVM-dialect module to an x86-64 object file (optimized at
/// -O3 for `options.cpu`). Errors are emitted at the module's location.
FailureOr<std::string> emitObjectFile(ModuleOp module, const CPUCodegenOptions &options);

/// Links an object file into a shared object at `outputPath` with the system
/// C compiler driver (cc), adding libm. Returns an error message on failure.
std::string linkSharedObject(const std::string &objectPath, const std::string &outputPath);

} // namespace infer
} // namespace mlir

#endif // INFER_OPT_CODEGEN_CPU_CPUCODEGEN_H
