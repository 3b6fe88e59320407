//===- Engine.cpp - load and verify an engine, load its CPU kernels -------===//
//
// The whole file is read and verified before any of it is used: magic,
// format version, sizes, every section's bounds and checksum, the metadata's
// schema, and the target. Only then are the kernels loaded, from memory
// (memfd + dlopen), never from a path another process could swap. A CUDA
// engine's plan is checked (Cuda/Plan.cpp) but no driver is touched: its
// modules are loaded by each context's device (Cuda/Device.cpp).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Json.h"

#include "infer-opt/Target/Engine/EngineReader.h"
#include "inferrt/engine_format.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <memory>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace inferrt;

namespace {

constexpr const char *kHostTarget = "cpu-x86_64";
constexpr const char *kCudaTarget = "cuda";

} // namespace

size_t inferrt::dtypeBytes(const std::string &dtype) {
  if (dtype == "float32" || dtype == "int32" || dtype == "uint32") return 4;
  if (dtype == "float64" || dtype == "int64" || dtype == "uint64") return 8;
  if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16" || dtype == "uint16") return 2;
  if (dtype == "int8" || dtype == "uint8" || dtype == "bool") return 1;
  return 0;
}

namespace {

/// A shape's bytes, or 0 with `error` set if a dim is bad or it is too big.
size_t shapeBytes(const json::Value &shape, size_t elementBytes, std::vector<int64_t> &dims,
                  const char *&error) {
  error = nullptr;
  if (!shape.isArray() || shape.items.size() > 32) {
    error = "a bad shape";
    return 0;
  }
  size_t bytes = elementBytes;
  for (const json::Value &dim : shape.items) {
    if (!dim.isInteger || dim.integer < 0) {
      error = "a bad dim";
      return 0;
    }
    int64_t d = dim.integer;
    if (d != 0 && bytes > (size_t(1) << 40) / static_cast<size_t>(d)) {
      error = "an implausibly large shape";
      return 0;
    }
    bytes *= static_cast<size_t>(d);
    dims.push_back(d);
  }
  return bytes;
}

inferrt_status parseTensors(const json::Value *list, const char *what,
                            std::vector<TensorInfo> &out) {
  if (!list || !list->isArray())
    return makeStatus(INFERRT_INVALID_ENGINE, "metadata: '%s' is not a list", what);
  for (const json::Value &item : list->items) {
    const json::Value *name = item.find("name"), *dtype = item.find("dtype"),
                      *shape = item.find("shape");
    if (!name || !name->isString() || !dtype || !dtype->isString() || !shape || !shape->isArray())
      return makeStatus(INFERRT_INVALID_ENGINE, "metadata: an entry of '%s' lacks name, dtype or shape",
                        what);
    TensorInfo t;
    t.name = name->text;
    t.dtype = dtype->text;
    t.elementBytes = dtypeBytes(t.dtype);
    if (!t.elementBytes)
      return makeStatus(INFERRT_INVALID_ENGINE, "metadata: %s '%s' has unknown dtype '%s'", what,
                        t.name.c_str(), t.dtype.c_str());
    if (shape->items.size() > INFERRT_MAX_RANK)
      return makeStatus(INFERRT_INVALID_ENGINE, "metadata: %s '%s' has rank %zu (max %d)", what,
                        t.name.c_str(), shape->items.size(), INFERRT_MAX_RANK);
    const char *error;
    size_t bytes = shapeBytes(*shape, t.elementBytes, t.shape, error);
    if (error)
      return makeStatus(INFERRT_INVALID_ENGINE, "metadata: %s '%s' has %s", what, t.name.c_str(),
                        error);
    t.bytes = bytes;
    out.push_back(std::move(t));
  }
  return nullptr;
}

/// Checks the plan against the weights section and sets up the weights
/// descriptors (pointing into the engine's file buffer, where the section
/// is 256-byte aligned) and the arena size.
inferrt_status loadPlan(std::string_view text, std::string_view weights,
                        std::string_view kernelsSection, const char *path, inferrt_engine_s &engine) {
  json::Value plan;
  if (!json::parse(text, plan) || !plan.isObject())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the plan is not valid JSON", path);
  const json::Value *arguments = plan.find("arguments");
  const char *expectedArguments[] = {"inputs", "weights", "outputs", "arena"};
  bool knownConvention = arguments && arguments->isArray() && arguments->items.size() == 4;
  for (size_t i = 0; knownConvention && i < 4; ++i)
    knownConvention = arguments->items[i].isString() && arguments->items[i].text == expectedArguments[i];
  if (!knownConvention)
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': the plan has an unknown calling convention (an older or newer "
                      "infer-opt built it): recompile the engine",
                      path);
  bool cuda = engine.target == kCudaTarget;
  const json::Value *kernels = plan.find("kernels");
  const json::Value *symbol =
      kernels && kernels->isArray() && kernels->items.size() == 1 ? kernels->items[0].find("symbol")
                                                                   : nullptr;
  if (!cuda && (!symbol || !symbol->isString() || symbol->text != "inferrt_entry"))
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the plan must call one kernel, 'inferrt_entry'",
                      path);
  const json::Value *arena = plan.find("arena");
  const json::Value *arenaBytes = arena ? arena->find("bytes") : nullptr;
  if (!arenaBytes || !arenaBytes->isUnsigned || arenaBytes->unsignedInteger > (uint64_t(1) << 40))
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the plan's arena size is missing or implausible",
                      path);
  engine.arenaBytes = arenaBytes->unsignedInteger;

  const json::Value *table = plan.find("weights");
  if (!table || !table->isArray())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the plan lacks its weights table", path);
  for (size_t i = 0; i < table->items.size(); ++i) {
    const json::Value &w = table->items[i];
    const json::Value *offsetValue = w.find("offset"), *bytesValue = w.find("bytes"),
                      *dtype = w.find("dtype"), *shapeValue = w.find("shape");
    if (!offsetValue || !offsetValue->isUnsigned || !bytesValue || !bytesValue->isUnsigned ||
        !dtype || !dtype->isString() || !shapeValue)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': weight %zu lacks offset, bytes, dtype or shape",
                        path, i);
    uint64_t offset = offsetValue->unsignedInteger, bytes = bytesValue->unsignedInteger;
    std::vector<int64_t> shape;
    const char *error = "an unknown dtype";
    size_t elementBytes = dtypeBytes(dtype->text);
    size_t expected = elementBytes ? shapeBytes(*shapeValue, elementBytes, shape, error) : 0;
    if (error || expected != bytes)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': weight %zu has %s", path, i,
                        error ? error : "a size that does not match its shape");
    if (offset % INFERRT_SECTION_ALIGNMENT != 0)
      return makeStatus(INFERRT_INVALID_ENGINE,
                        "'%s': weight %zu is not 256-byte aligned in the weights section", path, i);
    if (offset > weights.size() || bytes > weights.size() - offset)
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s': weight %zu lies outside the weights section",
                        path, i);
    engine.weightDescriptors.push_back(
        makeDescriptor(const_cast<char *>(weights.data()) + offset, shape));
    engine.weights.push_back(weights.substr(offset, bytes));
  }
  if (!cuda)
    return nullptr;
  return parseCudaPlan(plan, kernelsSection, engine.inputs.size(), engine.weights.size(),
                       engine.outputs.size(), path, engine.cuda);
}

