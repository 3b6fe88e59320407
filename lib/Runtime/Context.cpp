//===- Context.cpp - one inference's buffers and its execution ------------===//
//
// A CPU context owns 64-byte aligned buffers for every input and output and
// the memref descriptors the kernels take ({allocated, aligned, offset,
// sizes[rank], strides[rank]}, row-major). A context on a GPU hands
// everything to the CUDA backend (Cuda/Backend.h).
//
//===----------------------------------------------------------------------===//

#include "Cuda/Backend.h"
#include "Internal.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace inferrt;

namespace {
struct Buffer {
  void *data = nullptr;
  size_t bytes = 0;
  std::vector<int64_t> descriptor;
};
} // namespace

struct inferrt_context_s {
  const inferrt_engine_s *engine = nullptr;
  std::vector<Buffer> inputs, outputs;
  Buffer arena; // Intermediate tensors, at offsets the compiler planned.
  int threads = 0; // 0: the OpenMP runtime's default.
  // Descriptor pointers in the kernels' order: inputs, weights, outputs, arena.
  std::vector<void *> arguments;
  // A context on a GPU (CUDA engines): its buffers live there instead.
  CudaContextPtr cuda;
  ~inferrt_context_s() {
    for (Buffer &b : inputs)
      std::free(b.data);
    for (Buffer &b : outputs)
      std::free(b.data);
    std::free(arena.data);
  }
};

std::vector<int64_t> inferrt::makeDescriptor(void *data, const std::vector<int64_t> &shape) {
  auto pointer = reinterpret_cast<int64_t>(data);
  std::vector<int64_t> descriptor = {pointer, pointer, 0};
  descriptor.insert(descriptor.end(), shape.begin(), shape.end());
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  return descriptor;
}

static inferrt_status allocate(const TensorInfo &info, Buffer &buffer) {
  buffer.bytes = info.bytes;
  size_t rounded = (info.bytes + 63) / 64 * 64;
  buffer.data = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!buffer.data)
    return makeStatus(INFERRT_INTERNAL, "out of host memory for tensor '%s' (%zu bytes)",
                      info.name.c_str(), info.bytes);
  std::memset(buffer.data, 0, rounded ? rounded : 64);
  buffer.descriptor = makeDescriptor(buffer.data, info.shape);
  return nullptr;
}

/// "cpu" -> -1, "cuda" -> 0, "cuda:N" -> N; -2 if malformed.
static int parseDevice(const char *device) {
  std::string d(device);
  if (d == "cpu")
    return -1;
  if (d == "cuda")
    return 0;
  if (d.rfind("cuda:", 0) != 0 || d.size() == 5 || d.size() > 9)
    return -2;
  int index = 0;
  for (char ch : d.substr(5)) {
    if (ch < '0' || ch > '9')
      return -2;
    index = index * 10 + (ch - '0');
  }
  return index;
}

static inferrt_status createContext(const inferrt_engine *engine, const char *device,
                                    inferrt_context **out) {
  bool cudaEngine = engine->target == "cuda";
  int index = device ? parseDevice(device) : (cudaEngine ? 0 : -1);
  if (index == -2)
    return makeStatus(INFERRT_INVALID_ARGUMENT,
                      "unknown device '%s': use cpu, cuda or cuda:N (N the device index)", device);
  if (cudaEngine != (index >= 0))
    return makeStatus(INFERRT_INVALID_ARGUMENT,
                      "'%s' was built for target '%s' and cannot run on device '%s': rebuild it "
                      "with --target=%s",
                      engine->path.c_str(), engine->target.c_str(), device,
                      cudaEngine ? "cpu" : "cuda:sm_XY");
  auto context = std::make_unique<inferrt_context_s>();
  context->engine = engine;
  if (cudaEngine) {
    if (inferrt_status s = createCudaContext(*engine, index, context->cuda))
      return s;
    *out = context.release();
    return nullptr;
  }
  context->inputs.resize(engine->inputs.size());
  context->outputs.resize(engine->outputs.size());
  for (size_t i = 0; i < engine->inputs.size(); ++i)
    if (inferrt_status s = allocate(engine->inputs[i], context->inputs[i]))
      return s;
  for (size_t i = 0; i < engine->outputs.size(); ++i)
    if (inferrt_status s = allocate(engine->outputs[i], context->outputs[i]))
      return s;
  TensorInfo arena;
  arena.name = "arena";
  arena.bytes = engine->arenaBytes;
  arena.shape = {static_cast<int64_t>(engine->arenaBytes)};
  if (inferrt_status s = allocate(arena, context->arena))
    return s;
  for (Buffer &b : context->inputs)
    context->arguments.push_back(b.descriptor.data());
  for (const std::vector<int64_t> &descriptor : engine->weightDescriptors)
    context->arguments.push_back(const_cast<int64_t *>(descriptor.data()));
  for (Buffer &b : context->outputs)
    context->arguments.push_back(b.descriptor.data());
  context->arguments.push_back(context->arena.descriptor.data());
  *out = context.release();
  return nullptr;
}

