"""The runtime's thread-safety contract (include/inferrt/inferrt.h), checked:
one engine shared by several threads, each with its own context, gives the
same bits as one thread alone, run after run."""

from __future__ import annotations

import ctypes
import subprocess
import threading

import numpy as np
import pytest

from infer_cpu import INFER_OPT, REPO, _check, runtime

EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"
THREADS = 4
TOTAL_RUNS = 10_000


class Runner:
    """One context of a shared engine, with its own input."""

    def __init__(self, lib, engine, image: np.ndarray):
        self.lib, self.image = lib, np.ascontiguousarray(image)
        self.context = ctypes.c_void_p()
        _check(lib, lib.inferrt_context_create(engine, ctypes.byref(self.context)))

    def run_once(self) -> bytes:
        lib = self.lib
        _check(lib, lib.inferrt_context_set_input(self.context, 0, self.image.ctypes.data,
                                                  self.image.nbytes))
        _check(lib, lib.inferrt_context_run(self.context))
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        _check(lib, lib.inferrt_context_get_output(self.context, 0, ctypes.byref(data),
                                                   ctypes.byref(size)))
        return ctypes.string_at(data.value, size.value)

    def free(self):
        self.lib.inferrt_context_free(self.context)


@pytest.fixture(scope="module")
def shared_engine(tmp_path_factory):
    path = tmp_path_factory.mktemp("concurrency") / "tiny.engine"
    subprocess.run([str(INFER_OPT), str(EXAMPLE), "--input-shape", "image:2x3x32x32",
                    "--emit=engine", "-o", str(path)], check=True, capture_output=True)
    lib = runtime()
    engine = ctypes.c_void_p()
    _check(lib, lib.inferrt_engine_load(str(path).encode(), ctypes.byref(engine)))
    yield lib, engine
    lib.inferrt_engine_free(engine)


def test_contexts_on_threads_match_one_thread(shared_engine):
    lib, engine = shared_engine
    rng = np.random.default_rng(7)
    images = [rng.standard_normal((2, 3, 32, 32)).astype(np.float32) for _ in range(THREADS)]
    # The reference: each input run alone, on this thread, before any other.
    reference = []
    for image in images:
        runner = Runner(lib, engine, image)
        reference.append(runner.run_once())
        runner.free()
    assert len(set(reference)) == THREADS, "distinct inputs should give distinct outputs"

    runners = [Runner(lib, engine, image) for image in images]
    mismatches = [0] * THREADS
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(index: int):
        try:
            start.wait()
            for _ in range(TOTAL_RUNS // THREADS):
                if runners[index].run_once() != reference[index]:
                    mismatches[index] += 1
        except BaseException as error:  # Reported below, not lost in the thread.
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for runner in runners:
        runner.free()
    assert not errors, errors
    assert mismatches == [0] * THREADS, f"runs differing from the one-thread output: {mismatches}"
