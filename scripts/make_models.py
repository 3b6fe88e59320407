#!/usr/bin/env python3
"""Build synthetic, architecture-true ONNX models for testing infer-opt.

The graphs are written directly with ``onnx.helper`` and filled with seeded
random weights (``numpy.random.default_rng(0)``), so no deep learning
framework and no network access is needed.  They reproduce the node patterns
that the TorchScript-based ``torch.onnx.export`` (``do_constant_folding=True``,
dynamic batch and sequence axes) emits for the corresponding torchvision /
Hugging Face models, including the "noise" a real importer has to cope with:

  * ``Shape -> Gather -> Unsqueeze -> Concat -> Reshape`` chains for views
    whose sizes depend on dynamic dimensions,
  * scalar ``Constant`` nodes feeding ``Unsqueeze`` axes, ``Clip`` bounds,
    ``Div``/``Mul`` operands and ``Slice`` starts/ends/axes/steps,
  * weights of ``MatMul`` pre-transposed into ``onnx::MatMul_<n>``
    initializers, ``Conv`` weights with BatchNorm folded in
    (``onnx::Conv_<n>``), ``Gemm`` with ``transB=1`` for 2-D ``Linear``,
  * torch's node naming (``/encoder/layer.0/attention/self/MatMul``) and
    output naming (``<node name>_output_0``).

Models (all float32, opset 17 or 18, IR version 8):

  resnet50     torchvision ResNet-50 (Bottleneck [3, 4, 6, 3]), BN folded.
               input [batch, 3, 224, 224] -> output [batch, 1000]
  mobilenetv2  torchvision MobileNetV2 (width 1.0), BN folded, ReLU6 as Clip,
               classifier pooling as ReduceMean over H, W (the
               ``x.mean([2, 3])`` form of the torchvision reference code).
               input [batch, 3, 224, 224] -> output [batch, 1000]
  bert-base    Hugging Face BertModel (bert-base-uncased configuration).
               input_ids, attention_mask, token_type_ids [batch, sequence]
               int64 -> last_hidden_state [batch, sequence, 768],
               pooler_output [batch, 768]
  vit-b16      Hugging Face ViTForImageClassification (ViT-B/16, 224x224,
               1000 classes). pixel_values [batch, 3, 224, 224] ->
               logits [batch, 1000]
  gpt2         Hugging Face GPT2LMHeadModel (GPT-2 small, no KV-cache
               outputs). GPT-2's Conv1D layers export as
               Reshape -> Gemm (addmm, no transB) -> Reshape; the causal
               mask is a per-layer bool buffer sliced with Slice and applied
               with Where; lm_head is MatMul with a Transpose node of the
               tied wte initializer (not a folded copy).
               input_ids [batch, sequence] int64 ->
               logits [batch, sequence, 50257]

Opset 17 and 18 differ only where ONNX moved attributes to inputs
(``ReduceMean`` axes); the exporter keeps ``Split``'s sizes as an input at
both opsets.

Weights use a fan-in scaled normal distribution (std 1/sqrt(fan_in), with a
ReLU gain in MobileNetV2) for convolutions and linear layers and 0.02-scaled
normals for biases and embeddings, so activations stay finite and
non-degenerate (output std ~0.5-2) through the full depth of every model.
The largest files (bert-base, gpt2) are ~0.4-0.5 GB and are stored as a
single .onnx file with raw float32 initializers.

Examples:
  python scripts/make_models.py --opset 17
  python scripts/make_models.py --opset 18 --models gpt2,bert-base --verify
"""

import argparse
import math
import pathlib
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "models" / "synthetic"

IR_VERSION = 8
FLOAT_MIN = float(np.finfo(np.float32).min)

BATCH = "batch"
SEQUENCE = "sequence"


# ---------------------------------------------------------------------------
# Graph construction helpers
# ---------------------------------------------------------------------------


