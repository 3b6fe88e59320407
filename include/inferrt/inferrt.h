/*===- inferrt.h - the infer-opt runtime C API -----------------------------===*
 *
 * Loads an engine file written by infer-opt and runs it. No MLIR or LLVM
 * inside; every function returns a status (NULL on success) that carries a
 * message, and never aborts or exits.
 *
 * Thread safety: an inferrt_engine is immutable after loading and may be
 * shared by any number of threads (its CUDA contexts share its module and
 * weights on each device, under a lock). An inferrt_context holds the
 * buffers of one inference and must be used by one thread at a time;
 * create one context per thread. Inside one run, large CPU kernels split
 * their work over the OpenMP runtime's threads (see
 * inferrt_context_set_threads); results do not depend on the thread count.
 *
 *===----------------------------------------------------------------------===*/

#ifndef INFERRT_INFERRT_H
#define INFERRT_INFERRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct inferrt_status_s *inferrt_status; /* NULL means success. */
typedef struct inferrt_engine_s inferrt_engine;
typedef struct inferrt_context_s inferrt_context;

typedef enum {
  INFERRT_OK = 0,
  INFERRT_INVALID_ARGUMENT = 1, /* wrong index, size, name */
  INFERRT_INVALID_ENGINE = 2,   /* corrupt, truncated or incompatible engine */
  INFERRT_NOT_FOUND = 3,        /* missing file */
  INFERRT_UNAVAILABLE = 4,      /* no device / driver for the engine's target */
  INFERRT_INTERNAL = 5,
} inferrt_status_code;

inferrt_status_code inferrt_status_get_code(inferrt_status status);
const char *inferrt_status_message(inferrt_status status);
void inferrt_status_free(inferrt_status status);

#define INFERRT_MAX_RANK 8

typedef struct {
  const char *name;  /* owned by the engine */
  const char *dtype; /* "float32", "int64", "bool", ... */
  int32_t rank;
  int64_t dims[INFERRT_MAX_RANK];
  size_t bytes; /* size of the whole tensor */
} inferrt_tensor_info;

/* Reads and verifies the whole engine (magic, version, target, checksums,
 * every offset and size) before using any of it. */
inferrt_status inferrt_engine_load(const char *path, inferrt_engine **engine);
void inferrt_engine_free(inferrt_engine *engine);
size_t inferrt_engine_num_inputs(const inferrt_engine *engine);
size_t inferrt_engine_num_outputs(const inferrt_engine *engine);
inferrt_status inferrt_engine_input_info(const inferrt_engine *engine, size_t index,
                                         inferrt_tensor_info *info);
inferrt_status inferrt_engine_output_info(const inferrt_engine *engine, size_t index,
                                          inferrt_tensor_info *info);
/* The engine's target descriptor ("cpu-x86_64" or "cuda") and metadata JSON. */
const char *inferrt_engine_target(const inferrt_engine *engine);
const char *inferrt_engine_metadata(const inferrt_engine *engine);

/* A context on the engine's own device: the CPU for CPU engines, CUDA
 * device 0 for CUDA engines. */
inferrt_status inferrt_context_create(const inferrt_engine *engine, inferrt_context **context);
/* A context on `device`: "cpu", "cuda" (device 0) or "cuda:N"; NULL means
 * the engine's own device. A CPU engine runs only on "cpu", a CUDA engine
 * only on "cuda[:N]" (INFERRT_INVALID_ARGUMENT otherwise, and for a device
 * index the machine lacks). The CUDA driver (libcuda.so.1, or the library
 * $INFERRT_LIBCUDA names) is loaded by the first CUDA context; without it:
 * INFERRT_UNAVAILABLE "CUDA driver not found (...)". A CUDA context holds
 * device buffers for its inputs, outputs and arena, pinned host staging,
 * one stream and two events; the engine's module (the cubin for the GPU's
 * architecture, else its PTX, JIT-compiled) and its weights are loaded on
 * the device once, by the first context there, and shared by the engine's
 * contexts on that device. */
inferrt_status inferrt_context_create_on(const inferrt_engine *engine, const char *device,
                                         inferrt_context **context);
/* CUDA: capture the launches into a CUDA graph on the first run and replay
 * it (enabled != 0, the default), or launch them one by one on every run.
 * INFERRT_INVALID_ARGUMENT for a CPU context. */
inferrt_status inferrt_context_set_cuda_graph(inferrt_context *context, int enabled);
/* CUDA: the device time of the last successful run's kernels, measured
 * with CUDA events (the input and output copies excluded). An
 * INFERRT_INVALID_ARGUMENT for a CPU context or before a successful run. */
inferrt_status inferrt_context_last_gpu_time_ms(const inferrt_context *context, double *ms);
void inferrt_context_free(inferrt_context *context);
/* Copies `bytes` (which must equal the input's size) into input `index`. */
inferrt_status inferrt_context_set_input(inferrt_context *context, size_t index,
                                         const void *data, size_t bytes);
/* Threads the kernels of this context's runs use; 0 (the default) leaves
 * the OpenMP runtime's choice (OMP_NUM_THREADS, else every core). No
 * effect on a CUDA context. */
inferrt_status inferrt_context_set_threads(inferrt_context *context, int threads);
/* Runs the model on the current inputs. A CUDA run that fails makes its
 * context unhealthy: later runs fail with INFERRT_INTERNAL "the CUDA context
 * is unhealthy after an earlier error (...): free it and create a new one". */
inferrt_status inferrt_context_run(inferrt_context *context);
/* Points `data` at output `index`, valid until the next run or free (for
 * a CUDA context, its pinned host copy). */
inferrt_status inferrt_context_get_output(inferrt_context *context, size_t index,
                                          const void **data, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* INFERRT_INFERRT_H */
