//===- Plan.h - a CUDA engine's plan: modules and launches -----*- C++ -*-===//
//
// What the loader reads from a CUDA engine's plan (docs/engine-format.md):
// the GPU module images (views into the KERNELS section) and the launches
// in order. Parsing and module selection need no driver and no cuda.h, so
// every build of the runtime loads and checks CUDA engines, with or without
// a GPU or the CUDA backend.
//
//===----------------------------------------------------------------------===//

#ifndef INFERRT_LIB_RUNTIME_CUDA_PLAN_H
#define INFERRT_LIB_RUNTIME_CUDA_PLAN_H

#include "inferrt/inferrt.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inferrt {

namespace json {
struct Value;
} // namespace json

struct CudaModule {
  enum Format { Cubin, Ptx } format = Cubin;
  std::string arch;       // "sm_90"
  int major = 0, minor = 0; // 9, 0
  std::string_view image; // In the engine's file buffer.
};

struct CudaArg {
  enum Kind { Input, Weight, Output, Arena } kind = Arena;
  size_t index = 0; // Unused for the arena.
};

struct CudaLaunch {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<CudaArg> args;
};

struct CudaPlan {
  std::vector<CudaModule> modules;
  std::vector<CudaLaunch> launches;
};

/// Parses and checks the plan's `modules` (their images inside `kernels`)
/// and `launches` (kernel names, grid and block sizes, argument kinds and
/// indices against `inputs`, `weights` and `outputs` tensors), for the
/// engine at `path` (in messages).
inferrt_status parseCudaPlan(const json::Value &plan, std::string_view kernels, size_t inputs,
                             size_t weights, size_t outputs, const char *path, CudaPlan &out);

/// The module to load on a device of compute capability major.minor: a
/// cubin for sm_XY runs on the same major with minor >= Y (the newest such
/// one is taken); else PTX for sm_XY, JIT-compiled, runs on any capability
/// >= XY (the newest such one); else null.
const CudaModule *selectCudaModule(const CudaPlan &plan, int major, int minor);

/// The architectures the plan has modules for, each once, in order:
/// "sm_80, sm_90".
std::string cudaArchList(const CudaPlan &plan);

} // namespace inferrt

#endif // INFERRT_LIB_RUNTIME_CUDA_PLAN_H
