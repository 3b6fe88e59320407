//===- Driver.cpp - dlopen libcuda and resolve its entry points -----------===//

#include "Cuda/Driver.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

using namespace inferrt;
using namespace inferrt::cuda;

#define INFERRT_STRINGIFY(x) #x
// Expands a macro argument (cuMemAlloc -> cuMemAlloc_v2) before quoting.
#define INFERRT_EXPORTED_NAME(x) INFERRT_STRINGIFY(x)

namespace {

struct Loaded {
  Driver driver;
  std::string error; // Empty when the driver is usable.
};

/// `name`, else the older export of the same prototype that drivers
/// predating the header have (cuEventElapsedTime_v2 came with CUDA 12.8).
void *lookup(void *library, const char *name) {
  static const char *const fallbacks[][2] = {{"cuEventElapsedTime_v2", "cuEventElapsedTime"}};
  if (void *symbol = dlsym(library, name))
    return symbol;
  for (const auto &[newer, older] : fallbacks)
    if (std::strcmp(name, newer) == 0)
      return dlsym(library, older);
  return nullptr;
}

Loaded load() {
  Loaded loaded;
  const char *override = std::getenv("INFERRT_LIBCUDA");
  const char *name = override && *override ? override : "libcuda.so.1";
  // Kept for the life of the process: contexts may outlive any engine, and
  // the driver does not support being unloaded.
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loaded.error = std::string("CUDA driver not found (") + (why ? why : name) + ")";
    return loaded;
  }
  Driver &d = loaded.driver;
  const char *missing = nullptr;
#define INFERRT_CUDA_RESOLVE(fn)                                                                   \
  d.fn = reinterpret_cast<decltype(d.fn)>(lookup(library, INFERRT_EXPORTED_NAME(fn)));             \
  if (!d.fn && !missing)                                                                           \
    missing = INFERRT_EXPORTED_NAME(fn);
  INFERRT_CUDA_DRIVER_FUNCTIONS(INFERRT_CUDA_RESOLVE)
#undef INFERRT_CUDA_RESOLVE
  if (missing) {
    loaded.error = std::string("the CUDA driver '") + name + "' lacks " + missing +
                   ": it is too old (this runtime needs CUDA 12 or newer) or not a CUDA driver";
    return loaded;
  }
  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS)
    loaded.error = "the CUDA driver failed to initialize (cuInit: " + describe(d, r) + ")";
  return loaded;
}

} // namespace

const Driver *cuda::loadDriver(std::string &error) {
  // Never freed, like the library: a static destructor could run while
  // another thread's context still uses the driver.
  static Loaded *loaded = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { loaded = new Loaded(load()); });
  if (!loaded->error.empty()) {
    error = loaded->error;
    return nullptr;
  }
  return &loaded->driver;
}

std::string cuda::describe(const Driver &driver, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "CUDA error";
  if (driver.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "unknown error";
  return std::string(name) + " (" + std::to_string(static_cast<int>(result)) + "): " + text;
}
