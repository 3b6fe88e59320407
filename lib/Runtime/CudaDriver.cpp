//===- CudaDriver.cpp - dlopen libcuda and resolve its entry points -------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace inferrt;
using namespace inferrt::cu;

namespace {

struct Loaded {
  Driver driver{};
  std::string error; // Empty when the driver is usable.
};

/// Looks `name` up into `slot`; false (and `missing` = name) if absent.
template <typename F>
bool resolve(void *library, const char *name, F &slot, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (!slot && missing.empty())
    missing = name;
  return slot != nullptr;
}

Loaded load() {
  Loaded loaded;
  const char *override = std::getenv("INFERRT_LIBCUDA");
  const char *name = override && *override ? override : "libcuda.so.1";
  // Kept loaded for the life of the process: contexts may outlive any one
  // engine, and unloading a driver is not something CUDA supports.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loaded.error = std::string("CUDA driver not found (") + (why ? why : name) + ")";
    return loaded;
  }
  Driver &d = loaded.driver;
  std::string missing;
  // The exported names: cuda.h maps the API's names to these versions.
  resolve(library, "cuInit", d.init, missing);
  resolve(library, "cuDeviceGetCount", d.deviceGetCount, missing);
  resolve(library, "cuDeviceGet", d.deviceGet, missing);
  resolve(library, "cuDeviceGetAttribute", d.deviceGetAttribute, missing);
  resolve(library, "cuDeviceGetName", d.deviceGetName, missing);
  resolve(library, "cuDevicePrimaryCtxRetain", d.primaryCtxRetain, missing);
  resolve(library, "cuDevicePrimaryCtxRelease_v2", d.primaryCtxRelease, missing);
  resolve(library, "cuCtxPushCurrent_v2", d.ctxPushCurrent, missing);
  resolve(library, "cuCtxPopCurrent_v2", d.ctxPopCurrent, missing);
  resolve(library, "cuModuleLoadDataEx", d.moduleLoadDataEx, missing);
  resolve(library, "cuModuleUnload", d.moduleUnload, missing);
  resolve(library, "cuModuleGetFunction", d.moduleGetFunction, missing);
  resolve(library, "cuFuncSetAttribute", d.funcSetAttribute, missing);
  resolve(library, "cuMemAlloc_v2", d.memAlloc, missing);
  resolve(library, "cuMemFree_v2", d.memFree, missing);
  resolve(library, "cuMemAllocHost_v2", d.memAllocHost, missing);
  resolve(library, "cuMemFreeHost", d.memFreeHost, missing);
  resolve(library, "cuMemcpyHtoD_v2", d.memcpyHtoD, missing);
  resolve(library, "cuMemcpyHtoDAsync_v2", d.memcpyHtoDAsync, missing);
  resolve(library, "cuMemcpyDtoHAsync_v2", d.memcpyDtoHAsync, missing);
  resolve(library, "cuStreamCreate", d.streamCreate, missing);
  resolve(library, "cuStreamDestroy_v2", d.streamDestroy, missing);
  resolve(library, "cuStreamSynchronize", d.streamSynchronize, missing);
  resolve(library, "cuEventCreate", d.eventCreate, missing);
  resolve(library, "cuEventDestroy_v2", d.eventDestroy, missing);
  resolve(library, "cuEventRecord", d.eventRecord, missing);
  resolve(library, "cuEventElapsedTime", d.eventElapsedTime, missing);
  resolve(library, "cuLaunchKernel", d.launchKernel, missing);
  resolve(library, "cuStreamBeginCapture_v2", d.streamBeginCapture, missing);
  resolve(library, "cuStreamEndCapture", d.streamEndCapture, missing);
  resolve(library, "cuGraphInstantiateWithFlags", d.graphInstantiate, missing);
  resolve(library, "cuGraphLaunch", d.graphLaunch, missing);
  resolve(library, "cuGraphDestroy", d.graphDestroy, missing);
  resolve(library, "cuGraphExecDestroy", d.graphExecDestroy, missing);
  resolve(library, "cuGetErrorName", d.getErrorName, missing);
  resolve(library, "cuGetErrorString", d.getErrorString, missing);
  if (!missing.empty()) {
    loaded.error = std::string("the CUDA driver '") + name + "' lacks " + missing +
                   " (a driver for CUDA 12 or newer is needed)";
    return loaded;
  }
  if (Result r = d.init(0); r != kSuccess)
    loaded.error = "cuInit failed: " + describe(d, r);
  return loaded;
}

} // namespace

const Driver *cu::loadDriver(std::string &error) {
  static Loaded *loaded = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { loaded = new Loaded(load()); });
  if (!loaded->error.empty()) {
    error = loaded->error;
    return nullptr;
  }
  return &loaded->driver;
}

std::string cu::describe(const Driver &driver, Result result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.getErrorName(result, &name) != kSuccess || !name)
    name = "CUDA_ERROR_UNKNOWN";
  if (driver.getErrorString(result, &text) != kSuccess || !text)
    text = "unknown error";
  return std::string(name) + " (" + std::to_string(result) + "): " + text;
}
