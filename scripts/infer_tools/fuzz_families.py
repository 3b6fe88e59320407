"""The random models of scripts/fuzz_models.py, one family of generators per
kind: CNN blocks, transformer blocks, tensor programs and contraction chains
around the tensor-core tile sizes. make_model(seed, family) is the entry;
the same seed always makes the same model.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ACTIVATIONS = ["none", "relu", "clip6", "hardswish", "hardsigmoid_mul", "swish", "sigmoid",
               "leaky_relu", "tanh"]


class Graph:
    """Nodes and initializers of a model being made, with each value's shape."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, array: np.ndarray, prefix: str = "w") -> str:
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        self.shapes[name] = tuple(np.shape(array))
        return name

    def weight(self, *shape: int, scale: float | None = None) -> str:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32))

    def op(self, op_type: str, inputs: list[str], shape: tuple[int, ...], **attrs) -> str:
        out = self.name(op_type.lower() + "_")
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        self.shapes[out] = tuple(shape)
        return out


def activation(g: Graph, x: str, kind: str) -> str:
    shape = g.shapes[x]
    if kind == "relu":
        return g.op("Relu", [x], shape)
    if kind == "clip6":
        return g.op("Clip", [x, g.const(np.float32(0)), g.const(np.float32(6))], shape)
    if kind == "hardswish":
        return g.op("HardSwish", [x], shape)
    if kind == "hardsigmoid_mul":
        return g.op("Mul", [x, g.op("HardSigmoid", [x], shape, alpha=0.2, beta=0.5)], shape)
    if kind == "swish":
        return g.op("Mul", [x, g.op("Sigmoid", [x], shape)], shape)
    if kind == "sigmoid":
        return g.op("Sigmoid", [x], shape)
    if kind == "leaky_relu":
        return g.op("LeakyRelu", [x], shape, alpha=0.1)
    if kind == "tanh":
        return g.op("Tanh", [x], shape)
    return x


def gelu(g: Graph, x: str) -> str:
    """GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt(2)))."""
    shape = g.shapes[x]
    e = g.op("Erf", [g.op("Div", [x, g.const(np.float32(np.sqrt(2.0)))], shape)], shape)
    one = g.op("Add", [e, g.const(np.float32(1.0))], shape)
    return g.op("Mul", [g.op("Mul", [x, one], shape), g.const(np.float32(0.5))], shape)


# ---------------------------------------------------------------- CNN blocks

def conv_out(size: int, k: int, stride: int, pad: int, dilation: int) -> int:
    return (size + 2 * pad - dilation * (k - 1) - 1) // stride + 1


