//===- CUDACodegen.h - linalg on tensors to PTX and cubins -----*- C++ -*-===//
//
// The CUDA back end (lib/Codegen/CUDA). It shares the CPU back end's front
// half (elementwise fusion, weights as arguments, bufferization, the arena,
// kernel outlining) and then maps every kernel onto the GPU:
//
//   infer-cuda-map-to-gpu   each outlined kernel becomes a gpu.func; its
//                           parallel loops are spread over blocks and
//                           threads by a launch configuration (data: the
//                           heuristic in MapToGPU.cpp), and the entry's
//                           calls become the plan's launches
//   gpu.module -> NVVM -> LLVM NVPTX -> PTX (once, for the lowest
//   architecture asked for) -> ptxas -> one cubin per architecture
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H
#define INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H

#include "infer-opt/Codegen/CPU/CPUCodegen.h"
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

struct CUDAArtifacts : CPUArtifacts {
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
/// The whole pipeline: the kernels pipeline, then the lowering one.
void buildCUDACodegenPipeline(OpPassManager &pm, const CUDACodegenOptions &options);
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

/// ptxas: $CUDA_PATH/bin when CUDA_PATH is set, else PATH, then
/// /usr/local/cuda/bin; empty with `error` set if none.
std::string findPtxas(std::string &error);

/// Assembles `ptx` for `arch`; returns false with `log` holding ptxas's
/// message on failure. `log` gets the resource report (-v) otherwise. The
/// kernels that ptxas spills are assembled again with `.minnctapersm 1`
/// (withOneBlockPerSM), and that cubin is kept if fewer kernels spill.
bool assemblePTX(const std::string &ptxas, const std::string &ptx, const std::string &arch,
                 std::string &cubin, std::string &log);

/// The kernels that a ptxas -v --warn-on-spills report says spill registers.
llvm::SmallVector<std::string> spillingKernels(llvm::StringRef log);

/// `ptx` with `.minnctapersm 1` among the directives of each entry named in
/// `kernels` that has none (PTX's form of nvvm.minctasm).
std::string withOneBlockPerSM(llvm::StringRef ptx, llvm::ArrayRef<std::string> kernels);

/// `ptx` with a cvt.rna.tf32.f32 in place on each register of each TF32 A
/// or B fragment load (wmma.load.{a,b}...tf32), right after the load
/// (RoundTF32.cpp): the tensor cores get TF32 values rounded to nearest,
/// not float32 bits to truncate.
std::string withTF32Rounding(llvm::StringRef ptx);

/// The number of a CUDA architecture's name: "sm_90" -> 90 (its leading
/// digits: "sm_90a" -> 90), 0 for a name that is no sm_ one.
unsigned cudaArchNumber(llvm::StringRef arch);

/// `ptx` (LLVM's, for the lowest architecture asked for) as ptxas gets it
/// for `arch` ("sm_90"): from sm_90 on, its TF32 conversions round to
/// nearest even (cvt.rn.tf32.f32, one instruction there, where
/// cvt.rna.tf32.f32 is two) and its .target is at least sm_90, which
/// cvt.rn.tf32 requires; for older architectures, or a PTX without TF32
/// conversions, `ptx` as it is (RoundTF32.cpp).
std::string ptxForArchitecture(llvm::StringRef ptx, llvm::StringRef arch);

std::unique_ptr<Pass> createStaticReshapesPass();
std::unique_ptr<Pass> createAlignContractionsPass();
std::unique_ptr<Pass> createSplitContractionsPass();
/// infer-cuda-adds-into-init (AddsIntoInit.cpp): a contraction's bias and
/// residual adds become its initial value.
std::unique_ptr<Pass> createAddsIntoInitPass();
/// infer-cuda-merge-projections (MergeProjections.cpp): contractions that
/// project one activation by constant weights (Q, K, V) become one.
std::unique_ptr<Pass> createMergeProjectionsPass();
/// infer-cuda-fold-transposes (FoldTransposes.cpp): float32 contractions
/// read their operands through transposes instead of copies.
std::unique_ptr<Pass> createFoldTransposesPass();
/// infer-cuda-fuse-rows (FuseRows.cpp): softmax, layer norm and the like as
/// one loop over the rows.
std::unique_ptr<Pass> createFuseRowsPass();
/// infer-cuda-fuse-epilogues (FuseEpilogues.cpp, on memrefs): a tensor-core
/// contraction (or a short reduction, a thread an output) with its fill or
/// initial-value op and its elementwise consumer, grouped for one kernel.
std::unique_ptr<Pass> createFuseEpiloguesPass();
/// infer-cuda-prepare-epilogues (PrepareEpilogues.cpp, on tensors): a fill
/// per tensor-core candidate; contractions read once marked.
std::unique_ptr<Pass> createPrepareEpiloguesPass();
/// infer-cuda-reshapes-as-views (ReshapesAsViews.cpp, on tensors): a static
/// tensor.reshape that only splits or merges dims as an expand or collapse.
std::unique_ptr<Pass> createReshapesAsViewsPass();
/// infer-cuda-pads-in-place (PadsInPlace.cpp, on tensors): a padded
/// tensor's producer writes its interior.
std::unique_ptr<Pass> createPadsInPlacePass();
/// infer-cuda-guarded-pad-reads (GuardedPadReads.cpp, on tensors): a short
/// reduction reads its padded input through bounds checks instead.
std::unique_ptr<Pass> createGuardedPadReadsPass();
/// infer-cuda-promote-accumulators (PromoteAccumulators.cpp, on the
/// gpu.funcs): a thread's reduction accumulator carried through its loops
/// in a register instead of loaded and stored at each step.
std::unique_ptr<Pass> createPromoteAccumulatorsPass();
/// infer-cuda-contract-multiply-adds (ContractMultiplyAdds.cpp, on the
/// gpu.funcs): float products and the sums they feed may fuse into fma.
std::unique_ptr<Pass> createContractMultiplyAddsPass();
/// `allowTF32`: float32 contractions may use the tensor cores;
/// `stageTiles`: through shared memory.
std::unique_ptr<Pass> createMapToGPUPass(bool allowTF32, bool stageTiles = false,
                                         const TilePlanChoice &tilePlan = {},
                                         const TunedTilePlans &tunedPlans = {});
void registerCUDACodegenPasses();

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CUDA_CUDACODEGEN_H
