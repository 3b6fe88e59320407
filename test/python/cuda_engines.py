"""Hand-made engines and a C API driver for the runtime's CUDA tests.

The engines are written by infer_tools.engine_format, so the CUDA backend
is tested without the compiler: `cuda_engine` writes one whose modules are
fake cubins and PTX for the fake driver (test/runtime/fake_cuda.cpp),
`cpu_engine` one whose kernels are a tiny C library built with `cc`.

The CUDA driver is loaded once per process, so each scenario runs in its
own process: `run_client(ops, env)` runs this file with a list of C API
operations and returns one result per operation.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from infer_tools import REPO
from infer_tools.engine_format import align, make_engine
from infer_tools.runtime import LIBINFERRT

FAKE_CUDA = LIBINFERRT.parent / "libfakecuda.so"


def write_engine(path: Path, target: str, metadata: dict, plan: dict, kernels: bytes,
                 weights: bytes = b"") -> Path:
    """An engine file with the four sections in the writer's order."""
    path.write_bytes(make_engine(target, metadata, plan, kernels, weights).to_bytes())
    return path


def tensor(name: str, shape: list[int], dtype: str = "float32") -> dict:
    return {"name": name, "dtype": dtype, "shape": shape}


def copy(source: dict, destination: dict, **extra) -> dict:
    """A launch of the fake driver's `copy` kernel (first buffer into second)."""
    return {"kernel": "copy", "nodes": [], "grid": [1, 1, 1], "block": [32, 1, 1],
            "shared_bytes": 0, "args": [source, destination], **extra}


def arg(kind: str, index: int | None = None) -> dict:
    return {"kind": kind} if index is None else {"kind": kind, "index": index}


def fake_image(fmt: str, arch: str, kernels: dict[str, int]) -> bytes:
    """A module the fake driver understands: a first line naming it, then
    "kernel NAME N" lines. Cubins are ELF (and end with a NUL); PTX is text
    without a terminator, as the writer may leave it."""
    lines = "".join(f"kernel {name} {count}\n" for name, count in kernels.items())
    if fmt == "cubin":
        return b"\x7fELF" + f"fake cubin {arch}\n{lines}".encode() + b"\0"
    return f"// fake PTX {arch}\n{lines}// end\n".encode()


def cuda_engine(path: Path, modules=(("cubin", "sm_90"),), launches=None, inputs=None,
                outputs=None, weights=(), arena: int = 256, edit=None) -> Path:
    """A CUDA engine for the fake driver. By default: input x [4] -> arena ->
    output y [4], both through `copy`. Modules are packed back to back (no
    padding), so a PTX image is followed by the next module's bytes, not by
    a NUL. `edit(plan)` may change the plan before it is written."""
    inputs = inputs if inputs is not None else [tensor("x", [4])]
    outputs = outputs if outputs is not None else [tensor("y", [4])]
    if launches is None:
        launches = [copy(arg("input", 0), arg("arena")), copy(arg("arena"), arg("output", 0))]
    declared = {launch["kernel"]: len(launch["args"]) for launch in launches}
    kernels, module_table = b"", []
    for fmt, arch in modules:
        image = fake_image(fmt, arch, declared)
        module_table.append({"format": fmt, "arch": arch, "offset": len(kernels), "bytes": len(image)})
        kernels += image
    weight_bytes, weight_table = b"", []
    for array in weights:
        weight_bytes += b"\0" * (align(len(weight_bytes)) - len(weight_bytes))
        weight_table.append({"offset": len(weight_bytes), "bytes": array.nbytes, "dtype": "float32",
                             "shape": list(array.shape)})
        weight_bytes += array.tobytes()
    plan = {"arena": {"bytes": arena, "buffers": 1, "lower_bound": arena, "no_reuse": arena},
            "arguments": ["inputs", "weights", "outputs", "arena"], "weights": weight_table,
            "modules": module_table, "launches": launches}
    if edit:
        edit(plan)
    metadata = {"inputs": inputs, "outputs": outputs, "target": "cuda",
                "compiler": {"name": "cuda_engines.py", "version": "0", "flags": []},
                "cuda": {"archs": sorted({arch for _, arch in modules}), "tf32": True}}
    return write_engine(path, "cuda", metadata, plan, kernels, weight_bytes)


