//===- CudaBackend.cpp - CUDA engines: plan, module, buffers, graph -------===//
//
// A context on a GPU holds everything one inference needs on the device:
// the device's primary CUDA context, the module chosen for the device's
// architecture, one device buffer per input and output, the arena, its own
// copy of the weights, pinned host staging for the inputs and outputs, one
// stream and two events. A run copies the inputs in, replays the plan's
// launches (captured once into a CUDA graph, or launched one by one with
// graphs off), copies the outputs back and waits. The first driver error
// of a run marks the context unhealthy: CUDA errors inside kernels are
// sticky, so every later run is refused with the first error's message.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "CudaDriver.h"

#include <algorithm>
#include <cstring>

using namespace inferrt;

namespace {

inferrt_status parseArg(const json::Value &arg, const inferrt_engine_s &engine, const char *path,
                        size_t launch, CudaArg &out) {
  const json::Value *kind = arg.find("kind"), *index = arg.find("index");
  if (!kind || !kind->isString())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu has an argument without a kind",
                      path, launch);
  size_t limit = 0;
  if (kind->text == "input") {
    out.kind = CudaArg::Input;
    limit = engine.inputs.size();
  } else if (kind->text == "output") {
    out.kind = CudaArg::Output;
    limit = engine.outputs.size();
  } else if (kind->text == "weight") {
    out.kind = CudaArg::Weight;
    limit = engine.weights.size();
  } else if (kind->text == "arena") {
    out.kind = CudaArg::Arena;
    return nullptr;
  } else {
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu has an argument of unknown kind '%s'",
                      path, launch, kind->text.c_str());
  }
  if (!index || !index->isUnsigned || index->unsignedInteger >= limit)
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu has a %s index out of range", path,
                      launch, kind->text.c_str());
  out.index = index->unsignedInteger;
  return nullptr;
}

/// Three positive dims of at most `limit` each.
bool parseDims(const json::Value *list, unsigned (&dims)[3], uint64_t limit) {
  if (!list || !list->isArray() || list->items.size() != 3)
    return false;
  for (int i = 0; i < 3; ++i) {
    const json::Value &d = list->items[i];
    if (!d.isUnsigned || d.unsignedInteger == 0 || d.unsignedInteger > limit)
      return false;
    dims[i] = static_cast<unsigned>(d.unsignedInteger);
  }
  return true;
}

} // namespace

inferrt_status inferrt::parseCudaPlan(const json::Value &plan, std::string_view kernels,
                                      const char *path, inferrt_engine_s &engine) {
  const json::Value *modules = plan.find("modules"), *launches = plan.find("launches");
  if (!modules || !modules->isArray() || modules->items.empty() || !launches ||
      !launches->isArray())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the CUDA plan lacks its modules or launches",
                      path);
  for (size_t i = 0; i < modules->items.size(); ++i) {
    const json::Value &m = modules->items[i];
    const json::Value *format = m.find("format"), *arch = m.find("arch"),
                      *offset = m.find("offset"), *bytes = m.find("bytes");
    CudaModule module;
    if (!format || !format->isString() || (format->text != "cubin" && format->text != "ptx") ||
        !arch || !arch->isString() || arch->text.rfind("sm_", 0) != 0 || !offset ||
        !offset->isUnsigned || !bytes || !bytes->isUnsigned)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu is malformed", path, i);
    module.sm = std::atoi(arch->text.c_str() + 3);
    if (module.sm <= 0)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu has a bad architecture '%s'",
                        path, i, arch->text.c_str());
    if (offset->unsignedInteger > kernels.size() ||
        bytes->unsignedInteger > kernels.size() - offset->unsignedInteger || !bytes->unsignedInteger)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu lies outside the kernels section",
                        path, i);
    module.format = format->text;
    module.arch = arch->text;
    module.image = kernels.substr(offset->unsignedInteger, bytes->unsignedInteger);
    engine.cuda.modules.push_back(std::move(module));
  }
  for (size_t i = 0; i < launches->items.size(); ++i) {
    const json::Value &l = launches->items[i];
    const json::Value *kernel = l.find("kernel"), *args = l.find("args"),
                      *shared = l.find("shared_bytes");
    CudaLaunch launch;
    if (!kernel || !kernel->isString() || kernel->text.empty() || !args || !args->isArray() ||
        !parseDims(l.find("grid"), launch.grid, 0x7fffffffu) ||
        !parseDims(l.find("block"), launch.block, 1024) ||
        uint64_t(launch.block[0]) * launch.block[1] * launch.block[2] > 1024 ||
        (shared && (!shared->isUnsigned || shared->unsignedInteger > (1u << 20))))
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu is malformed", path, i);
    launch.kernel = kernel->text;
    launch.sharedBytes = shared ? static_cast<unsigned>(shared->unsignedInteger) : 0;
    for (const json::Value &arg : args->items) {
      CudaArg parsed{CudaArg::Arena, 0};
      if (inferrt_status s = parseArg(arg, engine, path, i, parsed))
        return s;
      launch.args.push_back(parsed);
    }
    engine.cuda.launches.push_back(std::move(launch));
  }
  return nullptr;
}

