//===- Driver.h - the CUDA driver API, resolved at run time ----*- C++ -*-===//
//
// The runtime never links libcuda: one libinferrt runs on machines with and
// without a GPU. The driver is dlopen'ed when the first CUDA context is
// created, and the entry points the backend uses are looked up into this
// table by the names libcuda exports. cuda.h supplies the types and the
// prototypes (each member has the type of the function it holds), and its
// macros the exported names: `cuMemAlloc` is `cuMemAlloc_v2` in both the
// member's declaration and the name looked up.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDA_DRIVER_H
#define INFERRT_LIB_RUNTIME_CUDA_DRIVER_H

#include <cuda.h>

#include <string>

namespace inferrt::cuda {

// Every driver entry point the backend calls.
#define INFERRT_CUDA_DRIVER_FUNCTIONS(X)                                                           \
  X(cuInit)                                                                                        \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceGetName)                                                                               \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxPushCurrent)                                                                              \
  X(cuCtxPopCurrent)                                                                               \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuFuncSetAttribute)                                                                            \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemAllocHost)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuMemsetD8)                                                                                    \
  X(cuMemcpyHtoD)                                                                                  \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoHAsync)                                                                             \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamBeginCapture)                                                                          \
  X(cuStreamEndCapture)                                                                            \
  X(cuGraphInstantiate)                                                                            \
  X(cuGraphDestroy)                                                                                \
  X(cuGraphExecDestroy)                                                                            \
  X(cuGraphLaunch)                                                                                 \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy)                                                                                \
  X(cuEventRecord)                                                                                 \
  X(cuEventElapsedTime)                                                                            \
  X(cuLaunchKernel)

/// The resolved entry points; member `cuX` holds the driver's `cuX`.
struct Driver {
#define INFERRT_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  INFERRT_CUDA_DRIVER_FUNCTIONS(INFERRT_CUDA_MEMBER)
#undef INFERRT_CUDA_MEMBER
};

/// The driver, loaded once per process and kept (thread-safe): the library
/// $INFERRT_LIBCUDA names, else libcuda.so.1, with every entry point
/// resolved and cuInit(0) done. Null, with `error` set, when it is missing
/// ("CUDA driver not found (<dlerror>)"), incomplete or fails cuInit.
const Driver *loadDriver(std::string &error);

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" for `result`.
std::string describe(const Driver &driver, CUresult result);

} // namespace inferrt::cuda

#endif // INFERRT_LIB_RUNTIME_CUDA_DRIVER_H
