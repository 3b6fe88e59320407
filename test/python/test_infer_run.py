"""infer-opt --emit=engine + infer-run end to end, and the loader's refusals.

The engine of the bundled example must give ONNX Runtime's outputs through
infer-run's .npy input/output/compare path; corrupt, truncated, byte-flipped
and foreign engines, and bad .npy inputs, must each be refused with a clear
message and exit code 1.
"""

from __future__ import annotations

import ctypes
import json
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper, parser

from infer_cpu import INFER_OPT, REPO
from infer_tools.engine_format import HEADER_OFFSETS, PLAN, read_engine, with_header

INFER_RUN = INFER_OPT.parent / "infer-run"
EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"


def run(*args, check_rc=0, cwd=None):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120,
                            cwd=cwd)
    assert result.returncode == check_rc, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The bundled example compiled to an engine, and its ONNX binary form."""
    d = tmp_path_factory.mktemp("engine")
    engine = d / "tiny.engine"
    run(INFER_OPT, EXAMPLE, "--input-shape", "image:2x3x32x32", "--emit=engine", "-o", engine)
    model = parser.parse_model(EXAMPLE.read_text())
    onnx_path = d / "tiny.onnx"
    onnx_path.write_bytes(model.SerializeToString())
    return engine, onnx_path, d


def test_matches_onnxruntime_through_npy(example, rng):
    engine, onnx_path, d = example
    image = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    np.save(d / "image.npy", image)
    want = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(
        None, {"image": image})[0]
    np.save(d / "ref.npy", want)
    out = d / "out"
    result = run(INFER_RUN, engine, "--input", f"image={d / 'image.npy'}", "--output-dir", out,
                 "--iterations", "5", "--compare", f"probabilities={d / 'ref.npy'}",
                 "--json", d / "report.json")
    assert "compare 'probabilities': match" in result.stdout
    np.testing.assert_allclose(np.load(out / "probabilities.npy"), want, rtol=1e-4, atol=1e-5)
    report = json.loads((d / "report.json").read_text())
    assert report["compare"]["probabilities"]["match"] is True
    for key in ("mean", "min", "p50", "p90", "p99"):
        assert report["latency_ms"][key] > 0


def test_compare_mismatch_exits_1(example):
    engine, _, d = example
    np.save(d / "wrong.npy", np.full((2, 3), 7.0, np.float32))
    result = run(INFER_RUN, engine, "--iterations", "1", "--compare",
                 f"probabilities={d / 'wrong.npy'}", check_rc=1)
    assert "MISMATCH" in result.stdout


def corrupt(src: Path, dst: Path, edit) -> Path:
    data = bytearray(src.read_bytes())
    data = edit(data)
    dst.write_bytes(bytes(data))
    return dst


def flip(offset):
    def edit(data):
        data[offset % len(data)] ^= 0x40
        return data
    return edit


def unsealed(**fields):
    """Header fields changed, the header's checksum left as it was."""
    return lambda data: with_header(data, seal=False, **fields)


