//===- Backend.h - contexts on a CUDA device --------------------*- C++ -*-===//
//
// What lib/Runtime/Context.cpp calls for a context on a GPU. Two
// implementations: Executor.cpp (+ Device.cpp) when the runtime is built
// with cuda.h, Unsupported.cpp otherwise, whose context creation says so.
// Loading a CUDA engine never gets here: it only parses the plan (Plan.h),
// so machines without a GPU can load and inspect CUDA engines.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDA_BACKEND_H
#define INFERRT_LIB_RUNTIME_CUDA_BACKEND_H

#include "Internal.h"

#include <memory>

namespace inferrt {

struct CudaContext;
struct CudaContextDeleter {
  void operator()(CudaContext *context) const;
};
using CudaContextPtr = std::unique_ptr<CudaContext, CudaContextDeleter>;

/// A context for `engine` on CUDA device `device`: device buffers, pinned
/// staging, a stream, events; the module and the weights are the engine's,
/// shared by its contexts on the same device. Nothing stays allocated when
/// it fails.
inferrt_status createCudaContext(const inferrt_engine_s &engine, int device, CudaContextPtr &out);

/// Copies an input (of the right size, checked by the caller) into the
/// pinned staging buffer the next run uploads.
void cudaSetInput(CudaContext &context, size_t index, const void *data, size_t bytes);
/// Uploads the inputs, runs the launches (a CUDA graph, or one by one),
/// downloads the outputs and waits. The first driver error makes the
/// context unhealthy: every later run fails with that error.
inferrt_status cudaRun(CudaContext &context);
/// The pinned host copy of output `index` made by the last run.
const void *cudaOutput(const CudaContext &context, size_t index);
void cudaSetGraph(CudaContext &context, bool enabled);
/// The device time of the last successful run's launches, in ms; false
/// before one.
bool cudaLastGpuTime(const CudaContext &context, double &ms);

} // namespace inferrt

#endif // INFERRT_LIB_RUNTIME_CUDA_BACKEND_H
