"""Real models compiled for the CPU match ONNX Runtime (fp32: rtol 1e-3, atol 1e-4).

The PP-OCR models come from scripts/fetch_ppocr_models.py, RapidAI's layout
and orientation models from scripts/fetch_rapid_models.py (scripts/test.sh
fetches them); the test skips a model that is not there. The transformer
case is a one-layer BERT-style encoder built here, because compiling the
full-size synthetic models embeds ~0.5 GB of weights in the code and takes
minutes (the engine file will carry weights separately).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from infer_cpu import REPO, check_against_onnxruntime

MODELS = REPO / "models"

PPOCR = {
    "cls": {"x": (1, 3, 48, 192)},
    "rec": {"x": (1, 3, 48, 320)},
    "det": {"x": (1, 3, 160, 160)},
}


def check(path: Path, inputs: dict[str, np.ndarray], tmp_path: Path):
    check_against_onnxruntime(path, inputs, tmp_path, rtol=1e-3, atol=1e-4)


# RapidAI's PicoDet layout detector (its input is fixed at 800 x 608) and
# PP-LCNet orientation classifier (scripts/fetch_rapid_models.py).
RAPID = {
    "layout": {"image": (1, 3, 800, 608)},
    "orientation": {"x": (1, 3, 224, 224)},
}
# (directory under models/, name, input shapes, the script that fetches it)
FETCHED = [("ppocr", name, shapes, "fetch_ppocr_models.py") for name, shapes in PPOCR.items()] + \
    [("rapid", name, shapes, "fetch_rapid_models.py") for name, shapes in RAPID.items()]


@pytest.mark.real_models
@pytest.mark.parametrize("folder,name,shapes,fetch", FETCHED,
                         ids=[f"{folder}-{name}" for folder, name, _, _ in FETCHED])
def test_fetched_model(folder, name, shapes, fetch, rng, tmp_path):
    path = MODELS / folder / f"{name}.onnx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/{fetch}")
    inputs = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    check(path, inputs, tmp_path)


def encoder_layer(rng, seq: int = 8, hidden: int = 32, heads: int = 4) -> onnx.ModelProto:
    """One BERT encoder layer as the torch exporter writes it: Shape chains
    for the head reshapes, scaled dot-product attention with a mask, Erf GELU
    and LayerNormalization."""
    head = hidden // heads
    w = lambda *s: (rng.standard_normal(s) * 0.2).astype(np.float32)  # noqa: E731
    inits = {
        "wq": w(hidden, hidden), "wk": w(hidden, hidden), "wv": w(hidden, hidden),
        "wo": w(hidden, hidden), "bq": w(hidden), "w1": w(hidden, 4 * hidden),
        "w2": w(4 * hidden, hidden), "g1": w(hidden) + 1, "b1": w(hidden), "g2": w(hidden) + 1,
        "b2": w(hidden), "zero": np.array([0], np.int64), "one": np.array([1], np.int64),
        "heads": np.array([heads, head], np.int64), "flat": np.array([hidden], np.int64),
        "scale": np.array(np.sqrt(head), np.float32), "neg": np.array(-10000.0, np.float32),
        "onef": np.array(1.0, np.float32), "half": np.array(0.5, np.float32),
        "rsqrt2": np.array(1 / np.sqrt(2), np.float32),
    }
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "zero"], ["batch"], axis=0),
        n("Gather", ["shape", "one"], ["seq"], axis=0),
        n("Concat", ["batch", "seq", "heads"], ["split_shape"], axis=0),
        n("Concat", ["batch", "seq", "flat"], ["merge_shape"], axis=0),
    ]
    for t in ("q", "k", "v"):
        nodes += [n("MatMul", ["x", f"w{t}"], [f"{t}0"])]
        src = f"{t}0"
        if t == "q":
            nodes += [n("Add", ["q0", "bq"], ["q1"])]
            src = "q1"
        nodes += [n("Reshape", [src, "split_shape"], [f"{t}r"]),
                  n("Transpose", [f"{t}r"], [f"{t}h"], perm=[0, 2, 3, 1] if t == "k" else [0, 2, 1, 3])]
    nodes += [
        n("MatMul", ["qh", "kh"], ["scores0"]),
        n("Div", ["scores0", "scale"], ["scores1"]),
        n("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT),
        n("Sub", ["onef", "maskf"], ["inv"]),
        n("Mul", ["inv", "neg"], ["bias0"]),
        n("Unsqueeze", ["bias0", "one"], ["bias1"]),
        n("Unsqueeze", ["bias1", "one"], ["bias2"]),
        n("Add", ["scores1", "bias2"], ["scores"]),
        n("Softmax", ["scores"], ["probs"], axis=-1),
        n("MatMul", ["probs", "vh"], ["ctx0"]),
        n("Transpose", ["ctx0"], ["ctx1"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx1", "merge_shape"], ["ctx"]),
        n("MatMul", ["ctx", "wo"], ["attn"]),
        n("Add", ["attn", "x"], ["res1"]),
        n("LayerNormalization", ["res1", "g1", "b1"], ["h1"], axis=-1, epsilon=1e-12),
        n("MatMul", ["h1", "w1"], ["f0"]),
        n("Mul", ["f0", "rsqrt2"], ["f1"]),
        n("Erf", ["f1"], ["f2"]),
        n("Add", ["f2", "onef"], ["f3"]),
        n("Mul", ["f0", "f3"], ["f4"]),
        n("Mul", ["f4", "half"], ["gelu"]),
        n("MatMul", ["gelu", "w2"], ["f5"]),
        n("Add", ["f5", "h1"], ["res2"]),
        n("LayerNormalization", ["res2", "g2", "b2"], ["y"], axis=-1, epsilon=1e-12),
    ]
    graph = helper.make_graph(
        nodes, "encoder_layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", hidden])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_transformer_encoder_layer(rng, tmp_path):
    path = tmp_path / "encoder_layer.onnx"
    onnx.save(encoder_layer(rng), str(path))
    mask = np.ones((2, 8), np.int64)
    mask[1, 5:] = 0
    inputs = {"x": rng.standard_normal((2, 8, 32)).astype(np.float32), "mask": mask}
    check(path, inputs, tmp_path)
