"""Compile an ONNX model with infer-opt for the CPU and run it through ctypes.

A stand-in for the runtime (issue 3) so that the lowering can be checked
numerically now: `infer-opt --emit=shared-lib` gives a shared object whose
`inferrt_entry(void **)` takes an array of pointers to memref descriptors,
inputs first, then one output buffer per graph output.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import onnx

REPO = Path(__file__).resolve().parents[2]
INFER_OPT = Path(os.environ.get("INFER_OPT", REPO / "build" / "bin" / "infer-opt"))

_CTYPES = {
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.bool_): ctypes.c_bool,
}


def _descriptor_type(rank: int, element):
    """The C layout of an MLIR memref descriptor of `rank` dims."""

    fields = [
        ("allocated", ctypes.POINTER(element)),
        ("aligned", ctypes.POINTER(element)),
        ("offset", ctypes.c_int64),
    ]
    if rank > 0:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}", (ctypes.Structure,), {"_fields_": fields})


def _descriptor(array: np.ndarray):
    element = _CTYPES[array.dtype]
    desc = _descriptor_type(array.ndim, element)()
    ptr = array.ctypes.data_as(ctypes.POINTER(element))
    desc.allocated = ptr
    desc.aligned = ptr
    desc.offset = 0
    if array.ndim:
        for i, (size, stride) in enumerate(zip(array.shape, array.strides)):
            desc.sizes[i] = size
            desc.strides[i] = stride // array.itemsize
    return desc


class CompiledModel:
    """A model compiled to a shared object for fixed input shapes."""

    def __init__(self, model_path: str | Path, shapes: dict[str, tuple[int, ...]],
                 workdir: str | Path | None = None):
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.TemporaryDirectory()
            workdir = self._tmp.name
        self.library = Path(workdir) / (Path(model_path).stem + ".so")
        cmd = [str(INFER_OPT), str(model_path), "--emit=shared-lib", "-o", str(self.library)]
        for name, shape in shapes.items():
            cmd += ["--input-shape", f"{name}:{'x'.join(map(str, shape))}"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"infer-opt failed ({result.returncode}): {result.stderr}")
        self._lib = ctypes.CDLL(str(self.library))
        self._entry = self._lib.inferrt_entry
        self._entry.restype = None
        self._entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        model = onnx.load(str(model_path), load_external_data=False)
        initializers = {t.name for t in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in initializers]

    def run(self, inputs: dict[str, np.ndarray], output_like: list[np.ndarray]) -> list[np.ndarray]:
        """Runs on `inputs`; outputs get the shapes and dtypes of `output_like`."""
        args = [np.ascontiguousarray(inputs[name]) for name in self.input_names]
        outputs = [np.empty_like(o) for o in output_like]
        descriptors = [_descriptor(a) for a in args + outputs]
        pointers = (ctypes.c_void_p * len(descriptors))(
            *[ctypes.cast(ctypes.pointer(d), ctypes.c_void_p) for d in descriptors])
        self._entry(pointers)
        return outputs


def check_against_onnxruntime(path: Path, inputs: dict[str, np.ndarray], workdir: Path,
                              rtol: float, atol: float) -> None:
    """Compiles `path`, runs it on `inputs` and asserts ONNX Runtime's outputs."""
    import onnxruntime as ort

    expected = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, inputs)
    compiled = CompiledModel(path, {k: v.shape for k, v in inputs.items()}, workdir)
    actual = compiled.run(inputs, expected)
    for index, (want, got) in enumerate(zip(expected, actual)):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                   err_msg=f"{Path(path).name}: output {index}")
