"""Engines are reproducible: the same model bytes and the same semantic flags
give byte-identical engines, wherever the model and the output lie."""

import hashlib
import shutil
import subprocess

import pytest
from infer_tools.engine_format import read_engine

from infer_cpu import INFER_OPT, REPO

MODEL = REPO / "examples" / "tiny_cnn.onnxtext"
TARGETS = {"cpu": ["--cpu=x86-64-v2"], "cuda": ["--target=cuda:sm_80,sm_90"]}


def compile_in(cwd, model, output, extra):
    cmd = [str(INFER_OPT), model, "--input-shape", "image:2x3x32x32", "--emit=engine",
           "-o", output, *extra]
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return (cwd / output).read_bytes() if not output.startswith("/") else open(output, "rb").read()


def metadata_of(engine: bytes) -> dict:
    return read_engine(engine).metadata


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_same_model_two_directories_same_bytes(tmp_path, target):
    first, second = tmp_path / "first", tmp_path / "second" / "nested"
    first.mkdir()
    second.mkdir(parents=True)
    shutil.copy(MODEL, first / "model.onnxtext")
    shutil.copy(MODEL, second / "renamed.onnxtext")
    a = compile_in(first, "model.onnxtext", "a.engine", TARGETS[target])
    # Another directory, another model name given as an absolute path,
    # another output name, the flags in another order.
    b = compile_in(second, str(second / "renamed.onnxtext"), "b.engine",
                   list(reversed(TARGETS[target])))
    assert a == b
    meta = metadata_of(a)
    assert meta["model"]["sha256"] == hashlib.sha256(MODEL.read_bytes()).hexdigest()
    flags = meta["compiler"]["flags"]
    assert "--input-shape=image:2x3x32x32" in flags, flags
    assert not any("engine" in f or "onnxtext" in f or "/" in f for f in flags), flags


def test_a_semantic_flag_changes_the_bytes(tmp_path):
    shutil.copy(MODEL, tmp_path / "model.onnxtext")
    a = compile_in(tmp_path, "model.onnxtext", "a.engine", ["--cpu=x86-64-v2"])
    b = compile_in(tmp_path, "model.onnxtext", "b.engine", ["--cpu=x86-64-v2", "--no-simplify"])
    assert a != b
    assert "--no-simplify" in metadata_of(b)["compiler"]["flags"]
