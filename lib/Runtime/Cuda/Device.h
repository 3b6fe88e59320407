//===- Device.h - an engine's module and weights on one GPU ----*- C++ -*-===//
//
// The read-only half of a CUDA context, shared by every context of one
// engine on one device: the device's primary CUDA context, the module for
// its architecture with one function per launch, and the weights. The
// first context on a device makes it, the last one freed destroys it, so N
// contexts hold the weights on the GPU once.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDA_DEVICE_H
#define INFERRT_LIB_RUNTIME_CUDA_DEVICE_H

#include "Cuda/Driver.h"
#include "Cuda/Plan.h"
#include "Internal.h"

#include <string>
#include <vector>

namespace inferrt {

struct CudaDevice {
  const cuda::Driver *driver = nullptr;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr; // The device's primary context, retained.
  std::string name;            // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;
  const CudaModule *module = nullptr; // The image loaded.
  CUmodule loaded = nullptr;
  std::vector<CUfunction> functions; // One per launch of the plan.
  std::vector<CUdeviceptr> weights;  // One per weight of the plan.
  int users = 0;                     // Contexts using it, under CudaDevices::mutex.
};

/// The engine's CudaDevice for device `ordinal`, made if it is the first
/// context there; one more user either way.
inferrt_status acquireCudaDevice(const inferrt_engine_s &engine, const cuda::Driver &driver,
                                 int ordinal, CudaDevice *&out);
/// One user less; the last frees the module, the weights and the context.
void releaseCudaDevice(const inferrt_engine_s &engine, CudaDevice *device);

/// The status for a failed device allocation: out of memory says how much
/// the engine needs (UNAVAILABLE), anything else names the error.
inferrt_status deviceAllocationFailure(const inferrt_engine_s &engine, const CudaDevice &device,
                                       CUresult result);

/// Makes a CUDA context current on this thread for a scope.
class ScopedCurrent {
public:
  ScopedCurrent(const cuda::Driver &driver, CUcontext context)
      : driver(driver), result(driver.cuCtxPushCurrent(context)) {}
  ~ScopedCurrent() {
    CUcontext popped;
    if (result == CUDA_SUCCESS)
      driver.cuCtxPopCurrent(&popped);
  }
  ScopedCurrent(const ScopedCurrent &) = delete;
  ScopedCurrent &operator=(const ScopedCurrent &) = delete;
  const cuda::Driver &driver;
  const CUresult result; // Of the push: nothing is current unless success.
};

} // namespace inferrt

#endif // INFERRT_LIB_RUNTIME_CUDA_DEVICE_H
