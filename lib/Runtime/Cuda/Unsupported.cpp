//===- Unsupported.cpp - the CUDA backend of a runtime built without it ---===//
//
// Built instead of Driver.cpp, Device.cpp and Executor.cpp when CMake finds
// no cuda.h (or INFER_RUNTIME_CUDA is OFF). CUDA engines still load and can
// be inspected; creating a context for one says why it cannot run.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Backend.h"

using namespace inferrt;

struct inferrt::CudaContext {};

void inferrt::CudaContextDeleter::operator()(CudaContext *context) const { delete context; }

inferrt_status inferrt::createCudaContext(const inferrt_engine_s &, int, CudaContextPtr &) {
  return makeStatus(INFERRT_UNAVAILABLE,
                    "this runtime was built without CUDA support (no cuda.h at build time, or "
                    "INFER_RUNTIME_CUDA=OFF): rebuild it with the CUDA toolkit's headers to run "
                    "CUDA engines");
}

// No context exists, so nothing below is ever called.
void inferrt::cudaSetInput(CudaContext &, size_t, const void *, size_t) {}
inferrt_status inferrt::cudaRun(CudaContext &) {
  return makeStatus(INFERRT_UNAVAILABLE, "this runtime was built without CUDA support");
}
const void *inferrt::cudaOutput(const CudaContext &, size_t) { return nullptr; }
void inferrt::cudaSetGraph(CudaContext &, bool) {}
bool inferrt::cudaLastGpuTime(const CudaContext &, double &ms) {
  ms = 0;
  return false;
}