class GraphBuilder:
    """Accumulates nodes and initializers with torch-exporter style names."""

    def __init__(self, opset, seed=0):
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.inputs = []
        self.outputs = []
        self._node_names = {}
        self._folded_count = 0

    # -- naming -------------------------------------------------------------

    def _unique_node_name(self, scope, op_type):
        base = f"{scope}/{op_type}"
        count = self._node_names.get(base, 0)
        self._node_names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    # -- graph interface ----------------------------------------------------

    def add_input(self, name, elem_type, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, shape))
        return name

    def add_output(self, name, elem_type, shape):
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))

    def param(self, name, array):
        """Add an initializer under a module parameter/buffer name."""
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def folded(self, consumer, array):
        """Add an initializer produced by constant folding (``onnx::Op_<n>``)."""
        name = f"onnx::{consumer}_{self._folded_count}"
        self._folded_count += 1
        return self.param(name, array)

    def node(self, scope, op_type, inputs, num_outputs=1, output=None, **attrs):
        """Append a node; returns its output name (or list of names)."""
        name = self._unique_node_name(scope, op_type)
        if output is not None:
            outputs = [output]
        else:
            outputs = [f"{name}_output_{i}" for i in range(num_outputs)]
        self.nodes.append(
            helper.make_node(op_type, list(inputs), outputs, name=name, **attrs)
        )
        return outputs[0] if num_outputs == 1 else outputs

    def constant(self, scope, value, dtype=None):
        """Emit a ``Constant`` node holding ``value`` (scalars stay 0-d)."""
        array = np.asarray(value, dtype=dtype)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        tensor = numpy_helper.from_array(array)
        return self.node(scope, "Constant", [], value=tensor)

    def int_constant(self, scope, value):
        return self.constant(scope, value, dtype=np.int64)

    # -- random weights -----------------------------------------------------

    def scaled_normal(self, shape, fan_in):
        values = self.rng.standard_normal(shape, dtype=np.float32)
        return values * np.float32(1.0 / math.sqrt(fan_in))

    def small_normal(self, shape, scale=0.02):
        return self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)

    def layer_norm_params(self, prefix, width):
        gamma = 1.0 + self.small_normal((width,))
        beta = self.small_normal((width,))
        return (
            self.param(f"{prefix}.weight", gamma.astype(np.float32)),
            self.param(f"{prefix}.bias", beta),
        )

    # -- finishing ------------------------------------------------------------

    def make_model(self, graph_name, doc):
        graph = helper.make_graph(
            self.nodes,
            graph_name,
            self.inputs,
            self.outputs,
            initializer=self.initializers,
        )
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", self.opset)],
            producer_name="infer-opt-make_models",
            producer_version="1",
            doc_string=doc,
        )
        model.ir_version = IR_VERSION
        return model


# ---------------------------------------------------------------------------
# Exporter idioms shared between models
# ---------------------------------------------------------------------------


def dim_of(b, scope, x, index):
    """``x.size(index)``: Shape -> Gather(scalar index) -> 0-d int64."""
    shape = b.node(scope, "Shape", [x])
    idx = b.int_constant(scope, index)
    return b.node(scope, "Gather", [shape, idx], axis=0)


def unsqueeze(b, scope, x, axes):
    """``Unsqueeze`` with axes given as a Constant input (opset >= 13)."""
    return b.node(scope, "Unsqueeze", [x, b.int_constant(scope, list(axes))])


def dynamic_shape(b, scope, pieces):
    """Concat a shape from 0-d dynamic sizes and static int lists."""
    parts = []
    for piece in pieces:
        if isinstance(piece, str):
            parts.append(unsqueeze(b, scope, piece, [0]))
        else:
            parts.append(b.int_constant(scope, list(piece)))
    return b.node(scope, "Concat", parts, axis=0)


def reshape(b, scope, x, shape):
    return b.node(scope, "Reshape", [x, shape], allowzero=0)


def reduce_mean(b, scope, x, axes, keepdims):
    """``ReduceMean``; the axes attribute became an input in opset 18."""
    if b.opset >= 18:
        axes_input = b.int_constant(scope, list(axes))
        return b.node(scope, "ReduceMean", [x, axes_input], keepdims=keepdims)
    return b.node(scope, "ReduceMean", [x], axes=list(axes), keepdims=keepdims)


def linear_nd(b, scope, x, prefix, in_features, out_features):
    """``nn.Linear`` on a >2-D input: MatMul(x, W^T folded) + Add(bias, .)."""
    weight_t = b.scaled_normal((in_features, out_features), in_features)
    bias = b.param(f"{prefix}.bias", b.small_normal((out_features,)))
    product = b.node(scope, "MatMul", [x, b.folded("MatMul", weight_t)])
    return b.node(scope, "Add", [bias, product])


def linear_2d(b, scope, x, prefix, in_features, out_features):
    """``nn.Linear`` on a 2-D input: Gemm(x, W, b, transB=1)."""
    weight = b.param(
        f"{prefix}.weight", b.scaled_normal((out_features, in_features), in_features)
    )
    bias = b.param(f"{prefix}.bias", b.small_normal((out_features,)))
    return b.node(scope, "Gemm", [x, weight, bias], alpha=1.0, beta=1.0, transB=1)


def layer_norm(b, scope, x, prefix, width, eps, output=None):
    weight, bias = b.layer_norm_params(prefix, width)
    return b.node(
        scope,
        "LayerNormalization",
        [x, weight, bias],
        output=output,
        axis=-1,
        epsilon=eps,
    )


