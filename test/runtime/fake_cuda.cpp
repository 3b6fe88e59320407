//===- fake_cuda.cpp - a CUDA driver stand-in for tests without a GPU -----===//
//
// Exports the driver entry points the runtime resolves (lib/Runtime/Cuda/
// Driver.h), compiled against cuda.h so that every definition must match
// the driver's prototype. Tests load it with INFERRT_LIBCUDA=.../
// libfakecuda.so. It simulates GPUs closely enough to catch misuse:
//
// - Device memory is host memory, tracked by base address; a launch's
//   parameters must each point at the base of a live allocation, and calls
//   that need a current context fail without one (thread-local stack).
// - A module is any bytes. An ELF image is a cubin; anything else is PTX,
//   read as a C string like the real driver does. Lines "kernel NAME N"
//   declare a kernel of N parameters (cuModuleGetFunction fails for other
//   names when any are declared).
// - Kernels do nothing, except `copy` (2 parameters), which copies its
//   first buffer into its second (the smaller size): enough to check that
//   inputs, weights, the arena and outputs reach the right launches.
// - Launches on a capturing stream are recorded into the graph, and a graph
//   launch replays them; copies while capturing are refused.
//
// Environment:
//   FAKE_CUDA_DEVICES=N        devices (default 1)
//   FAKE_CUDA_SM=XY            compute capability (default 90)
//   FAKE_CUDA_MEMORY_BYTES=N   device memory of each device (default 16 GiB);
//                              beyond it cuMemAlloc is CUDA_ERROR_OUT_OF_MEMORY
//   FAKE_CUDA_FAIL=cuXxx       that entry point fails (the API name, with or
//                              without its _v2), with
//   FAKE_CUDA_FAIL_CODE=N      this CUresult (default 999, CUDA_ERROR_UNKNOWN),
//   FAKE_CUDA_FAIL_AFTER=N     from its call N on (counting from 0; default 0),
//   FAKE_CUDA_FAIL_COUNT=M     M times (default: every call from then on)
//   FAKE_CUDA_REPORT=1         at exit, print what is still live and the
//                              counters on stderr ("fake-cuda: live ...")
// Tests read the same numbers with fake_cuda_stat("live"), ... (below).
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

struct Module;
struct Function {
  Module *module;
  std::string name;
  int parameters = -1; // -1: not declared by the image.
  int maxDynamicShared = 48 * 1024;
};
struct Module {
  std::vector<Function *> functions;
  std::map<std::string, int> declared; // "kernel NAME N" lines.
};
struct Launch {
  Function *function;
  std::vector<CUdeviceptr> arguments;
};
struct Stream {
  bool capturing = false;
  std::vector<Launch> captured;
};
struct Graph {
  std::vector<Launch> launches;
};
struct Event {};
struct Context {
  int device = 0;
  int retained = 0;
};

struct State {
  std::recursive_mutex mutex;
  std::map<CUdeviceptr, size_t> device; // Base address -> bytes.
  std::map<int, size_t> deviceBytes;    // Per device, for the limit.
  std::set<void *> host;
  std::set<Module *> modules;
  std::set<Stream *> streams;
  std::set<Event *> events;
  std::set<Graph *> graphs, execs;
  std::map<int, Context *> contexts; // Primary contexts, by device.
  std::map<std::string, long> calls; // Per entry point, for FAIL_AFTER.
  long launches = 0, captures = 0, graphLaunches = 0, cubinLoads = 0, ptxLoads = 0,
       jitLogBuffers = 0, ptxBytes = 0;
  std::string lastModule; // The first line of the last image loaded.

  long live() const {
    long retained = 0;
    for (const auto &[device, context] : contexts)
      retained += context->retained;
    return long(device.size() + host.size() + modules.size() + streams.size() + events.size() +
                graphs.size() + execs.size()) +
           retained;
  }
  ~State() {
    if (std::getenv("FAKE_CUDA_REPORT"))
      std::fprintf(stderr,
                   "fake-cuda: live %ld (device allocations %zu, host allocations %zu, modules "
                   "%zu, streams %zu, events %zu, graphs %zu, graph execs %zu); launches %ld, "
                   "captures %ld, graph launches %ld\n",
                   live(), device.size(), host.size(), modules.size(), streams.size(),
                   events.size(), graphs.size(), execs.size(), launches, captures, graphLaunches);
  }
} state;

