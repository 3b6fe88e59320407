//===- Plan.cpp - parse and check a CUDA engine's modules and launches ----===//
//
// Everything the context will hand to the driver is checked here, at load
// time, so that a corrupt or lying plan is refused with a message instead
// of reaching cuLaunchKernel: module bounds, architectures, grid and block
// sizes (the driver's limits), argument kinds and indices.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Plan.h"

#include "Internal.h"
#include "Json.h"

#include <algorithm>

using namespace inferrt;

namespace {

// CUDA's limits: grid x < 2^31, grid y and z and block z small, at most
// 1024 threads a block. Parameters: 4 KiB on older drivers, 8 bytes each.
constexpr uint64_t kMaxGrid[3] = {0x7fffffffu, 65535, 65535};
constexpr uint64_t kMaxBlock[3] = {1024, 1024, 64};
constexpr uint64_t kMaxThreads = 1024;
constexpr size_t kMaxArguments = 512;
// No GPU has more shared memory a block than this (sm_90: 227 KiB).
constexpr uint64_t kMaxSharedBytes = 1u << 20;

/// "sm_90" -> 9, 0; "sm_121" -> 12, 1. False if malformed.
bool parseArch(const std::string &arch, int &major, int &minor) {
  if (arch.size() < 5 || arch.size() > 6 || arch.compare(0, 3, "sm_") != 0)
    return false;
  int value = 0;
  for (size_t i = 3; i < arch.size(); ++i) {
    if (arch[i] < '0' || arch[i] > '9')
      return false;
    value = value * 10 + (arch[i] - '0');
  }
  major = value / 10;
  minor = value % 10;
  return major > 0;
}

/// Three positive integers within `limits`.
bool parseDims(const json::Value *list, const uint64_t (&limits)[3], unsigned (&dims)[3]) {
  if (!list || !list->isArray() || list->items.size() != 3)
    return false;
  for (int i = 0; i < 3; ++i) {
    const json::Value &d = list->items[i];
    if (!d.isUnsigned || d.unsignedInteger == 0 || d.unsignedInteger > limits[i])
      return false;
    dims[i] = static_cast<unsigned>(d.unsignedInteger);
  }
  return true;
}

inferrt_status parseModule(const json::Value &m, size_t i, std::string_view kernels,
                           const char *path, CudaModule &out) {
  const json::Value *format = m.find("format"), *arch = m.find("arch"), *offset = m.find("offset"),
                    *bytes = m.find("bytes");
  if (!format || !format->isString() || !arch || !arch->isString() || !offset ||
      !offset->isUnsigned || !bytes || !bytes->isUnsigned)
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu lacks format, arch, offset or bytes",
                      path, i);
  if (format->text == "cubin")
    out.format = CudaModule::Cubin;
  else if (format->text == "ptx")
    out.format = CudaModule::Ptx;
  else
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu has unknown format '%s' (cubin or ptx)",
                      path, i, format->text.c_str());
  if (!parseArch(arch->text, out.major, out.minor))
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': module %zu has a bad architecture '%s' (expected sm_XY)", path, i,
                      arch->text.c_str());
  uint64_t begin = offset->unsignedInteger, size = bytes->unsignedInteger;
  if (size == 0 || begin > kernels.size() || size > kernels.size() - begin)
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': module %zu lies outside the kernels section",
                      path, i);
  out.arch = arch->text;
  out.image = kernels.substr(begin, size);
  return nullptr;
}

inferrt_status parseArg(const json::Value &arg, size_t launch, size_t i, const size_t (&counts)[3],
                        const char *path, CudaArg &out) {
  static const char *const names[] = {"input", "weight", "output"};
  const json::Value *kind = arg.find("kind"), *index = arg.find("index");
  if (!kind || !kind->isString())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu argument %zu lacks its kind", path,
                      launch, i);
  if (kind->text == "arena") {
    out.kind = CudaArg::Arena;
    return nullptr;
  }
  int k = 0;
  while (k < 3 && kind->text != names[k])
    ++k;
  if (k == 3)
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': launch %zu argument %zu has unknown kind '%s' (input, weight, "
                      "output or arena)",
                      path, launch, i, kind->text.c_str());
  out.kind = static_cast<CudaArg::Kind>(k); // Input, Weight, Output, in names' order.
  if (!index || !index->isUnsigned || index->unsignedInteger >= counts[k])
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': launch %zu argument %zu: %s index is missing or out of range (the "
                      "engine has %zu %s(s))",
                      path, launch, i, names[k], counts[k], names[k]);
  out.index = static_cast<size_t>(index->unsignedInteger);
  return nullptr;
}