struct inferrt::CudaContext {
  const cu::Driver *driver = nullptr;
  const inferrt_engine_s *engine = nullptr;
  cu::Device device = 0;
  cu::Context context = nullptr; // The device's primary context, retained.
  cu::Module module = nullptr;
  std::vector<cu::Function> functions; // One per launch.
  std::vector<cu::DevicePtr> inputs, outputs, weights;
  cu::DevicePtr arena = 0;
  std::vector<void *> hostInputs, hostOutputs; // Pinned staging.
  cu::Stream stream = nullptr;
  cu::Event start = nullptr, stop = nullptr;
  cu::GraphExec graph = nullptr;
  bool useGraph = true;
  std::string unhealthy; // The first error of a run, once there was one.
  double gpuMs = 0;

  ~CudaContext();
};

namespace {

/// Makes `context`'s CUDA context current for a scope.
struct Current {
  const cu::Driver &driver;
  bool pushed;
  Current(const cu::Driver &d, cu::Context c) : driver(d), pushed(d.ctxPushCurrent(c) == cu::kSuccess) {}
  ~Current() {
    cu::Context ignored;
    if (pushed)
      driver.ctxPopCurrent(&ignored);
  }
};

/// The module to load: the device's own cubin, else one of its major with
/// a lower minor, else PTX of an architecture the device has.
const CudaModule *pickModule(const CudaPlan &plan, int sm) {
  const CudaModule *best = nullptr;
  for (const CudaModule &m : plan.modules)
    if (m.format == "cubin" && m.sm / 10 == sm / 10 && m.sm <= sm && (!best || m.sm > best->sm))
      best = &m;
  if (best)
    return best;
  for (const CudaModule &m : plan.modules)
    if (m.format == "ptx" && m.sm <= sm && (!best || m.sm > best->sm))
      best = &m;
  return best;
}

} // namespace

inferrt::CudaContext::~CudaContext() {
  if (!driver)
    return;
  {
    Current current(*driver, context);
    if (graph)
      driver->graphExecDestroy(graph);
    if (start)
      driver->eventDestroy(start);
    if (stop)
      driver->eventDestroy(stop);
    if (stream)
      driver->streamDestroy(stream);
    for (void *p : hostInputs)
      if (p)
        driver->memFreeHost(p);
    for (void *p : hostOutputs)
      if (p)
        driver->memFreeHost(p);
    for (const std::vector<cu::DevicePtr> *list : {&inputs, &outputs, &weights})
      for (cu::DevicePtr p : *list)
        if (p)
          driver->memFree(p);
    if (arena)
      driver->memFree(arena);
    if (module)
      driver->moduleUnload(module);
  }
  if (context)
    driver->primaryCtxRelease(device);
}

void inferrt::CudaContextDeleter::operator()(CudaContext *context) const { delete context; }

