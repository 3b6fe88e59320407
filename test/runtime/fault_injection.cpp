//===- fault_injection.cpp - fail every allocation of load and create ----===//
//
// Usage: inferrt-fault-injection ENGINE
//
// This program defines malloc and its relatives itself, so that, by ELF
// symbol interposition, every allocation in the process (libinferrt's
// operator new and aligned_alloc, nlohmann::json, dlopen's) comes here.
// For every k it makes the k-th allocation of inferrt_engine_load, then of
// inferrt_context_create, fail, and checks that
//   - the call returns an error status with a message (no crash, no abort);
//   - every allocation made during the call has been freed once the status
//     is freed (nothing leaked);
//   - the engine still works afterwards: a context runs and gives the same
//     output bytes as before any failure.
// It stops at the first k the call no longer reaches and prints one line of
// counts; any failed check prints a message and exits 1. Single-threaded:
// the runs use one OpenMP thread.
//
//===----------------------------------------------------------------------===//

#include "inferrt/inferrt.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {

// Allocations still to go before the failing one; 0: none armed.
long countdown = 0;
long allocations = 0; // Allocations seen while armed or tracking.
bool tracking = false;

// The live allocations made while tracking: open addressing, no allocation.
constexpr size_t kSlots = size_t(1) << 20;
void *live[kSlots];
size_t liveCount = 0;

size_t slotOf(void *p) { return (reinterpret_cast<uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ull % kSlots; }

/// Records `p` as live when tracking; returns it.
void *remembered(void *p) {
  if (!p || !tracking)
    return p;
  for (size_t i = slotOf(p);; i = (i + 1) % kSlots)
    if (!live[i] || live[i] == reinterpret_cast<void *>(1)) {
      live[i] = p;
      ++liveCount;
      return p;
    }
}

void forget(void *p) {
  if (!p || liveCount == 0)
    return;
  for (size_t i = slotOf(p); live[i]; i = (i + 1) % kSlots)
    if (live[i] == p) {
      live[i] = reinterpret_cast<void *>(1); // A tombstone keeps chains intact.
      --liveCount;
      return;
    }
}

/// True when this allocation is the one to fail.
bool failNow() {
  if (!tracking)
    return false;
  ++allocations;
  if (countdown > 0 && --countdown == 0) {
    errno = ENOMEM;
    return true;
  }
  return false;
}

void startTracking(long failAt) {
  std::memset(live, 0, sizeof(live));
  liveCount = 0;
  allocations = 0;
  countdown = failAt;
  tracking = true;
}

void stopTracking() {
  tracking = false;
  countdown = 0;
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "inferrt-fault-injection: %s\n", message.c_str());
  std::exit(1);
}

} // namespace

