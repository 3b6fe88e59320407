//===- EngineAssembly.cpp - an engine from what a compile made ------------===//

#include "infer-opt/Target/Engine/EngineWriter.h"

using namespace mlir;
using namespace mlir::infer;

static void addWeightsAndArena(EngineDescription &engine, const CodegenArtifacts &artifacts) {
  engine.arena = {artifacts.arenaBytes, artifacts.arenaLowerBound, artifacts.arenaNoReuse,
                  artifacts.arenaBuffers};
  for (const auto &w : artifacts.weights)
    engine.weights.push_back({dtypeName(w.elementType), w.shape, w.bytes});
}

void mlir::infer::addCPUKernels(EngineDescription &engine, const CodegenArtifacts &artifacts,
                                std::string sharedObject) {
  addWeightsAndArena(engine, artifacts);
  engine.kernelNodes = artifacts.kernelNodes;
  engine.kernels = std::move(sharedObject);
}

void mlir::infer::addCUDAKernels(EngineDescription &engine, CUDAArtifacts artifacts, bool tf32) {
  engine.target = "cuda";
  engine.tf32 = tf32;
  addWeightsAndArena(engine, artifacts);
  for (auto &[arch, cubin] : artifacts.cubins) {
    engine.cudaArchs.push_back(arch);
    engine.modules.push_back({"cubin", arch, std::move(cubin)});
  }
  engine.modules.push_back({"ptx", artifacts.ptxArch, std::move(artifacts.ptx)});
  engine.kernelNodes = std::move(artifacts.kernelNodes);
  engine.launches = std::move(artifacts.launches);
}
