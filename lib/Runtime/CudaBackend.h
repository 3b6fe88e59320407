//===- CudaBackend.h - executing CUDA engines -------------------*- C++ -*-===//
//
// Internal to the runtime. Loading a CUDA engine only parses and checks its
// plan (no driver is touched: CI machines without a GPU can load and
// inspect CUDA engines); the driver is opened when a context is created.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDABACKEND_H
#define INFERRT_LIB_RUNTIME_CUDABACKEND_H

#include "Internal.h"
#include "Json.h"

namespace inferrt {

/// Reads the plan's `modules` (bounds-checked against the KERNELS section)
/// and `launches` (indices, grid and block checked) into `engine.cuda`.
inferrt_status parseCudaPlan(const json::Value &plan, std::string_view kernels, const char *path,
                             inferrt_engine_s &engine);

/// A context on CUDA device `device`: module, buffers, stream, events.
inferrt_status createCudaContext(const inferrt_engine_s &engine, int device,
                                 std::unique_ptr<CudaContext, CudaContextDeleter> &out);

inferrt_status cudaSetInput(CudaContext &context, size_t index, const void *data, size_t bytes);
inferrt_status cudaRun(CudaContext &context);
/// The pinned host copy of output `index` made by the last run.
void cudaOutput(CudaContext &context, size_t index, const void **data, size_t *bytes);
void cudaSetGraph(CudaContext &context, bool enabled);
/// Device time of the last run's kernels (CUDA events), in ms.
double cudaLastGpuTime(const CudaContext &context);

} // namespace inferrt

#endif // INFERRT_LIB_RUNTIME_CUDABACKEND_H
