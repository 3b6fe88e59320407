//===- Internal.h - runtime internals shared by its .cpp files -*- C++ -*-===//

#ifndef INFERRT_LIB_RUNTIME_INTERNAL_H
#define INFERRT_LIB_RUNTIME_INTERNAL_H

#include "inferrt/inferrt.h"

#include <string>
#include <vector>

#define INFERRT_EXPORT __attribute__((visibility("default")))

struct inferrt_status_s {
  inferrt_status_code code;
  std::string message;
};

namespace inferrt {

/// A new status with a printf-style message.
inferrt_status makeStatus(inferrt_status_code code, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

struct TensorInfo {
  std::string name, dtype;
  std::vector<int64_t> shape;
  size_t bytes = 0;
  size_t elementBytes = 0;
};

/// The entry every CPU kernel library exports (see lib/Codegen/CPU).
using EntryFn = void (*)(void **descriptors);

} // namespace inferrt

struct inferrt_engine_s {
  std::string target;
  std::string metadataJson;
  std::vector<inferrt::TensorInfo> inputs, outputs;
  void *library = nullptr; // dlopen handle of the kernels
  int kernelFd = -1;       // The memfd behind it, open while loaded: its
                           // /proc/self/fd path must stay unique, or glibc
                           // would hand the next engine this library.
  inferrt::EntryFn entry = nullptr;
};

#endif // INFERRT_LIB_RUNTIME_INTERNAL_H
