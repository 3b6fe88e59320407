"""scripts/engine_weights.py split and restore: how large engines reach the
GPU machine (64 MiB per transfer) with their real weights.

`split` zeroes the weights that the ONNX model's initializers give (as
stored, or transposed by constant folding) and writes a recipe; `restore`
rebuilds a byte-identical engine from the model, and refuses a model whose
initializers differ.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from infer_cpu import INFER_OPT, REPO

SCRIPT = REPO / "scripts" / "engine_weights.py"


def make_model(path, rng, scale=1.0):
    """A MatMul with a folded Transpose (its weight is stored transposed in
    the engine) and a Gemm."""
    n = helper.make_node
    inits = {"embedding": rng.standard_normal((50, 32)).astype(np.float32) * scale,
             "head": rng.standard_normal((32, 16)).astype(np.float32)}
    graph = helper.make_graph(
        [n("Transpose", ["embedding"], ["embedding_t"], perm=[1, 0]),
         n("MatMul", ["x", "embedding_t"], ["logits"]),
         n("Gemm", ["x", "head"], ["scores"])],
        "split", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [4, 50]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [4, 16])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True)


def test_split_then_restore_is_byte_identical(tmp_path):
    model = tmp_path / "m.onnx"
    make_model(model, np.random.default_rng(0))
    engine, stripped, recipe, restored = (tmp_path / f for f in
                                          ("m.engine", "m.stripped", "m.recipe.json", "m.restored"))
    subprocess.run([str(INFER_OPT), str(model), "--emit=engine", "-o", str(engine)], check=True)
    result = run("split", engine, stripped, "--model", model, "--recipe", recipe)
    assert result.returncode == 0, result.stderr
    assert "2 weights split off" in result.stderr
    assert {w["how"] for w in json.loads(recipe.read_text())["weights"]} == {
        "copy", "transpose"}
    assert stripped.read_bytes() != engine.read_bytes()
    result = run("restore", stripped, restored, "--model", model, "--recipe", recipe)
    assert result.returncode == 0, result.stderr
    assert restored.read_bytes() == engine.read_bytes()


def test_restore_refuses_another_model(tmp_path):
    model, other = tmp_path / "m.onnx", tmp_path / "other.onnx"
    make_model(model, np.random.default_rng(0))
    make_model(other, np.random.default_rng(0), scale=2.0)
    engine, stripped, recipe = tmp_path / "m.engine", tmp_path / "m.stripped", tmp_path / "r.json"
    subprocess.run([str(INFER_OPT), str(model), "--emit=engine", "-o", str(engine)], check=True)
    assert run("split", engine, stripped, "--model", model, "--recipe", recipe).returncode == 0
    result = run("restore", stripped, tmp_path / "out", "--model", other, "--recipe", recipe)
    assert result.returncode == 1
    assert "initializer embedding (transpose) differs from the engine's weight" in result.stderr
    assert "not the model the engine was compiled from" in result.stderr
    assert not (tmp_path / "out").exists()


def test_split_needs_model_and_recipe(tmp_path):
    model = tmp_path / "m.onnx"
    make_model(model, np.random.default_rng(0))
    engine = tmp_path / "m.engine"
    subprocess.run([str(INFER_OPT), str(model), "--emit=engine", "-o", str(engine)], check=True)
    result = run("split", engine, tmp_path / "s")
    assert result.returncode == 2
    assert "split needs --model and --recipe" in result.stderr


def test_a_corrupt_engine_is_refused_not_resealed(tmp_path):
    """Every checksum is rewritten, so a corrupt input would come out as a
    valid engine: it must be refused instead."""
    model = tmp_path / "m.onnx"
    make_model(model, np.random.default_rng(0))
    engine, bad = tmp_path / "m.engine", tmp_path / "bad.engine"
    subprocess.run([str(INFER_OPT), str(model), "--emit=engine", "-o", str(engine)], check=True)
    data = bytearray(engine.read_bytes())
    data[-300] ^= 0x40  # In the last section (the weights).
    bad.write_bytes(bytes(data))
    result = run("strip", bad, tmp_path / "out")
    assert result.returncode == 2
    assert "bad.engine: section WEIGHTS is corrupt (checksum mismatch)" in result.stderr
    assert not (tmp_path / "out").exists()


def make_projections(path, rng, scale=1.0):
    """Two attention score products whose Q and K are projections of one
    x: by MatMul weights [in, out], and by Gemm weights [out, in] (transB).
    For CUDA each pair is one contraction by its weights side by side
    (infer-cuda-merge-projections): along the columns, and along the rows."""
    n = helper.make_node
    inits = {name: rng.standard_normal((32, 32)).astype(np.float32) * (scale if name == "wk" else 1)
             for name in ("wq", "wk", "gq", "gk")}
    inits["heads"] = np.array([16, 2, 16], np.int64)
    nodes = [n("MatMul", ["x", "wq"], ["q"]), n("MatMul", ["x", "wk"], ["k"]),
             n("Gemm", ["x", "gq"], ["q2"], transB=1), n("Gemm", ["x", "gk"], ["k2"], transB=1)]
    for p in ("q", "k", "q2", "k2"):
        nodes += [n("Reshape", [p, "heads"], [f"{p}r"]),
                  n("Transpose", [f"{p}r"], [f"{p}t"], perm=[1, 0, 2] if "q" in p else [1, 2, 0])]
    nodes += [n("MatMul", ["qt", "kt"], ["s"]), n("MatMul", ["q2t", "k2t"], ["s2"])]
    graph = helper.make_graph(
        nodes, "projections", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 32])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 16, 16]) for y in ("s", "s2")],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_merged_projection_weights_split_by_their_parts(tmp_path):
    """A CUDA engine's merged Q/K weights are initializers side by side: split
    names each part and the axis, restore concatenates them back (byte-
    identical engine), and a model whose K differs is refused."""
    model, other = tmp_path / "m.onnx", tmp_path / "other.onnx"
    make_projections(model, np.random.default_rng(0))
    make_projections(other, np.random.default_rng(0), scale=2.0)
    engine, stripped, recipe, restored = (tmp_path / f for f in
                                          ("m.engine", "m.stripped", "m.recipe.json", "m.restored"))
    subprocess.run([str(INFER_OPT), str(model), "--target=cuda:sm_80", "--emit=engine", "-o",
                    str(engine)], check=True)
    result = run("split", engine, stripped, "--model", model, "--recipe", recipe)
    assert result.returncode == 0, result.stderr
    merged = [w for w in json.loads(recipe.read_text())["weights"] if "parts" in w]
    assert sorted((w["axis"], tuple(p["initializer"] for p in w["parts"])) for w in merged) == [
        (0, ("gq", "gk")), (1, ("wq", "wk"))], merged
    result = run("restore", stripped, restored, "--model", model, "--recipe", recipe)
    assert result.returncode == 0, result.stderr
    assert restored.read_bytes() == engine.read_bytes()
    result = run("restore", stripped, tmp_path / "out", "--model", other, "--recipe", recipe)
    assert result.returncode == 1
    assert "initializer wq+wk differs from the engine's weight" in result.stderr