CPU_KERNELS = r"""
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, size, stride; } D1;
/* y = 2 x over the input and output descriptors (no weights). */
void inferrt_entry(void **d) {
  D1 *x = d[0], *y = d[1];
  for (int64_t i = 0; i < x->size; ++i)
    y->aligned[i] = 2 * x->aligned[i];
}
"""


def cpu_engine(path: Path) -> Path:
    """A CPU engine, x [4] -> y = 2x, whose kernels `cc` builds."""
    source = path.with_suffix(".c")
    source.write_text(CPU_KERNELS)
    library = path.with_suffix(".so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(library), str(source)], check=True)
    plan = {"arena": {"bytes": 64, "buffers": 0, "lower_bound": 0, "no_reuse": 0},
            "arguments": ["inputs", "weights", "outputs", "arena"],
            "kernels": [{"symbol": "inferrt_entry", "nodes": [], "calls": []}], "weights": []}
    metadata = {"inputs": [tensor("x", [4])], "outputs": [tensor("y", [4])], "target": "cpu-x86_64"}
    return write_engine(path, "cpu-x86_64", metadata, plan, library.read_bytes())


def run_client(ops: list[dict], **env) -> list[dict]:
    """Runs `ops` (see _client) in a new process whose environment adds
    `env`; returns one result per op."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("FAKE_CUDA", "INFERRT_"))}
    environment.update({k: str(v) for k, v in env.items()})
    # The client imports infer_tools, as the tests do through pytest.ini.
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "scripts"), *filter(None, [environment.get("PYTHONPATH")])])
    result = subprocess.run([sys.executable, __file__, json.dumps(ops)], capture_output=True,
                            text=True, env=environment, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def _client(ops: list[dict]) -> list[dict]:
    """Each op: {"op": NAME, ...}; the result is {"code", "message", "value"}.
    load(engine, as) / create(engine, device, as) / graph(context, enabled) /
    input(context, values) / run(context) / output(context) / gpu_time(context)
    / free(context) / free_engine(engine) / stat(name) / module() /
    env(values: {name: value or None}) / sweep(engine, names): for each
    driver entry point in `names`, fail its 1st, 2nd, ... call (once) until
    a context is created, each time reporting the status and what is live."""
    from infer_tools.runtime import runtime
    lib = runtime()
    p, vp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
    for name, args in {"inferrt_context_create_on": [p, ctypes.c_char_p, vp],
                       "inferrt_context_set_cuda_graph": [p, ctypes.c_int],
                       "inferrt_context_last_gpu_time_ms": [p, ctypes.POINTER(ctypes.c_double)],
                       "inferrt_status_get_code": [p],
                       "inferrt_engine_target": [p]}.items():
        getattr(lib, name).argtypes = args
    for name in ("inferrt_context_create_on", "inferrt_context_set_cuda_graph",
                 "inferrt_context_last_gpu_time_ms"):
        getattr(lib, name).restype = p
    lib.inferrt_status_get_code.restype = ctypes.c_int
    lib.inferrt_engine_target.restype = ctypes.c_char_p
    fake = None
    handles: dict[str, ctypes.c_void_p] = {}

    def status(s) -> dict:
        if not s:
            return {"code": 0, "message": "ok"}
        out = {"code": lib.inferrt_status_get_code(s), "message": lib.inferrt_status_message(s).decode()}
        lib.inferrt_status_free(s)
        return out

    def fake_lib():
        nonlocal fake
        if fake is None:
            fake = ctypes.CDLL(os.environ["INFERRT_LIBCUDA"])
            fake.fake_cuda_stat.argtypes, fake.fake_cuda_stat.restype = [ctypes.c_char_p], ctypes.c_long
            fake.fake_cuda_last_module.restype = ctypes.c_char_p
        return fake

    def create(engine, device):
        context = ctypes.c_void_p()
        result = status(lib.inferrt_context_create_on(
            handles[engine], device.encode() if device is not None else None, ctypes.byref(context)))
        return result, context

    results = []
    for op in ops:
        kind = op["op"]
        result: dict = {"code": 0, "message": "ok"}
        if kind == "load":
            engine = ctypes.c_void_p()
            result = status(lib.inferrt_engine_load(op["engine"].encode(), ctypes.byref(engine)))
            handles[op.get("as", "e")] = engine
            if engine:
                result["value"] = lib.inferrt_engine_target(engine).decode()
        elif kind == "create":
            result, context = create(op.get("engine", "e"), op.get("device"))
            handles[op.get("as", "c")] = context
        elif kind == "graph":
            result = status(lib.inferrt_context_set_cuda_graph(handles[op.get("context", "c")],
                                                               op["enabled"]))
        elif kind == "input":
            data = struct.pack(f"<{len(op['values'])}f", *op["values"])
            result = status(lib.inferrt_context_set_input(handles[op.get("context", "c")],
                                                          op.get("index", 0), data, len(data)))
        elif kind == "run":
            result = status(lib.inferrt_context_run(handles[op.get("context", "c")]))
        elif kind == "output":
            data, size = ctypes.c_void_p(), ctypes.c_size_t()
            result = status(lib.inferrt_context_get_output(handles[op.get("context", "c")],
                                                           op.get("index", 0), ctypes.byref(data),
                                                           ctypes.byref(size)))
            if result["code"] == 0:
                raw = ctypes.string_at(data.value, size.value)
                result["value"] = list(struct.unpack(f"<{size.value // 4}f", raw))
        elif kind == "gpu_time":
            ms = ctypes.c_double(-1)
            result = status(lib.inferrt_context_last_gpu_time_ms(handles[op.get("context", "c")],
                                                                 ctypes.byref(ms)))
            result["value"] = ms.value
        elif kind == "free":
            lib.inferrt_context_free(handles.pop(op.get("context", "c")))
        elif kind == "free_engine":
            lib.inferrt_engine_free(handles.pop(op.get("engine", "e")))
        elif kind == "stat":
            result["value"] = fake_lib().fake_cuda_stat(op["name"].encode())
        elif kind == "module":
            result["value"] = fake_lib().fake_cuda_last_module().decode()
        elif kind == "env":
            for name, value in op["values"].items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = str(value)
        elif kind == "sweep":
            result["value"] = []
            for name in op["names"]:
                os.environ["FAKE_CUDA_FAIL"] = name
                os.environ["FAKE_CUDA_FAIL_COUNT"] = "1"
                for after in range(1000):
                    os.environ["FAKE_CUDA_FAIL_AFTER"] = str(after)
                    fake_lib().fake_cuda_reset_calls()
                    created, context = create(op.get("engine", "e"), "cuda:0")
                    if created["code"] == 0:  # Freed without failures.
                        os.environ["FAKE_CUDA_FAIL"] = ""
                        lib.inferrt_context_free(context)
                        os.environ["FAKE_CUDA_FAIL"] = name
                        break
                    created.update(name=name, after=after, live=fake_lib().fake_cuda_stat(b"live"))
                    result["value"].append(created)
            for name in ("FAKE_CUDA_FAIL", "FAKE_CUDA_FAIL_AFTER", "FAKE_CUDA_FAIL_COUNT"):
                os.environ.pop(name, None)
        else:
            raise ValueError(f"unknown op {kind}")
        results.append(result)
    return results


if __name__ == "__main__":
    print(json.dumps(_client(json.loads(sys.argv[1]))))