inferrt_status parseLaunch(const json::Value &l, size_t i, const size_t (&counts)[3],
                           const char *path, CudaLaunch &out) {
  const json::Value *kernel = l.find("kernel"), *args = l.find("args"),
                    *shared = l.find("shared_bytes");
  if (!kernel || !kernel->isString() || kernel->text.empty() ||
      kernel->text.find('\0') != std::string::npos || !args || !args->isArray())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu lacks its kernel name or args", path,
                      i);
  if (!parseDims(l.find("grid"), kMaxGrid, out.grid))
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': launch %zu has a bad grid (three positive sizes within CUDA's limits)",
                      path, i);
  if (!parseDims(l.find("block"), kMaxBlock, out.block) ||
      uint64_t(out.block[0]) * out.block[1] * out.block[2] > kMaxThreads)
    return makeStatus(INFERRT_INVALID_ENGINE,
                      "'%s': launch %zu has a bad block (three positive sizes, at most %llu "
                      "threads in all)",
                      path, i, (unsigned long long)kMaxThreads);
  if (shared && (!shared->isUnsigned || shared->unsignedInteger > kMaxSharedBytes))
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu has an implausible shared_bytes",
                      path, i);
  if (args->items.size() > kMaxArguments)
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': launch %zu has %zu arguments (at most %zu)",
                      path, i, args->items.size(), kMaxArguments);
  out.kernel = kernel->text;
  out.sharedBytes = shared ? static_cast<unsigned>(shared->unsignedInteger) : 0;
  out.args.resize(args->items.size());
  for (size_t a = 0; a < args->items.size(); ++a)
    if (inferrt_status s = parseArg(args->items[a], i, a, counts, path, out.args[a]))
      return s;
  return nullptr;
}

} // namespace

inferrt_status inferrt::parseCudaPlan(const json::Value &plan, std::string_view kernels,
                                      size_t inputs, size_t weights, size_t outputs,
                                      const char *path, CudaPlan &out) {
  const json::Value *modules = plan.find("modules"), *launches = plan.find("launches");
  if (!modules || !modules->isArray() || modules->items.empty())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the CUDA plan lacks its modules", path);
  if (!launches || !launches->isArray())
    return makeStatus(INFERRT_INVALID_ENGINE, "'%s': the CUDA plan lacks its launches", path);
  out.modules.resize(modules->items.size());
  for (size_t i = 0; i < modules->items.size(); ++i)
    if (inferrt_status s = parseModule(modules->items[i], i, kernels, path, out.modules[i]))
      return s;
  const size_t counts[3] = {inputs, weights, outputs};
  out.launches.resize(launches->items.size());
  for (size_t i = 0; i < launches->items.size(); ++i)
    if (inferrt_status s = parseLaunch(launches->items[i], i, counts, path, out.launches[i]))
      return s;
  return nullptr;
}

const CudaModule *inferrt::selectCudaModule(const CudaPlan &plan, int major, int minor) {
  const CudaModule *best = nullptr;
  for (const CudaModule &m : plan.modules)
    if (m.format == CudaModule::Cubin && m.major == major && m.minor <= minor &&
        (!best || m.minor > best->minor))
      best = &m;
  if (best)
    return best;
  auto capability = [](int ma, int mi) { return ma * 10 + mi; };
  for (const CudaModule &m : plan.modules)
    if (m.format == CudaModule::Ptx && capability(m.major, m.minor) <= capability(major, minor) &&
        (!best || capability(m.major, m.minor) > capability(best->major, best->minor)))
      best = &m;
  return best;
}

std::string inferrt::cudaArchList(const CudaPlan &plan) {
  std::vector<std::string> archs;
  for (const CudaModule &m : plan.modules)
    if (std::find(archs.begin(), archs.end(), m.arch) == archs.end())
      archs.push_back(m.arch);
  std::string list;
  for (const std::string &arch : archs)
    list += (list.empty() ? "" : ", ") + arch;
  return list;
}