extern "C" {

INFERRT_EXPORT inferrt_status inferrt_context_create_on(const inferrt_engine *engine,
                                                        const char *device,
                                                        inferrt_context **out) {
  if (!engine || !out)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_create: null argument");
  *out = nullptr;
  // Nothing may escape the C API: allocation failures become statuses, and
  // what was allocated before is freed (the unique_ptr and the buffers).
  try {
    return createContext(engine, device, out);
  } catch (const std::bad_alloc &) {
    return makeStatus(INFERRT_INTERNAL, "out of host memory creating a context");
  }
}

INFERRT_EXPORT inferrt_status inferrt_context_create(const inferrt_engine *engine,
                                                     inferrt_context **out) {
  return inferrt_context_create_on(engine, nullptr, out);
}

INFERRT_EXPORT inferrt_status inferrt_context_set_cuda_graph(inferrt_context *context, int enabled) {
  if (!context)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_set_cuda_graph: null context");
  if (!context->cuda)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "CUDA graphs need a context on a CUDA device");
  cudaSetGraph(*context->cuda, enabled != 0);
  return nullptr;
}

INFERRT_EXPORT inferrt_status inferrt_context_last_gpu_time_ms(const inferrt_context *context,
                                                             double *ms) {
  if (!context || !ms)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_last_gpu_time_ms: null argument");
  if (!context->cuda)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "GPU time needs a context on a CUDA device");
  if (!cudaLastGpuTime(*context->cuda, *ms))
    return makeStatus(INFERRT_INVALID_ARGUMENT, "the context has not run successfully yet");
  return nullptr;
}

INFERRT_EXPORT void inferrt_context_free(inferrt_context *context) { delete context; }

INFERRT_EXPORT inferrt_status inferrt_context_set_input(inferrt_context *context, size_t index,
                                                        const void *data, size_t bytes) {
  if (!context || !data)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_set_input: null argument");
  if (index >= context->engine->inputs.size())
    return makeStatus(INFERRT_INVALID_ARGUMENT, "input index %zu is out of range (the engine has %zu)",
                      index, context->engine->inputs.size());
  const TensorInfo &info = context->engine->inputs[index];
  if (bytes != info.bytes)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "input '%s' needs %zu bytes, got %zu",
                      info.name.c_str(), info.bytes, bytes);
  if (context->cuda) {
    cudaSetInput(*context->cuda, index, data, bytes);
    return nullptr;
  }
  std::memcpy(context->inputs[index].data, data, bytes);
  return nullptr;
}

INFERRT_EXPORT inferrt_status inferrt_context_set_threads(inferrt_context *context, int threads) {
  if (!context)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_set_threads: null context");
  if (threads < 0)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "thread count %d is negative", threads);
  context->threads = threads;
  return nullptr;
}

INFERRT_EXPORT inferrt_status inferrt_context_run(inferrt_context *context) {
  if (!context)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_run: null context");
  if (context->cuda) {
    try { // Messages are strings: nothing may escape the C API.
      return cudaRun(*context->cuda);
    } catch (const std::bad_alloc &) {
      return makeStatus(INFERRT_INTERNAL, "out of host memory running a CUDA context");
    }
  }
  // OpenMP's thread count is per calling thread: set it on each run, since
  // the context may move between threads.
  if (context->threads > 0 && context->engine->setThreads)
    context->engine->setThreads(context->threads);
  context->engine->entry(context->arguments.data());
  return nullptr;
}

INFERRT_EXPORT inferrt_status inferrt_context_get_output(inferrt_context *context, size_t index,
                                                         const void **data, size_t *bytes) {
  if (!context || !data || !bytes)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_context_get_output: null argument");
  if (index >= context->engine->outputs.size())
    return makeStatus(INFERRT_INVALID_ARGUMENT, "output index %zu is out of range (the engine has %zu)",
                      index, context->engine->outputs.size());
  if (context->cuda) {
    *data = cudaOutput(*context->cuda, index);
    *bytes = context->engine->outputs[index].bytes;
    return nullptr;
  }
  *data = context->outputs[index].data;
  *bytes = context->outputs[index].bytes;
  return nullptr;
}

} // extern "C"
