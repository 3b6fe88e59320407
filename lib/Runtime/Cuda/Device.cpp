//===- Device.cpp - an engine's module and weights on one GPU -------------===//
//
// Picks and loads the module for the device's architecture (its cubin, else
// the PTX, JIT-compiled, else a message saying which --target to build),
// resolves every launch's function once, and uploads the weights. Made by
// the first context of an engine on a device, freed by the last.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Device.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>

using namespace inferrt;
using namespace inferrt::cuda;

namespace {

constexpr unsigned kDefaultSharedBytes = 48 * 1024;

/// Frees what `device` holds; fine on a half-made one.
void destroy(CudaDevice *device) {
  const Driver &d = *device->driver;
  if (device->context) {
    ScopedCurrent current(d, device->context);
    if (current.result == CUDA_SUCCESS) {
      for (CUdeviceptr weight : device->weights)
        if (weight)
          d.cuMemFree(weight);
      if (device->loaded)
        d.cuModuleUnload(device->loaded);
    }
    d.cuDevicePrimaryCtxRelease(device->device);
  }
  delete device;
}

inferrt_status deviceError(const CudaDevice &device, const char *what, CUresult r) {
  return makeStatus(INFERRT_UNAVAILABLE, "cannot use CUDA device %d: %s failed: %s", device.ordinal,
                    what, describe(*device.driver, r).c_str());
}

inferrt_status loadModule(const inferrt_engine_s &engine, CudaDevice &device) {
  const Driver &d = *device.driver;
  const CudaModule &module = *device.module;
  // The driver reads PTX as a C string, which the section need not end with.
  std::string image(module.image);
  if (module.format == CudaModule::Ptx)
    image.push_back('\0');
  char log[16384] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof(log)))};
  CUresult r = d.cuModuleLoadDataEx(&device.loaded, image.data(), 2, options, values);
  if (r != CUDA_SUCCESS) {
    device.loaded = nullptr;
    log[sizeof(log) - 1] = '\0';
    bool ptx = module.format == CudaModule::Ptx;
    return makeStatus(r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ? INFERRT_UNAVAILABLE
                                                              : INFERRT_INVALID_ENGINE,
                      "'%s': cannot load the engine's %s for %s on %s (sm_%d%d): %s%s%s%s",
                      engine.path.c_str(), ptx ? "PTX" : "cubin", module.arch.c_str(),
                      device.name.c_str(), device.major, device.minor, describe(d, r).c_str(),
                      r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ? " (update the driver)" : "",
                      log[0] ? "\nJIT log:\n" : "", log);
  }
  const std::vector<CudaLaunch> &launches = engine.cuda.launches;
  device.functions.assign(launches.size(), nullptr);
  for (size_t i = 0; i < launches.size(); ++i) {
    const CudaLaunch &launch = launches[i];
    if (CUresult r = d.cuModuleGetFunction(&device.functions[i], device.loaded, launch.kernel.c_str());
        r != CUDA_SUCCESS)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the module for %s lacks kernel '%s' (launch %zu): %s",
                        engine.path.c_str(), module.arch.c_str(), launch.kernel.c_str(), i,
                        describe(d, r).c_str());
    // Beyond 48 KiB of dynamic shared memory a kernel must opt in.
    if (launch.sharedBytes > kDefaultSharedBytes)
      if (CUresult r = d.cuFuncSetAttribute(device.functions[i],
                                            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            static_cast<int>(launch.sharedBytes));
          r != CUDA_SUCCESS)
        return makeStatus(INFERRT_UNAVAILABLE,
                          "'%s': launch %zu ('%s') needs %u bytes of shared memory, more than %s "
                          "allows: %s",
                          engine.path.c_str(), i, launch.kernel.c_str(), launch.sharedBytes,
                          device.name.c_str(), describe(d, r).c_str());
  }
  return nullptr;
}

inferrt_status uploadWeights(const inferrt_engine_s &engine, CudaDevice &device) {
  const Driver &d = *device.driver;
  device.weights.assign(engine.weights.size(), 0);
  for (size_t i = 0; i < engine.weights.size(); ++i) {
    std::string_view weight = engine.weights[i];
    if (CUresult r = d.cuMemAlloc(&device.weights[i], std::max<size_t>(weight.size(), 256));
        r != CUDA_SUCCESS) {
      device.weights[i] = 0;
      return deviceAllocationFailure(engine, device, r);
    }
    if (!weight.empty())
      if (CUresult r = d.cuMemcpyHtoD(device.weights[i], weight.data(), weight.size());
          r != CUDA_SUCCESS)
        return deviceError(device, "copying the weights to the GPU", r);
  }
  return nullptr;
}