def gelu_erf(b, scope, x):
    """Exact GELU as exported before opset 20: x * (1 + erf(x / sqrt2)) * 0.5."""
    scaled = b.node(scope, "Div", [x, b.constant(scope, math.sqrt(2.0))])
    erf = b.node(scope, "Erf", [scaled])
    plus_one = b.node(scope, "Add", [erf, b.constant(scope, 1.0)])
    product = b.node(scope, "Mul", [x, plus_one])
    return b.node(scope, "Mul", [product, b.constant(scope, 0.5)])


def gelu_tanh(b, scope, x):
    """GPT-2 ``gelu_new``: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))."""
    half_x = b.node(scope, "Mul", [x, b.constant(scope, 0.5)])
    cube = b.node(scope, "Pow", [x, b.constant(scope, 3.0)])
    cube = b.node(scope, "Mul", [cube, b.constant(scope, 0.044715)])
    inner = b.node(scope, "Add", [x, cube])
    inner = b.node(scope, "Mul", [inner, b.constant(scope, math.sqrt(2.0 / math.pi))])
    tanh = b.node(scope, "Tanh", [inner])
    plus_one = b.node(scope, "Add", [tanh, b.constant(scope, 1.0)])
    return b.node(scope, "Mul", [half_x, plus_one])


def split_heads(b, scope, x, heads, head_size, perm):
    """``x.view(x.size()[:-1] + (heads, head_size)).permute(perm)``."""
    batch = dim_of(b, scope, x, 0)
    seq = dim_of(b, scope, x, 1)
    shape = dynamic_shape(b, scope, [batch, seq, [heads], [head_size]])
    return b.node(scope, "Transpose", [reshape(b, scope, x, shape)], perm=perm)


def merge_heads(b, scope, x, width):
    """``x.permute(0, 2, 1, 3).view(x.size()[:-2] + (width,))``."""
    x = b.node(scope, "Transpose", [x], perm=[0, 2, 1, 3])
    batch = dim_of(b, scope, x, 0)
    seq = dim_of(b, scope, x, 1)
    return reshape(b, scope, x, dynamic_shape(b, scope, [batch, seq, [width]]))


def bert_style_attention(b, scope, x, prefix, hidden, heads, mask=None):
    """Hugging Face BertSelfAttention/ViTSelfAttention (eager path).

    The key's two transposes (``permute(0, 2, 1, 3)`` then
    ``transpose(-1, -2)``) are fused by the exporter's peephole pass into
    a single perm ``[0, 2, 3, 1]``.
    """
    head_size = hidden // heads
    query = linear_nd(b, f"{scope}/query", x, f"{prefix}.query", hidden, hidden)
    key = linear_nd(b, f"{scope}/key", x, f"{prefix}.key", hidden, hidden)
    value = linear_nd(b, f"{scope}/value", x, f"{prefix}.value", hidden, hidden)
    query = split_heads(b, scope, query, heads, head_size, [0, 2, 1, 3])
    key = split_heads(b, scope, key, heads, head_size, [0, 2, 3, 1])
    value = split_heads(b, scope, value, heads, head_size, [0, 2, 1, 3])
    scores = b.node(scope, "MatMul", [query, key])
    scores = b.node(scope, "Div", [scores, b.constant(scope, math.sqrt(head_size))])
    if mask is not None:
        scores = b.node(scope, "Add", [scores, mask])
    probs = b.node(scope, "Softmax", [scores], axis=-1)
    context = b.node(scope, "MatMul", [probs, value])
    return merge_heads(b, scope, context, hidden)


# ---------------------------------------------------------------------------
# CNNs (torchvision)
# ---------------------------------------------------------------------------


