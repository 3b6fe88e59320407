"""The runtime's CUDA backend without a GPU: a CUDA engine of the example
CNN (compiled here by infer-opt, ptxas included) run through infer-run against a fake driver
(build/lib/libfakecuda.so, test/runtime/fake_cuda.cpp) that simulates
devices, memory limits and failures. Each error must be a clear message, a
non-zero exit, and leave nothing allocated (the fake driver counts).

On a machine with a real GPU these still run against the fake driver; the
real-GPU checks are scripts/gpu-check.sh."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from infer_cpu import INFER_OPT, REPO

INFER_RUN = INFER_OPT.parent / "infer-run"
FAKE = INFER_OPT.parent.parent / "lib" / "libfakecuda.so"
EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    d = tmp_path_factory.mktemp("cuda")
    paths = {}
    for name, archs in (("both", "sm_80,sm_90"), ("sm90", "sm_90")):
        paths[name] = d / f"{name}.engine"
        subprocess.run([str(INFER_OPT), str(EXAMPLE), "--input-shape", "image:1x3x32x32",
                        f"--target=cuda:{archs}", "--emit=engine", "-o", str(paths[name])],
                       check=True, capture_output=True)
    paths["cpu"] = d / "cpu.engine"
    subprocess.run([str(INFER_OPT), str(EXAMPLE), "--input-shape", "image:1x3x32x32",
                    "--emit=engine", "-o", str(paths["cpu"])], check=True, capture_output=True)
    return paths


def run(engine, *flags, driver=str(FAKE), **fake):
    env = dict(os.environ, INFERRT_LIBCUDA=driver, FAKE_CUDA_REPORT="1")
    env.update({f"FAKE_CUDA_{k.upper()}": str(v) for k, v in fake.items()})
    return subprocess.run([str(INFER_RUN), str(engine), "--warmup", "1", "--iterations", "3",
                           *flags], capture_output=True, text=True, env=env, timeout=60)


def assert_nothing_live(result):
    report = re.search(r"fake-cuda: live (.*);", result.stderr)
    assert report, result.stderr
    assert re.fullmatch(r"(?:[a-z ]+ 0,?\s*)+", report[1]), report[1]


def test_runs_and_reports_gpu_time(engines):
    r = run(engines["both"])
    assert r.returncode == 0, r.stderr
    assert "GPU time (ms):" in r.stdout and "latency (ms):" in r.stdout
    assert_nothing_live(r)
    # One graph replay a run: launches are counted once, at capture.
    assert "launches 3;" not in r.stderr


def test_without_cuda_graph_launches_every_run(engines):
    with_graph = run(engines["both"])
    without = run(engines["both"], "--no-cuda-graph")
    assert without.returncode == 0, without.stderr
    count = lambda r: int(re.search(r"launches (\d+)", r.stderr)[1])
    # 4 runs (1 warm-up + 3): the plan's launches 4 times, against once.
    assert count(without) == 4 * count(with_graph)


def test_no_driver(engines, tmp_path):
    r = run(engines["both"], driver=str(tmp_path / "libcuda.so.1"))
    assert r.returncode == 1
    assert "infer-run: error: CUDA driver not found (" in r.stderr
    # CPU engines still run in the same process setup.
    cpu = run(engines["cpu"], driver=str(tmp_path / "libcuda.so.1"))
    assert cpu.returncode == 0, cpu.stderr


def test_wrong_device_index(engines):
    r = run(engines["both"], "--device", "cuda:2", devices=2)
    assert r.returncode == 1
    assert "CUDA device 2 does not exist (this machine has 2)" in r.stderr
    assert run(engines["both"], "--device", "cuda:1", devices=2).returncode == 0


def test_bad_device_names(engines):
    r = run(engines["both"], "--device", "gpu0")
    assert "unknown device 'gpu0': use cpu, cuda or cuda:N" in r.stderr and r.returncode == 1
    r = run(engines["both"], "--device", "cpu")
    assert "was built for 'cuda' and cannot run on device 'cpu'" in r.stderr
    r = run(engines["cpu"], "--device", "cuda")
    assert "was built for 'cpu-x86_64' and cannot run on device 'cuda'" in r.stderr


@pytest.mark.parametrize("sm,engine,ok", [
    (90, "both", True),    # its own cubin
    (89, "both", True),    # sm_80 cubin: same major, lower minor
    (100, "both", True),   # no cubin: the sm_80 PTX, JIT-compiled
    (86, "sm90", False),   # only sm_90 code: older GPU
    (75, "both", False),
])
def test_module_choice(engines, sm, engine, ok):
    r = run(engines[engine], sm=sm)
    assert (r.returncode == 0) == ok, r.stderr
    if not ok:
        assert f"is sm_{sm}: rebuild with --target=cuda:sm_{sm}" in r.stderr
        assert_nothing_live(r)


def test_out_of_device_memory(engines):
    r = run(engines["both"], memory_bytes=20000)
    assert r.returncode == 1
    assert "out of GPU memory creating a context: it needs" in r.stderr
    assert_nothing_live(r)


@pytest.mark.parametrize("entry", ["cuModuleLoadDataEx", "cuStreamCreate", "cuEventCreate",
                                   "cuMemAllocHost", "cuMemcpyHtoD", "cuDevicePrimaryCtxRetain"])
def test_context_creation_failures_leak_nothing(engines, entry):
    r = run(engines["both"], fail=entry)
    assert r.returncode == 1
    assert "CUDA_ERROR_UNKNOWN" in r.stderr, r.stderr
    assert_nothing_live(r)


@pytest.mark.parametrize("entry,step", [("cuLaunchKernel", "capturing the CUDA graph"),
                                        ("cuGraphLaunch", "launching the CUDA graph"),
                                        ("cuStreamSynchronize", "running the kernels")])
def test_run_failure_marks_the_context_unhealthy(engines, entry, step):
    r = run(engines["both"], fail=entry)
    assert r.returncode == 1
    assert f"CUDA error {step}: CUDA_ERROR_UNKNOWN" in r.stderr
    assert "the context is now unhealthy" in r.stderr
    assert_nothing_live(r)


def test_unhealthy_context_refuses_later_runs(engines):
    # Through the C API: the second run must say why it refuses.
    import ctypes
    from infer_cpu import runtime
    os.environ["INFERRT_LIBCUDA"] = str(FAKE)
    os.environ["FAKE_CUDA_FAIL"] = "cuGraphLaunch"
    try:
        lib = runtime()
        lib.inferrt_context_create_on.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                  ctypes.POINTER(ctypes.c_void_p)]
        lib.inferrt_context_create_on.restype = ctypes.c_void_p
        engine = ctypes.c_void_p()
        assert not lib.inferrt_engine_load(str(engines["both"]).encode(), ctypes.byref(engine))
        context = ctypes.c_void_p()
        assert not lib.inferrt_context_create_on(engine, b"cuda:0", ctypes.byref(context))
        messages = []
        for _ in range(2):
            status = lib.inferrt_context_run(context)
            assert status
            messages.append(lib.inferrt_status_message(status).decode())
            lib.inferrt_status_free(status)
        assert "the context is now unhealthy" in messages[0]
        assert messages[1].startswith("the CUDA context is unhealthy after an earlier error "
                                      "(launching the CUDA graph: CUDA_ERROR_UNKNOWN")
        assert messages[1].endswith("free it and create a new one")
        lib.inferrt_context_free(context)
        lib.inferrt_engine_free(engine)
    finally:
        del os.environ["FAKE_CUDA_FAIL"]
        del os.environ["INFERRT_LIBCUDA"]


def test_corrupt_cuda_plan_is_refused(engines, tmp_path):
    import json
    import struct
    import zlib
    data = bytearray(engines["both"].read_bytes())
    count = struct.unpack_from("<I", data, 16)[0]
    for i in range(count):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, 64 + 24 * i)
        if kind == 4:
            plan = json.loads(bytes(data[offset:offset + size]))
            plan["launches"][0]["block"] = [2048, 1, 1]
            text = json.dumps(plan).encode().ljust(size, b" ")
            assert len(text) == size
            data[offset:offset + size] = text
            struct.pack_into("<I", data, 64 + 24 * i + 4, zlib.crc32(text))
    head = bytearray(data[:64 + 24 * count])
    head[20:24] = b"\0\0\0\0"
    struct.pack_into("<I", data, 20, zlib.crc32(head))
    bad = tmp_path / "bad.engine"
    bad.write_bytes(bytes(data))
    r = run(bad)
    assert r.returncode == 1
    assert "launch 0 is malformed" in r.stderr