/// Makes the engine's state on device `ordinal`.
inferrt_status create(const inferrt_engine_s &engine, CudaDevice &device) {
  const Driver &d = *device.driver;
  if (CUresult r = d.cuDeviceGet(&device.device, device.ordinal); r != CUDA_SUCCESS)
    return deviceError(device, "cuDeviceGet", r);
  char name[256] = "";
  if (CUresult r = d.cuDeviceGetName(name, sizeof(name) - 1, device.device); r != CUDA_SUCCESS)
    return deviceError(device, "cuDeviceGetName", r);
  device.name = name;
  if (CUresult r = d.cuDeviceGetAttribute(&device.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                          device.device);
      r != CUDA_SUCCESS)
    return deviceError(device, "reading the compute capability", r);
  if (CUresult r = d.cuDeviceGetAttribute(&device.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                          device.device);
      r != CUDA_SUCCESS)
    return deviceError(device, "reading the compute capability", r);
  device.module = selectCudaModule(engine.cuda, device.major, device.minor);
  if (!device.module)
    return makeStatus(INFERRT_UNAVAILABLE,
                      "'%s' has kernels for %s; this GPU (%s) is sm_%d%d: rebuild with "
                      "--target=cuda:sm_%d%d",
                      engine.path.c_str(), cudaArchList(engine.cuda).c_str(), device.name.c_str(),
                      device.major, device.minor, device.major, device.minor);
  if (CUresult r = d.cuDevicePrimaryCtxRetain(&device.context, device.device); r != CUDA_SUCCESS) {
    device.context = nullptr;
    return deviceError(device, "cuDevicePrimaryCtxRetain", r);
  }
  ScopedCurrent current(d, device.context);
  if (current.result != CUDA_SUCCESS)
    return deviceError(device, "cuCtxPushCurrent", current.result);
  if (inferrt_status s = loadModule(engine, device))
    return s;
  return uploadWeights(engine, device);
}

} // namespace

inferrt_status inferrt::deviceAllocationFailure(const inferrt_engine_s &engine,
                                                const CudaDevice &device, CUresult result) {
  if (result != CUDA_ERROR_OUT_OF_MEMORY)
    return deviceError(device, "cuMemAlloc", result);
  uint64_t weights = 0, io = 0;
  for (std::string_view w : engine.weights)
    weights += std::max<size_t>(w.size(), 256);
  for (const std::vector<TensorInfo> *list : {&engine.inputs, &engine.outputs})
    for (const TensorInfo &t : *list)
      io += std::max<size_t>(t.bytes, 256);
  uint64_t arena = std::max<uint64_t>(engine.arenaBytes, 256);
  return makeStatus(INFERRT_UNAVAILABLE,
                    "out of GPU memory creating a context: needs %llu bytes on cuda:%d (%s): "
                    "weights %llu (once per device), arena %llu, inputs and outputs %llu",
                    (unsigned long long)(weights + arena + io), device.ordinal, device.name.c_str(),
                    (unsigned long long)weights, (unsigned long long)arena,
                    (unsigned long long)io);
}

inferrt_status inferrt::acquireCudaDevice(const inferrt_engine_s &engine, const Driver &driver,
                                          int ordinal, CudaDevice *&out) {
  std::lock_guard<std::mutex> lock(engine.cudaDevices.mutex);
  for (CudaDevice *device : engine.cudaDevices.active)
    if (device->ordinal == ordinal) {
      ++device->users;
      out = device;
      return nullptr;
    }
  // Room first: push_back must not throw once the device exists.
  engine.cudaDevices.active.reserve(engine.cudaDevices.active.size() + 1);
  std::unique_ptr<CudaDevice, void (*)(CudaDevice *)> device(new CudaDevice, destroy);
  device->driver = &driver;
  device->ordinal = ordinal;
  if (inferrt_status s = create(engine, *device))
    return s;
  device->users = 1;
  engine.cudaDevices.active.push_back(device.get());
  out = device.release();
  return nullptr;
}

void inferrt::releaseCudaDevice(const inferrt_engine_s &engine, CudaDevice *device) {
  std::lock_guard<std::mutex> lock(engine.cudaDevices.mutex);
  if (--device->users > 0)
    return;
  auto &active = engine.cudaDevices.active;
  active.erase(std::find(active.begin(), active.end(), device));
  destroy(device);
}
