//===- CUDACodegen.h - linalg on tensors to PTX and cubins -----*- C++ -*-===//
//
// The CUDA back end (lib/Codegen/CUDA), by phase:
//
//   Tensor/    rewrites of linalg on tensors: the kernels' shapes and what
//              they fuse (bias adds into initial values, Q/K/V merged,
//              transposes read through, contractions aligned and split)
//   (Common)   the front half both back ends share: bufferization, weights,
//              the arena, kernel outlining (Common/CommonCodegen.h)
//   Kernels/   on memrefs: fused groups formed, then each outlined kernel
//              becomes a gpu.func whose strategy and plan
//              infer-cuda-map-to-gpu decides (typed: Plan/KernelPlan.h),
//              and the entry's calls become launch records
//   GPUFuncs/  clean-ups of the gpu.funcs
//   Binary/    gpu.module -> NVVM -> LLVM NVPTX -> PTX (once, for the lowest
//              architecture asked for) -> ptxas -> one cubin per
//              architecture (Binary.h)
//
// Passes.h declares the passes (Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H
#define INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Plan/KernelPlan.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <string>
#include <vector>

namespace mlir::infer {

struct CUDACodegenOptions {
  /// Architectures to build cubins for ("sm_80", "sm_90"); the PTX is
  /// generated for the lowest and travels too, for newer GPUs.
  std::vector<std::string> archs = {"sm_80"};
  /// Let matmuls and convolutions use TF32 tensor cores.
  bool allowTF32 = true;
  /// Tensor-core kernels stage their A and B tiles in shared memory
  /// (StagedTiles.cpp) instead of loading fragments from global memory.
  bool stageTiles = false;
  /// With stageTiles: parts of the staged kernels' plans fixed by hand;
  /// empty: the heuristic's plans.
  TilePlanChoice tilePlan;
  /// With stageTiles: plans for particular contractions, which take
  /// precedence over tilePlan and the heuristic.
  TunedTilePlans tunedPlans;
  bool fuse = true;
  /// A row's reductions and elementwise ops (softmax, layer norm) become one
  /// kernel with a block a row (infer-cuda-fuse-rows).
  bool fuseRows = true;
  /// A tensor-core contraction and the ops that make its initial value
  /// and read its result become one kernel (infer-cuda-fuse-epilogues).
  bool fuseEpilogues = true;
  bool printIRAfterAll = false;
  /// Keep the kernels as gpu.funcs, before their lowering to NVVM, in
  /// CUDAArtifacts::kernelsMLIR (for --dump-kernels).
  bool keepKernelsMLIR = false;
  /// The assembler (findPtxas); empty: compileForCUDA looks for it.
  std::string ptxas;
};

struct CUDAArtifacts : CodegenArtifacts {
  std::vector<KernelLaunch> launches;
  std::string ptx;     // For `ptxArch`, every kernel.
  std::string ptxArch; // The lowest of the requested architectures.
  /// One cubin per requested architecture, in the order asked for.
  std::vector<std::pair<std::string, std::string>> cubins;
  /// ptxas's resource report (-v) per architecture, for --dump-kernels.
  std::vector<std::pair<std::string, std::string>> ptxasLogs;
  /// With keepKernelsMLIR: the module after infer-cuda-map-to-gpu (the
  /// kernels as gpu.funcs, the launches in `plan.launches`), in MLIR's
  /// generic form, which scripts/gpu_emulator/ runs on the CPU.
  std::string kernelsMLIR;
};

/// Checks "sm_80"-style names; returns an error message, empty if fine.
std::string checkCUDAArch(const std::string &arch);

void registerCUDACodegenDialects(DialectRegistry &registry);
/// linalg on tensors to gpu.funcs and launch records (infer-cuda-map-to-gpu).
void buildCUDAKernelsPipeline(OpPassManager &pm, const CUDACodegenOptions &options);
/// The kernels pipeline's rewrites of linalg on tensors, up to the split of
/// contractions at whole tiles; `infer-opt --cuda-layouts-on-cpu` runs them
/// for the CPU back end.
void addCUDATensorRewrites(OpPassManager &pm, const CUDACodegenOptions &options);
/// gpu.funcs to NVVM.
void buildCUDALoweringPipeline(OpPassManager &pm);

/// Lowers linalg on tensors to PTX and assembles the cubins with ptxas.
/// Errors are emitted as diagnostics.
LogicalResult compileForCUDA(ModuleOp module, const CUDACodegenOptions &options,
                             CUDAArtifacts &artifacts);

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H
