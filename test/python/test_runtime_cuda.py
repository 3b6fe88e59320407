"""The runtime's CUDA backend, without a GPU: hand-made CUDA engines
(cuda_engines.py) run against a fake driver (test/runtime/fake_cuda.cpp,
INFERRT_LIBCUDA) that simulates devices, compute capabilities, memory
limits and failures, and copies data where a kernel named `copy` runs.
Each case checks the behaviour the C API documents: data reaching the
outputs through graphs or plain launches, module selection, device
selection, clear errors, and nothing left allocated (the fake counts).

These always use the fake driver, also on a machine with a GPU; the real
GPU is exercised by scripts/gpu-check.sh."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest

from cuda_engines import FAKE_CUDA, arg, copy, cpu_engine, cuda_engine, run_client, tensor
from infer_cpu import INFER_OPT, LIBINFERRT

INFER_RUN = INFER_OPT.parent / "infer-run"

# The fake driver is built with the CUDA backend (INFER_RUNTIME_CUDA).
needs_backend = pytest.mark.skipif(not FAKE_CUDA.exists(),
                                   reason=f"{FAKE_CUDA} not built: the runtime has no CUDA backend")

INVALID_ARGUMENT, INVALID_ENGINE, UNAVAILABLE, INTERNAL = 1, 2, 4, 5


def fake(**settings) -> dict:
    """The environment of a process on the fake driver."""
    env = {"INFERRT_LIBCUDA": FAKE_CUDA}
    env.update({f"FAKE_CUDA_{k.upper()}": v for k, v in settings.items()})
    return env


@needs_backend
def test_loading_needs_no_driver_and_cpu_engines_still_run(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    cpu = cpu_engine(tmp_path / "cpu.engine")
    missing = tmp_path / "no" / "libcuda.so.1"
    r = run_client([{"op": "load", "engine": str(engine)},
                    {"op": "create"},
                    {"op": "load", "engine": str(cpu), "as": "cpu"},
                    {"op": "create", "engine": "cpu", "as": "k"},
                    {"op": "input", "context": "k", "values": [1, -2, 3.5, 0.25]},
                    {"op": "run", "context": "k"},
                    {"op": "output", "context": "k"}],
                   INFERRT_LIBCUDA=missing)
    assert r[0]["code"] == 0 and r[0]["value"] == "cuda"
    assert r[1]["code"] == UNAVAILABLE
    assert r[1]["message"].startswith(f"CUDA driver not found ({missing}: cannot open"), r[1]
    assert all(x["code"] == 0 for x in r[2:]), r
    assert r[-1]["value"] == [2, -4, 7, 0.5]


@needs_backend
@pytest.mark.parametrize("graphs", [True, False])
def test_inputs_reach_the_outputs_on_every_run(tmp_path, graphs):
    engine = cuda_engine(tmp_path / "m.engine")
    ops = [{"op": "load", "engine": str(engine)}, {"op": "create", "device": "cuda"},
           {"op": "graph", "enabled": int(graphs)}, {"op": "gpu_time"}]
    runs = [[1, 2, 3, 4], [-1, 0.5, 8, 9], [7, 7, 7, 7]]
    for values in runs:
        ops += [{"op": "input", "values": values}, {"op": "run"}, {"op": "output"}]
    ops += [{"op": "gpu_time"}, {"op": "stat", "name": "launches"},
            {"op": "stat", "name": "captures"}, {"op": "stat", "name": "graph_launches"},
            {"op": "free"}, {"op": "free_engine"}, {"op": "stat", "name": "live"}]
    r = run_client(ops, **fake())
    assert r[3]["code"] == INVALID_ARGUMENT and "has not run successfully yet" in r[3]["message"]
    outputs = [x["value"] for x in r if "value" in x and isinstance(x["value"], list)]
    # A graph captured once must still copy each run's new input.
    assert outputs == runs
    gpu, launches, captures, graph_launches, live = (x.get("value") for x in r[-7:-6] + r[-6:-3] + r[-1:])
    assert gpu == 0.25  # the fake's event time: read from the events
    assert launches == 2 * len(runs)
    assert (captures, graph_launches) == ((1, len(runs)) if graphs else (0, 0))
    assert live == 0


@needs_backend
def test_weights_reach_the_kernels(tmp_path):
    weight = np.array([3, 1, 4, 1, 5, 9], np.float32)
    engine = cuda_engine(tmp_path / "m.engine", outputs=[tensor("y", [6])], weights=[weight],
                         launches=[copy(arg("weight", 0), arg("output", 0))])
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"}, {"op": "run"},
                    {"op": "output"}], **fake())
    assert r[-1]["value"] == weight.tolist()


@needs_backend
def test_contexts_of_an_engine_share_its_module_and_weights(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine", weights=[np.ones(64, np.float32)])
    r = run_client([{"op": "load", "engine": str(engine)},
                    {"op": "create", "as": "a"}, {"op": "stat", "name": "device_allocations"},
                    {"op": "create", "as": "b"}, {"op": "stat", "name": "device_allocations"},
                    {"op": "stat", "name": "cubin_loads"},
                    {"op": "free", "context": "a"},
                    {"op": "input", "context": "b", "values": [5, 6, 7, 8]},
                    {"op": "run", "context": "b"}, {"op": "output", "context": "b"},
                    {"op": "free", "context": "b"}, {"op": "stat", "name": "live"},
                    {"op": "create", "as": "c"}, {"op": "stat", "name": "cubin_loads"},
                    {"op": "free", "context": "c"}, {"op": "stat", "name": "live"}], **fake())
    first, second = r[2]["value"], r[4]["value"]
    # A context: arena, input, output (device); the weight only once.
    assert first == 4 and second == first + 3
    assert r[5]["value"] == 1
    assert r[9]["value"] == [5, 6, 7, 8]
    assert r[11]["value"] == 0
    assert r[13]["value"] == 2  # made again after the last context went
    assert r[15]["value"] == 0


@needs_backend
def test_device_selection(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    cpu = cpu_engine(tmp_path / "cpu.engine")
    devices = [None, "cuda", "cuda:0", "cuda:1", "cuda:2", "cuda:", "gpu", "CUDA", "cuda:x", "cpu"]
    ops = [{"op": "load", "engine": str(engine)}, {"op": "load", "engine": str(cpu), "as": "k"}]
    for device in devices:
        ops.append({"op": "create", "device": device, "as": str(device)})
    ops += [{"op": "create", "engine": "k", "device": d, "as": f"k{d}"} for d in ("cuda", "cuda:0", None)]
    ops += [{"op": "graph", "context": "kNone", "enabled": 0},
            {"op": "gpu_time", "context": "kNone"}]
    r = run_client(ops, **fake(devices=2))
    by_device = dict(zip(devices, r[2:2 + len(devices)]))
    for ok in (None, "cuda", "cuda:0", "cuda:1"):
        assert by_device[ok]["code"] == 0, by_device[ok]
    assert by_device["cuda:2"] == {"code": INVALID_ARGUMENT,
                                   "message": "CUDA device 2 does not exist (this machine has 2)"}
    for bad in ("cuda:", "gpu", "CUDA", "cuda:x"):
        assert by_device[bad]["code"] == INVALID_ARGUMENT
        assert f"unknown device '{bad}': use cpu, cuda or cuda:N" in by_device[bad]["message"]
    assert by_device["cpu"]["code"] == INVALID_ARGUMENT
    assert by_device["cpu"]["message"] == (f"'{engine}' was built for target 'cuda' and cannot run "
                                           "on device 'cpu': rebuild it with --target=cpu")
    on_cpu = r[2 + len(devices):]
    for refused in on_cpu[:2]:
        assert refused["code"] == INVALID_ARGUMENT
        assert refused["message"].startswith(
            f"'{cpu}' was built for target 'cpu-x86_64' and cannot run on device 'cuda")
        assert refused["message"].endswith(": rebuild it with --target=cuda:sm_XY")
    assert on_cpu[2]["code"] == 0
    assert on_cpu[3]["code"] == INVALID_ARGUMENT and "CUDA device" in on_cpu[3]["message"]
    assert on_cpu[4]["code"] == INVALID_ARGUMENT and "CUDA device" in on_cpu[4]["message"]


CUBINS_AND_PTX = (("cubin", "sm_80"), ("ptx", "sm_80"), ("cubin", "sm_90"))


@needs_backend
@pytest.mark.parametrize("sm,modules,loaded", [
    (90, CUBINS_AND_PTX, "cubin: fake cubin sm_90"),
    (89, CUBINS_AND_PTX, "cubin: fake cubin sm_80"),  # same major, lower minor
    (86, CUBINS_AND_PTX, "cubin: fake cubin sm_80"),
    (100, (("cubin", "sm_90"), ("ptx", "sm_90")), "ptx: // fake PTX sm_90"),  # JIT
    (120, CUBINS_AND_PTX, "ptx: // fake PTX sm_80"),
    (87, (("cubin", "sm_86"), ("ptx", "sm_80"), ("cubin", "sm_80")), "cubin: fake cubin sm_86"),
    (90, (("ptx", "sm_80"), ("ptx", "sm_90")), "ptx: // fake PTX sm_90"),
    (89, (("ptx", "sm_86"), ("cubin", "sm_80")), "cubin: fake cubin sm_80"),  # cubins first
])
def test_module_for_the_gpu(tmp_path, sm, modules, loaded):
    engine = cuda_engine(tmp_path / "m.engine", modules=modules)
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"}, {"op": "module"},
                    {"op": "stat", "name": "ptx_bytes"}, {"op": "stat", "name": "jit_log_buffers"},
                    {"op": "input", "values": [1, 2, 3, 4]}, {"op": "run"}, {"op": "output"}],
                   **fake(sm=sm))
    assert r[1]["code"] == 0, r[1]
    assert r[2]["value"] == loaded
    if loaded.startswith("ptx"):
        # Read as a C string: exactly the module's bytes, so the runtime
        # terminated it (the section has the next module's bytes after it).
        assert r[3]["value"] == len(f"{loaded[5:]}\nkernel copy 2\n// end\n")
    assert r[4]["value"] == 1  # a JIT error log buffer was passed
    assert r[-1]["value"] == [1, 2, 3, 4]


@needs_backend
@pytest.mark.parametrize("sm,modules", [(75, CUBINS_AND_PTX),
                                        (80, (("cubin", "sm_90"), ("ptx", "sm_90"))),
                                        (86, (("cubin", "sm_90"),))])
def test_no_module_for_the_gpu(tmp_path, sm, modules):
    engine = cuda_engine(tmp_path / "m.engine", modules=modules)
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"},
                    {"op": "stat", "name": "live"}], **fake(sm=sm))
    archs = ", ".join(dict.fromkeys(arch for _, arch in modules))
    assert r[1] == {"code": UNAVAILABLE,
                    "message": f"'{engine}' has kernels for {archs}; this GPU (Fake GPU 0) is "
                               f"sm_{sm}: rebuild with --target=cuda:sm_{sm}"}
    assert r[2]["value"] == 0


@needs_backend
def test_jit_failure_reports_the_log(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine", modules=(("ptx", "sm_90"),))
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"},
                    {"op": "stat", "name": "live"}],
                   **fake(sm=100, fail="cuModuleLoadDataEx", fail_code=218))
    assert r[1]["code"] == INVALID_ENGINE
    assert f"'{engine}': cannot load the engine's PTX for sm_90 on Fake GPU 0 (sm_100): " \
           "CUDA_ERROR_INVALID_PTX (218)" in r[1]["message"]
    assert "JIT log:\nptxas fatal: the fake driver refuses this module" in r[1]["message"]
    assert r[2]["value"] == 0


@needs_backend
def test_out_of_device_memory(tmp_path):
    weight = np.zeros(1000, np.float32)  # 4000 bytes
    engine = cuda_engine(tmp_path / "m.engine", weights=[weight], arena=10000)
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"},
                    {"op": "stat", "name": "live"}, {"op": "free_engine"}],
                   **fake(memory_bytes=12000))
    # Weights 4000 + arena 10000 + input and output 256 each (the minimum).
    assert r[1] == {"code": UNAVAILABLE,
                    "message": "out of GPU memory creating a context: needs 14512 bytes on cuda:0 "
                               "(Fake GPU 0): weights 4000 (once per device), arena 10000, inputs "
                               "and outputs 512"}
    assert r[2]["value"] == 0


CREATION_CALLS = ["cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute",
                  "cuDevicePrimaryCtxRetain", "cuCtxPushCurrent", "cuModuleLoadDataEx",
                  "cuModuleGetFunction", "cuFuncSetAttribute", "cuMemAlloc", "cuMemsetD8",
                  "cuMemcpyHtoD", "cuMemAllocHost", "cuStreamCreate", "cuEventCreate"]


@needs_backend
@pytest.mark.parametrize("another_context", [False, True])
def test_every_driver_failure_at_creation_leaks_nothing(tmp_path, another_context):
    # Two weights and a launch with more than 48 KiB of shared memory, so
    # that every call of context creation is made at least once.
    engine = cuda_engine(tmp_path / "m.engine", weights=[np.ones(8, np.float32)] * 2,
                         launches=[copy(arg("weight", 1), arg("arena"), shared_bytes=65536),
                                   copy(arg("arena"), arg("output", 0))])
    ops = [{"op": "load", "engine": str(engine)}]
    if another_context:  # Failures then must not free what it shares.
        ops += [{"op": "create", "as": "other"}, {"op": "stat", "name": "live"}]
    ops += [{"op": "sweep", "names": CREATION_CALLS}]
    if another_context:
        ops += [{"op": "run", "context": "other"}, {"op": "output", "context": "other"},
                {"op": "free", "context": "other"}]
    ops += [{"op": "stat", "name": "live"}]
    r = run_client(ops, **fake())
    baseline = r[2]["value"] if another_context else 0
    failures = next(x["value"] for x in r if x.get("value") and isinstance(x["value"], list)
                    and isinstance(x["value"][0], dict))
    failed = {f["name"] for f in failures}
    # With another context alive, the device's module and weights exist:
    # only the per-context calls are made.
    shared = {"cuDeviceGet", "cuDeviceGetName", "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain",
              "cuModuleLoadDataEx", "cuModuleGetFunction", "cuFuncSetAttribute", "cuMemcpyHtoD"}
    assert failed == (set(CREATION_CALLS) - shared if another_context else set(CREATION_CALLS))
    for f in failures:
        assert f["code"] in (INVALID_ARGUMENT, INVALID_ENGINE, UNAVAILABLE, INTERNAL), f
        assert "CUDA_ERROR_UNKNOWN" in f["message"], f
        assert f["live"] == baseline, f
    if another_context:  # It still runs: weight 1 (ones) through the arena.
        assert r[-3]["value"] == [1.0] * 4
    assert r[-1]["value"] == 0


@needs_backend
@pytest.mark.parametrize("graphs,fail,after,step", [
    (False, "cuLaunchKernel", 2, "launching kernel 'copy' (launch 0)"),
    (False, "cuLaunchKernel", 3, "launching kernel 'copy' (launch 1)"),
    (True, "cuLaunchKernel", 0, "launching kernel 'copy' (launch 0)"),
    (True, "cuStreamEndCapture", 0, "capturing the CUDA graph"),
    (True, "cuGraphInstantiate", 0, "instantiating the CUDA graph"),
    (True, "cuGraphLaunch", 1, "launching the CUDA graph"),
    (True, "cuMemcpyHtoDAsync", 1, "copying input 'x' to the GPU"),
    (True, "cuMemcpyDtoHAsync", 1, "copying output 'y' from the GPU"),
    (True, "cuEventElapsedTime", 1, "reading the GPU time"),
])
def test_a_failed_run_makes_the_context_unhealthy(tmp_path, graphs, fail, after, step):
    engine = cuda_engine(tmp_path / "m.engine")
    ops = [{"op": "load", "engine": str(engine)}, {"op": "create"},
           {"op": "graph", "enabled": int(graphs)}, {"op": "input", "values": [1, 2, 3, 4]}]
    ops += [{"op": "run"} for _ in range(4)]
    ops += [{"op": "free"}, {"op": "stat", "name": "live"},
            {"op": "env", "values": {"FAKE_CUDA_FAIL": None}},
            {"op": "create"}, {"op": "run"}, {"op": "output"}]
    r = run_client(ops, **fake(fail=fail, fail_after=after))
    runs = r[4:8]
    ok = next(i for i, x in enumerate(runs) if x["code"])
    assert all(x["code"] == 0 for x in runs[:ok])
    assert runs[ok] == {"code": INTERNAL,
                        "message": f"CUDA error {step}: CUDA_ERROR_UNKNOWN (999): an error of the "
                                   "fake driver; the context is unhealthy now: free it and create "
                                   "a new one"}
    for later in runs[ok + 1:]:
        assert later == {"code": INTERNAL,
                         "message": f"the CUDA context is unhealthy after an earlier error ({step}: "
                                    "CUDA_ERROR_UNKNOWN (999): an error of the fake driver): free "
                                    "it and create a new one"}
    assert ok < 3
    assert r[9]["value"] == 0
    # A new context works (its input was never set: zeros).
    assert r[-2]["code"] == 0 and r[-1]["value"] == [0, 0, 0, 0]


@needs_backend
def test_kernel_faults_surface_at_synchronization(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"}, {"op": "run"},
                    {"op": "run"}],
                   **fake(fail="cuStreamSynchronize", fail_code=700))
    assert r[2]["message"].startswith("CUDA error running the kernels: CUDA_ERROR_ILLEGAL_ADDRESS "
                                      "(700): an illegal memory access was encountered")
    assert "unhealthy after an earlier error (running the kernels: CUDA_ERROR_ILLEGAL_ADDRESS" \
        in r[3]["message"]


@needs_backend
def test_driver_that_fails_to_initialize(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"}],
                   **fake(fail="cuInit"))
    assert r[1] == {"code": UNAVAILABLE, "message": "the CUDA driver failed to initialize (cuInit: "
                                                    "CUDA_ERROR_UNKNOWN (999): an error of the "
                                                    "fake driver)"}


def _set(path, value):
    def edit(plan):
        *keys, last = path
        node = plan
        for key in keys:
            node = node[key]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value
    return edit


_DELETE = object()


@pytest.mark.parametrize("path,value,message", [
    (["modules"], _DELETE, "the CUDA plan lacks its modules"),
    (["modules"], [], "the CUDA plan lacks its modules"),
    (["launches"], _DELETE, "the CUDA plan lacks its launches"),
    (["modules", 0, "offset"], 10**6, "module 0 lies outside the kernels section"),
    (["modules", 0, "bytes"], 0, "module 0 lies outside the kernels section"),
    (["modules", 0, "bytes"], 10**6, "module 0 lies outside the kernels section"),
    (["modules", 0, "offset"], -1, "module 0 lacks format, arch, offset or bytes"),
    (["modules", 0, "format"], "fatbin", "module 0 has unknown format 'fatbin' (cubin or ptx)"),
    (["modules", 0, "arch"], "compute_90", "module 0 has a bad architecture 'compute_90'"),
    (["modules", 0, "arch"], "sm_9", "module 0 has a bad architecture 'sm_9'"),
    (["launches", 1, "kernel"], "", "launch 1 lacks its kernel name or args"),
    (["launches", 1, "args"], _DELETE, "launch 1 lacks its kernel name or args"),
    (["launches", 0, "grid"], [0, 1, 1], "launch 0 has a bad grid"),
    (["launches", 0, "grid"], [1, 70000, 1], "launch 0 has a bad grid"),
    (["launches", 0, "grid"], [1, 1], "launch 0 has a bad grid"),
    (["launches", 0, "block"], [2048, 1, 1], "launch 0 has a bad block"),
    (["launches", 0, "block"], [32, 32, 2], "launch 0 has a bad block (three positive sizes, at "
                                            "most 1024 threads in all)"),
    (["launches", 0, "block"], [-32, 1, 1], "launch 0 has a bad block"),
    (["launches", 0, "shared_bytes"], 1 << 21, "launch 0 has an implausible shared_bytes"),
    (["launches", 0, "args", 0, "kind"], "scratch",
     "launch 0 argument 0 has unknown kind 'scratch' (input, weight, output or arena)"),
    (["launches", 0, "args", 0, "index"], 1,
     "launch 0 argument 0: input index is missing or out of range (the engine has 1 input(s))"),
    (["launches", 1, "args", 1], {"kind": "output"},
     "launch 1 argument 1: output index is missing or out of range"),
    (["launches", 1, "args", 0], {"kind": "weight", "index": 0},
     "launch 1 argument 0: weight index is missing or out of range (the engine has 0 weight(s))"),
])
def test_corrupt_plans_are_refused_at_load(tmp_path, path, value, message):
    engine = cuda_engine(tmp_path / "m.engine", edit=_set(path, value))
    # No driver (and any build of the runtime): the loader checks the plan
    # without one.
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_CUDA")}
    env["INFERRT_LIBCUDA"] = str(tmp_path / "none.so")
    r = subprocess.run([str(INFER_RUN), str(engine)], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 1
    assert r.stderr.startswith(f"infer-run: error: '{engine}': {message}"), r.stderr


def infer_run(*args, env):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_CUDA")}
    environment.update({k: str(v) for k, v in env.items()})
    return subprocess.run([str(INFER_RUN), *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=60)


@needs_backend
@pytest.mark.parametrize("graphs", [True, False])
def test_infer_run_on_the_fake_gpu(tmp_path, rng, graphs):
    engine = cuda_engine(tmp_path / "m.engine")
    x = rng.standard_normal(4).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    flags = [] if graphs else ["--no-cuda-graph"]
    r = infer_run(engine, "--input", f"x={tmp_path / 'x.npy'}", "--compare", f"y={tmp_path / 'x.npy'}",
                  "--output-dir", tmp_path / "out", "--json", tmp_path / "report.json",
                  "--warmup", 2, "--iterations", 5, *flags, env=fake(report=1))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "latency (ms, end to end): mean" in r.stdout
    assert "GPU time (ms, kernels): mean 0.250  min 0.250" in r.stdout
    assert "compare 'y': match" in r.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), x)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["device"] == "cuda:0" and report["cuda_graph"] == graphs
    assert report["gpu_ms"]["p50"] == 0.25 and report["latency_ms"]["min"] > 0
    assert {"engine", "iterations", "warmup", "threads", "throughput_per_s", "compare"} <= set(report)
    # 7 runs of 2 launches; with graphs captured once and replayed.
    assert "fake-cuda: live 0 (" in r.stderr
    assert f"launches 14, captures {1 if graphs else 0}, graph launches {7 if graphs else 0}" in r.stderr


@needs_backend
def test_infer_run_device_errors(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    cpu = cpu_engine(tmp_path / "cpu.engine")
    cases = [(engine, ["--device", "cuda:3"], "CUDA device 3 does not exist (this machine has 1)"),
             (engine, ["--device", "cpu"], "was built for target 'cuda' and cannot run on device 'cpu': rebuild it with --target=cpu"),
             (engine, ["--device", "tpu"], "unknown device 'tpu'"),
             (cpu, ["--device", "cuda"], "was built for target 'cpu-x86_64' and cannot run on device 'cuda"),
             (cpu, ["--no-cuda-graph"], "CUDA graphs need a context on a CUDA device")]
    for path, flags, message in cases:
        r = infer_run(path, *flags, env=fake())
        assert r.returncode == 1, (flags, r.stderr)
        assert r.stderr.startswith("infer-run: error: ") and message in r.stderr, (flags, r.stderr)
    r = infer_run(cpu, "--device", "cpu", "--iterations", 2, "--json", tmp_path / "cpu.json",
                  env=fake())
    assert r.returncode == 0 and "GPU time" not in r.stdout, r.stderr
    assert "latency (ms): mean" in r.stdout
    report = json.loads((tmp_path / "cpu.json").read_text())
    assert report["device"] == "cpu" and "gpu_ms" not in report


@pytest.mark.skipif(FAKE_CUDA.exists(), reason="the runtime has its CUDA backend")
def test_runtime_without_cuda_backend(tmp_path):
    engine = cuda_engine(tmp_path / "m.engine")
    r = run_client([{"op": "load", "engine": str(engine)}, {"op": "create"}])
    assert r[0]["code"] == 0 and r[0]["value"] == "cuda"
    assert r[1]["code"] == UNAVAILABLE
    assert r[1]["message"].startswith("this runtime was built without CUDA support")