inferrt_status inferrt::createCudaContext(const inferrt_engine_s &engine, int index,
                                          std::unique_ptr<CudaContext, CudaContextDeleter> &out) {
  std::string error;
  const cu::Driver *d = cu::loadDriver(error);
  if (!d)
    return makeStatus(INFERRT_UNAVAILABLE, "%s", error.c_str());
  int count = 0;
  if (cu::Result r = d->deviceGetCount(&count); r != cu::kSuccess)
    return makeStatus(INFERRT_UNAVAILABLE, "cannot count CUDA devices: %s", cu::describe(*d, r).c_str());
  if (index < 0 || index >= count)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "CUDA device %d does not exist (this machine has %d)",
                      index, count);
  std::unique_ptr<CudaContext, CudaContextDeleter> c(new CudaContext);
  c->engine = &engine;
  // Every failure below returns through `fail`, and the deleter frees what
  // was made so far.
  auto fail = [&](inferrt_status_code code, const char *what, cu::Result r) {
    return makeStatus(code, "%s: %s", what, cu::describe(*d, r).c_str());
  };
  if (cu::Result r = d->deviceGet(&c->device, index); r != cu::kSuccess)
    return fail(INFERRT_UNAVAILABLE, "cannot open the CUDA device", r);
  int major = 0, minor = 0;
  char name[256] = "unknown GPU";
  d->deviceGetAttribute(&major, cu::kAttrComputeCapabilityMajor, c->device);
  d->deviceGetAttribute(&minor, cu::kAttrComputeCapabilityMinor, c->device);
  d->deviceGetName(name, sizeof(name), c->device);
  int sm = major * 10 + minor;
  const CudaModule *module = pickModule(engine.cuda, sm);
  if (!module) {
    std::string archs;
    for (const CudaModule &m : engine.cuda.modules)
      if (archs.find(m.arch) == std::string::npos)
        archs += (archs.empty() ? "" : ", ") + m.arch;
    return makeStatus(INFERRT_UNAVAILABLE,
                      "the engine has kernels for %s; this GPU (%s) is sm_%d: rebuild with "
                      "--target=cuda:sm_%d",
                      archs.c_str(), name, sm, sm);
  }
  if (cu::Result r = d->primaryCtxRetain(&c->context, c->device); r != cu::kSuccess)
    return fail(INFERRT_UNAVAILABLE, "cannot create a CUDA context", r);
  c->driver = d; // From here on the destructor releases what exists.
  Current current(*d, c->context);

  std::string image(module->image); // PTX needs its NUL; cubins don't mind.
  image.push_back('\0');
  char log[8192] = "";
  int options[] = {cu::kJitErrorLogBuffer, cu::kJitErrorLogBufferSize};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  if (cu::Result r = d->moduleLoadDataEx(&c->module, image.data(), 2, options, values);
      r != cu::kSuccess)
    return makeStatus(INFERRT_UNAVAILABLE, "cannot load the engine's %s for %s on %s (sm_%d): %s%s%s",
                      module->format.c_str(), module->arch.c_str(), name, sm,
                      cu::describe(*d, r).c_str(), log[0] ? "\n" : "", log);
  for (const CudaLaunch &launch : engine.cuda.launches) {
    cu::Function f = nullptr;
    if (cu::Result r = d->moduleGetFunction(&f, c->module, launch.kernel.c_str()); r != cu::kSuccess)
      return makeStatus(INFERRT_INVALID_ENGINE, "the engine's module lacks kernel '%s': %s",
                        launch.kernel.c_str(), cu::describe(*d, r).c_str());
    if (launch.sharedBytes > 48 * 1024)
      d->funcSetAttribute(f, cu::kFuncAttrMaxDynamicSharedBytes, static_cast<int>(launch.sharedBytes));
    c->functions.push_back(f);
  }

  // Device memory: out of memory here is the common failure, with its size.
  size_t total = std::max<uint64_t>(engine.arenaBytes, 256);
  for (const TensorInfo &t : engine.inputs)
    total += t.bytes;
  for (const TensorInfo &t : engine.outputs)
    total += t.bytes;
  for (std::string_view w : engine.weights)
    total += w.size();
  auto allocate = [&](size_t bytes, cu::DevicePtr &ptr) -> inferrt_status {
    if (cu::Result r = d->memAlloc(&ptr, std::max<size_t>(bytes, 256)); r != cu::kSuccess) {
      ptr = 0;
      if (r == cu::kOutOfMemory)
        return makeStatus(INFERRT_UNAVAILABLE,
                          "out of GPU memory creating a context: it needs %zu bytes on %s (arena, "
                          "inputs, outputs and weights)",
                          total, name);
      return fail(INFERRT_UNAVAILABLE, "cannot allocate GPU memory", r);
    }
    return nullptr;
  };
  if (inferrt_status s = allocate(engine.arenaBytes, c->arena))
    return s;
  c->inputs.assign(engine.inputs.size(), 0);
  c->hostInputs.assign(engine.inputs.size(), nullptr);
  c->outputs.assign(engine.outputs.size(), 0);
  c->hostOutputs.assign(engine.outputs.size(), nullptr);
  for (size_t i = 0; i < engine.inputs.size(); ++i) {
    if (inferrt_status s = allocate(engine.inputs[i].bytes, c->inputs[i]))
      return s;
    if (cu::Result r = d->memAllocHost(&c->hostInputs[i], std::max<size_t>(engine.inputs[i].bytes, 1));
        r != cu::kSuccess) {
      c->hostInputs[i] = nullptr;
      return fail(INFERRT_UNAVAILABLE, "cannot allocate pinned host memory", r);
    }
    std::memset(c->hostInputs[i], 0, engine.inputs[i].bytes);
  }
  for (size_t i = 0; i < engine.outputs.size(); ++i) {
    if (inferrt_status s = allocate(engine.outputs[i].bytes, c->outputs[i]))
      return s;
    if (cu::Result r = d->memAllocHost(&c->hostOutputs[i], std::max<size_t>(engine.outputs[i].bytes, 1));
        r != cu::kSuccess) {
      c->hostOutputs[i] = nullptr;
      return fail(INFERRT_UNAVAILABLE, "cannot allocate pinned host memory", r);
    }
    std::memset(c->hostOutputs[i], 0, engine.outputs[i].bytes);
  }
  c->weights.assign(engine.weights.size(), 0);
  for (size_t i = 0; i < engine.weights.size(); ++i) {
    if (inferrt_status s = allocate(engine.weights[i].size(), c->weights[i]))
      return s;
    if (cu::Result r = d->memcpyHtoD(c->weights[i], engine.weights[i].data(), engine.weights[i].size());
        r != cu::kSuccess)
      return fail(INFERRT_UNAVAILABLE, "cannot copy the weights to the GPU", r);
  }
  if (cu::Result r = d->streamCreate(&c->stream, cu::kStreamNonBlocking); r != cu::kSuccess)
    return fail(INFERRT_UNAVAILABLE, "cannot create a CUDA stream", r);
  if (cu::Result r = d->eventCreate(&c->start, 0); r != cu::kSuccess)
    return fail(INFERRT_UNAVAILABLE, "cannot create a CUDA event", r);
  if (cu::Result r = d->eventCreate(&c->stop, 0); r != cu::kSuccess)
    return fail(INFERRT_UNAVAILABLE, "cannot create a CUDA event", r);
  out = std::move(c);
  return nullptr;
}