BAD_ENGINES = {
    "truncated": (lambda d: d[: len(d) // 2], "truncated or padded"),
    "tiny": (lambda d: d[:10], "is truncated"),
    "bad_magic": (unsealed(magic=b"NOTANENG"), "not an infer-opt engine"),
    "newer_format": (unsealed(format_major=9), "newer than this runtime"),
    "flipped_header": (flip(HEADER_OFFSETS["header_crc"]), "corrupt header"),
    "flipped_kernels": (flip(-3000), "corrupt"),
    "foreign_target": (unsealed(target="cuda-sm_90"), "corrupt header"),
}


@pytest.mark.parametrize("case", sorted(BAD_ENGINES))
def test_bad_engines_are_refused(example, case):
    engine, _, d = example
    edit, message = BAD_ENGINES[case]
    bad = corrupt(engine, d / f"bad_{case}.engine", edit)
    result = run(INFER_RUN, bad, "--iterations", "1", check_rc=1)
    assert "infer-run: error:" in result.stderr and message in result.stderr, result.stderr


def edit_plan(data: bytearray, old: bytes, new: bytes) -> bytes:
    """Replaces `old` by `new` (same length) in the plan section and reseals
    the section's and the header's checksums: a well-formed engine whose plan
    lies."""
    assert len(old) == len(new)
    engine = read_engine(data)
    plan = engine.sections[PLAN]
    assert old in plan, plan
    engine.sections[PLAN] = plan.replace(old, new, 1)
    return engine.to_bytes()


@pytest.mark.parametrize("old,new,message", [
    (b'"outputs"', b'"outputz"', "unknown calling convention"),
    (b'"offset": 0', b'"offset": 9', "weight 0 is not 256-byte aligned in the weights section"),
    (b'"offset": 0,\n', b'"offset":512,', "weight 0 lies outside the weights section"),
    (b'"dtype": "float32"', b'"dtype": "float33"', "weight 0 has an unknown dtype"),
])
def test_plans_that_lie_are_refused(example, old, new, message):
    engine, _, d = example
    bad = corrupt(engine, d / "plan.engine", lambda x: edit_plan(x, old, new))
    result = run(INFER_RUN, bad, "--iterations", "1", check_rc=1)
    assert message in result.stderr, result.stderr


def test_engine_for_another_target(example):
    engine, _, d = example
    bad = corrupt(engine, d / "other_target.engine",
                  lambda x: with_header(x, target="cuda-sm_90"))
    result = run(INFER_RUN, bad, "--iterations", "1", check_rc=1)
    assert "built for target 'cuda-sm_90'" in result.stderr, result.stderr


def test_newer_format_with_valid_checksum(example):
    engine, _, d = example
    bad = corrupt(engine, d / "newer.engine",
                  lambda x: with_header(x, format_major=2, format_minor=5))
    result = run(INFER_RUN, bad, "--iterations", "1", check_rc=1)
    assert "format 2.5, newer than this runtime (1.0)" in result.stderr, result.stderr


def test_random_byte_flips_are_all_refused(example, rng):
    engine, _, d = example
    size = engine.stat().st_size
    # Every byte counts: padding included (the loader requires it zero).
    for offset in list(rng.integers(0, size, 25)) + [size - 1, 70, 300]:
        bad = corrupt(engine, d / "flip.engine", flip(int(offset)))
        result = run(INFER_RUN, bad, "--iterations", "1", check_rc=1)
        assert "infer-run: error:" in result.stderr


def test_missing_engine(tmp_path):
    result = run(INFER_RUN, tmp_path / "nope.engine", check_rc=1)
    assert "cannot open engine" in result.stderr


@pytest.mark.parametrize("case,array,message", [
    ("wrong_shape", np.zeros((1, 3, 32, 32), np.float32), "has shape [2x3x32x32]"),
    ("wrong_dtype", np.zeros((2, 3, 32, 32), np.float64), "is float32, but"),
])
def test_bad_inputs(example, case, array, message):
    engine, _, d = example
    path = d / f"{case}.npy"
    np.save(path, array + 1)
    result = run(INFER_RUN, engine, "--input", f"image={path}", check_rc=1)
    assert message in result.stderr


def test_unknown_input_name_and_malformed_npy(example):
    engine, _, d = example
    np.save(d / "x.npy", np.ones((2, 3, 32, 32), np.float32))
    result = run(INFER_RUN, engine, "--input", f"pixels={d / 'x.npy'}", check_rc=1)
    assert "not an input of the engine (inputs: image)" in result.stderr
    (d / "junk.npy").write_bytes(b"not numpy at all")
    result = run(INFER_RUN, engine, "--input", f"image={d / 'junk.npy'}", check_rc=1)
    assert "is not a .npy file" in result.stderr
    result = run(INFER_RUN, engine, "--input", "image", check_rc=1)
    assert "expected NAME=FILE.npy" in result.stderr


def test_inspect(example):
    engine, _, d = example
    result = run(INFER_OPT, "--inspect", engine)
    assert "format 1.0, target cpu-x86_64" in result.stdout
    assert "section kernels" in result.stdout and "checksum BAD" not in result.stdout
    assert '"name": "image"' in result.stdout
    bad = corrupt(engine, d / "inspect_bad.engine", flip(-3000))
    result = run(INFER_OPT, "--inspect", bad, check_rc=1)
    assert "checksum BAD" in result.stdout


def test_same_flags_give_identical_engines(tmp_path):
    first, second = tmp_path / "a" / "m.engine", tmp_path / "b" / "m.engine"
    for path in (first, second):
        path.parent.mkdir()
    # Same flags, including the output name relative to the working directory.
    for path in (first, second):
        run(INFER_OPT, EXAMPLE, "--input-shape", "image:1x3x32x32", "--emit=engine",
            "-o", "m.engine", cwd=path.parent)
    assert first.read_bytes() == second.read_bytes()


def test_two_engines_loaded_at_once_keep_their_kernels(tmp_path, rng):
    """Each engine's kernels stay its own while another engine is loaded
    (the in-memory library path must not be reused)."""
    lib = ctypes.CDLL(str(INFER_OPT.parent.parent / "lib" / "libinferrt.so"))
    lib.inferrt_status_message.restype = ctypes.c_char_p
    for fn in ("inferrt_engine_load", "inferrt_context_create", "inferrt_context_set_input",
               "inferrt_context_run", "inferrt_context_get_output"):
        getattr(lib, fn).restype = ctypes.c_void_p  # A status pointer: None on success.
    engines = {}
    for batch in (1, 2):
        path = tmp_path / f"b{batch}.engine"
        run(INFER_OPT, EXAMPLE, "--input-shape", f"image:{batch}x3x32x32", "--emit=engine", "-o", path)
        handle = ctypes.c_void_p()
        assert not lib.inferrt_engine_load(str(path).encode(), ctypes.byref(handle))
        engines[batch] = handle
    model = parser.parse_model(EXAMPLE.read_text())
    onnx_path = tmp_path / "tiny.onnx"
    onnx_path.write_bytes(model.SerializeToString())
    image = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    want = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]).run(
        None, {"image": image})[0]
    context = ctypes.c_void_p()
    assert not lib.inferrt_context_create(engines[2], ctypes.byref(context))
    assert not lib.inferrt_context_set_input(context, ctypes.c_size_t(0), image.ctypes.data_as(ctypes.c_void_p),
                                             ctypes.c_size_t(image.nbytes))
    assert not lib.inferrt_context_run(context)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    assert not lib.inferrt_context_get_output(context, ctypes.c_size_t(0), ctypes.byref(data), ctypes.byref(size))
    got = np.frombuffer(ctypes.string_at(data, size.value), np.float32).reshape(2, 3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    lib.inferrt_context_free(context)
    for handle in engines.values():
        lib.inferrt_engine_free(handle)


def test_thread_count_does_not_change_results(tmp_path, rng):
    """Big kernels split their parallel tiles over OpenMP threads, one whole
    tile per thread: outputs are bitwise equal for any --threads."""
    model = parser.parse_model("""
        <ir_version: 8, opset_import: ["" : 17]>
        g (float[64,256] a, float[256,128] b) => (float[64,128] y) {
          m = MatMul(a, b)
          y = Relu(m)
        }""")
    onnx_path = tmp_path / "mm.onnx"
    onnx_path.write_bytes(model.SerializeToString())
    engine = tmp_path / "mm.engine"
    run(INFER_OPT, onnx_path, "--emit=engine", "-o", engine)
    a = rng.standard_normal((64, 256)).astype(np.float32)
    b = rng.standard_normal((256, 128)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    outputs = {}
    for threads in (1, 2, 3):
        out = tmp_path / f"out{threads}"
        run(INFER_RUN, engine, "--input", f"a={tmp_path / 'a.npy'}", "--input",
            f"b={tmp_path / 'b.npy'}", "--threads", threads, "--iterations", "3",
            "--output-dir", out)
        outputs[threads] = np.load(out / "y.npy")
    np.testing.assert_allclose(outputs[1], np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)
    assert outputs[1].tobytes() == outputs[2].tobytes() == outputs[3].tobytes()
    result = run(INFER_RUN, engine, "--threads", "-1", check_rc=1)
    assert "--threads" in result.stderr