def conv(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    kind = rng.choice(["dense", "dense", "pointwise", "depthwise", "grouped"])
    if kind == "depthwise":
        cout, group = c, c
    elif kind == "grouped" and c % 2 == 0:
        group = 2
        cout = 2 * int(rng.integers(1, 13))
    else:
        group = 1
        cout = int(rng.choice([1, 3, 4, 8, 12, 15, 16, 20, 24, 32, 40, 48, 64]))
    if kind == "pointwise":
        kh = kw = 1
    else:
        kh, kw = [(3, 3), (3, 3), (5, 5), (1, 3), (3, 1), (7, 7), (2, 2)][int(rng.integers(0, 7))]
    stride = int(rng.choice([1, 1, 2]))
    dilation = int(rng.choice([1, 1, 1, 2])) if kh == kw == 3 else 1
    pad_h, pad_w = (dilation * (kh - 1)) // 2, (dilation * (kw - 1)) // 2
    if rng.random() < 0.2:
        pad_h = pad_w = 0
    oh, ow = conv_out(h, kh, stride, pad_h, dilation), conv_out(w, kw, stride, pad_w, dilation)
    if oh < 1 or ow < 1:
        return x
    inputs = [x, g.weight(cout, c // group, kh, kw)]
    if rng.random() < 0.7:
        inputs.append(g.weight(cout, scale=0.1))
    y = g.op("Conv", inputs, (n, cout, oh, ow), kernel_shape=[kh, kw], strides=[stride, stride],
             pads=[pad_h, pad_w, pad_h, pad_w], dilations=[dilation, dilation], group=group)
    if rng.random() < 0.5:
        y = g.op("BatchNormalization",
                 [y, g.const(rng.uniform(0.5, 1.5, cout).astype(np.float32)),
                  g.const((rng.standard_normal(cout) * 0.1).astype(np.float32)),
                  g.const((rng.standard_normal(cout) * 0.1).astype(np.float32)),
                  g.const(rng.uniform(0.5, 2.0, cout).astype(np.float32))],
                 (n, cout, oh, ow), epsilon=1e-5)
    return activation(g, y, str(rng.choice(ACTIVATIONS)))


def squeeze_excite(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    mid = max(1, c // int(rng.choice([2, 4, 8])))
    p = g.op("GlobalAveragePool", [x], (n, c, 1, 1))
    r = g.op("Relu", [g.op("Conv", [p, g.weight(mid, c, 1, 1), g.weight(mid, scale=0.1)],
                           (n, mid, 1, 1))], (n, mid, 1, 1))
    s = g.op("Conv", [r, g.weight(c, mid, 1, 1), g.weight(c, scale=0.1)], (n, c, 1, 1))
    gate = g.op("HardSigmoid", [s], (n, c, 1, 1), alpha=0.2, beta=0.5) if rng.random() < 0.5 \
        else g.op("Sigmoid", [s], (n, c, 1, 1))
    return g.op("Mul", [x, gate], (n, c, h, w))


def pool(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    k = int(rng.choice([2, 3]))
    pad = int(rng.integers(0, k // 2 + 1))
    oh, ow = conv_out(h, k, 2, pad, 1), conv_out(w, k, 2, pad, 1)
    if oh < 1 or ow < 1:
        return x
    op = str(rng.choice(["MaxPool", "AveragePool"]))
    return g.op(op, [x], (n, c, oh, ow), kernel_shape=[k, k], strides=[2, 2],
                pads=[pad] * 4)


def upsample(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    if h * w > 1024:
        return x
    if rng.random() < 0.5:
        cout = int(rng.choice([4, 8, 16, c]))
        return g.op("ConvTranspose", [x, g.weight(c, cout, 2, 2)], (n, cout, 2 * h, 2 * w),
                    kernel_shape=[2, 2], strides=[2, 2])
    if rng.random() < 0.5:
        scales = g.const(np.array([1, 1, 2, 2], dtype=np.float32))
        return g.op("Resize", [x, "", scales], (n, c, 2 * h, 2 * w), mode="nearest")
    # Bilinear, to any size (up or down), in any coordinate mode.
    oh, ow = int(rng.integers(1, 2 * h + 2)), int(rng.integers(1, 2 * w + 2))
    ctm = str(rng.choice(["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"]))
    sizes = g.const(np.array([n, c, oh, ow], dtype=np.int64))
    return g.op("Resize", [x, "", "", sizes], (n, c, oh, ow), mode="linear",
                coordinate_transformation_mode=ctm)


def residual(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    y = conv(g, x, rng)
    if g.shapes[y] != (n, c, h, w):
        # A 3x3 same convolution keeps the shape.
        y = g.op("Conv", [x, g.weight(c, c, 3, 3)], (n, c, h, w), kernel_shape=[3, 3],
                 pads=[1, 1, 1, 1])
    return g.op("Add", [x, y], (n, c, h, w))


def concat(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    cout = int(rng.choice([4, 8, 12, 16]))
    y = g.op("Conv", [x, g.weight(cout, c, 1, 1)], (n, cout, h, w))
    return g.op("Concat", [x, activation(g, y, "relu")], (n, c + cout, h, w), axis=1)


def classifier(g: Graph, x: str, rng) -> str:
    n, c, h, w = g.shapes[x]
    p = g.op("GlobalAveragePool", [x], (n, c, 1, 1))
    f = g.op("Flatten", [p], (n, c))
    classes = int(rng.choice([2, 10, 37, 100]))
    logits = g.op("Gemm", [f, g.weight(classes, c), g.weight(classes, scale=0.1)], (n, classes),
                  transB=1)
    return g.op("Softmax", [logits], (n, classes), axis=-1) if rng.random() < 0.5 else logits


def broadcast(g: Graph, x: str, rng) -> str:
    """An elementwise op with a constant of a broadcast shape: per channel,
    per position, a scalar, or a full tensor."""
    n, c, h, w = g.shapes[x]
    shape = [(1, c, 1, 1), (c, 1, 1), (), (1, 1, h, w), (1, 1, 1, w), (n, c, h, w)][
        int(rng.integers(0, 6))]
    op = str(rng.choice(["Add", "Sub", "Mul", "Div", "Max", "Min"]))
    value = rng.standard_normal(shape).astype(np.float32)
    if op == "Div":
        value = np.sign(value) * (np.abs(value) + 0.5)
    # x first or second, but never a divisor: x near 0 makes the model
    # ill-conditioned, not the compiler wrong.
    first = op == "Div" or rng.random() < 0.7
    return g.op(op, [x, g.const(value)] if first else [g.const(value), x], (n, c, h, w))


def normalize(g: Graph, x: str, rng) -> str:
    """x minus a mean over random axes, scaled by the inverse standard
    deviation (instance or group norm as older exporters write them), or an
    InstanceNormalization."""
    n, c, h, w = g.shapes[x]
    if rng.random() < 0.3:
        return g.op("InstanceNormalization",
                    [x, g.const(rng.uniform(0.5, 1.5, c).astype(np.float32)),
                     g.const((rng.standard_normal(c) * 0.1).astype(np.float32))],
                    (n, c, h, w), epsilon=1e-5)
    axes = [[2, 3], [1], [1, 2, 3], [3]][int(rng.integers(0, 4))]
    kept = tuple(1 if i in axes else d for i, d in enumerate((n, c, h, w)))
    mean = g.op("ReduceMean", [x], kept, axes=axes, keepdims=1)
    centered = g.op("Sub", [x, mean], (n, c, h, w))
    square = g.op("Mul", [centered, centered], (n, c, h, w))
    var = g.op("ReduceMean", [square], kept, axes=axes, keepdims=1)
    std = g.op("Sqrt", [g.op("Add", [var, g.const(np.float32(1e-5))], kept)], kept)
    return g.op("Div", [centered, std], (n, c, h, w))


def reduce_to(g: Graph, x: str, rng) -> str:
    """A reduction over random axes, broadcast back onto its input."""
    n, c, h, w = g.shapes[x]
    axes = [[1], [2], [3], [2, 3], [1, 2, 3]][int(rng.integers(0, 5))]
    kept = tuple(1 if i in axes else d for i, d in enumerate((n, c, h, w)))
    op = str(rng.choice(["ReduceMax", "ReduceSum", "ReduceMean", "ReduceMin"]))
    if op == "ReduceSum":  # Its axes are an input since opset 13.
        r = g.op(op, [x, g.const(np.array(axes, dtype=np.int64))], kept, keepdims=1)
    else:
        r = g.op(op, [x], kept, axes=axes, keepdims=1)
    return g.op(str(rng.choice(["Add", "Sub", "Mul"])), [x, r], (n, c, h, w))


def crop(g: Graph, x: str, rng) -> str:
    """A Slice of H or W (with a step sometimes), or a Pad of any mode."""
    n, c, h, w = g.shapes[x]
    axis = int(rng.choice([2, 3]))
    size = (n, c, h, w)[axis]
    if rng.random() < 0.5 and size > 2:
        start = int(rng.integers(0, size // 2))
        step = int(rng.choice([1, 1, 2]))
        end = int(rng.integers(start + 1, size + 1))
        out = list((n, c, h, w))
        out[axis] = len(range(start, end, step))
        return g.op("Slice", [x, g.const(np.array([start], dtype=np.int64)),
                              g.const(np.array([end], dtype=np.int64)),
                              g.const(np.array([axis], dtype=np.int64)),
                              g.const(np.array([step], dtype=np.int64))], tuple(out))
    before, after = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    mode = str(rng.choice(["constant", "reflect", "edge"]))
    if mode == "reflect" and max(before, after) >= min(h, w):
        mode = "constant"
    pads = [0, 0, before, before, 0, 0, after, after]
    return g.op("Pad", [x, g.const(np.array(pads, dtype=np.int64))],
                (n, c, h + before + after, w + before + after), mode=mode)


def shuffle(g: Graph, x: str, rng) -> str:
    """ShuffleNet's channel shuffle (Reshape, Transpose, Reshape), or a
    round trip through NHWC."""
    n, c, h, w = g.shapes[x]
    if c % 2 == 0 and rng.random() < 0.5:
        r = g.op("Reshape", [x, g.const(np.array([n, 2, c // 2, h, w], dtype=np.int64))],
                 (n, 2, c // 2, h, w))
        t = g.op("Transpose", [r], (n, c // 2, 2, h, w), perm=[0, 2, 1, 3, 4])
        return g.op("Reshape", [t, g.const(np.array([n, c, h, w], dtype=np.int64))], (n, c, h, w))
    t = g.op("Transpose", [x], (n, h, w, c), perm=[0, 2, 3, 1])
    t = activation(g, t, str(rng.choice(ACTIVATIONS)))
    return g.op("Transpose", [t], (n, c, h, w), perm=[0, 3, 1, 2])


def split_join(g: Graph, x: str, rng) -> str:
    """Channels split in two, one half convolved, joined again (a Concat or
    an Add of halves)."""
    n, c, h, w = g.shapes[x]
    if c % 2:
        return x
    a, b = g.name("split_"), g.name("split_")
    g.nodes.append(helper.make_node("Split", [x, g.const(np.array([c // 2, c // 2], dtype=np.int64))],
                                    [a, b], axis=1))
    g.shapes[a] = g.shapes[b] = (n, c // 2, h, w)
    b2 = g.op("Conv", [b, g.weight(c // 2, c // 2, 3, 3)], (n, c // 2, h, w), kernel_shape=[3, 3],
              pads=[1, 1, 1, 1])
    if rng.random() < 0.5:
        return g.op("Add", [a, b2], (n, c // 2, h, w))
    return g.op("Concat", [b2, a], (n, c, h, w), axis=1)


def channel_softmax(g: Graph, x: str, rng) -> str:
    return g.op("Softmax", [x], g.shapes[x], axis=int(rng.choice([1, 3])))


def cnn(g: Graph, rng) -> tuple[list, str]:
    n = int(rng.choice([1, 1, 2]))
    c = int(rng.choice([1, 3, 4, 8, 16]))
    h, w = int(rng.integers(4, 41)), int(rng.integers(4, 41))
    x = "x"
    g.shapes[x] = (n, c, h, w)
    blocks = [conv, conv, conv, squeeze_excite, pool, upsample, residual, concat, broadcast,
              normalize, reduce_to, crop, shuffle, split_join, channel_softmax]
    y = conv(g, x, rng)
    for _ in range(int(rng.integers(1, 6))):
        y = blocks[int(rng.integers(0, len(blocks)))](g, y, rng)
    if rng.random() < 0.3:
        y = classifier(g, y, rng)
    return [helper.make_tensor_value_info(x, TensorProto.FLOAT, g.shapes[x])], y


# -------------------------------------------------------- transformer blocks

def linear(g: Graph, x: str, out: int, rng, bias: bool = True) -> str:
    *lead, d = g.shapes[x]
    y = g.op("MatMul", [x, g.weight(d, out)], (*lead, out))
    if bias:
        y = g.op("Add", [y, g.weight(out, scale=0.1)], (*lead, out))
    return y


def layer_norm(g: Graph, x: str, rng) -> str:
    d = g.shapes[x][-1]
    scale = g.const(rng.uniform(0.5, 1.5, d).astype(np.float32))
    shift = g.const((rng.standard_normal(d) * 0.1).astype(np.float32))
    if rng.random() < 0.4:  # As opset-11 exporters write it.
        shape, kept = g.shapes[x], (*g.shapes[x][:-1], 1)
        mean = g.op("ReduceMean", [x], kept, axes=[-1])
        centered = g.op("Sub", [x, mean], shape)
        var = g.op("ReduceMean", [g.op("Pow", [centered, g.const(np.float32(2))], shape)], kept,
                   axes=[-1])
        std = g.op("Sqrt", [g.op("Add", [var, g.const(np.float32(1e-5))], kept)], kept)
        normed = g.op("Div", [centered, std], shape)
        return g.op("Add", [g.op("Mul", [normed, scale], shape), shift], shape)
    return g.op("LayerNormalization",
                [x, scale, shift], g.shapes[x], axis=-1, epsilon=1e-5)


def gelu_tanh(g: Graph, x: str) -> str:
    """GPT-2's GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    shape = g.shapes[x]
    cube = g.op("Mul", [g.op("Pow", [x, g.const(np.float32(3))], shape),
                        g.const(np.float32(0.044715))], shape)
    inner = g.op("Mul", [g.op("Add", [x, cube], shape), g.const(np.float32(np.sqrt(2 / np.pi)))],
                 shape)
    one = g.op("Add", [g.op("Tanh", [inner], shape), g.const(np.float32(1))], shape)
    return g.op("Mul", [g.op("Mul", [x, g.const(np.float32(0.5))], shape), one], shape)


def gemm_2d(g: Graph, x: str, out: int, rng) -> str:
    """A projection as GPT-2's exporter writes it: flattened to 2-D, a Gemm,
    reshaped back."""
    *lead, d = g.shapes[x]
    rows = int(np.prod(lead))
    flat = g.op("Reshape", [x, g.const(np.array([-1, d], dtype=np.int64))], (rows, d))
    y = g.op("Gemm", [flat, g.weight(d, out), g.weight(out, scale=0.1)], (rows, out))
    return g.op("Reshape", [y, g.const(np.array([*lead, out], dtype=np.int64))], (*lead, out))


def attention(g: Graph, x: str, rng, mask: str | None, causal: bool) -> str:
    b, t, d = g.shapes[x]
    heads = int(rng.choice([h for h in (1, 2, 3, 4, 6, 8) if d % h == 0]))
    dh = d // heads

    def split_heads(v: str, perm: list[int]) -> str:
        r = g.op("Reshape", [v, g.const(np.array([b, t, heads, dh], dtype=np.int64))],
                 (b, t, heads, dh))
        shape = tuple((b, t, heads, dh)[i] for i in perm)
        return g.op("Transpose", [r], shape, perm=perm)

    style = rng.random()
    if style < 0.3:  # Q, K and V as one projection, sliced.
        qkv = linear(g, x, 3 * d, rng)
        q, k, v = (g.op("Slice", [qkv, g.const(np.array([i * d], dtype=np.int64)),
                                  g.const(np.array([(i + 1) * d], dtype=np.int64)),
                                  g.const(np.array([2], dtype=np.int64))], (b, t, d))
                   for i in range(3))
    elif style < 0.5:  # GPT-2: one Gemm, a Split.
        qkv = gemm_2d(g, x, 3 * d, rng)
        q, k, v = (g.name("qkv_") for _ in range(3))
        g.nodes.append(helper.make_node("Split", [qkv, g.const(np.array([d] * 3, dtype=np.int64))],
                                        [q, k, v], axis=2))
        g.shapes.update({q: (b, t, d), k: (b, t, d), v: (b, t, d)})
    else:
        q, k, v = (linear(g, x, d, rng) for _ in range(3))
    qh = split_heads(q, [0, 2, 1, 3])
    kh = split_heads(k, [0, 2, 3, 1])
    vh = split_heads(v, [0, 2, 1, 3])
    scores = g.op("MatMul", [qh, kh], (b, heads, t, t))
    scores = g.op("Div", [scores, g.const(np.float32(np.sqrt(dh)))], (b, heads, t, t))
    if mask is not None:
        scores = g.op("Add", [scores, mask], (b, heads, t, t))
    if causal:
        upper = np.triu(np.full((t, t), -1e4, dtype=np.float32), 1)
        scores = g.op("Add", [scores, g.const(upper)], (b, heads, t, t))
    probs = g.op("Softmax", [scores], (b, heads, t, t), axis=-1)
    ctx = g.op("MatMul", [probs, vh], (b, heads, t, dh))
    ctx = g.op("Transpose", [ctx], (b, t, heads, dh), perm=[0, 2, 1, 3])
    ctx = g.op("Reshape", [ctx, g.const(np.array([b, t, d], dtype=np.int64))], (b, t, d))
    return linear(g, ctx, d, rng)


def encoder_layer(g: Graph, x: str, rng, mask: str | None, causal: bool) -> str:
    pre_norm = rng.random() < 0.5
    h = layer_norm(g, x, rng) if pre_norm else x
    y = g.op("Add", [x, attention(g, h, rng, mask, causal)], g.shapes[x])
    if not pre_norm:
        y = layer_norm(g, y, rng)
    h = layer_norm(g, y, rng) if pre_norm else y
    d = g.shapes[x][-1]
    hidden = int(rng.choice([2 * d, 4 * d, 3 * d + 5]))
    project = gemm_2d if rng.random() < 0.3 else linear
    f = project(g, h, hidden, rng)
    f = [gelu, gelu_tanh, lambda g, f: activation(g, f, "relu")][int(rng.integers(0, 3))](g, f)
    z = g.op("Add", [y, project(g, f, d, rng)], g.shapes[x])
    return z if pre_norm else layer_norm(g, z, rng)


def transformer(g: Graph, rng) -> tuple[list, str]:
    b = int(rng.choice([1, 1, 2]))
    t = int(rng.choice([1, 5, 8, 16, 17, 31, 45, 64, 70]))
    d = int(rng.choice([8, 12, 16, 24, 32, 48, 64, 96]))
    if rng.random() < 0.3:  # Token ids, embedded, plus learned positions.
        vocab = int(rng.choice([30, 100, 1000]))
        ids = "ids"
        inputs = [helper.make_tensor_value_info(ids, TensorProto.INT64, (b, t))]
        x = g.op("Gather", [g.weight(vocab, d, scale=1.0), ids], (b, t, d), axis=0)
        x = g.op("Add", [x, g.weight(t, d, scale=1.0)], (b, t, d))
    else:
        x = "x"
        g.shapes[x] = (b, t, d)
        inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, (b, t, d))]
    mask = None
    if rng.random() < 0.4:
        mask = "mask"
        g.shapes[mask] = (b, 1, 1, t)
        inputs.append(helper.make_tensor_value_info(mask, TensorProto.FLOAT, (b, 1, 1, t)))
    causal = mask is None and rng.random() < 0.3
    y = x
    for _ in range(int(rng.integers(1, 3))):
        y = encoder_layer(g, y, rng, mask, causal)
    if rng.random() < 0.3:
        y = linear(g, y, int(rng.choice([2, 10, 50, 257])), rng, bias=rng.random() < 0.5)
    return inputs, y


# ------------------------------------------------------ tensor programs

def unary(g: Graph, x: str, rng) -> str:
    shape = g.shapes[x]
    op = str(rng.choice(["Exp", "Neg", "Abs", "Floor", "Ceil", "Tanh", "Sigmoid", "Erf", "Relu",
                         "Sqrt", "Log", "Reciprocal", "Softplus", "Sin"]))
    if op in ("Sqrt", "Log", "Reciprocal"):  # Kept away from 0 and negatives.
        x = g.op("Add", [g.op("Abs", [x], shape), g.const(np.float32(0.5))], shape)
    if op == "Exp":
        x = g.op("Tanh", [x], shape)
    return g.op(op, [x], shape)


def binary(g: Graph, x: str, rng) -> str:
    """x with a constant broadcast from a random subset of its dims."""
    shape = g.shapes[x]
    kept = [d if rng.random() < 0.5 else 1 for d in shape]
    other = g.const(rng.standard_normal(kept[int(rng.integers(0, len(kept) + 1)):])
                    .astype(np.float32) if rng.random() < 0.5 else
                    rng.standard_normal(kept).astype(np.float32))
    op = str(rng.choice(["Add", "Sub", "Mul", "Max", "Min"]))
    return g.op(op, [x, other], shape)


def where(g: Graph, x: str, rng) -> str:
    """A mask from a comparison (as attention masks are made), then Where."""
    shape = g.shapes[x]
    mask = g.op(str(rng.choice(["Greater", "Less"])), [x, g.const(np.float32(rng.normal()))],
                shape)
    return g.op("Where", [mask, x, g.const(np.float32(-3.0))], shape)


def matmul(g: Graph, x: str, rng) -> str:
    """x times a weight (batch dims broadcast), or x times itself
    transposed (attention scores)."""
    shape = g.shapes[x]
    if len(shape) >= 2 and rng.random() < 0.3:
        perm = list(range(len(shape)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        t = g.op("Transpose", [x], tuple(shape[i] for i in perm), perm=perm)
        return g.op("MatMul", [x, t], (*shape[:-1], shape[-2]))
    n = int(rng.choice([1, 3, 8, 16, 17, 33, 64]))
    lead = shape[:-1]
    if len(lead) == 2 and rng.random() < 0.3:  # A weight per batch: [b, k, n].
        return g.op("MatMul", [x, g.weight(lead[0], shape[-1], n)], (*lead, n))
    return g.op("MatMul", [x, g.weight(shape[-1], n)], (*lead, n))


def transpose(g: Graph, x: str, rng) -> str:
    shape = g.shapes[x]
    perm = [int(i) for i in rng.permutation(len(shape))]
    return g.op("Transpose", [x], tuple(shape[i] for i in perm), perm=perm)


def reshape(g: Graph, x: str, rng) -> str:
    """Merge two neighbouring dims, or split one into two factors."""
    shape = list(g.shapes[x])
    if len(shape) >= 2 and (len(shape) >= 4 or rng.random() < 0.5):
        i = int(rng.integers(0, len(shape) - 1))
        new = shape[:i] + [shape[i] * shape[i + 1]] + shape[i + 2:]
    else:
        i = int(rng.integers(0, len(shape)))
        factors = [f for f in range(2, shape[i]) if shape[i] % f == 0]
        if not factors:
            return x
        f = int(rng.choice(factors))
        new = shape[:i] + [f, shape[i] // f] + shape[i + 1:]
    return g.op("Reshape", [x, g.const(np.array(new, dtype=np.int64))], tuple(new))


def slice_or_gather(g: Graph, x: str, rng) -> str:
    shape = list(g.shapes[x])
    axis = int(rng.integers(0, len(shape)))
    if shape[axis] < 2:
        return x
    if rng.random() < 0.5:
        index = rng.integers(-shape[axis], shape[axis], int(rng.integers(1, 5)))
        out = shape[:axis] + [len(index)] + shape[axis + 1:]
        return g.op("Gather", [x, g.const(index.astype(np.int64))], tuple(out), axis=axis)
    start = int(rng.integers(0, shape[axis] - 1))
    step = int(rng.choice([1, 1, 2, -1]))
    if step < 0:
        start, end = shape[axis] - 1 - start, -shape[axis] - 1
        count = len(range(start, -1, -1))
    else:
        end = int(rng.integers(start + 1, shape[axis] + 1))
        count = len(range(start, end, step))
    out = shape[:axis] + [count] + shape[axis + 1:]
    return g.op("Slice", [x, g.const(np.array([start], dtype=np.int64)),
                          g.const(np.array([end], dtype=np.int64)),
                          g.const(np.array([axis], dtype=np.int64)),
                          g.const(np.array([step], dtype=np.int64))], tuple(out))


def concat_self(g: Graph, x: str, rng) -> str:
    """x concatenated with a function of itself along any axis."""
    shape = list(g.shapes[x])
    axis = int(rng.integers(0, len(shape)))
    other = unary(g, x, rng)
    out = list(shape)
    out[axis] *= 2
    return g.op("Concat", [other, x] if rng.random() < 0.5 else [x, other], tuple(out), axis=axis)


def reduce_any(g: Graph, x: str, rng) -> str:
    shape = g.shapes[x]
    if len(shape) < 2:
        return x
    axis = int(rng.integers(0, len(shape)))
    keep = int(rng.integers(0, 2))
    out = tuple(1 if i == axis else d for i, d in enumerate(shape)) if keep else \
        tuple(d for i, d in enumerate(shape) if i != axis)
    op = str(rng.choice(["ReduceMax", "ReduceMean", "ReduceSum", "ReduceL2", "ReduceLogSumExp",
                         "ArgMax"]))
    if op == "ArgMax":  # An index, cast back to float.
        i = g.op("ArgMax", [x], out, axis=axis, keepdims=keep)
        return g.op("Cast", [i], out, to=TensorProto.FLOAT)
    if op == "ReduceSum":
        return g.op(op, [x, g.const(np.array([axis], dtype=np.int64))], out, keepdims=keep)
    return g.op(op, [x], out, axes=[axis], keepdims=keep)


def softmax_any(g: Graph, x: str, rng) -> str:
    axis = int(rng.integers(-len(g.shapes[x]), len(g.shapes[x])))
    return g.op(str(rng.choice(["Softmax", "LogSoftmax"])), [x], g.shapes[x], axis=axis)


def expand(g: Graph, x: str, rng) -> str:
    shape = list(g.shapes[x])
    ones = [i for i, d in enumerate(shape) if d == 1]
    if not ones:
        return g.op("Unsqueeze", [x, g.const(np.array([0], dtype=np.int64))], (1, *shape))
    out = list(shape)
    out[int(rng.choice(ones))] = int(rng.integers(2, 6))
    return g.op("Expand", [x, g.const(np.array(out, dtype=np.int64))], tuple(out))


def pad_any(g: Graph, x: str, rng) -> str:
    """Pad in any mode, some pads negative (a crop first)."""
    shape = g.shapes[x]
    mode = str(rng.choice(["constant", "edge", "reflect"]))
    pads = [int(rng.integers(-1, 3)) if d > 2 else int(rng.integers(0, 2)) for d in shape * 2]
    if mode == "reflect":
        pads = [min(p, shape[i % len(shape)] - 2) for i, p in enumerate(pads)]
    out = tuple(d + pads[i] + pads[i + len(shape)] for i, d in enumerate(shape))
    if min(out) < 1 or (mode != "constant" and any(
            shape[i] - max(-pads[i], 0) - max(-pads[i + len(shape)], 0) < 1
            for i in range(len(shape)))):
        return x
    return g.op("Pad", [x, g.const(np.array(pads, dtype=np.int64))], out, mode=mode)


def top_k(g: Graph, x: str, rng) -> str:
    shape = list(g.shapes[x])
    axis = int(rng.integers(0, len(shape)))
    k = int(rng.integers(1, shape[axis] + 1))
    shape[axis] = k
    values, indices = g.name("topk_"), g.name("topk_")
    g.nodes.append(helper.make_node("TopK", [x, g.const(np.array([k], dtype=np.int64))],
                                    [values, indices], axis=axis,
                                    largest=int(rng.integers(0, 2))))
    g.shapes[values] = g.shapes[indices] = tuple(shape)
    # The indices join the values (as floats), so both are checked.
    return g.op("Add", [values, g.op("Cast", [indices], tuple(shape), to=TensorProto.FLOAT)],
                tuple(shape))


def cumsum(g: Graph, x: str, rng) -> str:
    axis = int(rng.integers(0, len(g.shapes[x])))
    return g.op("CumSum", [x, g.const(np.array(axis, dtype=np.int64))], g.shapes[x],
                exclusive=int(rng.integers(0, 2)), reverse=int(rng.integers(0, 2)))


def einsum(g: Graph, x: str, rng) -> str:
    """x contracted over its last dim with a weight, written as an Einsum."""
    shape = g.shapes[x]
    letters = "abcde"[:len(shape)]
    n = int(rng.choice([1, 5, 16, 17]))
    equation = f"{letters},{letters[-1]}z->{letters[:-1]}z"
    return g.op("Einsum", [x, g.weight(shape[-1], n)], (*shape[:-1], n), equation=equation)


def tile_or_trilu(g: Graph, x: str, rng) -> str:
    shape = g.shapes[x]
    if rng.random() < 0.5 and len(shape) >= 2:
        k = int(rng.integers(-2, 3))
        return g.op("Trilu", [x, g.const(np.array(k, dtype=np.int64))], shape,
                    upper=int(rng.integers(0, 2)))
    repeats = [int(rng.choice([1, 1, 2, 3])) for _ in shape]
    return g.op("Tile", [x, g.const(np.array(repeats, dtype=np.int64))],
                tuple(d * r for d, r in zip(shape, repeats)))


def gather_elements(g: Graph, x: str, rng) -> str:
    shape = g.shapes[x]
    axis = int(rng.integers(0, len(shape)))
    index_shape = list(shape)
    index_shape[axis] = int(rng.integers(1, shape[axis] + 2))
    index = rng.integers(-shape[axis], shape[axis], index_shape).astype(np.int64)
    return g.op("GatherElements", [x, g.const(index)], tuple(index_shape), axis=axis)


def tensor_program(g: Graph, rng) -> tuple[list, str]:
    rank = int(rng.integers(2, 5))
    shape = tuple(int(rng.choice([1, 2, 3, 5, 7, 8, 16, 24, 33])) for _ in range(rank))
    x = "x"
    g.shapes[x] = shape
    steps = [unary, binary, where, matmul, matmul, transpose, reshape, slice_or_gather,
             concat_self, reduce_any, softmax_any, expand, pad_any, top_k, cumsum, einsum,
             tile_or_trilu, gather_elements]
    y = x
    for _ in range(int(rng.integers(2, 9))):
        y = steps[int(rng.integers(0, len(steps)))](g, y, rng)
        if int(np.prod(g.shapes[y])) > 1 << 16 or len(g.shapes[y]) > 5:
            break
    if y == x:
        y = unary(g, x, rng)
    return [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)], y


# ------------------------------------------------------------ contractions

TILE_EDGES = [1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 96, 127, 129]


def epilogue(g: Graph, y: str, rng, residuals: list[str]) -> str:
    """What exporters put after a MatMul: a bias, an activation, a residual
    of the same shape, a scale; any of them, in any order."""
    shape = g.shapes[y]
    for _ in range(int(rng.integers(0, 4))):
        kind = int(rng.integers(0, 4))
        if kind == 0:
            y = g.op("Add", [y, g.weight(shape[-1], scale=0.1)], shape)
        elif kind == 1:
            y = [gelu, gelu_tanh, lambda g, v: activation(g, v, str(rng.choice(ACTIVATIONS)))][
                int(rng.integers(0, 3))](g, y)
        elif kind == 2:
            same = [r for r in residuals if g.shapes[r] == shape]
            if same:
                y = g.op("Add", [y, same[int(rng.integers(0, len(same)))]], shape)
        else:
            y = g.op("Mul", [y, g.const(np.float32(rng.uniform(0.5, 2)))], shape)
    return y


def contractions(g: Graph, rng) -> tuple[list, str]:
    """Chains of MatMul and Gemm at sizes around the tensor-core tiles (16 x
    16, k in steps of 8), over a batch or not, with epilogues, residuals
    from anywhere earlier, transposed weights and a reshape to heads."""
    batch = [int(rng.choice([1, 2, 3]))] if rng.random() < 0.5 else []
    m, k = int(rng.choice(TILE_EDGES)), int(rng.choice(TILE_EDGES))
    x = "x"
    g.shapes[x] = (*batch, m, k)
    values, y = [x], x
    for _ in range(int(rng.integers(1, 5))):
        n = int(rng.choice(TILE_EDGES))
        shape = g.shapes[y]
        pick = rng.random()
        if pick < 0.2 and not batch:
            y = g.op("Gemm", [y, g.weight(n, shape[-1]), g.weight(n, scale=0.1)], (shape[0], n),
                     transB=1, alpha=float(rng.choice([1.0, 0.5])))
        elif pick < 0.3 and shape[-1] % 2 == 0 and len(shape) == 2:
            # Two heads: [m, k] -> [2, m, k/2] -> times [2, k/2, n].
            half = shape[-1] // 2
            r = g.op("Reshape", [y, g.const(np.array([shape[0], 2, half], dtype=np.int64))],
                     (shape[0], 2, half))
            t = g.op("Transpose", [r], (2, shape[0], half), perm=[1, 0, 2])
            h = g.op("MatMul", [t, g.weight(2, half, n)], (2, shape[0], n))
            y = g.op("Reshape", [g.op("Transpose", [h], (shape[0], 2, n), perm=[1, 0, 2]),
                                 g.const(np.array([shape[0], 2 * n], dtype=np.int64))],
                     (shape[0], 2 * n))
        elif pick < 0.4:  # A product of two activations (attention-like).
            t = g.op("Transpose", [y], (*shape[:-2], shape[-1], shape[-2]),
                     perm=[*range(len(shape) - 2), len(shape) - 1, len(shape) - 2])
            y = g.op("MatMul", [y, t], (*shape[:-1], shape[-2]))
            if rng.random() < 0.5:
                y = g.op("Softmax", [y], g.shapes[y], axis=-1)
        else:
            y = g.op("MatMul", [y, g.weight(shape[-1], n)], (*shape[:-1], n))
        y = epilogue(g, y, rng, values)
        values.append(y)
    if rng.random() < 0.3:
        other = values[int(rng.integers(0, len(values)))]
        if g.shapes[other][:-1] == g.shapes[y][:-1]:
            width = g.shapes[y][-1] + g.shapes[other][-1]
            y = g.op("Concat", [y, other], (*g.shapes[y][:-1], width), axis=-1)
    return [helper.make_tensor_value_info(x, TensorProto.FLOAT, g.shapes[x])], y


FAMILIES = {"cnn": cnn, "transformer": transformer, "tensor": tensor_program,
            "contractions": contractions}


def make_model(seed: int, family: str = "any") -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    g = Graph(rng)
    pick = rng.random()
    if family == "any":
        family = "cnn" if pick < 0.4 else "transformer" if pick < 0.65 else \
            "tensor" if pick < 0.8 else "contractions"
    inputs, y = FAMILIES[family](g, rng)
    graph = helper.make_graph(g.nodes, f"fuzz{seed}", inputs,
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, g.shapes[y])],
                              g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model
