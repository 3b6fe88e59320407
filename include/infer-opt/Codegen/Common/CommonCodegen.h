//===- CommonCodegen.h - what the CPU and CUDA back ends share --*- C++ -*-===//
//
// Both back ends start alike (lib/Codegen/Common): elementwise fusion on
// tensors, large constants as weight arguments, bufferization with results
// as out-parameters, every intermediate buffer a view into one arena, and
// each kernel outlined. Passes.h declares those passes.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_COMMON_COMMONCODEGEN_H
#define INFER_OPT_CODEGEN_COMMON_COMMONCODEGEN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace infer {

/// What the lowering leaves outside the code: the weights (in argument
/// order), the arena's plan and the kernels' ONNX nodes. The weights' bytes
/// point into attributes of the MLIRContext, valid while it lives.
struct CodegenArtifacts {
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

/// Dialects, bufferization models, tiling interfaces and LLVM IR
/// translations both pipelines use.
void registerCodegenDialects(DialectRegistry &registry);

/// Tensors to memrefs: large constants become weight arguments, results
/// out-params, intermediate buffers views into the arena; memref.copy
/// becomes linalg.copy.
void addBufferizationPasses(OpPassManager &pm);

/// Moves what the passes recorded on the module (weights, arena, kernels)
/// into `artifacts` (may be null: then only removes it).
void collectArtifacts(ModuleOp module, CodegenArtifacts *artifacts);

/// The entry function: @inferrt_main once renamed, else @main.
func::FuncOp lookupEntryFunction(ModuleOp module);

/// Splits the linalg op `op` along loop `dim` at `position` (linalg::splitOp)
/// into the ops covering [0, position) and [position, end); `op` alone if
/// the position is not inside the range. The pieces replace `op`.
SmallVector<Operation *> splitAt(RewriterBase &rewriter, Operation *op, unsigned dim,
                                 int64_t position);

} // namespace infer
} // namespace mlir

#endif // INFER_OPT_CODEGEN_COMMON_COMMONCODEGEN_H
