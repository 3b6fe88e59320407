//===- fake_cuda.cpp - a CUDA driver stand-in for tests without a GPU -----===//
//
// Exports the driver entry points the runtime resolves (lib/Runtime/
// CudaDriver.cpp) and simulates one or more GPUs: device memory is host
// memory, kernels do nothing, copies copy. Tests load it with
// INFERRT_LIBCUDA=build/lib/libfakecuda.so and steer it with:
//
//   FAKE_CUDA_DEVICES=N        devices (default 1)
//   FAKE_CUDA_SM=XY            compute capability (default 90)
//   FAKE_CUDA_MEMORY_BYTES=N   device memory; allocations beyond fail with
//                              CUDA_ERROR_OUT_OF_MEMORY (default 80 GiB)
//   FAKE_CUDA_FAIL=cuXxx       that entry point fails (CUDA_ERROR_UNKNOWN)
//   FAKE_CUDA_REPORT=1         at exit, print what is still allocated,
//                              retained or loaded ("fake-cuda: live ...")
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using Result = int;
using DevicePtr = unsigned long long;

namespace {

constexpr Result kSuccess = 0, kOutOfMemory = 2, kInvalidDevice = 101, kUnknown = 999;

struct State {
  long long deviceBytes = 0;
  int deviceAllocations = 0, hostAllocations = 0, retained = 0, modules = 0, streams = 0,
      events = 0, graphs = 0, launches = 0;
  ~State() {
    if (std::getenv("FAKE_CUDA_REPORT"))
      std::fprintf(stderr,
                   "fake-cuda: live device allocations %d, host allocations %d, retained contexts "
                   "%d, modules %d, streams %d, events %d, graphs %d; launches %d\n",
                   deviceAllocations, hostAllocations, retained, modules, streams, events, graphs,
                   launches);
  }
} state;

long long envNumber(const char *name, long long fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

bool failing(const char *name) {
  const char *v = std::getenv("FAKE_CUDA_FAIL");
  return v && std::strcmp(v, name) == 0;
}

#define FAKE_ENTRY(name)                                                                           \
  if (failing(#name))                                                                              \
    return kUnknown;

/// Device allocations carry their size in a header, for the memory limit.
void *allocate(size_t bytes) {
  long long limit = envNumber("FAKE_CUDA_MEMORY_BYTES", 80LL << 30);
  if (state.deviceBytes + (long long)bytes > limit)
    return nullptr;
  auto *block = static_cast<size_t *>(std::malloc(bytes + 16));
  if (!block)
    return nullptr;
  block[0] = bytes;
  state.deviceBytes += bytes;
  ++state.deviceAllocations;
  return reinterpret_cast<char *>(block) + 16;
}

int handle = 1; // Opaque non-null handles.
template <typename T> T newHandle() { return reinterpret_cast<T>(static_cast<size_t>(handle++) * 16); }

} // namespace

extern "C" {

Result cuInit(unsigned) {
  FAKE_ENTRY(cuInit)
  return kSuccess;
}
Result cuDeviceGetCount(int *count) {
  FAKE_ENTRY(cuDeviceGetCount)
  *count = static_cast<int>(envNumber("FAKE_CUDA_DEVICES", 1));
  return kSuccess;
}
Result cuDeviceGet(int *device, int index) {
  FAKE_ENTRY(cuDeviceGet)
  if (index < 0 || index >= envNumber("FAKE_CUDA_DEVICES", 1))
    return kInvalidDevice;
  *device = index;
  return kSuccess;
}
Result cuDeviceGetAttribute(int *value, int attribute, int) {
  FAKE_ENTRY(cuDeviceGetAttribute)
  int sm = static_cast<int>(envNumber("FAKE_CUDA_SM", 90));
  *value = attribute == 75 ? sm / 10 : attribute == 76 ? sm % 10 : 0;
  return kSuccess;
}
Result cuDeviceGetName(char *name, int length, int) {
  FAKE_ENTRY(cuDeviceGetName)
  std::snprintf(name, length, "Fake GPU");
  return kSuccess;
}
Result cuDevicePrimaryCtxRetain(void **context, int) {
  FAKE_ENTRY(cuDevicePrimaryCtxRetain)
  *context = newHandle<void *>();
  ++state.retained;
  return kSuccess;
}
Result cuDevicePrimaryCtxRelease_v2(int) {
  --state.retained;
  return kSuccess;
}
Result cuCtxPushCurrent_v2(void *) {
  FAKE_ENTRY(cuCtxPushCurrent)
  return kSuccess;
}
Result cuCtxPopCurrent_v2(void **) { return kSuccess; }
Result cuModuleLoadDataEx(void **module, const void *image, unsigned, int *, void **) {
  FAKE_ENTRY(cuModuleLoadDataEx)
  if (!image)
    return kUnknown;
  *module = newHandle<void *>();
  ++state.modules;
  return kSuccess;
}
Result cuModuleUnload(void *) {
  --state.modules;
  return kSuccess;
}
Result cuModuleGetFunction(void **function, void *, const char *name) {
  FAKE_ENTRY(cuModuleGetFunction)
  if (!name || !*name)
    return kUnknown;
  *function = newHandle<void *>();
  return kSuccess;
}
Result cuFuncSetAttribute(void *, int, int) { return kSuccess; }
Result cuMemAlloc_v2(DevicePtr *ptr, size_t bytes) {
  FAKE_ENTRY(cuMemAlloc)
  void *p = allocate(bytes);
  if (!p)
    return kOutOfMemory;
  *ptr = reinterpret_cast<DevicePtr>(p);
  return kSuccess;
}
Result cuMemFree_v2(DevicePtr ptr) {
  auto *block = reinterpret_cast<size_t *>(reinterpret_cast<char *>(ptr) - 16);
  state.deviceBytes -= block[0];
  --state.deviceAllocations;
  std::free(block);
  return kSuccess;
}
Result cuMemAllocHost_v2(void **ptr, size_t bytes) {
  FAKE_ENTRY(cuMemAllocHost)
  *ptr = std::malloc(bytes);
  ++state.hostAllocations;
  return *ptr ? kSuccess : kOutOfMemory;
}
Result cuMemFreeHost(void *ptr) {
  std::free(ptr);
  --state.hostAllocations;
  return kSuccess;
}
Result cuMemcpyHtoD_v2(DevicePtr dst, const void *src, size_t bytes) {
  FAKE_ENTRY(cuMemcpyHtoD)
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return kSuccess;
}
Result cuMemcpyHtoDAsync_v2(DevicePtr dst, const void *src, size_t bytes, void *) {
  FAKE_ENTRY(cuMemcpyHtoDAsync)
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return kSuccess;
}
Result cuMemcpyDtoHAsync_v2(void *dst, DevicePtr src, size_t bytes, void *) {
  FAKE_ENTRY(cuMemcpyDtoHAsync)
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return kSuccess;
}
Result cuStreamCreate(void **stream, unsigned) {
  FAKE_ENTRY(cuStreamCreate)
  *stream = newHandle<void *>();
  ++state.streams;
  return kSuccess;
}
Result cuStreamDestroy_v2(void *) {
  --state.streams;
  return kSuccess;
}
Result cuStreamSynchronize(void *) {
  FAKE_ENTRY(cuStreamSynchronize)
  return kSuccess;
}
Result cuEventCreate(void **event, unsigned) {
  FAKE_ENTRY(cuEventCreate)
  *event = newHandle<void *>();
  ++state.events;
  return kSuccess;
}
Result cuEventDestroy_v2(void *) {
  --state.events;
  return kSuccess;
}
Result cuEventRecord(void *, void *) {
  FAKE_ENTRY(cuEventRecord)
  return kSuccess;
}
Result cuEventElapsedTime(float *ms, void *, void *) {
  FAKE_ENTRY(cuEventElapsedTime)
  *ms = 0.25f;
  return kSuccess;
}
Result cuLaunchKernel(void *, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned, void *, void **params, void **) {
  FAKE_ENTRY(cuLaunchKernel)
  if (!gx || !gy || !gz || !bx || !by || !bz || (unsigned long long)bx * by * bz > 1024 || !params)
    return kUnknown;
  ++state.launches;
  return kSuccess;
}
Result cuStreamBeginCapture_v2(void *, int) {
  FAKE_ENTRY(cuStreamBeginCapture)
  return kSuccess;
}
Result cuStreamEndCapture(void *, void **graph) {
  FAKE_ENTRY(cuStreamEndCapture)
  *graph = newHandle<void *>();
  ++state.graphs;
  return kSuccess;
}
Result cuGraphInstantiateWithFlags(void **exec, void *, unsigned long long) {
  FAKE_ENTRY(cuGraphInstantiate)
  *exec = newHandle<void *>();
  ++state.graphs;
  return kSuccess;
}
Result cuGraphLaunch(void *, void *) {
  FAKE_ENTRY(cuGraphLaunch)
  return kSuccess;
}
Result cuGraphDestroy(void *) {
  --state.graphs;
  return kSuccess;
}
Result cuGraphExecDestroy(void *) {
  --state.graphs;
  return kSuccess;
}
Result cuGetErrorName(Result error, const char **name) {
  *name = error == kOutOfMemory     ? "CUDA_ERROR_OUT_OF_MEMORY"
          : error == kInvalidDevice ? "CUDA_ERROR_INVALID_DEVICE"
                                    : "CUDA_ERROR_UNKNOWN";
  return kSuccess;
}
Result cuGetErrorString(Result error, const char **text) {
  *text = error == kOutOfMemory ? "out of memory" : "unknown error (injected by the fake driver)";
  return kSuccess;
}

} // extern "C"
