"""Numerics of the CPU path, op family by op family, against ONNX Runtime.

Each case is a small ONNX graph built here; infer-opt compiles it to a
shared object (infer_tools/runtime.py) and the outputs must match ONNX
Runtime's on seeded random inputs (never all zeros).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from infer_cpu import check_against_onnxruntime

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(
        nodes, "case",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, None) for n, t in outputs],
        [numpy_helper.from_array(v, n) for n, v in initializers])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def weight(rng, *shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def case_elementwise(rng):
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"]),
        helper.make_node("Mul", ["s", "a"], ["m"]),
        helper.make_node("Sigmoid", ["m"], ["g"]),
        helper.make_node("Sub", ["g", "b"], ["d"]),
        helper.make_node("Div", ["d", "c"], ["q"]),
        helper.make_node("Tanh", ["q"], ["t"]),
        helper.make_node("Erf", ["t"], ["e"]),
        helper.make_node("Relu", ["e"], ["r"]),
        helper.make_node("Max", ["r", "b"], ["x"]),
        helper.make_node("Pow", ["x", "two"], ["p"]),
        helper.make_node("Sqrt", ["p"], ["y"]),
    ]
    m = model(nodes, [("a", F, [2, 3, 4]), ("b", F, [4])], [("y", F)],
              [("c", np.full([3, 1], 1.5, np.float32)), ("two", np.array(2.0, np.float32))])
    return m, {"a": weight(rng, 2, 3, 4, scale=1), "b": weight(rng, 4, scale=1)}


def case_activations(rng):
    nodes = [
        helper.make_node("HardSigmoid", ["x"], ["a"], alpha=0.3, beta=0.4),
        helper.make_node("HardSwish", ["a"], ["b"]),
        helper.make_node("LeakyRelu", ["x"], ["c"], alpha=0.1),
        helper.make_node("Elu", ["c"], ["d"]),
        helper.make_node("Add", ["b", "d"], ["e"]),
        helper.make_node("Softplus", ["e"], ["f"]),
        helper.make_node("Clip", ["f", "lo", "hi"], ["g"]),
        helper.make_node("Neg", ["g"], ["h"]),
        helper.make_node("Exp", ["h"], ["y"]),
    ]
    m = model(nodes, [("x", F, [3, 5])], [("y", F)],
              [("lo", np.array(0.1, np.float32)), ("hi", np.array(0.9, np.float32))])
    return m, {"x": weight(rng, 3, 5, scale=2)}


def case_compare_where_cast(rng):
    nodes = [
        helper.make_node("Greater", ["a", "b"], ["gt"]),
        helper.make_node("Where", ["gt", "a", "b"], ["w"]),
        helper.make_node("Cast", ["w"], ["i"], to=TensorProto.INT64),
        helper.make_node("Cast", ["i"], ["y"], to=F),
    ]
    m = model(nodes, [("a", F, [4, 6]), ("b", F, [6])], [("y", F)])
    return m, {"a": weight(rng, 4, 6, scale=5), "b": weight(rng, 6, scale=5)}


def case_matmul_batch_broadcast(rng):
    nodes = [helper.make_node("MatMul", ["a", "w"], ["m"]),
             helper.make_node("MatMul", ["m", "b"], ["y"])]
    m = model(nodes, [("a", F, [2, 3, 5, 8]), ("b", F, [1, 3, 7, 4])], [("y", F)],
              [("w", weight(rng, 8, 7))])
    return m, {"a": weight(rng, 2, 3, 5, 8), "b": weight(rng, 1, 3, 7, 4)}


def case_gemm(rng):
    nodes = [helper.make_node("Gemm", ["a", "w", "c"], ["g"], alpha=0.5, beta=2.0, transB=1),
             helper.make_node("Gemm", ["g", "v"], ["y"], transA=1)]
    m = model(nodes, [("a", F, [4, 6])], [("y", F)],
              [("w", weight(rng, 5, 6)), ("c", weight(rng, 5)), ("v", weight(rng, 4, 3))])
    return m, {"a": weight(rng, 4, 6)}


def case_conv(rng):
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 0, 2, 1],
                         strides=[2, 1], dilations=[1, 2]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], kernel_shape=[3, 3], group=6,
                         auto_pad="SAME_UPPER"),
        helper.make_node("Conv", ["c2", "w3", "b3"], ["y"], kernel_shape=[1, 1], group=2),
    ]
    m = model(nodes, [("x", F, [2, 3, 11, 9])], [("y", F)],
              [("w1", weight(rng, 6, 3, 3, 3)), ("b1", weight(rng, 6)),
               ("w2", weight(rng, 6, 1, 3, 3)), ("w3", weight(rng, 4, 3, 1, 1)),
               ("b3", weight(rng, 4))])
    return m, {"x": weight(rng, 2, 3, 11, 9, scale=1)}


def case_conv_transpose(rng):
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=[3, 2],
                              strides=[2, 3], pads=[1, 0, 1, 1], output_padding=[1, 0], group=2)]
    m = model(nodes, [("x", F, [1, 4, 5, 4])], [("y", F)],
              [("w", weight(rng, 4, 3, 3, 2)), ("b", weight(rng, 6))])
    return m, {"x": weight(rng, 1, 4, 5, 4, scale=1)}


def case_conv_transpose_tiled(rng):
    # Windows that tile the output (kernel = stride): a contraction over the
    # input channels alone, in 2-D (a non-square kernel) and in 1-D.
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], kernel_shape=[2, 3],
                              strides=[2, 3]),
             helper.make_node("ConvTranspose", ["v", "u"], ["z"], kernel_shape=[4], strides=[4])]
    m = model(nodes, [("x", F, [2, 5, 3, 4]), ("v", F, [1, 3, 7])], [("y", F), ("z", F)],
              [("w", weight(rng, 5, 6, 2, 3)), ("b", weight(rng, 6)), ("u", weight(rng, 3, 2, 4))])
    return m, {"x": weight(rng, 2, 5, 3, 4, scale=1), "v": weight(rng, 1, 3, 7, scale=1)}


def case_pools(rng):
    nodes = [
        helper.make_node("MaxPool", ["x"], ["a"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], ceil_mode=1),
        helper.make_node("AveragePool", ["x"], ["b"], kernel_shape=[3, 2], strides=[2, 2],
                         pads=[1, 1, 0, 1], count_include_pad=0),
        helper.make_node("AveragePool", ["x"], ["c"], kernel_shape=[2, 2], pads=[1, 1, 1, 1],
                         count_include_pad=1),
        helper.make_node("GlobalAveragePool", ["a"], ["ga"]),
        helper.make_node("GlobalMaxPool", ["b"], ["gb"]),
        helper.make_node("Add", ["ga", "gb"], ["y"]),
    ]
    m = model(nodes, [("x", F, [1, 2, 7, 8])], [("y", F), ("c", F)])
    return m, {"x": weight(rng, 1, 2, 7, 8, scale=1)}


def case_resize_nearest(rng):
    nodes = [
        helper.make_node("Resize", ["x", "", "s"], ["a"], mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        helper.make_node("Resize", ["x", "", "", "z"], ["b"], mode="nearest"),
    ]
    m = model(nodes, [("x", F, [1, 2, 3, 4])], [("a", F), ("b", F)],
              [("s", np.array([1, 1, 2, 2], np.float32)), ("z", np.array([1, 2, 5, 7], np.int64))],
              opset=13)
    return m, {"x": weight(rng, 1, 2, 3, 4)}


def case_resize_linear(rng):
    """Bilinear up- and downsampling, each coordinate transformation mode
    (coordinates past the edges read the edge)."""
    modes = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
             "half_pixel_symmetric"]
    nodes = [helper.make_node("Resize", ["x", "", "", "up"], [f"u_{m}"], mode="linear",
                              coordinate_transformation_mode=m) for m in modes]
    nodes += [helper.make_node("Resize", ["x", "", "down"], ["d"], mode="linear")]
    m = model(nodes, [("x", F, [2, 3, 5, 6])], [(f"u_{m}", F) for m in modes] + [("d", F)],
              [("up", np.array([2, 3, 9, 13], np.int64)),
               ("down", np.array([1, 1, 0.5, 0.7], np.float32))], opset=19)
    return m, {"x": weight(rng, 2, 3, 5, 6, scale=1)}


def case_reductions_softmax_norms(rng):
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1),
        helper.make_node("Sub", ["x", "m"], ["c"]),
        helper.make_node("ReduceSumSquare", ["c"], ["ss"], axes=[2], keepdims=0),
        helper.make_node("ReduceMax", ["x"], ["mx"], axes=[0, 2], keepdims=0),
        helper.make_node("Softmax", ["x"], ["sm"], axis=1),
        helper.make_node("LogSoftmax", ["x"], ["ls"], axis=-1),
        helper.make_node("LayerNormalization", ["x", "g", "bt"], ["ln"], axis=-1, epsilon=1e-5),
    ]
    m = model(nodes, [("x", F, [2, 5, 6])],
              [("ss", F), ("mx", F), ("sm", F), ("ls", F), ("ln", F)],
              [("g", weight(rng, 6)), ("bt", weight(rng, 6))])
    return m, {"x": weight(rng, 2, 5, 6, scale=2)}


def case_log_sum_exp_large(rng):
    """ReduceLogSumExp of inputs far above 88, where exp overflows float32
    (gave inf before the max shift), over one axis and over two, with and
    without keepdims; and of an ordinary range."""
    nodes = [
        helper.make_node("ReduceLogSumExp", ["x"], ["a"], axes=[2], keepdims=0),
        helper.make_node("ReduceLogSumExp", ["x"], ["b"], axes=[0, 2], keepdims=1),
        helper.make_node("ReduceLogSumExp", ["v"], ["c"], axes=[1], keepdims=1),
    ]
    m = model(nodes, [("x", F, [2, 3, 7]), ("v", F, [4, 5])], [("a", F), ("b", F), ("c", F)])
    return m, {"x": weight(rng, 2, 3, 7, scale=50) + 200, "v": weight(rng, 4, 5, scale=2)}


def case_instance_norm(rng):
    """Each (n, c) normalized over its spatial dims, scale and bias per
    channel; 2-D and 1-D maps."""
    nodes = [helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-3),
             helper.make_node("InstanceNormalization", ["v", "s", "b"], ["z"])]
    m = model(nodes, [("x", F, [2, 3, 5, 7]), ("v", F, [1, 3, 9])], [("y", F), ("z", F)],
              [("s", weight(rng, 3)), ("b", weight(rng, 3))])
    return m, {"x": weight(rng, 2, 3, 5, 7, scale=2) + 1, "v": weight(rng, 1, 3, 9)}


def case_arg_reductions(rng):
    """ArgMax and ArgMin, ties included (first or last index), on floats
    and integers, with and without keepdims."""
    nodes = [
        helper.make_node("ArgMax", ["x"], ["a"], axis=1, keepdims=0),
        helper.make_node("ArgMin", ["x"], ["b"], axis=-1, keepdims=1, select_last_index=1),
        helper.make_node("ArgMax", ["i"], ["c"], axis=0, select_last_index=1),
        helper.make_node("ArgMin", ["i"], ["d"], axis=1, keepdims=0),
    ]
    m = model(nodes, [("x", F, [2, 6, 5]), ("i", TensorProto.INT32, [4, 7])],
              [("a", TensorProto.INT64), ("b", TensorProto.INT64), ("c", TensorProto.INT64),
               ("d", TensorProto.INT64)])
    return m, {"x": rng.integers(-2, 3, [2, 6, 5]).astype(np.float32),
               "i": rng.integers(-2, 3, [4, 7]).astype(np.int32)}


def case_matmul_vectors(rng):
    """MatMul with 1-D operands: a vector times a batch of matrices, a
    matrix times a vector, and a dot product."""
    nodes = [
        helper.make_node("MatMul", ["v", "m"], ["a"]),
        helper.make_node("MatMul", ["w", "v"], ["b"]),
        helper.make_node("MatMul", ["v", "v"], ["c"]),
    ]
    m = model(nodes, [("v", F, [6]), ("m", F, [2, 6, 3]), ("w", F, [4, 6])],
              [("a", F), ("b", F), ("c", F)])
    return m, {"v": weight(rng, 6), "m": weight(rng, 2, 6, 3), "w": weight(rng, 4, 6)}


def case_norms_lrn_group_lp(rng):
    """LRN (AlexNet's), GroupNormalization (opset 21, per-channel scale),
    LpNormalization with p = 1 and 2, Hardmax."""
    nodes = [
        helper.make_node("LRN", ["x"], ["a"], size=5, alpha=0.01, beta=0.75, bias=2.0),
        helper.make_node("GroupNormalization", ["x", "s", "b"], ["g"], num_groups=3),
        helper.make_node("LpNormalization", ["x"], ["l1"], axis=1, p=1),
        helper.make_node("LpNormalization", ["x"], ["l2"], axis=-1, p=2),
        helper.make_node("Hardmax", ["r"], ["h"], axis=2),
    ]
    m = model(nodes, [("x", F, [2, 6, 4, 5]), ("r", F, [2, 6, 4, 5])],
              [("a", F), ("g", F), ("l1", F), ("l2", F), ("h", F)],
              [("s", weight(rng, 6)), ("b", weight(rng, 6))], opset=21)
    return m, {"x": weight(rng, 2, 6, 4, 5, scale=1),
               "r": np.round(weight(rng, 2, 6, 4, 5, scale=2))}


def case_trilu_gather_elements(rng):
    """Trilu (upper and lower, diagonal offsets), GatherElements with
    negative indices, and GatherND with and without batch dims."""
    nodes = [
        helper.make_node("Trilu", ["x", "k"], ["u"], upper=1),
        helper.make_node("Trilu", ["x", "kl"], ["l"], upper=0),
        helper.make_node("GatherElements", ["x", "i"], ["g"], axis=1),
        helper.make_node("GatherND", ["x", "nd"], ["n"]),
        helper.make_node("GatherND", ["x", "bd"], ["b"], batch_dims=1),
    ]
    m = model(nodes, [("x", F, [2, 5, 6]), ("i", TensorProto.INT64, [2, 3, 6])],
              [("u", F), ("l", F), ("g", F), ("n", F), ("b", F)],
              [("k", np.array(1, np.int64)), ("kl", np.array(-2, np.int64)),
               ("nd", np.array([[[1, -1], [0, 2]], [[1, 4], [0, 0]]], np.int64)),
               ("bd", np.array([[[3, 0], [-2, 5]], [[1, 1], [4, 0]]], np.int64))], opset=14)
    return m, {"x": weight(rng, 2, 5, 6, scale=1), "i": rng.integers(-5, 5, [2, 3, 6])}


def case_strided_column_broadcast(rng):
    """A column taken by a Slice with a step (its last stride is 2, not 1),
    broadcast by Expand: each element a one-element vector read, which the
    LLVM conversion could not lower (found by scripts/fuzz_models.py)."""
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Slice", ["r", "st", "en", "ax", "sp"], ["s"]),
        helper.make_node("Expand", ["s", "to"], ["y"]),
    ]
    inits = [("shape", np.array([168, 5], np.int64)), ("st", np.array([3], np.int64)),
             ("en", np.array([4], np.int64)), ("ax", np.array([1], np.int64)),
             ("sp", np.array([2], np.int64)), ("to", np.array([168, 2], np.int64))]
    m = model(nodes, [("x", F, [7, 24, 5])], [("y", F)], inits)
    return m, {"x": weight(rng, 7, 24, 5)}


def case_depth_space_tile(rng):
    """DepthToSpace (DCR and CRD), SpaceToDepth (as in super-resolution and
    YOLO stems) and Tile."""
    nodes = [
        helper.make_node("DepthToSpace", ["x"], ["d"], blocksize=2, mode="DCR"),
        helper.make_node("DepthToSpace", ["x"], ["c"], blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["x"], ["s"], blocksize=3),
        helper.make_node("Tile", ["x", "r"], ["t"]),
    ]
    m = model(nodes, [("x", F, [2, 12, 3, 6])], [("d", F), ("c", F), ("s", F), ("t", F)],
              [("r", np.array([1, 2, 1, 3], np.int64))], opset=13)
    return m, {"x": weight(rng, 2, 12, 3, 6)}


def case_cumsum(rng):
    """CumSum forward and reversed, inclusive and exclusive, and over int64
    (position ids from an attention mask)."""
    nodes = [
        helper.make_node("CumSum", ["x", "a1"], ["f"]),
        helper.make_node("CumSum", ["x", "a0"], ["r"], exclusive=1, reverse=1),
        helper.make_node("CumSum", ["m", "a1"], ["p"]),
    ]
    m = model(nodes, [("x", F, [3, 7]), ("m", TensorProto.INT64, [2, 9])],
              [("f", F), ("r", F), ("p", TensorProto.INT64)],
              [("a0", np.array(0, np.int64)), ("a1", np.array(-1, np.int64))], opset=14)
    return m, {"x": weight(rng, 3, 7), "m": rng.integers(0, 2, [2, 9])}


def case_einsum(rng):
    """Einsum: attention scores, an implicit output, "..." broadcasting, a
    three-operand chain and a dot product."""
    nodes = [
        helper.make_node("Einsum", ["q", "k"], ["s"], equation="bhqd,bhkd->bhqk"),
        helper.make_node("Einsum", ["a", "b"], ["i"], equation="ij,jk"),
        helper.make_node("Einsum", ["e", "f"], ["g"], equation="...ij,...jk->...ik"),
        helper.make_node("Einsum", ["a", "b", "c"], ["t"], equation="ij,jk,kl->il"),
        helper.make_node("Einsum", ["v", "v"], ["d"], equation="i,i"),
    ]
    shapes = {"q": [2, 3, 5, 8], "k": [2, 3, 7, 8], "a": [3, 4], "b": [4, 5], "c": [5, 2],
              "e": [1, 3, 4], "f": [5, 4, 2], "v": [6]}
    m = model(nodes, [(n, F, s) for n, s in shapes.items()],
              [("s", F), ("i", F), ("g", F), ("t", F), ("d", F)], opset=12)
    return m, {n: weight(rng, *s) for n, s in shapes.items()}


def case_top_k(rng):
    """TopK, largest and smallest, with ties (the lower index first)."""
    nodes = [
        helper.make_node("TopK", ["x", "k5"], ["v", "i"], axis=-1),
        helper.make_node("TopK", ["x", "k2"], ["s", "j"], axis=0, largest=0),
    ]
    m = model(nodes, [("x", F, [4, 12])],
              [("v", F), ("i", TensorProto.INT64), ("s", F), ("j", TensorProto.INT64)],
              [("k5", np.array([5], np.int64)), ("k2", np.array([2], np.int64))], opset=11)
    return m, {"x": np.round(weight(rng, 4, 12, scale=2))}


def case_batchnorm(rng):
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"], ["y"],
                              epsilon=1e-3)]
    m = model(nodes, [("x", F, [2, 3, 4, 5])], [("y", F)],
              [("s", weight(rng, 3)), ("b", weight(rng, 3)), ("mean", weight(rng, 3)),
               ("var", np.abs(weight(rng, 3)) + 0.5)])
    return m, {"x": weight(rng, 2, 3, 4, 5, scale=1)}


def case_data_movement(rng):
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Reshape", ["t", "shape"], ["r"]),
        helper.make_node("Flatten", ["x"], ["f"], axis=1),
        helper.make_node("Concat", ["r", "f"], ["c"], axis=1),
        helper.make_node("Split", ["c", "split"], ["s1", "s2"], axis=1),
        helper.make_node("Slice", ["s2", "st", "en", "ax", "sp"], ["sl"]),
        helper.make_node("Gather", ["sl", "idx"], ["g"], axis=1),
        helper.make_node("Pad", ["g", "pads", "pv"], ["p"]),
        helper.make_node("Unsqueeze", ["p", "uax"], ["u"]),
        helper.make_node("Expand", ["u", "eshape"], ["e"]),
        helper.make_node("Squeeze", ["u", "sax"], ["y"]),
    ]
    inits = [
        ("shape", np.array([2, 12], np.int64)), ("split", np.array([9, 15], np.int64)),
        ("st", np.array([10, 0], np.int64)), ("en", np.array([-100, 2], np.int64)),
        ("ax", np.array([1, 0], np.int64)), ("sp", np.array([-3, 1], np.int64)),
        ("idx", np.array([[2, -1], [0, 3]], np.int64)),
        ("pads", np.array([1, 0, 0, 0, 2, 1], np.int64)), ("pv", np.array(0.25, np.float32)),
        ("uax", np.array([0], np.int64)), ("eshape", np.array([2, 1, 1, 1], np.int64)),
        ("sax", np.array([0], np.int64)),
    ]
    m = model(nodes, [("x", F, [2, 3, 4])], [("y", F), ("e", F)], inits)
    return m, {"x": weight(rng, 2, 3, 4, scale=1)}


def case_pad_modes(rng):
    """Edge, reflect and wrap padding, and a constant Pad that also crops
    (negative pads), each reading the input at computed indices."""
    nodes = [
        helper.make_node("Pad", ["x", "p_edge"], ["e"], mode="edge"),
        helper.make_node("Pad", ["e", "p_reflect"], ["r"], mode="reflect"),
        helper.make_node("Pad", ["r", "p_wrap"], ["w"], mode="wrap"),
        helper.make_node("Pad", ["w", "p_crop", "pv"], ["y"], mode="constant"),
    ]
    inits = [
        ("p_edge", np.array([0, 0, 1, 2, 0, 0, 2, 0], np.int64)),
        ("p_reflect", np.array([0, 0, 2, 1, 0, 0, 1, 3], np.int64)),
        ("p_wrap", np.array([0, 0, 4, 0, 0, 0, 0, -1], np.int64)),
        ("p_crop", np.array([0, -1, 1, -2, 0, 0, -3, 1], np.int64)),
        ("pv", np.array(0.75, np.float32)),
    ]
    m = model(nodes, [("x", F, [2, 3, 4, 5])], [("y", F)], inits, opset=19)
    return m, {"x": weight(rng, 2, 3, 4, 5, scale=1)}


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name, rng, tmp_path):
    onnx_model, inputs = CASES[name](rng)
    path = tmp_path / f"{name}.onnx"
    onnx.save(onnx_model, str(path))
    check_against_onnxruntime(path, inputs, tmp_path, rtol=1e-4, atol=1e-5)
