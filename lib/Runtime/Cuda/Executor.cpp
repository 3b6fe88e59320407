//===- Executor.cpp - a context on a GPU: buffers, stream, graph, runs ----===//
//
// A context owns the writable half of an inference on the device: one
// buffer per input and output, the arena, pinned host staging for the
// inputs and outputs, one non-blocking stream and two events. A run copies
// the inputs in, replays the plan's launches (captured once into a CUDA
// graph, or launched one by one with graphs off) between the two events,
// copies the outputs back and waits. The first driver error of a run makes
// the context unhealthy: errors inside kernels are sticky in CUDA, so every
// later run is refused with the first error's message.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Backend.h"
#include "Cuda/Device.h"

#include <algorithm>
#include <cstring>

using namespace inferrt;
using namespace inferrt::cuda;

struct inferrt::CudaContext {
  const inferrt_engine_s *engine = nullptr;
  const Driver *driver = nullptr;
  CudaDevice *device = nullptr; // Shared with the engine's other contexts there.
  std::vector<CUdeviceptr> inputs, outputs;
  CUdeviceptr arena = 0;
  std::vector<void *> hostInputs, hostOutputs; // Pinned.
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  CUgraphExec graph = nullptr; // Captured on the first run with graphs on.
  bool useGraph = true;
  // Each launch's kernel parameters: device addresses, and the array of
  // pointers to them that cuLaunchKernel takes. Fixed at creation.
  std::vector<std::vector<CUdeviceptr>> argValues;
  std::vector<std::vector<void *>> argPointers;
  std::string unhealthy; // The first error of a run, once there was one.
  bool ran = false;
  double gpuMs = 0;

  ~CudaContext();
};

inferrt::CudaContext::~CudaContext() {
  if (!device)
    return;
  const Driver &d = *driver;
  {
    ScopedCurrent current(d, device->context);
    if (current.result == CUDA_SUCCESS) {
      if (graph)
        d.cuGraphExecDestroy(graph);
      for (CUevent event : {start, stop})
        if (event)
          d.cuEventDestroy(event);
      if (stream)
        d.cuStreamDestroy(stream);
      for (const std::vector<void *> *list : {&hostInputs, &hostOutputs})
        for (void *p : *list)
          if (p)
            d.cuMemFreeHost(p);
      for (const std::vector<CUdeviceptr> *list : {&inputs, &outputs})
        for (CUdeviceptr p : *list)
          if (p)
            d.cuMemFree(p);
      if (arena)
        d.cuMemFree(arena);
    }
  }
  releaseCudaDevice(*engine, device);
}

void inferrt::CudaContextDeleter::operator()(CudaContext *context) const { delete context; }