inferrt_status loadKernels(std::string_view kernels, inferrt_engine_s &engine) {
  int fd = memfd_create("inferrt-kernels", MFD_CLOEXEC);
  if (fd < 0)
    return makeStatus(INFERRT_INTERNAL, "memfd_create failed: %s", std::strerror(errno));
  size_t written = 0;
  while (written < kernels.size()) {
    ssize_t n = write(fd, kernels.data() + written, kernels.size() - written);
    if (n <= 0) {
      close(fd);
      return makeStatus(INFERRT_INTERNAL, "writing the kernels to memory failed: %s",
                        std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    close(fd);
    const char *error = dlerror();
    return makeStatus(INFERRT_INVALID_ENGINE, "cannot load the engine's CPU kernels: %s",
                      error ? error : "unknown dlopen error");
  }
  auto entry = reinterpret_cast<EntryFn>(dlsym(library, "inferrt_entry"));
  if (!entry) {
    dlclose(library);
    close(fd);
    return makeStatus(INFERRT_INVALID_ENGINE, "the engine's kernels lack the 'inferrt_entry' symbol");
  }
  engine.library = library;
  engine.kernelFd = fd;
  engine.entry = entry;
  // Through the kernels' own dependencies: absent when no kernel is parallel.
  engine.setThreads = reinterpret_cast<void (*)(int)>(dlsym(library, "omp_set_num_threads"));
  return nullptr;
}

} // namespace

extern "C" {

static inferrt_status loadEngine(const char *path, inferrt_engine **out);

INFERRT_EXPORT inferrt_status inferrt_engine_load(const char *path, inferrt_engine **out) {
  if (!path || !out)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "inferrt_engine_load: null argument");
  *out = nullptr;
  // Nothing may escape the C API: allocation failures become statuses.
  try {
    return loadEngine(path, out);
  } catch (const std::bad_alloc &) {
    return makeStatus(INFERRT_INTERNAL, "out of host memory loading '%s'", path);
  } catch (const std::exception &e) {
    return makeStatus(INFERRT_INTERNAL, "loading '%s' failed: %s", path, e.what());
  }
}

static inferrt_status loadEngine(const char *path, inferrt_engine **out) {
  struct stat info;
  if (stat(path, &info) != 0)
    return makeStatus(INFERRT_NOT_FOUND, "cannot open engine '%s': %s", path, std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return makeStatus(INFERRT_INVALID_ARGUMENT, "'%s' is not a regular file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeStatus(INFERRT_NOT_FOUND, "cannot open engine '%s': %s", path, std::strerror(errno));
  // One read of the whole file into a section-aligned buffer the engine
  // keeps: sections are views into it and the weights are used in place.
  auto engine = std::make_unique<inferrt_engine_s>();
  engine->path = path;
  size_t capacity = (static_cast<size_t>(info.st_size) / INFERRT_SECTION_ALIGNMENT + 1) *
                    INFERRT_SECTION_ALIGNMENT;
  engine->file = static_cast<char *>(std::aligned_alloc(INFERRT_SECTION_ALIGNMENT, capacity));
  if (!engine->file)
    return makeStatus(INFERRT_INTERNAL, "out of host memory reading '%s' (%lld bytes)", path,
                      (long long)info.st_size);
  in.read(engine->file, static_cast<std::streamsize>(info.st_size));
  std::string_view file(engine->file, static_cast<size_t>(in.gcount()));
  EngineLayout layout;
  std::string problem = readEngineLayout(file, path, layout);
  if (!problem.empty())
    return makeStatus(INFERRT_INVALID_ENGINE, "%s", problem.c_str());
  engine->target = layout.target;
  const std::string_view *sections = layout.sections;
  for (int kind : {INFERRT_SECTION_METADATA, INFERRT_SECTION_PLAN, INFERRT_SECTION_KERNELS})
    if (sections[kind].empty())
      return makeStatus(INFERRT_INVALID_ENGINE, "'%s' lacks section %d", path, kind);
  if (engine->target != kHostTarget && engine->target != kCudaTarget)
    return makeStatus(INFERRT_UNAVAILABLE,
                      "'%s' was built for target '%s'; this runtime runs '%s' and '%s' engines: "
                      "rebuild the engine for one of them",
                      path, engine->target.c_str(), kHostTarget, kCudaTarget);
  engine->metadataJson = std::string(sections[INFERRT_SECTION_METADATA]);
  json::Value metadata;
  if (!json::parse(engine->metadataJson, metadata) || !metadata.isObject())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the metadata is not valid JSON", path);
  if (inferrt_status s = parseTensors(metadata.find("inputs"), "input", engine->inputs))
    return s;
  if (inferrt_status s = parseTensors(metadata.find("outputs"), "output", engine->outputs))
    return s;
  if (inferrt_status s = loadPlan(sections[INFERRT_SECTION_PLAN], sections[INFERRT_SECTION_WEIGHTS],
                                  sections[INFERRT_SECTION_KERNELS], path, *engine))
    return s;
  if (engine->target == kCudaTarget) {
    // The GPU is opened by a context, not here: CUDA engines load and can be
    // inspected on any machine.
    *out = engine.release();
    return nullptr;
  }
#ifdef INFERRT_FUZZ_NO_KERNELS
  // The loader fuzzer (test/fuzz) stops here: dlopen of a mutated shared
  // object is not something the loader can make safe, and the checksums
  // already refuse any change to the kernels.
  return makeStatus(INFERRT_UNAVAILABLE, "fuzzing build: kernels not loaded");
#endif
  if (inferrt_status s = loadKernels(sections[INFERRT_SECTION_KERNELS], *engine))
    return s;
  *out = engine.release();
  return nullptr;
}

INFERRT_EXPORT void inferrt_engine_free(inferrt_engine *engine) { delete engine; }

INFERRT_EXPORT size_t inferrt_engine_num_inputs(const inferrt_engine *engine) {
  return engine ? engine->inputs.size() : 0;
}

INFERRT_EXPORT size_t inferrt_engine_num_outputs(const inferrt_engine *engine) {
  return engine ? engine->outputs.size() : 0;
}

static inferrt_status tensorInfo(const std::vector<TensorInfo> &list, size_t index, const char *what,
                                 inferrt_tensor_info *info) {
  if (!info)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "null info");
  if (index >= list.size())
    return makeStatus(INFERRT_INVALID_ARGUMENT, "%s index %zu is out of range (the engine has %zu)",
                      what, index, list.size());
  const TensorInfo &t = list[index];
  info->name = t.name.c_str();
  info->dtype = t.dtype.c_str();
  info->rank = static_cast<int32_t>(t.shape.size());
  for (size_t i = 0; i < t.shape.size(); ++i)
    info->dims[i] = t.shape[i];
  info->bytes = t.bytes;
  return nullptr;
}

INFERRT_EXPORT inferrt_status inferrt_engine_input_info(const inferrt_engine *engine, size_t index,
                                                        inferrt_tensor_info *info) {
  if (!engine)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "null engine");
  return tensorInfo(engine->inputs, index, "input", info);
}

INFERRT_EXPORT inferrt_status inferrt_engine_output_info(const inferrt_engine *engine, size_t index,
                                                         inferrt_tensor_info *info) {
  if (!engine)
    return makeStatus(INFERRT_INVALID_ARGUMENT, "null engine");
  return tensorInfo(engine->outputs, index, "output", info);
}

INFERRT_EXPORT const char *inferrt_engine_target(const inferrt_engine *engine) {
  return engine ? engine->target.c_str() : "";
}

INFERRT_EXPORT const char *inferrt_engine_metadata(const inferrt_engine *engine) {
  return engine ? engine->metadataJson.c_str() : "";
}

} // extern "C"

inferrt_engine_s::~inferrt_engine_s() {
  if (library)
    dlclose(library);
  if (kernelFd >= 0)
    close(kernelFd);
  std::free(file);
}
