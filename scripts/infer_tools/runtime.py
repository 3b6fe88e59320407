"""Compile an ONNX model with infer-opt for the CPU and run it through the runtime.

`infer-opt --emit=engine` writes an engine; the runtime's C API
(build/lib/libinferrt.so, include/inferrt/inferrt.h) loads and runs it
through ctypes, so the tests exercise the same path as infer-run. The tools
are build/'s, or $INFER_OPT's and $LIBINFERRT's.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from . import REPO

INFER_OPT = Path(os.environ.get("INFER_OPT", REPO / "build" / "bin" / "infer-opt"))
LIBINFERRT = Path(os.environ.get("LIBINFERRT", REPO / "build" / "lib" / "libinferrt.so"))

MAX_RANK = 8


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * MAX_RANK), ("bytes", ctypes.c_size_t)]


def runtime() -> ctypes.CDLL:
    """libinferrt with the argument types of the functions the tests call."""
    lib = ctypes.CDLL(str(LIBINFERRT))
    p, vp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "inferrt_engine_load": ([ctypes.c_char_p, vp], p),
        "inferrt_engine_free": ([p], None),
        "inferrt_engine_num_inputs": ([p], ctypes.c_size_t),
        "inferrt_engine_num_outputs": ([p], ctypes.c_size_t),
        "inferrt_engine_input_info": ([p, ctypes.c_size_t, ctypes.POINTER(TensorInfo)], p),
        "inferrt_engine_output_info": ([p, ctypes.c_size_t, ctypes.POINTER(TensorInfo)], p),
        "inferrt_context_create": ([p, vp], p),
        "inferrt_context_free": ([p], None),
        "inferrt_context_set_input": ([p, ctypes.c_size_t, p, ctypes.c_size_t], p),
        "inferrt_context_run": ([p], p),
        "inferrt_context_get_output": ([p, ctypes.c_size_t, vp, ctypes.POINTER(ctypes.c_size_t)], p),
        "inferrt_status_message": ([p], ctypes.c_char_p),
        "inferrt_status_free": ([p], None),
    }
    for name, (args, result) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    return lib


def _check(lib: ctypes.CDLL, status) -> None:
    if status:
        message = lib.inferrt_status_message(status).decode()
        lib.inferrt_status_free(status)
        raise RuntimeError(message)


class CompiledModel:
    """A model compiled to an engine for fixed input shapes, loaded with one context."""

    def __init__(self, model_path: str | Path, shapes: dict[str, tuple[int, ...]],
                 workdir: str | Path | None = None, flags: tuple[str, ...] = ()):
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory()
            workdir = self._tmp.name
        self.engine_path = Path(workdir) / (Path(model_path).stem + ".engine")
        cmd = [str(INFER_OPT), str(model_path), "--emit=engine", "-o", str(self.engine_path), *flags]
        for name, shape in shapes.items():
            cmd += ["--input-shape", f"{name}:{'x'.join(map(str, shape))}"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"infer-opt failed ({result.returncode}): {result.stderr}")
        self._lib = runtime()
        self._engine = ctypes.c_void_p()
        _check(self._lib, self._lib.inferrt_engine_load(str(self.engine_path).encode(),
                                                        ctypes.byref(self._engine)))
        self._context = ctypes.c_void_p()
        _check(self._lib, self._lib.inferrt_context_create(self._engine, ctypes.byref(self._context)))
        self.input_names = [self._info("input", i).name.decode()
                            for i in range(self._lib.inferrt_engine_num_inputs(self._engine))]
        self.num_outputs = self._lib.inferrt_engine_num_outputs(self._engine)

    def _info(self, what: str, index: int) -> TensorInfo:
        info = TensorInfo()
        fn = getattr(self._lib, f"inferrt_engine_{what}_info")
        _check(self._lib, fn(self._engine, index, ctypes.byref(info)))
        return info

    def run(self, inputs: dict[str, np.ndarray], output_like: list[np.ndarray]) -> list[np.ndarray]:
        """Runs on `inputs`; outputs get the shapes and dtypes of `output_like`."""
        for index, name in enumerate(self.input_names):
            array = np.ascontiguousarray(inputs[name])
            _check(self._lib, self._lib.inferrt_context_set_input(
                self._context, index, array.ctypes.data, array.nbytes))
        _check(self._lib, self._lib.inferrt_context_run(self._context))
        outputs = []
        for index, like in enumerate(output_like):
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            _check(self._lib, self._lib.inferrt_context_get_output(
                self._context, index, ctypes.byref(data), ctypes.byref(size)))
            if size.value != like.nbytes:
                raise RuntimeError(f"output {index}: {size.value} bytes, expected {like.nbytes}")
            raw = ctypes.string_at(data.value, size.value) if size.value else b""
            outputs.append(np.frombuffer(raw, dtype=like.dtype).reshape(like.shape).copy())
        return outputs

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        if getattr(self, "_context", None):
            lib.inferrt_context_free(self._context)
            self._context = None
        if getattr(self, "_engine", None):
            lib.inferrt_engine_free(self._engine)
            self._engine = None


def check_against_onnxruntime(path: Path, inputs: dict[str, np.ndarray], workdir: Path,
                              rtol: float, atol: float, flags: tuple[str, ...] = ()) -> None:
    """Compiles `path` (infer-opt `flags` added), runs it on `inputs` and
    asserts ONNX Runtime's outputs."""
    import onnxruntime as ort

    expected = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, inputs)
    compiled = CompiledModel(path, {k: v.shape for k, v in inputs.items()}, workdir, flags)
    actual = compiled.run(inputs, expected)
    for index, (want, got) in enumerate(zip(expected, actual)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                   err_msg=f"{Path(path).name}: output {index}")