inferrt_status inferrt::cudaSetInput(CudaContext &c, size_t index, const void *data, size_t bytes) {
  std::memcpy(c.hostInputs[index], data, bytes);
  return nullptr;
}

void inferrt::cudaSetGraph(CudaContext &c, bool enabled) { c.useGraph = enabled; }

double inferrt::cudaLastGpuTime(const CudaContext &c) { return c.gpuMs; }

void inferrt::cudaOutput(CudaContext &c, size_t index, const void **data, size_t *bytes) {
  *data = c.hostOutputs[index];
  *bytes = c.engine->outputs[index].bytes;
}

namespace {

/// Every launch of the plan, in order, on the context's stream.
cu::Result launchAll(CudaContext &c) {
  const cu::Driver &d = *c.driver;
  std::vector<cu::DevicePtr> values;
  std::vector<void *> params;
  for (size_t i = 0; i < c.engine->cuda.launches.size(); ++i) {
    const CudaLaunch &l = c.engine->cuda.launches[i];
    values.clear();
    for (const CudaArg &arg : l.args)
      values.push_back(arg.kind == CudaArg::Arena    ? c.arena
                       : arg.kind == CudaArg::Input  ? c.inputs[arg.index]
                       : arg.kind == CudaArg::Output ? c.outputs[arg.index]
                                                     : c.weights[arg.index]);
    params.clear();
    for (cu::DevicePtr &v : values)
      params.push_back(&v);
    cu::Result r = d.launchKernel(c.functions[i], l.grid[0], l.grid[1], l.grid[2], l.block[0],
                                  l.block[1], l.block[2], l.sharedBytes, c.stream, params.data(),
                                  nullptr);
    if (r != cu::kSuccess)
      return r;
  }
  return cu::kSuccess;
}

/// The kernels, through the CUDA graph (captured on first use) or directly.
cu::Result runKernels(CudaContext &c, const char *&step) {
  const cu::Driver &d = *c.driver;
  if (!c.useGraph) {
    step = "launching a kernel";
    return launchAll(c);
  }
  if (!c.graph) {
    step = "capturing the CUDA graph";
    if (cu::Result r = d.streamBeginCapture(c.stream, cu::kCaptureModeThreadLocal); r != cu::kSuccess)
      return r;
    cu::Result launched = launchAll(c);
    cu::Graph graph = nullptr;
    cu::Result ended = d.streamEndCapture(c.stream, &graph);
    if (launched != cu::kSuccess || ended != cu::kSuccess) {
      if (graph)
        d.graphDestroy(graph);
      return launched != cu::kSuccess ? launched : ended;
    }
    cu::Result r = d.graphInstantiate(&c.graph, graph, 0);
    d.graphDestroy(graph); // The executable graph keeps what it needs.
    if (r != cu::kSuccess) {
      c.graph = nullptr;
      return r;
    }
  }
  step = "launching the CUDA graph";
  return d.graphLaunch(c.graph, c.stream);
}

} // namespace

