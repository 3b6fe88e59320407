//===- CudaDriver.h - the CUDA driver API, resolved at run time -*- C++ -*-===//
//
// The runtime never links libcuda: one binary runs on machines with and
// without a GPU. The driver is dlopen'ed on the first CUDA context, and its
// entry points are looked up by their exported (versioned) names into this
// table. The few types and constants used are declared here, with the
// values of CUDA's cuda.h (unittests/Runtime/CudaDriverTest.cpp checks them
// against the toolkit's header where it is installed).
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDADRIVER_H
#define INFERRT_LIB_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <string>

namespace inferrt::cu {

using Result = int; // CUresult
using Device = int; // CUdevice
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using Graph = struct CUgraph_st *;
using GraphExec = struct CUgraphExec_st *;

constexpr Result kSuccess = 0;
constexpr Result kOutOfMemory = 2;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr unsigned kStreamNonBlocking = 1;
constexpr int kCaptureModeThreadLocal = 1;
constexpr int kFuncAttrMaxDynamicSharedBytes = 8;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSize = 6;

/// The entry points the runtime uses; all resolved, or the driver is not
/// usable.
struct Driver {
  Result (*init)(unsigned);
  Result (*deviceGetCount)(int *);
  Result (*deviceGet)(Device *, int);
  Result (*deviceGetAttribute)(int *, int, Device);
  Result (*deviceGetName)(char *, int, Device);
  Result (*primaryCtxRetain)(Context *, Device);
  Result (*primaryCtxRelease)(Device);
  Result (*ctxPushCurrent)(Context);
  Result (*ctxPopCurrent)(Context *);
  Result (*moduleLoadDataEx)(Module *, const void *, unsigned, int *, void **);
  Result (*moduleUnload)(Module);
  Result (*moduleGetFunction)(Function *, Module, const char *);
  Result (*funcSetAttribute)(Function, int, int);
  Result (*memAlloc)(DevicePtr *, size_t);
  Result (*memFree)(DevicePtr);
  Result (*memAllocHost)(void **, size_t);
  Result (*memFreeHost)(void *);
  Result (*memcpyHtoD)(DevicePtr, const void *, size_t);
  Result (*memcpyHtoDAsync)(DevicePtr, const void *, size_t, Stream);
  Result (*memcpyDtoHAsync)(void *, DevicePtr, size_t, Stream);
  Result (*streamCreate)(Stream *, unsigned);
  Result (*streamDestroy)(Stream);
  Result (*streamSynchronize)(Stream);
  Result (*eventCreate)(Event *, unsigned);
  Result (*eventDestroy)(Event);
  Result (*eventRecord)(Event, Stream);
  Result (*eventElapsedTime)(float *, Event, Event);
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, Stream, void **, void **);
  Result (*streamBeginCapture)(Stream, int);
  Result (*streamEndCapture)(Stream, Graph *);
  Result (*graphInstantiate)(GraphExec *, Graph, unsigned long long);
  Result (*graphLaunch)(GraphExec, Stream);
  Result (*graphDestroy)(Graph);
  Result (*graphExecDestroy)(GraphExec);
  Result (*getErrorName)(Result, const char **);
  Result (*getErrorString)(Result, const char **);
};

/// The driver, loaded once per process (thread-safe): the library named by
/// $INFERRT_LIBCUDA, else libcuda.so.1, and cuInit(0). Null with `error`
/// set ("CUDA driver not found (...)", "cuInit failed: ...") otherwise.
const Driver *loadDriver(std::string &error);

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" for `result`.
std::string describe(const Driver &driver, Result result);

} // namespace inferrt::cu

#endif // INFERRT_LIB_RUNTIME_CUDADRIVER_H