def conv_bn(b, scope, x, in_ch, out_ch, kernel, stride=1, groups=1, gain=1.0):
    """Conv2d(bias=False) + BatchNorm2d, folded into one biased Conv.

    ``gain`` scales the weights' fan-in normalisation; sqrt(2) compensates
    for a following ReLU in deep stacks without residual connections.
    """
    pad = (kernel - 1) // 2
    fan_in = (in_ch // groups * kernel * kernel) / (gain * gain)
    weight = b.folded(
        "Conv", b.scaled_normal((out_ch, in_ch // groups, kernel, kernel), fan_in)
    )
    bias = b.folded("Conv", b.small_normal((out_ch,)))
    return b.node(
        scope,
        "Conv",
        [x, weight, bias],
        dilations=[1, 1],
        group=groups,
        kernel_shape=[kernel, kernel],
        pads=[pad] * 4,
        strides=[stride, stride],
    )


def build_resnet50(b):
    image = b.add_input("input", TensorProto.FLOAT, [BATCH, 3, 224, 224])
    x = conv_bn(b, "/conv1", image, 3, 64, 7, stride=2)
    x = b.node("/relu", "Relu", [x])
    x = b.node(
        "/maxpool",
        "MaxPool",
        [x],
        ceil_mode=0,
        dilations=[1, 1],
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
    )
    in_ch = 64
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
        out_ch = width * 4
        for block in range(blocks):
            scope = f"/layer{stage + 1}/layer{stage + 1}.{block}"
            stride = 2 if block == 0 and stage > 0 else 1
            identity = x
            y = conv_bn(b, f"{scope}/conv1", x, in_ch, width, 1)
            y = b.node(f"{scope}/relu", "Relu", [y])
            y = conv_bn(b, f"{scope}/conv2", y, width, width, 3, stride=stride)
            y = b.node(f"{scope}/relu_1", "Relu", [y])
            y = conv_bn(b, f"{scope}/conv3", y, width, out_ch, 1)
            if block == 0:
                identity = conv_bn(
                    b, f"{scope}/downsample/downsample.0", x, in_ch, out_ch, 1, stride
                )
            y = b.node(scope, "Add", [y, identity])
            x = b.node(f"{scope}/relu_2", "Relu", [y])
            in_ch = out_ch
    x = b.node("/avgpool", "GlobalAveragePool", [x])
    x = b.node("", "Flatten", [x], axis=1)
    weight = b.param("fc.weight", b.scaled_normal((1000, 2048), 2048))
    bias = b.param("fc.bias", b.small_normal((1000,)))
    b.node(
        "/fc", "Gemm", [x, weight, bias], output="output", alpha=1.0, beta=1.0, transB=1
    )
    b.add_output("output", TensorProto.FLOAT, [BATCH, 1000])


def relu6(b, scope, x):
    """``nn.ReLU6`` -> Clip with min/max as scalar Constant inputs."""
    low = b.constant(scope, 0.0)
    high = b.constant(scope, 6.0)
    return b.node(scope, "Clip", [x, low, high])


def build_mobilenetv2(b):
    image = b.add_input("input", TensorProto.FLOAT, [BATCH, 3, 224, 224])
    relu_gain = math.sqrt(2.0)
    x = conv_bn(
        b, "/features/features.0/features.0.0", image, 3, 32, 3, 2, gain=relu_gain
    )
    x = relu6(b, "/features/features.0/features.0.2", x)
    # (expansion t, output channels c, repeats n, first stride s)
    settings = [
        (1, 16, 1, 1),
        (6, 24, 2, 2),
        (6, 32, 3, 2),
        (6, 64, 4, 2),
        (6, 96, 3, 1),
        (6, 160, 3, 2),
        (6, 320, 1, 1),
    ]
    in_ch = 32
    index = 1
    for expand, out_ch, repeats, first_stride in settings:
        for i in range(repeats):
            stride = first_stride if i == 0 else 1
            hidden = in_ch * expand
            scope = f"/features/features.{index}/conv"
            y = x
            layer = 0
            if expand != 1:
                sub = f"{scope}/conv.{layer}"
                y = conv_bn(
                    b, f"{sub}/conv.{layer}.0", y, in_ch, hidden, 1, gain=relu_gain
                )
                y = relu6(b, f"{sub}/conv.{layer}.2", y)
                layer += 1
            sub = f"{scope}/conv.{layer}"
            y = conv_bn(
                b,
                f"{sub}/conv.{layer}.0",
                y,
                hidden,
                hidden,
                3,
                stride,
                hidden,
                relu_gain,
            )
            y = relu6(b, f"{sub}/conv.{layer}.2", y)
            y = conv_bn(b, f"{scope}/conv.{layer + 1}", y, hidden, out_ch, 1)
            if stride == 1 and in_ch == out_ch:
                y = b.node(f"/features/features.{index}", "Add", [x, y])
            x = y
            in_ch = out_ch
            index += 1
    scope = f"/features/features.{index}"
    x = conv_bn(b, f"{scope}/features.{index}.0", x, in_ch, 1280, 1, gain=relu_gain)
    x = relu6(b, f"{scope}/features.{index}.2", x)
    x = reduce_mean(b, "", x, [2, 3], keepdims=0)
    weight = b.param("classifier.1.weight", b.scaled_normal((1000, 1280), 1280))
    bias = b.param("classifier.1.bias", b.small_normal((1000,)))
    b.node(
        "/classifier/classifier.1",
        "Gemm",
        [x, weight, bias],
        output="output",
        alpha=1.0,
        beta=1.0,
        transB=1,
    )
    b.add_output("output", TensorProto.FLOAT, [BATCH, 1000])


# ---------------------------------------------------------------------------
# Transformers (Hugging Face)
# ---------------------------------------------------------------------------


def build_bert_base(b, layers=12):
    hidden, heads, inter = 768, 12, 3072
    vocab, max_pos, eps = 30522, 512, 1e-12
    input_ids = b.add_input("input_ids", TensorProto.INT64, [BATCH, SEQUENCE])
    mask = b.add_input("attention_mask", TensorProto.INT64, [BATCH, SEQUENCE])
    token_types = b.add_input("token_type_ids", TensorProto.INT64, [BATCH, SEQUENCE])

    # Extended attention mask: (1 - mask[:, None, None, :].float()) * min.
    ext = unsqueeze(b, "", mask, [1])
    ext = unsqueeze(b, "", ext, [2])
    ext = b.node("", "Cast", [ext], to=TensorProto.FLOAT)
    ext = b.node("", "Sub", [b.constant("", 1.0), ext])
    ext = b.node("", "Mul", [ext, b.constant("", FLOAT_MIN)])

    # Embeddings; position ids are a slice of the registered buffer.
    scope = "/embeddings"
    seq_len = dim_of(b, scope, input_ids, 1)
    position_ids = b.param(
        "embeddings.position_ids", np.arange(max_pos, dtype=np.int64)[None, :]
    )
    end = b.node(scope, "Add", [seq_len, b.int_constant(scope, 0)])
    position_ids = b.node(
        scope,
        "Slice",
        [
            position_ids,
            b.int_constant(scope, [0]),
            unsqueeze(b, scope, end, [0]),
            b.int_constant(scope, [1]),
            b.int_constant(scope, [1]),
        ],
    )
    word = b.param("embeddings.word_embeddings.weight", b.small_normal((vocab, hidden)))
    types = b.param(
        "embeddings.token_type_embeddings.weight", b.small_normal((2, hidden))
    )
    positions = b.param(
        "embeddings.position_embeddings.weight", b.small_normal((max_pos, hidden))
    )
    x = b.node(f"{scope}/word_embeddings", "Gather", [word, input_ids])
    t = b.node(f"{scope}/token_type_embeddings", "Gather", [types, token_types])
    x = b.node(scope, "Add", [x, t])
    p = b.node(f"{scope}/position_embeddings", "Gather", [positions, position_ids])
    x = b.node(scope, "Add", [x, p])
    x = layer_norm(b, f"{scope}/LayerNorm", x, "embeddings.LayerNorm", hidden, eps)

    for i in range(layers):
        scope = f"/encoder/layer.{i}"
        prefix = f"encoder.layer.{i}"
        attn = bert_style_attention(
            b,
            f"{scope}/attention/self",
            x,
            f"{prefix}.attention.self",
            hidden,
            heads,
            mask=ext,
        )
        out_scope = f"{scope}/attention/output"
        attn = linear_nd(
            b,
            f"{out_scope}/dense",
            attn,
            f"{prefix}.attention.output.dense",
            hidden,
            hidden,
        )
        attn = b.node(out_scope, "Add", [attn, x])
        x = layer_norm(
            b,
            f"{out_scope}/LayerNorm",
            attn,
            f"{prefix}.attention.output.LayerNorm",
            hidden,
            eps,
        )
        h = linear_nd(
            b,
            f"{scope}/intermediate/dense",
            x,
            f"{prefix}.intermediate.dense",
            hidden,
            inter,
        )
        h = gelu_erf(b, f"{scope}/intermediate/intermediate_act_fn", h)
        h = linear_nd(
            b, f"{scope}/output/dense", h, f"{prefix}.output.dense", inter, hidden
        )
        h = b.node(f"{scope}/output", "Add", [h, x])
        x = layer_norm(
            b,
            f"{scope}/output/LayerNorm",
            h,
            f"{prefix}.output.LayerNorm",
            hidden,
            eps,
            output="last_hidden_state" if i == layers - 1 else None,
        )
    b.add_output("last_hidden_state", TensorProto.FLOAT, [BATCH, SEQUENCE, hidden])

    first = b.node("/pooler", "Gather", [x, b.int_constant("/pooler", 0)], axis=1)
    pooled = linear_2d(b, "/pooler/dense", first, "pooler.dense", hidden, hidden)
    b.node("/pooler/activation", "Tanh", [pooled], output="pooler_output")
    b.add_output("pooler_output", TensorProto.FLOAT, [BATCH, hidden])


def expand_to_batch(b, scope, x, batch, rank):
    """``x.expand(batch, -1, ...)`` as exported (with -1 -> 1 rewriting)."""
    sizes = dynamic_shape(b, scope, [batch] + [[-1]] * (rank - 1))
    sizes = reshape(b, scope, sizes, b.int_constant(scope, [-1]))
    is_keep = b.node(scope, "Equal", [sizes, b.int_constant(scope, [-1] * rank)])
    sizes = b.node(scope, "Where", [is_keep, b.int_constant(scope, [1] * rank), sizes])
    return b.node(scope, "Expand", [x, sizes])


def build_vit_b16(b, layers=12):
    hidden, heads, inter = 768, 12, 3072
    patch, image_size, classes, eps = 16, 224, 1000, 1e-12
    patches = (image_size // patch) ** 2
    pixels = b.add_input(
        "pixel_values", TensorProto.FLOAT, [BATCH, 3, image_size, image_size]
    )

    scope = "/vit/embeddings"
    batch = dim_of(b, scope, pixels, 0)
    proj_scope = f"{scope}/patch_embeddings/projection"
    weight = b.param(
        "vit.embeddings.patch_embeddings.projection.weight",
        b.scaled_normal((hidden, 3, patch, patch), 3 * patch * patch),
    )
    bias = b.param(
        "vit.embeddings.patch_embeddings.projection.bias", b.small_normal((hidden,))
    )
    x = b.node(
        proj_scope,
        "Conv",
        [pixels, weight, bias],
        dilations=[1, 1],
        group=1,
        kernel_shape=[patch, patch],
        pads=[0, 0, 0, 0],
        strides=[patch, patch],
    )
    # flatten(2): Shape -> Slice[:2] -> Concat(.., [-1]) -> Reshape.
    emb_scope = f"{scope}/patch_embeddings"
    shape = b.node(emb_scope, "Shape", [x])
    leading = b.node(
        emb_scope,
        "Slice",
        [
            shape,
            b.int_constant(emb_scope, [0]),
            b.int_constant(emb_scope, [2]),
            b.int_constant(emb_scope, [0]),
        ],
    )
    flat_shape = b.node(
        emb_scope, "Concat", [leading, b.int_constant(emb_scope, [-1])], axis=0
    )
    x = reshape(b, emb_scope, x, flat_shape)
    x = b.node(emb_scope, "Transpose", [x], perm=[0, 2, 1])

    cls = b.param("vit.embeddings.cls_token", b.small_normal((1, 1, hidden)))
    cls = expand_to_batch(b, scope, cls, batch, 3)
    x = b.node(scope, "Concat", [cls, x], axis=1)
    pos = b.param(
        "vit.embeddings.position_embeddings", b.small_normal((1, patches + 1, hidden))
    )
    x = b.node(scope, "Add", [x, pos])

    for i in range(layers):
        scope = f"/vit/encoder/layer.{i}"
        prefix = f"vit.encoder.layer.{i}"
        h = layer_norm(
            b, f"{scope}/layernorm_before", x, f"{prefix}.layernorm_before", hidden, eps
        )
        h = bert_style_attention(
            b,
            f"{scope}/attention/attention",
            h,
            f"{prefix}.attention.attention",
            hidden,
            heads,
        )
        h = linear_nd(
            b,
            f"{scope}/attention/output/dense",
            h,
            f"{prefix}.attention.output.dense",
            hidden,
            hidden,
        )
        x = b.node(scope, "Add", [h, x])
        h = layer_norm(
            b, f"{scope}/layernorm_after", x, f"{prefix}.layernorm_after", hidden, eps
        )
        h = linear_nd(
            b,
            f"{scope}/intermediate/dense",
            h,
            f"{prefix}.intermediate.dense",
            hidden,
            inter,
        )
        h = gelu_erf(b, f"{scope}/intermediate/intermediate_act_fn", h)
        h = linear_nd(
            b, f"{scope}/output/dense", h, f"{prefix}.output.dense", inter, hidden
        )
        x = b.node(f"{scope}/output", "Add", [h, x])

    x = layer_norm(b, "/vit/layernorm", x, "vit.layernorm", hidden, eps)
    cls_out = b.node("", "Gather", [x, b.int_constant("", 0)], axis=1)
    weight = b.param("classifier.weight", b.scaled_normal((classes, hidden), hidden))
    bias = b.param("classifier.bias", b.small_normal((classes,)))
    b.node(
        "/classifier",
        "Gemm",
        [cls_out, weight, bias],
        output="logits",
        alpha=1.0,
        beta=1.0,
        transB=1,
    )
    b.add_output("logits", TensorProto.FLOAT, [BATCH, classes])


def conv1d(b, scope, x, prefix, in_features, out_features):
    """GPT-2 ``Conv1D``: view(-1, in) -> addmm (Gemm) -> view(size_out)."""
    batch = dim_of(b, scope, x, 0)
    seq = dim_of(b, scope, x, 1)
    size_out = dynamic_shape(b, scope, [batch, seq, [out_features]])
    flat = reshape(b, scope, x, b.int_constant(scope, [-1, in_features]))
    weight = b.param(
        f"{prefix}.weight", b.scaled_normal((in_features, out_features), in_features)
    )
    bias = b.param(f"{prefix}.bias", b.small_normal((out_features,)))
    y = b.node(scope, "Gemm", [flat, weight, bias], alpha=1.0, beta=1.0)
    return reshape(b, scope, y, size_out)


def build_gpt2(b):
    hidden, heads, layers = 768, 12, 12
    vocab, positions, eps = 50257, 1024, 1e-5
    head_size = hidden // heads
    input_ids = b.add_input("input_ids", TensorProto.INT64, [BATCH, SEQUENCE])

    scope = "/transformer"
    seq = dim_of(b, scope, input_ids, 1)
    ids = reshape(b, scope, input_ids, dynamic_shape(b, scope, [[-1], seq]))
    end = b.node(scope, "Add", [seq, b.int_constant(scope, 0)])
    position_ids = b.node(
        scope, "Range", [b.int_constant(scope, 0), end, b.int_constant(scope, 1)]
    )
    position_ids = unsqueeze(b, scope, position_ids, [0])
    wte = b.param("transformer.wte.weight", b.small_normal((vocab, hidden)))
    wpe = b.param("transformer.wpe.weight", b.small_normal((positions, hidden), 0.01))
    x = b.node(f"{scope}/wte", "Gather", [wte, ids])
    p = b.node(f"{scope}/wpe", "Gather", [wpe, position_ids])
    x = b.node(scope, "Add", [x, p])
    output_shape = dynamic_shape(b, scope, [[-1], seq, [hidden]])

    causal = np.tril(np.ones((positions, positions), dtype=bool))[None, None]
    for i in range(layers):
        scope = f"/transformer/h.{i}"
        prefix = f"transformer.h.{i}"
        h = layer_norm(b, f"{scope}/ln_1", x, f"{prefix}.ln_1", hidden, eps)

        attn = f"{scope}/attn"
        qkv = conv1d(
            b, f"{attn}/c_attn", h, f"{prefix}.attn.c_attn", hidden, 3 * hidden
        )
        split = b.int_constant(attn, [hidden] * 3)
        query, key, value = b.node(attn, "Split", [qkv, split], num_outputs=3, axis=2)
        query = split_heads(b, attn, query, heads, head_size, [0, 2, 1, 3])
        key = split_heads(b, attn, key, heads, head_size, [0, 2, 1, 3])
        value = split_heads(b, attn, value, heads, head_size, [0, 2, 1, 3])
        key_t = b.node(attn, "Transpose", [key], perm=[0, 1, 3, 2])
        scores = b.node(attn, "MatMul", [query, key_t])
        scores = b.node(
            attn, "Div", [scores, b.constant(attn, float(math.sqrt(head_size)))]
        )
        # causal_mask = bias[:, :, k_len - q_len:k_len, :k_len]
        q_len = dim_of(b, attn, query, 2)
        k_len = dim_of(b, attn, key, 2)
        start = b.node(attn, "Sub", [k_len, q_len])
        bias = b.param(f"{prefix}.attn.bias", causal)
        mask = b.node(
            attn,
            "Slice",
            [
                bias,
                unsqueeze(b, attn, start, [0]),
                unsqueeze(b, attn, k_len, [0]),
                b.int_constant(attn, [2]),
                b.int_constant(attn, [1]),
            ],
        )
        mask = b.node(
            attn,
            "Slice",
            [
                mask,
                b.int_constant(attn, [0]),
                unsqueeze(b, attn, k_len, [0]),
                b.int_constant(attn, [3]),
                b.int_constant(attn, [1]),
            ],
        )
        scores = b.node(attn, "Where", [mask, scores, b.constant(attn, FLOAT_MIN)])
        probs = b.node(attn, "Softmax", [scores], axis=-1)
        context = b.node(attn, "MatMul", [probs, value])
        context = merge_heads(b, attn, context, hidden)
        context = conv1d(
            b, f"{attn}/c_proj", context, f"{prefix}.attn.c_proj", hidden, hidden
        )
        x = b.node(scope, "Add", [context, x])

        h = layer_norm(b, f"{scope}/ln_2", x, f"{prefix}.ln_2", hidden, eps)
        mlp = f"{scope}/mlp"
        h = conv1d(b, f"{mlp}/c_fc", h, f"{prefix}.mlp.c_fc", hidden, 4 * hidden)
        h = gelu_tanh(b, f"{mlp}/act", h)
        h = conv1d(b, f"{mlp}/c_proj", h, f"{prefix}.mlp.c_proj", 4 * hidden, hidden)
        x = b.node(scope, "Add", [x, h])

    x = layer_norm(b, "/transformer/ln_f", x, "transformer.ln_f", hidden, eps)
    x = reshape(b, "/transformer", x, output_shape)
    # The lm_head weight is tied to wte; the transpose is kept as a node on
    # the shared initializer instead of duplicating 150 MB of weights.
    wte_t = b.node("/lm_head", "Transpose", [wte], perm=[1, 0])
    b.node("/lm_head", "MatMul", [x, wte_t], output="logits")
    b.add_output("logits", TensorProto.FLOAT, [BATCH, SEQUENCE, vocab])


MODELS = {
    "resnet50": (build_resnet50, "torchvision ResNet-50, BatchNorm folded"),
    "mobilenetv2": (build_mobilenetv2, "torchvision MobileNetV2, BatchNorm folded"),
    "bert-base": (build_bert_base, "Hugging Face BertModel, bert-base configuration"),
    "vit-b16": (build_vit_b16, "Hugging Face ViTForImageClassification, ViT-B/16"),
    "gpt2": (build_gpt2, "Hugging Face GPT2LMHeadModel, GPT-2 small"),
}


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def build_model(name, opset, layers=None):
    """The model `name`; `layers` (bert-base and vit-b16) makes a shallower
    one of the same layers, for tests of what each layer's rewrites make."""
    builder_fn, description = MODELS[name]
    b = GraphBuilder(opset)
    if layers is None:
        builder_fn(b)
    else:
        builder_fn(b, layers=layers)
        description += f", {layers} layers"
    doc = (
        f"{description}. Synthetic weights (numpy default_rng(0)); graph "
        f"mimics torch.onnx.export (TorchScript) at opset {opset}. "
        "Generated by infer-opt scripts/make_models.py."
    )
    return b.make_model(name.replace("-", "_"), doc)


def random_feed(session, seed=1, batch=1, sequence=16):
    """Random inputs for every graph input, resolving symbolic dims."""
    rng = np.random.default_rng(seed)
    feed = {}
    for arg in session.get_inputs():
        shape = [
            batch if d == BATCH else sequence if d == SEQUENCE else d for d in arg.shape
        ]
        if arg.type == "tensor(float)":
            feed[arg.name] = rng.standard_normal(shape, dtype=np.float32)
        elif arg.name == "input_ids":
            feed[arg.name] = rng.integers(0, 30000, size=shape, dtype=np.int64)
        elif arg.name == "token_type_ids":
            feed[arg.name] = rng.integers(0, 2, size=shape, dtype=np.int64)
        elif arg.name == "attention_mask":
            mask = np.ones(shape, dtype=np.int64)
            mask[:, -3:] = 0
            feed[arg.name] = mask
        else:
            raise ValueError(f"no random generator for input {arg.name} ({arg.type})")
    return feed


def verify(path):
    """Run the saved model in onnxruntime (CPU, 1 thread) and report outputs."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
    feed = random_feed(session)
    start = time.perf_counter()
    results = session.run(None, feed)
    elapsed = time.perf_counter() - start
    ok = True
    for arg, value in zip(session.get_outputs(), results):
        finite = bool(np.isfinite(value).all())
        ok = ok and finite
        print(
            f"    {arg.name}: shape {list(value.shape)} dtype {value.dtype} "
            f"mean {value.mean():+.4f} std {value.std():.4f} finite {finite}"
        )
    print(f"    onnxruntime run: {elapsed * 1000:.1f} ms")
    return ok


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out",
        type=pathlib.Path,
        default=DEFAULT_OUT,
        help="output directory (default: %(default)s)",
    )
    parser.add_argument(
        "--opset", type=int, choices=[17, 18], required=True, help="ONNX opset version"
    )
    parser.add_argument(
        "--models",
        default=",".join(MODELS),
        help="comma-separated subset of: %(default)s",
    )
    parser.add_argument(
        "--force", action="store_true", help="rebuild files that already exist"
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run onnx.checker (full_check) and onnxruntime on each model",
    )
    args = parser.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for name in args.models:
        path = args.out / f"{name}-opset{args.opset}.onnx"
        if path.exists() and not args.force:
            print(f"{path}: exists, skipped (use --force to rebuild)")
        else:
            start = time.perf_counter()
            model = build_model(name, args.opset)
            built = time.perf_counter()
            partial = path.with_suffix(".onnx.part")
            onnx.save_model(model, str(partial))
            partial.replace(path)
            saved = time.perf_counter()
            print(
                f"{path}: {len(model.graph.node)} nodes, "
                f"{len(model.graph.initializer)} initializers, "
                f"{path.stat().st_size / 2**20:.1f} MiB "
                f"(built {built - start:.1f}s, saved {saved - built:.1f}s)"
            )
            del model
        if args.verify:
            start = time.perf_counter()
            onnx.checker.check_model(str(path), full_check=True)
            print(
                f"    onnx.checker full_check: ok ({time.perf_counter() - start:.1f}s)"
            )
            if not verify(path):
                print(f"    ERROR: non-finite outputs from {path}")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