extern "C" {
void *malloc(size_t n) { return failNow() ? nullptr : remembered(__libc_malloc(n)); }
void *calloc(size_t count, size_t n) {
  return failNow() ? nullptr : remembered(__libc_calloc(count, n));
}
void *realloc(void *old, size_t n) {
  if (failNow())
    return nullptr; // The old block stays valid, as realloc promises.
  void *p = __libc_realloc(old, n);
  if (p) {
    forget(old);
    remembered(p);
  }
  return p;
}
void *memalign(size_t alignment, size_t n) {
  return failNow() ? nullptr : remembered(__libc_memalign(alignment, n));
}
void *aligned_alloc(size_t alignment, size_t n) { return memalign(alignment, n); }
int posix_memalign(void **out, size_t alignment, size_t n) {
  void *p = memalign(alignment, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
void free(void *p) {
  forget(p);
  __libc_free(p);
}
} // extern "C"

namespace {

/// Runs one inference on a fresh context of `engine` (input bytes 1, 2, 3,
/// ... as floats' raw bytes do not matter: any fixed input) and returns the
/// first output's bytes.
std::string runOnce(const inferrt_engine *engine) {
  inferrt_context *context = nullptr;
  if (inferrt_status s = inferrt_context_create(engine, &context))
    fail(std::string("context after the failures: ") + inferrt_status_message(s));
  inferrt_context_set_threads(context, 1);
  for (size_t i = 0; i < inferrt_engine_num_inputs(engine); ++i) {
    inferrt_tensor_info info;
    inferrt_engine_input_info(engine, i, &info);
    std::string input(info.bytes, '\0');
    for (size_t b = 0; b < input.size(); ++b)
      input[b] = static_cast<char>((b * 7 + i) % 61); // Small finite floats.
    inferrt_context_set_input(context, i, input.data(), input.size());
  }
  if (inferrt_status s = inferrt_context_run(context))
    fail(std::string("run: ") + inferrt_status_message(s));
  const void *data = nullptr;
  size_t bytes = 0;
  inferrt_context_get_output(context, 0, &data, &bytes);
  std::string output(static_cast<const char *>(data), bytes);
  inferrt_context_free(context);
  return output;
}

/// Checks one failed call's status and that nothing it allocated is left
/// once the status is freed.
void checkFailure(inferrt_status status, const char *what, long k) {
  if (!status)
    return;
  const char *message = inferrt_status_message(status);
  if (!message || !*message || inferrt_status_get_code(status) == INFERRT_OK)
    fail(std::string(what) + ": allocation " + std::to_string(k) + " failed but the status is empty");
  inferrt_status_free(status);
  (void)dlerror(); // glibc keeps the last dlopen error until it is read.
  if (liveCount != 0)
    fail(std::string(what) + ": allocation " + std::to_string(k) + " failed and " +
         std::to_string(liveCount) + " allocations were not freed");
}

} // namespace

int main(int argc, char **argv) {
  // An exception escaping the runtime ends in std::terminate: say where.
  std::set_terminate([] {
    void *frames[64];
    int n = backtrace(frames, 64);
    std::fprintf(stderr, "inferrt-fault-injection: std::terminate (an exception escaped); stack:\n");
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    std::_Exit(1);
  });
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s ENGINE\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  // Warm up: one-time lazy allocations (iostreams, the OpenMP runtime) happen
  // here, outside the counted calls.
  inferrt_engine *engine = nullptr;
  if (inferrt_status s = inferrt_engine_load(path, &engine))
    fail(std::string("load: ") + inferrt_status_message(s));
  std::string reference = runOnce(engine);

  long loadCalls = 0, contextCalls = 0;
  bool verbose = std::getenv("INFERRT_FAULT_VERBOSE") != nullptr;
  for (long k = 1;; ++k) {
    if (verbose)
      std::fprintf(stderr, "load: failing allocation %ld\n", k);
    inferrt_engine *attempt = nullptr;
    startTracking(k);
    inferrt_status s = inferrt_engine_load(path, &attempt);
    stopTracking();
    if (!s) { // The call needed fewer than k allocations: every one was failed once.
      inferrt_engine_free(attempt);
      loadCalls = k - 1;
      break;
    }
    if (attempt)
      fail("load: a failed load returned an engine");
    checkFailure(s, "load", k);
  }
  for (long k = 1;; ++k) {
    if (verbose)
      std::fprintf(stderr, "context: failing allocation %ld\n", k);
    inferrt_context *context = nullptr;
    startTracking(k);
    inferrt_status s = inferrt_context_create(engine, &context);
    stopTracking();
    if (!s) {
      inferrt_context_free(context);
      contextCalls = k - 1;
      break;
    }
    if (context)
      fail("context: a failed create returned a context");
    checkFailure(s, "context", k);
    if (runOnce(engine) != reference)
      fail("the engine's output changed after a failed context creation");
  }
  inferrt_engine *again = nullptr;
  if (inferrt_status s = inferrt_engine_load(path, &again))
    fail(std::string("load after the failures: ") + inferrt_status_message(s));
  if (runOnce(again) != reference || runOnce(engine) != reference)
    fail("outputs changed after the failures");
  inferrt_engine_free(again);
  inferrt_engine_free(engine);
  std::printf("failed each of the %ld allocations of inferrt_engine_load and the %ld of "
              "inferrt_context_create once: every failure returned a status, nothing leaked, "
              "the engine still runs\n",
              loadCalls, contextCalls);
  return 0;
}
