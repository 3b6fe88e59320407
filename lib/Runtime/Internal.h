//===- Internal.h - runtime internals shared by its .cpp files -*- C++ -*-===//

#ifndef INFERRT_LIB_RUNTIME_INTERNAL_H
#define INFERRT_LIB_RUNTIME_INTERNAL_H

#include "Cuda/Plan.h"
#include "inferrt/inferrt.h"

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#define INFERRT_EXPORT __attribute__((visibility("default")))

struct inferrt_status_s {
  inferrt_status_code code;
  std::string message;
};

namespace inferrt {

/// A new status with a printf-style message.
inferrt_status makeStatus(inferrt_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

struct TensorInfo {
  std::string name, dtype;
  std::vector<int64_t> shape;
  size_t bytes = 0;
  size_t elementBytes = 0;
};

/// The entry every CPU kernel library exports (see lib/Codegen/CPU): memref
/// descriptors of the inputs, weights, outputs and the arena, in order.
using EntryFn = void (*)(void **descriptors);

/// A memref descriptor ({allocated, aligned, offset, sizes[rank],
/// strides[rank]}) of a dense row-major buffer.
std::vector<int64_t> makeDescriptor(void *data, const std::vector<int64_t> &shape);

/// Bytes per element of a metadata dtype, 0 if unknown.
size_t dtypeBytes(const std::string &dtype);

struct CudaDevice; // Cuda/Device.h
/// The engine's state on each CUDA device that has contexts of it (its
/// module and weights there), shared by those contexts.
struct CudaDevices {
  std::mutex mutex;
  std::vector<CudaDevice *> active;
};

} // namespace inferrt

struct inferrt_engine_s {
  std::string path; // As given to inferrt_engine_load, for messages.
  std::string target;
  std::string metadataJson;
  std::vector<inferrt::TensorInfo> inputs, outputs;
  void *library = nullptr; // dlopen handle of the kernels
  int kernelFd = -1;       // The memfd behind it, open while loaded: its
                           // /proc/self/fd path must stay unique, or glibc
                           // would hand the next engine this library.
  inferrt::EntryFn entry = nullptr;
  void (*setThreads)(int) = nullptr; // omp_set_num_threads, when the kernels use OpenMP.
  char *file = nullptr; // The whole engine file, 256-byte aligned: the weights
                        // are used in place, shared by all contexts.
  std::vector<std::vector<int64_t>> weightDescriptors;
  std::vector<std::string_view> weights; // Each weight's bytes, in the file buffer.
  inferrt::CudaPlan cuda;                // Target "cuda" only: modules and launches.
  mutable inferrt::CudaDevices cudaDevices; // Made and freed by its contexts.
  uint64_t arenaBytes = 0; // Each context's arena for intermediate tensors.
  inferrt_engine_s() = default;
  inferrt_engine_s(const inferrt_engine_s &) = delete;
  inferrt_engine_s &operator=(const inferrt_engine_s &) = delete;
  ~inferrt_engine_s(); // Unloads the kernels, frees the file buffer.
};

#endif // INFERRT_LIB_RUNTIME_INTERNAL_H
