"""The fast parts of the hardening checks (docs/reliability.md): compiling a
real model twice gives the same engine bytes (CPU and CUDA), running an engine twice gives
the same output bits, and a sample of single-byte flips is all refused."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from infer_cpu import INFER_OPT, REPO, CompiledModel
from infer_tools.engine_format import read_engine

CLS = REPO / "models" / "ppocr" / "cls.onnx"
EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"


def compile_engine(model, shape, out, *flags):
    """Compiles with `-o NAME` run inside out's directory: the flags, which
    the metadata records, are then the same for every directory."""
    subprocess.run([str(INFER_OPT), str(model), "--input-shape", shape, "--emit=engine", "-o", out.name,
                    *flags], check=True, capture_output=True, cwd=out.parent)
    return out.read_bytes()


@pytest.mark.real_models
def test_real_model_compiles_to_identical_engines(tmp_path):
    if not CLS.exists():
        pytest.skip(f"{CLS} missing: run scripts/fetch_ppocr_models.py")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = compile_engine(CLS, "x:1x3x48x192", tmp_path / "a" / "cls.engine")
    second = compile_engine(CLS, "x:1x3x48x192", tmp_path / "b" / "cls.engine")
    assert first == second


@pytest.mark.real_models
def test_real_model_compiles_to_identical_cuda_engines(tmp_path):
    # PTX from LLVM and cubins from ptxas, for two architectures.
    if not CLS.exists():
        pytest.skip(f"{CLS} missing: run scripts/fetch_ppocr_models.py")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    flags = ["--target=cuda:sm_80,sm_90"]
    first = compile_engine(CLS, "x:1x3x48x192", tmp_path / "a" / "cls.engine", *flags)
    second = compile_engine(CLS, "x:1x3x48x192", tmp_path / "b" / "cls.engine", *flags)
    assert read_engine(first).target == "cuda"
    assert first == second


@pytest.mark.real_models
def test_same_inputs_give_identical_outputs(tmp_path):
    if not CLS.exists():
        pytest.skip(f"{CLS} missing: run scripts/fetch_ppocr_models.py")
    model = CompiledModel(CLS, {"x": (1, 3, 48, 192)}, tmp_path)
    x = np.random.default_rng(5).standard_normal((1, 3, 48, 192)).astype(np.float32)
    like = [np.zeros((1, 2), np.float32)]
    first = model.run({"x": x}, like)[0].tobytes()
    for _ in range(5):
        assert model.run({"x": x}, like)[0].tobytes() == first


def test_sample_of_byte_flips_is_refused(tmp_path):
    engine = tmp_path / "tiny.engine"
    compile_engine(EXAMPLE, "image:2x3x32x32", engine)
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "integrity.py"), "--engine", str(engine),
                             "--flips", "2000", "--seed", "11"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2000 refused, 0 accepted, 0 without a message" in result.stdout, result.stdout