namespace {

inferrt_status contextError(const CudaContext &c, const char *what, CUresult r) {
  return makeStatus(INFERRT_UNAVAILABLE, "cannot create a context on cuda:%d: %s failed: %s",
                    c.device->ordinal, what, describe(*c.driver, r).c_str());
}

/// A zeroed device buffer of at least 256 bytes, and its pinned host twin.
inferrt_status allocateBuffer(CudaContext &c, size_t bytes, CUdeviceptr &device, void **host) {
  const Driver &d = *c.driver;
  size_t size = std::max<size_t>(bytes, 256);
  if (CUresult r = d.cuMemAlloc(&device, size); r != CUDA_SUCCESS) {
    device = 0;
    return deviceAllocationFailure(*c.engine, *c.device, r);
  }
  if (CUresult r = d.cuMemsetD8(device, 0, size); r != CUDA_SUCCESS)
    return contextError(c, "cuMemsetD8", r);
  if (!host)
    return nullptr;
  if (CUresult r = d.cuMemAllocHost(host, size); r != CUDA_SUCCESS) {
    *host = nullptr;
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      return makeStatus(INFERRT_INTERNAL,
                        "out of pinned host memory creating a context on cuda:%d (%zu bytes)",
                        c.device->ordinal, size);
    return contextError(c, "cuMemAllocHost", r);
  }
  std::memset(*host, 0, size);
  return nullptr;
}

inferrt_status createResources(CudaContext &c) {
  const inferrt_engine_s &engine = *c.engine;
  const Driver &d = *c.driver;
  if (inferrt_status s = allocateBuffer(c, engine.arenaBytes, c.arena, nullptr))
    return s;
  c.inputs.assign(engine.inputs.size(), 0);
  c.hostInputs.assign(engine.inputs.size(), nullptr);
  for (size_t i = 0; i < engine.inputs.size(); ++i)
    if (inferrt_status s = allocateBuffer(c, engine.inputs[i].bytes, c.inputs[i], &c.hostInputs[i]))
      return s;
  c.outputs.assign(engine.outputs.size(), 0);
  c.hostOutputs.assign(engine.outputs.size(), nullptr);
  for (size_t i = 0; i < engine.outputs.size(); ++i)
    if (inferrt_status s =
            allocateBuffer(c, engine.outputs[i].bytes, c.outputs[i], &c.hostOutputs[i]))
      return s;
  if (CUresult r = d.cuStreamCreate(&c.stream, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS) {
    c.stream = nullptr;
    return contextError(c, "cuStreamCreate", r);
  }
  for (CUevent *event : {&c.start, &c.stop})
    if (CUresult r = d.cuEventCreate(event, CU_EVENT_DEFAULT); r != CUDA_SUCCESS) {
      *event = nullptr;
      return contextError(c, "cuEventCreate", r);
    }
  // The launches' parameters never change: every buffer is the context's.
  const std::vector<CudaLaunch> &launches = engine.cuda.launches;
  c.argValues.resize(launches.size());
  c.argPointers.resize(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    std::vector<CUdeviceptr> &values = c.argValues[i];
    for (const CudaArg &arg : launches[i].args)
      values.push_back(arg.kind == CudaArg::Input    ? c.inputs[arg.index]
                       : arg.kind == CudaArg::Weight ? c.device->weights[arg.index]
                       : arg.kind == CudaArg::Output ? c.outputs[arg.index]
                                                     : c.arena);
    for (CUdeviceptr &value : values)
      c.argPointers[i].push_back(&value);
  }
  return nullptr;
}

} // namespace

inferrt_status inferrt::createCudaContext(const inferrt_engine_s &engine, int ordinal,
                                          CudaContextPtr &out) {
  std::string error;
  const Driver *d = loadDriver(error);
  if (!d)
    return makeStatus(INFERRT_UNAVAILABLE, "%s", error.c_str());
  int count = 0;
  if (CUresult r = d->cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return makeStatus(INFERRT_UNAVAILABLE, "cannot count the CUDA devices: %s",
                      describe(*d, r).c_str());
  if (ordinal >= count)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "CUDA device %d does not exist (this machine has %d)",
                      ordinal, count);
  CudaContextPtr c(new CudaContext);
  c->engine = &engine;
  c->driver = d;
  if (inferrt_status s = acquireCudaDevice(engine, *d, ordinal, c->device))
    return s;
  // From here on the destructor frees whatever exists, the device last.
  ScopedCurrent current(*d, c->device->context);
  if (current.result != CUDA_SUCCESS)
    return contextError(*c, "cuCtxPushCurrent", current.result);
  if (inferrt_status s = createResources(*c))
    return s;
  out = std::move(c);
  return nullptr;
}

void inferrt::cudaSetInput(CudaContext &c, size_t index, const void *data, size_t bytes) {
  std::memcpy(c.hostInputs[index], data, bytes);
}

void inferrt::cudaSetGraph(CudaContext &c, bool enabled) { c.useGraph = enabled; }

bool inferrt::cudaLastGpuTime(const CudaContext &c, double &ms) {
  ms = c.gpuMs;
  return c.ran;
}

const void *inferrt::cudaOutput(const CudaContext &c, size_t index) { return c.hostOutputs[index]; }

namespace {

/// What failed, for the status and the unhealthy message.
struct Failure {
  CUresult result = CUDA_SUCCESS;
  std::string step;
};

/// Records the failure (the step's text is made only then); false.
bool fail(Failure &f, CUresult r, std::string step) {
  f = {r, std::move(step)};
  return false;
}

/// Every launch of the plan, in order, on the context's stream.
bool launchAll(CudaContext &c, Failure &f) {
  const Driver &d = *c.driver;
  const std::vector<CudaLaunch> &launches = c.engine->cuda.launches;
  for (size_t i = 0; i < launches.size(); ++i) {
    const CudaLaunch &l = launches[i];
    if (CUresult r = d.cuLaunchKernel(c.device->functions[i], l.grid[0], l.grid[1], l.grid[2],
                                      l.block[0], l.block[1], l.block[2], l.sharedBytes, c.stream,
                                      c.argPointers[i].data(), nullptr);
        r != CUDA_SUCCESS)
      return fail(f, r, "launching kernel '" + l.kernel + "' (launch " + std::to_string(i) + ")");
  }
  return true;
}

/// Captures the launches into `c.graph`.
bool capture(CudaContext &c, Failure &f) {
  const Driver &d = *c.driver;
  if (CUresult r = d.cuStreamBeginCapture(c.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
      r != CUDA_SUCCESS)
    return fail(f, r, "capturing the CUDA graph");
  bool launched = launchAll(c, f);
  CUgraph graph = nullptr;
  // Always ended: the stream is unusable while it captures.
  CUresult ended = d.cuStreamEndCapture(c.stream, &graph);
  if (launched && ended != CUDA_SUCCESS)
    launched = fail(f, ended, "capturing the CUDA graph");
  if (launched)
    if (CUresult r = d.cuGraphInstantiate(&c.graph, graph, 0); r != CUDA_SUCCESS) {
      c.graph = nullptr;
      launched = fail(f, r, "instantiating the CUDA graph");
    }
  if (ended == CUDA_SUCCESS && graph)
    d.cuGraphDestroy(graph); // The executable graph keeps what it needs.
  return launched;
}

bool runOnce(CudaContext &c, Failure &f) {
  const Driver &d = *c.driver;
  const inferrt_engine_s &engine = *c.engine;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    if (size_t bytes = engine.inputs[i].bytes)
      if (CUresult r = d.cuMemcpyHtoDAsync(c.inputs[i], c.hostInputs[i], bytes, c.stream);
          r != CUDA_SUCCESS)
        return fail(f, r, "copying input '" + engine.inputs[i].name + "' to the GPU");
  if (CUresult r = d.cuEventRecord(c.start, c.stream); r != CUDA_SUCCESS)
    return fail(f, r, "recording an event");
  if (c.useGraph) {
    if (!c.graph && !capture(c, f))
      return false;
    if (CUresult r = d.cuGraphLaunch(c.graph, c.stream); r != CUDA_SUCCESS)
      return fail(f, r, "launching the CUDA graph");
  } else if (!launchAll(c, f)) {
    return false;
  }
  if (CUresult r = d.cuEventRecord(c.stop, c.stream); r != CUDA_SUCCESS)
    return fail(f, r, "recording an event");
  for (size_t i = 0; i < c.outputs.size(); ++i)
    if (size_t bytes = engine.outputs[i].bytes)
      if (CUresult r = d.cuMemcpyDtoHAsync(c.hostOutputs[i], c.outputs[i], bytes, c.stream);
          r != CUDA_SUCCESS)
        return fail(f, r, "copying output '" + engine.outputs[i].name + "' from the GPU");
  // Errors inside the kernels surface here.
  if (CUresult r = d.cuStreamSynchronize(c.stream); r != CUDA_SUCCESS)
    return fail(f, r, "running the kernels");
  float ms = 0;
  if (CUresult r = d.cuEventElapsedTime(&ms, c.start, c.stop); r != CUDA_SUCCESS)
    return fail(f, r, "reading the GPU time");
  c.gpuMs = ms;
  return true;
}

} // namespace

inferrt_status inferrt::cudaRun(CudaContext &c) {
  if (!c.unhealthy.empty())
    return makeStatus(INFERRT_INTERNAL,
                      "the CUDA context is unhealthy after an earlier error (%s): free it and "
                      "create a new one",
                      c.unhealthy.c_str());
  Failure f;
  ScopedCurrent current(*c.driver, c.device->context);
  bool ok = current.result == CUDA_SUCCESS ? runOnce(c, f)
                                           : fail(f, current.result, "making the CUDA context current");
  if (ok) {
    c.ran = true;
    return nullptr;
  }
  c.unhealthy = f.step + ": " + describe(*c.driver, f.result);
  return makeStatus(INFERRT_INTERNAL,
                    "CUDA error %s; the context is unhealthy now: free it and create a new one",
                    c.unhealthy.c_str());
}