inferrt_status inferrt::cudaRun(CudaContext &c) {
  if (!c.unhealthy.empty())
    return makeStatus(INFERRT_INTERNAL,
                      "the CUDA context is unhealthy after an earlier error (%s): free it and "
                      "create a new one",
                      c.unhealthy.c_str());
  const cu::Driver &d = *c.driver;
  Current current(d, c.context);
  const char *step = "copying the inputs to the GPU";
  cu::Result r = cu::kSuccess;
  for (size_t i = 0; i < c.inputs.size() && r == cu::kSuccess; ++i)
    r = d.memcpyHtoDAsync(c.inputs[i], c.hostInputs[i], c.engine->inputs[i].bytes, c.stream);
  if (r == cu::kSuccess) {
    step = "recording an event";
    r = d.eventRecord(c.start, c.stream);
  }
  if (r == cu::kSuccess)
    r = runKernels(c, step);
  if (r == cu::kSuccess) {
    step = "recording an event";
    r = d.eventRecord(c.stop, c.stream);
  }
  for (size_t i = 0; i < c.outputs.size() && r == cu::kSuccess; ++i) {
    step = "copying the outputs from the GPU";
    r = d.memcpyDtoHAsync(c.hostOutputs[i], c.outputs[i], c.engine->outputs[i].bytes, c.stream);
  }
  if (r == cu::kSuccess) {
    step = "running the kernels";
    r = d.streamSynchronize(c.stream);
  }
  float ms = 0;
  if (r == cu::kSuccess) {
    step = "reading the GPU time";
    r = d.eventElapsedTime(&ms, c.start, c.stop);
  }
  if (r != cu::kSuccess) {
    c.unhealthy = std::string(step) + ": " + cu::describe(d, r);
    return makeStatus(INFERRT_INTERNAL, "CUDA error %s; the context is now unhealthy",
                      c.unhealthy.c_str());
  }
  c.gpuMs = ms;
  return nullptr;
}