thread_local std::vector<Context *> current;

long long envNumber(const char *name, long long fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

/// Whether `api` ("cuMemAlloc") should fail now, per FAKE_CUDA_FAIL*.
CUresult injected(const char *api) {
  const char *fail = std::getenv("FAKE_CUDA_FAIL");
  size_t length = std::strlen(api);
  bool named = fail && std::strncmp(fail, api, length) == 0 &&
               (fail[length] == '\0' || std::strncmp(fail + length, "_v", 2) == 0);
  long call = state.calls[api]++;
  long after = envNumber("FAKE_CUDA_FAIL_AFTER", 0), count = envNumber("FAKE_CUDA_FAIL_COUNT", -1);
  if (named && call >= after && (count < 0 || call < after + count))
    return static_cast<CUresult>(envNumber("FAKE_CUDA_FAIL_CODE", CUDA_ERROR_UNKNOWN));
  return CUDA_SUCCESS;
}

#define FAKE_ENTRY(api)                                                                            \
  std::lock_guard<std::recursive_mutex> lock(state.mutex);                                         \
  if (CUresult injectedResult = injected(api); injectedResult != CUDA_SUCCESS)                     \
    return injectedResult;

#define FAKE_NEEDS_CONTEXT()                                                                       \
  if (current.empty())                                                                             \
    return CUDA_ERROR_INVALID_CONTEXT;

int deviceCount() { return static_cast<int>(envNumber("FAKE_CUDA_DEVICES", 1)); }

bool isLive(CUdeviceptr pointer) { return state.device.count(pointer) != 0; }

/// A new tracked object of type T, as handle type H.
template <typename T, typename H> CUresult makeHandle(std::set<T *> &live, H *handle) {
  T *object = new T;
  live.insert(object);
  *handle = reinterpret_cast<H>(object);
  return CUDA_SUCCESS;
}

template <typename T, typename H> CUresult freeHandle(std::set<T *> &live, H handle) {
  T *object = reinterpret_cast<T *>(handle);
  if (!live.erase(object))
    return CUDA_ERROR_INVALID_HANDLE;
  delete object;
  return CUDA_SUCCESS;
}

/// Checks an asynchronous copy between `device` and pinned `host` memory
/// on `stream`, which the runtime never makes while capturing.
CUresult checkCopy(CUstream stream, CUdeviceptr device, const void *host, size_t bytes) {
  auto *s = reinterpret_cast<Stream *>(stream);
  auto it = state.device.find(device);
  if (!state.streams.count(s) || it == state.device.end() || bytes > it->second ||
      !state.host.count(const_cast<void *>(host)))
    return CUDA_ERROR_INVALID_VALUE;
  return s->capturing ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

void execute(const Launch &launch) {
  ++state.launches;
  if (launch.function->name == "copy" && launch.arguments.size() == 2) {
    size_t bytes = std::min(state.device[launch.arguments[0]], state.device[launch.arguments[1]]);
    std::memmove(reinterpret_cast<void *>(launch.arguments[1]),
                 reinterpret_cast<void *>(launch.arguments[0]), bytes);
  }
}

/// The image's declared kernels and first line; PTX read as a C string.
void readImage(const void *image, Module &module) {
  const char *text = static_cast<const char *>(image);
  bool cubin = std::memcmp(text, "\x7f" "ELF", 4) == 0;
  // A cubin's declarations end at its first NUL; PTX ends at its NUL.
  std::string body = cubin ? std::string(text + 4) : std::string(text);
  (cubin ? state.cubinLoads : state.ptxLoads)++;
  if (!cubin)
    state.ptxBytes = long(body.size());
  state.lastModule = std::string(cubin ? "cubin: " : "ptx: ") + body.substr(0, body.find('\n'));
  size_t position = 0;
  while (position < body.size()) {
    size_t end = body.find('\n', position);
    std::string line = body.substr(position, end == std::string::npos ? end : end - position);
    char name[128];
    int parameters;
    if (std::sscanf(line.c_str(), "kernel %127s %d", name, &parameters) == 2)
      module.declared[name] = parameters;
    if (end == std::string::npos)
      break;
    position = end + 1;
  }
}

} // namespace

extern "C" {

/// Test hook: a counter or the number of live resources ("live",
/// "device_allocations", "launches", "captures", "graph_launches",
/// "cubin_loads", "ptx_loads", "ptx_bytes" (the length of the last PTX read
/// as a C string), "jit_log_buffers", "contexts"); -1 if unknown.
__attribute__((visibility("default"))) long fake_cuda_stat(const char *name) {
  std::lock_guard<std::recursive_mutex> lock(state.mutex);
  std::string n = name;
  long retained = 0;
  for (const auto &[device, context] : state.contexts)
    retained += context->retained;
  if (n == "live") return state.live();
  if (n == "device_allocations") return long(state.device.size());
  if (n == "host_allocations") return long(state.host.size());
  if (n == "contexts") return retained;
  if (n == "launches") return state.launches;
  if (n == "captures") return state.captures;
  if (n == "graph_launches") return state.graphLaunches;
  if (n == "cubin_loads") return state.cubinLoads;
  if (n == "ptx_loads") return state.ptxLoads;
  if (n == "jit_log_buffers") return state.jitLogBuffers;
  if (n == "ptx_bytes") return state.ptxBytes;
  return -1;
}

/// Test hook: the first line of the last module image loaded, prefixed
/// with "cubin: " or "ptx: ".
__attribute__((visibility("default"))) const char *fake_cuda_last_module() {
  return state.lastModule.c_str();
}

/// Test hook: forget the call counts of FAKE_CUDA_FAIL_AFTER.
__attribute__((visibility("default"))) void fake_cuda_reset_calls() {
  std::lock_guard<std::recursive_mutex> lock(state.mutex);
  state.calls.clear();
}

CUresult cuInit(unsigned int) {
  FAKE_ENTRY("cuInit")
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **text) {
  static const std::map<int, const char *> names = {
      {CUDA_SUCCESS, "CUDA_SUCCESS"},
      {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
      {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
      {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
      {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
      {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
      {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
      {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
      {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE"},
      {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
      {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
      {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
      {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"}};
  auto it = names.find(error);
  *text = it == names.end() ? nullptr : it->second;
  return it == names.end() ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_ERROR_OUT_OF_MEMORY      ? "out of memory"
          : error == CUDA_ERROR_ILLEGAL_ADDRESS  ? "an illegal memory access was encountered"
          : error == CUDA_ERROR_INVALID_CONTEXT  ? "invalid device context"
                                                 : "an error of the fake driver";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  FAKE_ENTRY("cuDeviceGetCount")
  *count = deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_ENTRY("cuDeviceGet")
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  FAKE_ENTRY("cuDeviceGetAttribute")
  int sm = static_cast<int>(envNumber("FAKE_CUDA_SM", 90));
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = sm / 10;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *value = sm % 10;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, CUdevice device) {
  FAKE_ENTRY("cuDeviceGetName")
  std::snprintf(name, static_cast<size_t>(length), "Fake GPU %d", device);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  FAKE_ENTRY("cuDevicePrimaryCtxRetain")
  Context *&c = state.contexts[device];
  if (!c)
    c = new Context{device, 0};
  ++c->retained;
  *context = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  FAKE_ENTRY("cuDevicePrimaryCtxRelease")
  auto it = state.contexts.find(device);
  if (it == state.contexts.end() || it->second->retained == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --it->second->retained;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext context) {
  FAKE_ENTRY("cuCtxPushCurrent")
  auto *c = reinterpret_cast<Context *>(context);
  if (!c || c->retained == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  current.push_back(c);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  FAKE_ENTRY("cuCtxPopCurrent")
  FAKE_NEEDS_CONTEXT()
  if (context)
    *context = reinterpret_cast<CUcontext>(current.back());
  current.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int count,
                            CUjit_option *options, void **values) {
  std::lock_guard<std::recursive_mutex> lock(state.mutex);
  FAKE_NEEDS_CONTEXT()
  if (!image)
    return CUDA_ERROR_INVALID_VALUE;
  char *log = nullptr;
  size_t logBytes = 0;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      log = static_cast<char *>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      logBytes = reinterpret_cast<size_t>(values[i]);
  }
  if (log && logBytes)
    ++state.jitLogBuffers;
  auto *m = new Module;
  readImage(image, *m);
  if (CUresult r = injected("cuModuleLoadDataEx"); r != CUDA_SUCCESS) {
    if (log && logBytes)
      std::snprintf(log, logBytes, "ptxas fatal: the fake driver refuses this module");
    delete m;
    return r;
  }
  state.modules.insert(m);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  FAKE_ENTRY("cuModuleUnload")
  FAKE_NEEDS_CONTEXT()
  auto *m = reinterpret_cast<Module *>(module);
  if (!state.modules.erase(m))
    return CUDA_ERROR_INVALID_HANDLE;
  for (Function *f : m->functions)
    delete f;
  delete m;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  FAKE_ENTRY("cuModuleGetFunction")
  FAKE_NEEDS_CONTEXT()
  auto *m = reinterpret_cast<Module *>(module);
  if (!state.modules.count(m) || !name)
    return CUDA_ERROR_INVALID_HANDLE;
  auto declared = m->declared.find(name);
  if (!m->declared.empty() && declared == m->declared.end())
    return CUDA_ERROR_NOT_FOUND;
  auto *f = new Function{m, name};
  if (declared != m->declared.end())
    f->parameters = declared->second;
  m->functions.push_back(f);
  *function = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  FAKE_ENTRY("cuFuncSetAttribute")
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value > 227 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  reinterpret_cast<Function *>(function)->maxDynamicShared = value;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  FAKE_ENTRY("cuMemAlloc")
  FAKE_NEEDS_CONTEXT()
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  size_t &used = state.deviceBytes[current.back()->device];
  if (used + bytes > static_cast<size_t>(envNumber("FAKE_CUDA_MEMORY_BYTES", 16LL << 30)))
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = std::malloc(bytes);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  used += bytes;
  *pointer = reinterpret_cast<CUdeviceptr>(p);
  state.device[*pointer] = bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  FAKE_ENTRY("cuMemFree")
  FAKE_NEEDS_CONTEXT()
  auto it = state.device.find(pointer);
  if (it == state.device.end())
    return CUDA_ERROR_INVALID_VALUE;
  state.deviceBytes[current.back()->device] -= it->second;
  state.device.erase(it);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  FAKE_ENTRY("cuMemAllocHost")
  FAKE_NEEDS_CONTEXT()
  *pointer = std::malloc(bytes ? bytes : 1);
  if (!*pointer)
    return CUDA_ERROR_OUT_OF_MEMORY;
  state.host.insert(*pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *pointer) {
  FAKE_ENTRY("cuMemFreeHost")
  FAKE_NEEDS_CONTEXT()
  if (!state.host.erase(pointer))
    return CUDA_ERROR_INVALID_VALUE;
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr pointer, unsigned char value, size_t bytes) {
  FAKE_ENTRY("cuMemsetD8")
  FAKE_NEEDS_CONTEXT()
  auto it = state.device.find(pointer);
  if (it == state.device.end() || bytes > it->second)
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void *>(pointer), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes) {
  FAKE_ENTRY("cuMemcpyHtoD")
  FAKE_NEEDS_CONTEXT()
  auto it = state.device.find(destination);
  if (it == state.device.end() || bytes > it->second)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t bytes,
                              CUstream stream) {
  FAKE_ENTRY("cuMemcpyHtoDAsync")
  FAKE_NEEDS_CONTEXT()
  if (CUresult r = checkCopy(stream, destination, source, bytes); r != CUDA_SUCCESS)
    return r;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source, size_t bytes,
                              CUstream stream) {
  FAKE_ENTRY("cuMemcpyDtoHAsync")
  FAKE_NEEDS_CONTEXT()
  if (CUresult r = checkCopy(stream, source, destination, bytes); r != CUDA_SUCCESS)
    return r;
  std::memcpy(destination, reinterpret_cast<void *>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  FAKE_ENTRY("cuStreamCreate")
  FAKE_NEEDS_CONTEXT()
  return makeHandle(state.streams, stream);
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  FAKE_ENTRY("cuStreamDestroy")
  FAKE_NEEDS_CONTEXT()
  return freeHandle(state.streams, stream);
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_ENTRY("cuStreamSynchronize")
  FAKE_NEEDS_CONTEXT()
  return state.streams.count(reinterpret_cast<Stream *>(stream)) ? CUDA_SUCCESS
                                                                 : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode) {
  FAKE_ENTRY("cuStreamBeginCapture")
  FAKE_NEEDS_CONTEXT()
  auto *s = reinterpret_cast<Stream *>(stream);
  if (!state.streams.count(s) || s->capturing)
    return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = true;
  s->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  std::lock_guard<std::recursive_mutex> lock(state.mutex);
  FAKE_NEEDS_CONTEXT()
  auto *s = reinterpret_cast<Stream *>(stream);
  if (!state.streams.count(s) || !s->capturing)
    return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = false; // Ended even when it fails, as in CUDA.
  if (CUresult r = injected("cuStreamEndCapture"); r != CUDA_SUCCESS)
    return r;
  auto *g = new Graph{std::move(s->captured)};
  state.graphs.insert(g);
  ++state.captures;
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  FAKE_ENTRY("cuGraphInstantiate")
  FAKE_NEEDS_CONTEXT()
  auto *g = reinterpret_cast<Graph *>(graph);
  if (!state.graphs.count(g))
    return CUDA_ERROR_INVALID_HANDLE;
  auto *e = new Graph(*g);
  state.execs.insert(e);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  FAKE_ENTRY("cuGraphDestroy")
  return freeHandle(state.graphs, graph);
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_ENTRY("cuGraphExecDestroy")
  return freeHandle(state.execs, exec);
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_ENTRY("cuGraphLaunch")
  FAKE_NEEDS_CONTEXT()
  auto *e = reinterpret_cast<Graph *>(exec);
  if (!state.execs.count(e) || !state.streams.count(reinterpret_cast<Stream *>(stream)))
    return CUDA_ERROR_INVALID_HANDLE;
  ++state.graphLaunches;
  for (const Launch &launch : e->launches) {
    // A buffer freed since the capture is what a real GPU faults on.
    for (CUdeviceptr argument : launch.arguments)
      if (!isLive(argument))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    execute(launch);
  }
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int) {
  FAKE_ENTRY("cuEventCreate")
  FAKE_NEEDS_CONTEXT()
  return makeHandle(state.events, event);
}

CUresult cuEventDestroy_v2(CUevent event) {
  FAKE_ENTRY("cuEventDestroy")
  FAKE_NEEDS_CONTEXT()
  return freeHandle(state.events, event);
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_ENTRY("cuEventRecord")
  FAKE_NEEDS_CONTEXT()
  auto *s = reinterpret_cast<Stream *>(stream);
  if (!state.events.count(reinterpret_cast<Event *>(event)) || !state.streams.count(s))
    return CUDA_ERROR_INVALID_HANDLE;
  return s->capturing ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent start, CUevent stop) {
  FAKE_ENTRY("cuEventElapsedTime")
  if (!state.events.count(reinterpret_cast<Event *>(start)) ||
      !state.events.count(reinterpret_cast<Event *>(stop)))
    return CUDA_ERROR_INVALID_HANDLE;
  *milliseconds = 0.25f;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY,
                        unsigned int gridZ, unsigned int blockX, unsigned int blockY,
                        unsigned int blockZ, unsigned int sharedBytes, CUstream stream,
                        void **parameters, void **extra) {
  FAKE_ENTRY("cuLaunchKernel")
  FAKE_NEEDS_CONTEXT()
  auto *f = reinterpret_cast<Function *>(function);
  auto *s = reinterpret_cast<Stream *>(stream);
  if (!f || !state.modules.count(f->module) || !state.streams.count(s))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      uint64_t(blockX) * blockY * blockZ > 1024 || extra ||
      sharedBytes > static_cast<unsigned>(f->maxDynamicShared))
    return CUDA_ERROR_INVALID_VALUE;
  Launch launch{f, {}};
  if (f->parameters > 0 && !parameters)
    return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < f->parameters; ++i) {
    // Each parameter points at a CUdeviceptr: the base of a live buffer.
    if (!parameters[i] || !isLive(*static_cast<CUdeviceptr *>(parameters[i])))
      return CUDA_ERROR_INVALID_VALUE;
    launch.arguments.push_back(*static_cast<CUdeviceptr *>(parameters[i]));
  }
  if (s->capturing)
    s->captured.push_back(std::move(launch));
  else
    execute(launch);
  return CUDA_SUCCESS;
}

} // extern "C"
