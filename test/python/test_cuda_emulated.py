"""Whole CUDA engines run on the CPU, against ONNX Runtime.

Each model is compiled with ``--target=cuda:sm_90 --dump-kernels DIR``; the
engine's plan is then executed by ``infer_tools.cuda_plan_exec``'s
``emulate``: the same buffers and launches as on a GPU, each kernel run by
infer_tools.gpu_emulator from DIR/kernels.mlir (which also checks bounds,
alignment, warp uniformity and shared-memory races). This checks every
kernel strategy (SIMT, vector accesses, block reductions, both tensor-core
kernels) and the plan's arena on a machine without a GPU. The emulator does
not round to TF32, so the tolerance is float32's.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper, parser

from infer_cpu import INFER_OPT, REPO
from infer_tools.cuda_plan_exec import emulate
from infer_tools.kernel_plan import describe_contraction
from infer_tools.engine_format import read_engine

INPUTS = REPO / "test/Codegen/CUDA/Inputs"
# (model, input shapes): every kernel strategy appears in one of them.
MODELS = {
    "tiny_cnn": (REPO / "examples/tiny_cnn.onnxtext", {"image": (2, 3, 32, 32)}),
    "matmul": (INPUTS / "matmul.onnxtext", {}),
    "matmul_staged": (INPUTS / "matmul_staged.onnxtext", {}),
    "conv_edges": (INPUTS / "conv_edges.onnxtext", {}),
    "conv_grown": (INPUTS / "conv_grown.onnxtext", {}),
    "conv_batch": (INPUTS / "conv_batch.onnxtext", {}),
    "reduce_rows": (INPUTS / "reduce_rows.onnxtext", {"x": (4, 1000)}),
    "odd_vocab": (INPUTS / "odd_vocab.onnxtext", {}),
    "matmul_k_edge": (INPUTS / "matmul_k_edge.onnxtext", {}),
    "reduce_all": (INPUTS / "reduce_all.onnxtext", {}),
    # Row kernels (infer-cuda-fuse-rows): a block per row.
    "softmax_rows": (INPUTS / "softmax_rows.onnxtext", {}),
    "layer_norm_rows": (INPUTS / "layer_norm_rows.onnxtext", {}),
    "attention_scores": (INPUTS / "attention_scores.onnxtext", {}),
    "row_reductions": (INPUTS / "row_reductions.onnxtext", {}),
    # Bias and residual adds as the MatMul's init (infer-cuda-adds-into-init),
    # computed by the tensor-core kernel itself (infer-cuda-fuse-epilogues).
    "dense_residual_norm": (INPUTS / "dense_residual_norm.onnxtext", {}),
    # An MLP: bias + GELU after the first MatMul, bias + residual before the
    # second, each in its tensor-core kernel (infer-cuda-fuse-epilogues).
    "ffn_gelu": (INPUTS / "ffn_gelu.onnxtext", {}),
    # Q, K and V read through their head transposes (infer-cuda-fold-transposes).
    "attention_heads": (INPUTS / "attention_heads.onnxtext", {}),
    # Q, K and V as column slices of one projection, reshaped to heads
    # (infer-cuda-reshapes-as-views).
    "qkv_split": (INPUTS / "qkv_split.onnxtext", {}),
    # A ReLU read by the next convolution's im2col copy through bounds
    # checks (infer-cuda-guarded-pad-reads) instead of a zero-padded copy.
    "conv_relu_pad": (INPUTS / "conv_relu_pad.onnxtext", {}),
    # Operands computed by the tensor-core kernel from their producers
    # (OperandProducers.cpp): a 3x3 convolution's im2col columns, a scale
    # before a 1x1 convolution (B, with a k tail of 4), a ReLU before a
    # MatMul (A, with a k tail of 4).
    "conv3x3_bias_relu": (INPUTS / "conv3x3_bias_relu.onnxtext", {}),
    "scale_conv1x1": (INPUTS / "scale_conv1x1.onnxtext", {}),
    "relu_matmul": (INPUTS / "relu_matmul.onnxtext", {}),
    # An MLP grown to whole tiles: its prologue and epilogues cover the
    # leading rows of padded homes (infer-cuda-prepare-epilogues' rewrites).
    "ffn_grown": (INPUTS / "ffn_grown.onnxtext", {}),
    # A grown MatMul's leading rows read twice: its kernel must store them.
    "grown_reread": (INPUTS / "grown_reread.onnxtext", {}),
    # A depthwise convolution with its bias, batch norm and ReLU in its
    # kernel, a thread an output (a point group).
    "depthwise_bn": (INPUTS / "depthwise_bn.onnxtext", {}),
    # Epilogues over a 14 x 14 map in rows of 208 (grown positions).
    "conv_grown_map": (INPUTS / "conv_grown_map.onnxtext", {}),
    # Two ResNet bottleneck blocks over a grown 14 x 14 map.
    "bottlenecks": (INPUTS / "bottlenecks.onnxtext", {}),
    # Two ConvTransposes whose windows tile their outputs, with their
    # neighbours.
    "upsample_head": (INPUTS / "upsample_head.onnxtext", {}),
    # A Concat whose inputs write into its slices.
    "concat_branches": (INPUTS / "concat_branches.onnxtext", {}),
    # An expansion, a depthwise convolution and a projection, each a kernel
    # with its activation.
    "inverted_residual": (INPUTS / "inverted_residual.onnxtext", {}),
    # Three convolutions, each with a hardswish that CSE gave one
    # tensor.empty.
    "hardswish_chain": (INPUTS / "hardswish_chain.onnxtext", {}),
    "se_block": (INPUTS / "se_block.onnxtext", {}),
    # Edge, wrap, cropping constant and reflect Pads (computed, clamped
    # indices), a convolution over the reflected map.
    "pad_modes": (INPUTS / "pad_modes.onnxtext", {}),
    # Bilinear upsampling (half pixel) into a concat and a 1x1 convolution,
    # then a bilinear downsampling (align corners).
    "bilinear_decoder": (INPUTS / "bilinear_decoder.onnxtext", {}),
    # A vector times a matrix, ArgMax and ArgMin with ties.
    "argmax_matvec": (INPUTS / "argmax_matvec.onnxtext", {}),
    # LRN, GroupNormalization, Trilu, GatherElements and Hardmax.
    "classic_norms": (INPUTS / "classic_norms.onnxtext", {}),
    # A ReduceMax and an Add after it (its bias is not its initial value).
    "reduce_max_bias": (INPUTS / "reduce_max_bias.onnxtext", {}),
    # ReduceLogSumExp of large inputs: shifted by the maximum.
    "log_sum_exp": (INPUTS / "log_sum_exp.onnxtext", {}),
    # DepthToSpace after a convolution, SpaceToDepth and Tile.
    "depth_space_tile": (INPUTS / "depth_space_tile.onnxtext", {}),
    # Attention as Einsums, and a dot product.
    "einsum_attention": (INPUTS / "einsum_attention.onnxtext", {}),
}
ROW_MODELS = ["reduce_rows", "softmax_rows", "layer_norm_rows", "attention_scores",
              "row_reductions"]


def onnx_model(path):
    text = "\n".join(line for line in path.read_text().splitlines()
                     if not line.lstrip().startswith("#"))
    return parser.parse_model(text)


def feeds(model: onnx.ModelProto, shapes: dict, rng) -> dict[str, np.ndarray]:
    result = {}
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        dims = shapes.get(value.name) or [d.dim_value for d in value.type.tensor_type.shape.dim]
        elem_type = value.type.tensor_type.elem_type
        if elem_type == onnx.TensorProto.INT64:  # Indices.
            result[value.name] = rng.integers(0, 4, dims, dtype=np.int64)
        elif elem_type == onnx.TensorProto.DOUBLE:
            result[value.name] = rng.standard_normal(dims)
        else:
            result[value.name] = rng.standard_normal(dims).astype(np.float32)
    return result


def assert_close(got, want):
    """float32's tolerance; elements near zero of an output of large values
    (long sums of products) get an absolute error of 1e-6 of the largest."""
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=max(1e-5, 1e-6 * np.abs(want).max()))


def compile_and_emulate(tmp_path, name: str, flags: tuple[str, ...] = ()):
    path, shapes = MODELS[name]
    return compile_and_emulate_model(tmp_path, name, onnx_model(path), shapes, flags)


def compile_and_emulate_model(tmp_path, name: str, model: onnx.ModelProto, shapes: dict,
                              flags: tuple[str, ...] = ()):
    """ONNX Runtime's outputs, the emulated engine's and the set of its
    launches' strategies; tmp_path gets NAME.onnx, NAME.engine and
    NAME-kernels/ (the dump). Several tests check one model with the same
    flags: it is compiled and emulated once a session (shared_entry)."""
    key = repr((sorted(shapes.items()), flags))
    entry = shared_entry(tmp_path, model.SerializeToString(), key,
                         make=lambda folder: _compile_and_emulate(folder, model, shapes, flags))
    for suffix, target in ((".onnx", "model.onnx"), (".engine", "model.engine"),
                           ("-kernels", "kernels")):
        link = tmp_path / f"{name}{suffix}"
        link.unlink(missing_ok=True)  # The same name compiled again, with other flags.
        link.symlink_to(entry / target)
    with np.load(entry / "outputs.npz") as outputs:
        expected = [outputs[f"expected_{i}"] for i in range(len(outputs.files) // 2)]
        actual = [outputs[f"actual_{i}"] for i in range(len(outputs.files) // 2)]
    return expected, actual, set(json.loads((entry / "strategies.json").read_text()))


def _compile_and_emulate(folder: Path, model: onnx.ModelProto, shapes: dict,
                         flags: tuple[str, ...]) -> None:
    inputs = feeds(model, shapes, np.random.default_rng(0))
    onnx_path, engine, dump = folder / "model.onnx", folder / "model.engine", folder / "kernels"
    onnx.save(model, str(onnx_path))
    cmd = [str(INFER_OPT), str(onnx_path), "--target=cuda:sm_90", "--emit=engine", "-o",
           str(engine), "--dump-kernels", str(dump), *flags]
    for input_name, value in inputs.items():
        cmd += ["--input-shape", f"{input_name}:" + "x".join(map(str, value.shape))]
    subprocess.run(cmd, check=True)
    expected = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"]) \
        .run(None, inputs)
    actual = list(emulate(engine, dump / "kernels.mlir", inputs).values())
    assert len(expected) == len(actual), (len(expected), len(actual))
    np.savez(folder / "outputs.npz", **{f"expected_{i}": e for i, e in enumerate(expected)},
             **{f"actual_{i}": a for i, a in enumerate(actual)})
    plan = read_engine(engine).plan
    (folder / "strategies.json").write_text(json.dumps(sorted({l["strategy"]
                                                               for l in plan["launches"]})))


def shared_entry(tmp_path: Path, *key, make) -> Path:
    """The folder of `key` (bytes or text), made by `make(folder)` once for
    the test session: in a folder its tests and pytest-xdist workers share,
    under a lock, so that a second asker waits for the first's. A failed
    `make` leaves nothing: the next asker tries again (and fails alike)."""
    digest = hashlib.sha256()
    for part in key:
        digest.update(part if isinstance(part, bytes) else part.encode())
    session = tmp_path.parent  # pytest's basetemp, a worker's under pytest-xdist.
    if os.environ.get("PYTEST_XDIST_WORKER"):
        session = session.parent
    entry = session / "shared" / digest.hexdigest()[:20]
    entry.parent.mkdir(exist_ok=True)
    with open(f"{entry}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (entry / "done").exists():
            shutil.rmtree(entry, ignore_errors=True)
            entry.mkdir()
            try:
                make(entry)
            except BaseException:
                shutil.rmtree(entry, ignore_errors=True)
                raise
            (entry / "done").touch()
    return entry


def kind(launch: dict) -> str:
    """A launch's strategy, the two tensor-core kernels both named
    tensor_cores: the staged-tile one (the default since 2026-11-26) and the
    warp-a-tile one (--no-cuda-stage-tiles, small contractions, computed
    operands) make the same launches, which is what the tests below check."""
    return "tensor_cores" if launch["strategy"] == "staged_tiles" else launch["strategy"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_emulated_engine_matches_onnxruntime(tmp_path, name):
    expected, actual, _ = compile_and_emulate(tmp_path, name)
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.parametrize("name", ["matmul_staged", "conv_batch"])
def test_emulated_warp_tiles_match_onnxruntime(tmp_path, name):
    """--no-cuda-stage-tiles: each warp loads its fragments from global memory."""
    expected, actual, strategies = compile_and_emulate(tmp_path, name, ("--no-cuda-stage-tiles",))
    assert "tensor_cores" in strategies and "staged_tiles" not in strategies, strategies
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.parametrize("name", ["matmul_staged", "conv_batch", "ffn_gelu"])
def test_emulated_wmma_matches_onnxruntime(tmp_path, name):
    """--cuda-tile-plan mma=wmma: the staged kernels multiply with WMMA
    instead of mma.sync (the default), through the whole pipeline
    (canonicalized kernels, fused epilogues) as the engine runs them."""
    expected, actual, strategies = compile_and_emulate(tmp_path, name,
                                                       ("--cuda-tile-plan=mma=wmma",))
    plan = read_engine(tmp_path / f"{name}.engine").plan
    staged = [l for l in plan["launches"] if l["strategy"] == "staged_tiles"]
    assert staged and all(l["tile"]["mma"] == "wmma" for l in staged), strategies
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.parametrize("name", ROW_MODELS)
def test_row_groups_run_as_one_kernel_a_row(tmp_path, name):
    """Softmax, layer norm (with the residual add before it), the scaled and
    masked attention scores, log-softmax, an L2 norm and a row sum: each
    chain of fills, row reductions and elementwise ops is one launch with a
    block per row (RowKernels.cpp), and matches ONNX Runtime."""
    expected, actual, strategies = compile_and_emulate(tmp_path, name)
    assert "rows" in strategies, strategies
    assert strategies <= {"rows", "tensor_cores", "staged_tiles", "vector"}, strategies
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.slow
def test_row_kernel_barriers_are_checked(tmp_path):
    """In the layer norm's row kernel, the barriers inside its two block
    reductions and those after the mean and after the reciprocal square
    root (which thread 0 writes and every warp reads) are needed: without
    any one of them the emulator must refuse the kernel. (The others
    separate ops whose threads read only what they wrote themselves.)"""
    from infer_tools.gpu_emulator import EmulationError, run_launches
    compile_and_emulate(tmp_path, "layer_norm_rows")
    lines = (tmp_path / "layer_norm_rows-kernels" / "kernels.mlir").read_text().splitlines()
    barriers = [i for i, line in enumerate(lines) if '"gpu.barrier"' in line]
    rng = np.random.default_rng(0)
    rows = 3 * 50 * 768

    def buffers():  # x, residual, g, b, y: the entry's arguments (no arena).
        return [rng.standard_normal(n).astype(np.float32) for n in (rows, rows, 768, 768)] + \
            [np.zeros(rows, np.float32)]

    refused = 0
    for index in barriers:
        broken = "\n".join(line for i, line in enumerate(lines) if i != index)
        try:
            run_launches(broken, buffers())
        except EmulationError as e:
            assert "barrier between" in str(e)
            refused += 1
    assert refused >= 4, (refused, len(barriers))


def test_bias_and_residual_adds_are_the_matmul_init(tmp_path):
    """MatMul + bias + residual before a layer norm, and bias + MatMul: each
    is one tensor-core kernel that computes bias (+ residual) as its initial
    value and accumulates onto it (no fill, no add after), then one row
    kernel for the layer norm."""
    expected, actual, _ = compile_and_emulate(tmp_path, "dense_residual_norm")
    engine = tmp_path / "dense_residual_norm.engine"
    plan = read_engine(engine).plan
    assert [kind(l) for l in plan["launches"]] == ["tensor_cores", "rows", "tensor_cores"]
    assert set(plan["launches"][0]["nodes"]) == {"MatMul_0", "Add_1", "Add_2"}
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_mlp_is_two_tensor_core_kernels(tmp_path):
    """MatMul, bias, GELU, MatMul, bias, residual: two launches, each a
    tensor-core kernel with its neighbours inside (the fills, bias + GELU
    after the first, bias + residual before the second)."""
    expected, actual, _ = compile_and_emulate(tmp_path, "ffn_gelu")
    plan = read_engine(tmp_path / "ffn_gelu.engine").plan
    assert [kind(l) for l in plan["launches"]] == ["tensor_cores", "tensor_cores"]
    assert {"MatMul_0", "Add_1", "Erf_4", "Mul_9"} <= set(plan["launches"][0]["nodes"])
    assert set(plan["launches"][1]["nodes"]) == {"MatMul_10", "Add_11", "Add_12"}
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_grown_mlp_keeps_its_neighbours_in_its_kernels(tmp_path):
    """The same MLP at 37 rows, which growth pads to 48: the fills, bias +
    ReLU, bias + residual and the copy of the model output out of its padded
    home are all in the two tensor-core kernels. Only x's copy into its
    padded home is a kernel of its own."""
    expected, actual, _ = compile_and_emulate(tmp_path, "ffn_grown")
    plan = read_engine(tmp_path / "ffn_grown.engine").plan
    assert [kind(l) for l in plan["launches"]] == ["vector", "tensor_cores", "tensor_cores"]
    assert {"MatMul_0", "Add_1", "Relu_2"} <= set(plan["launches"][1]["nodes"])
    assert {"MatMul_3", "Add_4", "Add_5"} <= set(plan["launches"][2]["nodes"])
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_epilogues_over_a_grown_map_join_their_kernels(tmp_path):
    """1x1 convolutions whose 196 positions are grown to 208: bias + ReLU
    and bias + residual read 14 x 14 boxes of rows of 208 and still join
    the tensor-core kernels."""
    expected, actual, _ = compile_and_emulate(tmp_path, "conv_grown_map")
    plan = read_engine(tmp_path / "conv_grown_map.engine").plan
    kernels = [l for l in plan["launches"] if kind(l) == "tensor_cores"]
    assert len(kernels) == 2, plan["launches"]
    assert {"Conv_0", "Relu_1"} <= set(kernels[0]["nodes"]), kernels[0]["nodes"]
    assert {"Conv_2", "Add_3"} <= set(kernels[1]["nodes"]), kernels[1]["nodes"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_bottleneck_blocks_are_their_convolutions_kernels(tmp_path):
    """Two ResNet bottleneck blocks over a grown 14 x 14 map: a kernel for
    each convolution with its bias, ReLU and residual add, an im2col copy
    before each 3x3 one (reading its zero padding through bounds checks:
    no pad kernels), and one copy of x, a model input, into a padded home.
    No other copies of homes: the first block's output feeds the second's
    first convolution where it is and its residual add from there."""
    expected, actual, _ = compile_and_emulate(tmp_path, "bottlenecks")
    plan = read_engine(tmp_path / "bottlenecks.engine").plan
    strategies = [kind(l) for l in plan["launches"]]
    assert strategies.count("tensor_cores") == 6, plan["launches"]
    assert len(strategies) == 9, plan["launches"]
    for launch in plan["launches"]:
        if kind(launch) == "tensor_cores":  # Its ReLU (and add) joined.
            assert len(launch["nodes"]) >= 2, launch["nodes"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_upsampling_is_a_kernel_for_each_conv_transpose(tmp_path):
    """A 2x2, stride-2 ConvTranspose is a short contraction over the input
    channels (no spread input, no im2col copy), a thread an output, with
    its bias, batch norm and ReLU (or sigmoid) in its kernel."""
    expected, actual, _ = compile_and_emulate(tmp_path, "upsample_head")
    plan = read_engine(tmp_path / "upsample_head.engine").plan
    assert len(plan["launches"]) == 2, plan["launches"]
    assert {"ConvTranspose_0", "BatchNormalization_1", "Relu_2"} <= \
        set(plan["launches"][0]["nodes"]), plan["launches"][0]["nodes"]
    assert {"ConvTranspose_3", "Sigmoid_4"} <= set(plan["launches"][1]["nodes"])
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_concat_inputs_write_into_their_slices(tmp_path):
    """The Resize and the ReLU write into their slices of the Concat (empty
    tensor elimination before bufferization): no copy kernels."""
    expected, actual, _ = compile_and_emulate(tmp_path, "concat_branches")
    plan = read_engine(tmp_path / "concat_branches.engine").plan
    assert [l["nodes"] for l in plan["launches"]] == [["Resize_1"], ["Relu_2"]], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_inverted_residual_is_three_kernels(tmp_path):
    """The expansion with its ReLU6 (tensor cores), the depthwise convolution
    with its ReLU6 (a point group: the arena keeps the expansion's output,
    its input, alive until that ReLU6, which would otherwise overwrite it),
    the projection (tensor cores)."""
    expected, actual, _ = compile_and_emulate(tmp_path, "inverted_residual")
    plan = read_engine(tmp_path / "inverted_residual.engine").plan
    assert [l["nodes"] for l in plan["launches"]] == [
        ["Conv_2", "Clip_3"], ["Conv_4", "Clip_5"], ["Conv_6"]], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_each_convolution_keeps_its_activation(tmp_path):
    """Each of three convolutions (depthwise, 1x1 on the tensor cores,
    strided depthwise) runs its scale, shift and hardswish in its own
    kernel: three launches."""
    expected, actual, _ = compile_and_emulate(tmp_path, "hardswish_chain")
    plan = read_engine(tmp_path / "hardswish_chain.engine").plan
    assert len(plan["launches"]) == 3, plan["launches"]
    for launch, conv, last in zip(plan["launches"], ["Conv_6", "Conv_15", "Conv_24"],
                                  ["Add_14", "Add_23", "Add_26"]):
        assert {conv, last} <= set(launch["nodes"]), launch["nodes"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_depthwise_convolution_keeps_its_neighbours_in_its_kernel(tmp_path):
    """The bias written into the output before a depthwise convolution and
    batch norm + ReLU after it run in its kernel, each thread on its own
    output, and the zero padding is no copy: each thread checks its reads
    against x's bounds. One launch."""
    expected, actual, _ = compile_and_emulate(tmp_path, "depthwise_bn")
    plan = read_engine(tmp_path / "depthwise_bn.engine").plan
    assert len(plan["launches"]) == 1, plan["launches"]
    last = plan["launches"][-1]
    assert last["strategy"] == "simt"
    assert {"Conv_0", "BatchNormalization_5", "Relu_6"} <= set(last["nodes"]), last["nodes"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.parametrize("flags,refused,accepted", [((), 2, 2), (("--no-cuda-stage-tiles",), 2, 0)],
                         ids=["default", "warp_tiles"])
def test_warp_barriers_of_prologues_and_epilogues_are_checked(tmp_path, flags, refused,
                                                              accepted):
    """A fused epilogue reads, lane by lane, the tile a WMMA store left in
    shared memory; a fused prologue's lanes write the tile a WMMA load then
    reads. Without the warp barrier (bar.warp.sync) between, lanes could
    see stale memory: the emulator must refuse each kernel without it. The
    staged-tile kernels also have a warp barrier before the store and
    before the prologue's writes, against other lanes' earlier reads of the
    same floats; here, one fragment a warp, each follows a block barrier,
    so the emulator accepts them removed (test_tensor_core_kernels.py has
    2 x 2 fragments, where it does not)."""
    from infer_tools.gpu_emulator import EmulationError, run_launches
    compile_and_emulate(tmp_path, "ffn_gelu", flags)
    lines = (tmp_path / "ffn_gelu-kernels" / "kernels.mlir").read_text().splitlines()
    syncs = [i for i, line in enumerate(lines) if '"nvvm.bar.warp.sync"' in line]
    assert len(syncs) == refused + accepted, syncs
    rng = np.random.default_rng(0)
    # x, w1, b1, w2, b2, y, and the arena (2 x 2 x 32 x 256 floats).
    sizes = (2 * 32 * 64, 64 * 256, 256, 256 * 64, 64, 2 * 32 * 64, 2 * 2 * 32 * 256)
    outcomes = []
    for index in syncs:
        broken = "\n".join(line for i, line in enumerate(lines) if i != index)
        try:
            run_launches(broken, [rng.standard_normal(n).astype(np.float32) for n in sizes])
            outcomes.append("accepted")
        except EmulationError as error:
            assert "no warp barrier between" in str(error)
            outcomes.append("refused")
    assert outcomes.count("refused") == refused, outcomes


def test_head_transposes_are_read_through(tmp_path):
    """Attention's Q, K and V head transposes are no kernels of their own:
    both MatMuls read them in place, on the tensor cores; and P.V writes its
    result with the heads merged (Transpose_11 is part of its kernel)."""
    expected, actual, _ = compile_and_emulate(tmp_path, "attention_heads")
    plan = read_engine(tmp_path / "attention_heads.engine").plan
    nodes = {node for l in plan["launches"] for node in l["nodes"]}
    assert not nodes & {"Transpose_5", "Transpose_6", "Transpose_7"}, nodes
    assert ["MatMul_10", "Transpose_11"] in [l["nodes"] for l in plan["launches"]]
    assert [kind(l) for l in plan["launches"]].count("tensor_cores") == 2
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_slices_of_a_fused_projection_are_read_in_place(tmp_path):
    """GPT-2's attention: one MatMul makes Q, K and V side by side; each is a
    column slice, reshaped to heads. The reshapes are views of the slices
    (strided), not copies: the attention MatMuls read the projection's
    output where it lies. (The projection is scaled by 1/16, in its kernel,
    to keep the softmax well conditioned.)"""
    expected, actual, _ = compile_and_emulate(tmp_path, "qkv_split")
    plan = read_engine(tmp_path / "qkv_split.engine").plan
    assert [l["nodes"] for l in plan["launches"][:3]] == [
        ["MatMul_0", "Mul_2"], ["MatMul_19"], ["Softmax_20"]], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_the_next_convolution_reads_the_relu_through_bounds_checks(tmp_path):
    """1x1 convolution, ReLU, 3x3 convolution with padding 1: the first
    convolution's kernel applies the ReLU, and the second reads its output
    through bounds checks (zero outside): no padded copy and no fill. The
    second's 32 output channels are 2 tiles, so its kernel computes the
    im2col columns itself (operand producers): two launches, both on the
    tensor cores (three, with the copy, before 2026-11-26)."""
    expected, actual, _ = compile_and_emulate(tmp_path, "conv_relu_pad")
    plan = read_engine(tmp_path / "conv_relu_pad.engine").plan
    assert [(kind(l), l["nodes"]) for l in plan["launches"]] == [
        ("tensor_cores", ["Conv_0", "Relu_1"]), ("tensor_cores", ["Conv_2"])], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.parametrize("name,nodes", [
    ("conv3x3_bias_relu", ["Conv_0", "Relu_1"]),
    ("scale_conv1x1", ["Mul_0", "Conv_1"]),
    ("relu_matmul", ["Relu_0", "MatMul_1"])])
def test_producers_of_operands_run_in_the_tensor_core_kernel(tmp_path, name, nodes):
    """The op that makes an input of a contraction read by nothing else (an
    im2col copy, a scale, a ReLU) runs in the contraction's tensor-core
    kernel, which computes that input's elements where it would load them:
    one launch. (The outputs are checked by the tests over MODELS.)"""
    compile_and_emulate(tmp_path, name)
    plan = read_engine(tmp_path / f"{name}.engine").plan
    assert [(kind(l), l["nodes"]) for l in plan["launches"]] == [
        ("tensor_cores", nodes)], plan["launches"]


def test_staged_tiles_leave_a_produced_operand_to_the_warp_tile_kernel(tmp_path):
    """The staged-tile kernel (the default) does not compute operands: a
    convolution whose im2col columns its kernel computes keeps the
    warp-a-tile tensor-core kernel, in one launch."""
    expected, actual, _ = compile_and_emulate(tmp_path, "conv3x3_bias_relu")
    plan = read_engine(tmp_path / "conv3x3_bias_relu.engine").plan
    assert [l["strategy"] for l in plan["launches"]] == ["tensor_cores"], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_the_barrier_before_a_produced_fragment_is_checked(tmp_path):
    """The lanes store the operand elements they computed to shared memory,
    and the warp loads its fragment from there: without the warp barrier
    between (the one before a WMMA load of the scratch that follows the
    stores), the emulator must refuse the kernel."""
    from infer_tools.gpu_emulator import EmulationError
    expected, _, _ = compile_and_emulate(tmp_path, "conv3x3_bias_relu")
    lines = (tmp_path / "conv3x3_bias_relu-kernels" / "kernels.mlir").read_text().splitlines()
    before_loads = [i for i, line in enumerate(lines)
                    if '"nvvm.bar.warp.sync"' in line and '"memref.store"' in lines[i - 1]
                    and '"gpu.subgroup_mma_load_matrix"' in lines[i + 1]]
    assert len(before_loads) == 1, before_loads
    broken = tmp_path / "broken.mlir"
    broken.write_text("\n".join(l for i, l in enumerate(lines) if i != before_loads[0]))
    model = onnx_model(MODELS["conv3x3_bias_relu"][0])
    with pytest.raises(EmulationError, match="no warp barrier between"):
        emulate(tmp_path / "conv3x3_bias_relu.engine", broken,
                feeds(model, {}, np.random.default_rng(0)))


def test_a_block_reduction_runs_its_bias_and_relu(tmp_path):
    """A squeeze-and-excitation block: the first 1x1 convolution reduces
    over 128 channels, a block per output; its bias (before) and ReLU
    (after) run in that kernel's thread 0 (a block group) instead of a
    launch each. Four launches: the pool, that convolution, the second
    (a thread per output, with its bias and hardsigmoid) and the scaling."""
    expected, actual, _ = compile_and_emulate(tmp_path, "se_block")
    plan = read_engine(tmp_path / "se_block.engine").plan
    assert [(kind(l), l["nodes"]) for l in plan["launches"]] == [
        ("rows", ["GlobalAveragePool_0"]), ("block_reduction", ["Conv_1", "Relu_2"]),
        ("simt", ["Conv_3", "HardSigmoid_4"]), ("vector", ["Mul_5"])], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def model_with_weights(name: str, nodes, inputs: dict, outputs: dict,
                       weights: dict, scale: float = 1.0) -> onnx.ModelProto:
    """An opset-17 model of `nodes` whose `weights` (name -> shape) are
    seeded random initializers (constants to infer-opt, unlike graph inputs),
    standard normal times `scale`."""
    rng = np.random.default_rng(len(name))
    initializers = [
        numpy_helper.from_array((scale * rng.standard_normal(shape)).astype(np.float32), key)
        for key, shape in weights.items()]
    def values(shapes):
        return [helper.make_tensor_value_info(key, onnx.TensorProto.FLOAT, list(shape))
                for key, shape in shapes.items()]
    graph = helper.make_graph(nodes, name, values(inputs), values(outputs), initializers)
    return helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


def test_a_convolution_short_of_a_tile_runs_on_the_tensor_cores(tmp_path):
    """A 1x1 convolution to 12 channels (PP-OCR det has one) is short of a
    16-row tile: it is grown to one, its constant weight stored with 4 rows
    of zeros, and runs on the tensor cores with its bias and ReLU in one
    kernel; before, the whole convolution ran on SIMT."""
    model = model_with_weights(
        "conv_short_of_a_tile",
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="Conv_0"),
         helper.make_node("Relu", ["c"], ["y"], name="Relu_1")],
        {"x": (1, 48, 20, 20)}, {"y": (1, 12, 20, 20)}, {"w": (12, 48, 1, 1), "b": (12,)})
    expected, actual, _ = compile_and_emulate_model(tmp_path, "conv_short", model, {})
    plan = read_engine(tmp_path / "conv_short.engine").plan
    assert [(kind(l), l["nodes"]) for l in plan["launches"]] == [
        ("tensor_cores", ["Conv_0", "Relu_1"])], plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_a_convolution_with_a_unit_kernel_dim_runs_on_the_tensor_cores(tmp_path):
    """PP-OCR rec's 1x3 convolutions: the weight [60, c, 1, 3] was read at
    kh = 0, no projected permutation, so the convolution ran as 2,400 block
    reductions. Stored as [60, c, 3], it is a contraction over (c, kw), grown
    to 64 channels and 48 positions, with its swish in its kernel. The next
    1x1 convolution reads those 60 channels as its k from a home of its
    own (60 rows, not the 64 of the first one's: the swish cannot write in
    place)."""
    model = model_with_weights(
        "conv_unit_kernel_dim",
        [helper.make_node("Conv", ["x", "w1"], ["c"], name="Conv_0", kernel_shape=[1, 3],
                          pads=[0, 1, 0, 1]),
         helper.make_node("Sigmoid", ["c"], ["s"], name="Sigmoid_1"),
         helper.make_node("Mul", ["c", "s"], ["a"], name="Mul_2"),
         helper.make_node("Conv", ["a", "w2"], ["y"], name="Conv_3")],
        {"x": (1, 32, 1, 40)}, {"y": (1, 64, 1, 40)},
        {"w1": (60, 32, 1, 3), "w2": (64, 60, 1, 1)})
    expected, actual, strategies = compile_and_emulate_model(tmp_path, "conv_1x3", model, {})
    plan = read_engine(tmp_path / "conv_1x3.engine").plan
    launches = [(kind(l), l["nodes"]) for l in plan["launches"]]
    assert ("tensor_cores", ["Conv_0", "Sigmoid_1", "Mul_2"]) in launches, launches
    assert "block_reduction" not in strategies, launches
    for want, got in zip(expected, actual):
        assert_close(got, want)


@pytest.mark.slow  # Alone; with the tests above, their compiles and emulations are shared.
def test_the_models_cover_every_strategy(tmp_path):
    seen = set()
    for name in MODELS:
        seen |= compile_and_emulate(tmp_path, name)[2]
    seen |= compile_and_emulate(tmp_path, "matmul_staged", ("--no-cuda-stage-tiles",))[2]
    assert seen >= {"tensor_cores", "staged_tiles", "block_reduction", "rows", "vector",
                    "simt"}, seen


# Real PaddlePaddle classifiers: PP-OCR's text direction (75 launches) and
# RapidAI's PP-LCNet orientation (42), each about 5 to 20 s to emulate.
REAL_CLASSIFIERS = {
    "ppocr-cls": ("models/ppocr/cls.onnx", (1, 3, 48, 192), "scripts/fetch_ppocr_models.py"),
    "orientation": ("models/rapid/orientation.onnx", (1, 3, 224, 224),
                    "scripts/fetch_rapid_models.py"),
}


# Each both ways, but RapidAI's with warp tiles only in the extended tier
# (15 s; PP-OCR cls checks those kernels on a real model in the default).
@pytest.mark.real_models
@pytest.mark.slow
@pytest.mark.parametrize("name,flags", [
    pytest.param(name, flags, id=f"{name}-{kind}", marks=[pytest.mark.extended]
                 if (name, kind) == ("orientation", "warp_tiles") else [])
    for name in sorted(REAL_CLASSIFIERS)
    for flags, kind in (((), "default"), (("--no-cuda-stage-tiles",), "warp_tiles"))])
def test_emulated_real_classifier(tmp_path, name, flags):
    rel, shape, fetch = REAL_CLASSIFIERS[name]
    path = REPO / rel
    if not path.exists():
        pytest.skip(f"{rel} not fetched ({fetch})")
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    engine, dump = tmp_path / f"{name}.engine", tmp_path / "kernels"
    subprocess.run([str(INFER_OPT), str(path), "--input-shape", "x:" + "x".join(map(str, shape)),
                    "--target=cuda:sm_90", "--emit=engine", "-o", str(engine), "--dump-kernels",
                    str(dump), *flags], check=True)
    expected = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]) \
        .run(None, {"x": x})
    actual = list(emulate(engine, dump / "kernels.mlir", {"x": x}).values())
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("batch", [1, 2])
def test_head_transposes_of_grown_attention_are_read_through(tmp_path, batch):
    """A ViT attention block at 45 tokens (ViT-B/16 has 197): every MatMul
    is grown to 48 rows, and the head transposes are still no kernels. The
    scores and P.V read 48-row head views of the grown projection whole,
    and P.V writes the merged heads into the 48-row home that the output
    projection reads; before, each transpose was a copy into a home (4
    launches a layer in ViT). Q, K and V are one projection by their three
    weights side by side (infer-cuda-merge-projections). Six launches. At
    batch 2 too: the tokens grow to 48 for each image (growsEachPoint), not
    90 rows collapsed to 96 (45 tokens waste 1/15 grown; 37 would waste too
    much, and are collapsed), and then the two images' 48 rows are one m of
    96 for the projections, whole tiles. Weights are scaled by 1/8 so that
    the scores are well conditioned (std about 1)."""
    def node(op, inputs, output, **attrs):
        return helper.make_node(op, inputs, [output], name=f"{op}_{output}", **attrs)
    heads = numpy_helper.from_array(np.array([batch, 45, 2, 32], np.int64), "heads")
    merged = numpy_helper.from_array(np.array([batch, 45, 64], np.int64), "merged")
    model = model_with_weights(
        "attention_grown",
        [helper.make_node("Constant", [], ["heads"], value=heads),
         helper.make_node("Constant", [], ["merged"], value=merged),
         node("LayerNormalization", ["x", "g", "b"], "h", axis=-1),
         *[node("MatMul", ["h", f"w{p}"], p) for p in "qkv"],
         *[node("Reshape", [p, "heads"], f"{p}r") for p in "qkv"],
         node("Transpose", ["qr"], "qt", perm=[0, 2, 1, 3]),
         node("Transpose", ["kr"], "kt", perm=[0, 2, 3, 1]),
         node("Transpose", ["vr"], "vt", perm=[0, 2, 1, 3]),
         node("MatMul", ["qt", "kt"], "s"),
         node("Softmax", ["s"], "p", axis=-1),
         node("MatMul", ["p", "vt"], "c"),
         node("Transpose", ["c"], "ct", perm=[0, 2, 1, 3]),
         node("Reshape", ["ct", "merged"], "cm"),
         node("MatMul", ["cm", "wo"], "o"),
         node("Add", ["o", "bo"], "ob"),
         node("Add", ["ob", "x"], "y")],
        {"x": (batch, 45, 64)}, {"y": (batch, 45, 64)},
        {"g": (64,), "b": (64,), "wq": (64, 64), "wk": (64, 64), "wv": (64, 64),
         "wo": (64, 64), "bo": (64,)}, scale=0.125)
    expected, actual, _ = compile_and_emulate_model(tmp_path, "attention_grown", model, {})
    plan = read_engine(tmp_path / "attention_grown.engine").plan
    launches = [(kind(l), l["nodes"]) for l in plan["launches"]]
    assert [s for s, _ in launches] == \
        ["rows"] + ["tensor_cores"] * 2 + ["rows"] + ["tensor_cores"] * 2, launches
    assert sorted(launches[1][1]) == ["MatMul_k", "MatMul_q", "MatMul_v"], launches
    assert ["MatMul_c", "Transpose_ct"] in [n for _, n in launches], launches
    if batch == 2:  # Staged tiles then, whose launches record their contraction.
        projections = [describe_contraction(l.get("contraction")) for l in plan["launches"]
                       if {"MatMul_q", "MatMul_o"} & set(l["nodes"])]
        assert projections == ["batch=1,m=96,n=192,k=64,a=row,b=row",
                               "batch=1,m=96,n=64,k=64,a=row,b=row"], projections
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_gemm_projections_with_transposed_weights_merge(tmp_path):
    """Q, K and V as Gemms with transB = 1 (weights stored [out, in], with
    biases): merged into one contraction by their weights stacked along the
    out dim, which is the weights' first dim here; the scores read its
    column slices as heads."""
    def node(op, inputs, output, **attrs):
        return helper.make_node(op, inputs, [output], name=f"{op}_{output}", **attrs)
    heads = numpy_helper.from_array(np.array([37, 2, 32], np.int64), "heads")
    model = model_with_weights(
        "gemm_projections",
        [helper.make_node("Constant", [], ["heads"], value=heads),
         *[node("Gemm", ["x", f"w{p}", f"b{p}"], p, transB=1) for p in "qkv"],
         *[node("Reshape", [p, "heads"], f"{p}r") for p in "qkv"],
         node("Transpose", ["qr"], "qt", perm=[1, 0, 2]),
         node("Transpose", ["kr"], "kt", perm=[1, 2, 0]),
         node("Transpose", ["vr"], "vt", perm=[1, 0, 2]),
         node("MatMul", ["qt", "kt"], "s"),
         node("Softmax", ["s"], "p", axis=-1),
         node("MatMul", ["p", "vt"], "y")],
        {"x": (37, 64)}, {"y": (2, 37, 32)},
        {"wq": (64, 64), "wk": (64, 64), "wv": (64, 64), "bq": (64,), "bk": (64,), "bv": (64,)},
        scale=0.125)
    expected, actual, _ = compile_and_emulate_model(tmp_path, "gemm_projections", model, {})
    plan = read_engine(tmp_path / "gemm_projections.engine").plan
    merged = [l["nodes"] for l in plan["launches"] if "Gemm_q" in l["nodes"]]
    assert len(merged) == 1 and {"Gemm_k", "Gemm_v"} <= set(merged[0]), plan["launches"]
    for want, got in zip(expected, actual):
        assert_close(got, want)


def test_a_single_short_row_is_one_kernel(tmp_path):
    """A classifier's final softmax over [1, 2] (PP-OCR cls) and a layer norm
    of one row of 7: each is one launch of one block (a row kernel), not a
    launch per reduction and elementwise op (6 for the softmax before)."""
    model = parser.parse_model("""
        <ir_version: 8, opset_import: ["" : 17]>
        one_row (float[1,2] x, float[1,7] z) => (float[1,2] y, float[1,7] w)
        <float[7] scale = {1.0, 0.5, 2.0, -1.0, 1.5, 0.25, 3.0},
         float[7] bias = {0.1, -0.2, 0.3, 0.0, 0.5, -0.6, 0.7}> {
          y = Softmax <axis = -1> (x)
          w = LayerNormalization <axis = -1, epsilon = 0.00001> (z, scale, bias)
        }""")
    expected, actual, _ = compile_and_emulate_model(tmp_path, "one_row", model, {})
    for want, got in zip(expected, actual):
        assert_close(got, want)
    plan = read_engine(tmp_path / "one_row.engine").plan
    launches = [(kind(l), l["grid"]) for l in plan["launches"]]
    assert launches == [("rows", [1, 1, 1])] * 2, launches


def test_tf32_modes_of_the_emulator(tmp_path):
    """The emulator's TF32 modes (what the GPU's tensor cores compute): a
    MatMul of positive values over k = 256, its inputs rounded to nearest
    (rna, as the kernels' cvt.rna.tf32.f32: unbiased, errors cancel) or
    truncated (each product low by half a TF32 ulp on average: the error
    adds up, a relative 2^-11 ~ 5e-4 of every output), against float64.
    The kernel multiplies with WMMA, whose operands the mode rounds (the
    default mma.sync kernels round theirs with cvt.rna in the kernel)."""
    from infer_tools.gpu_emulator.wmma import to_tf32

    one = np.float32(1.0)
    ulp = np.float32(2.0 ** -10)
    values = np.array([one + ulp / 2, one + ulp / 4, -(one + ulp / 2), np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(to_tf32(values, "rna"), [one + ulp, one, -(one + ulp), np.inf,
                                                           np.nan])
    np.testing.assert_array_equal(to_tf32(values, "truncate"), [one, one, -one, np.inf, np.nan])

    model = parser.parse_model("""
        <ir_version: 8, opset_import: ["" : 17]>
        product (float[64,256] a, float[256,64] b) => (float[64,64] c) {
          c = MatMul(a, b)
        }""")
    onnx_path, engine, dump = tmp_path / "p.onnx", tmp_path / "p.engine", tmp_path / "k"
    onnx.save(model, str(onnx_path))
    subprocess.run([str(INFER_OPT), str(onnx_path), "--target=cuda:sm_90", "--emit=engine", "-o",
                    str(engine), "--dump-kernels", str(dump), "--cuda-tile-plan=mma=wmma"],
                   check=True)
    rng = np.random.default_rng(0)
    inputs = {"a": rng.random((64, 256), dtype=np.float32),
              "b": rng.random((256, 64), dtype=np.float32)}
    exact = inputs["a"].astype(np.float64) @ inputs["b"]
    errors = {}
    for mode in (None, "rna", "truncate"):
        [got] = emulate(engine, dump / "kernels.mlir", inputs, tf32=mode).values()
        errors[mode] = float(np.mean((got - exact) / exact))
    assert abs(errors[None]) < 1e-7, errors
    assert 1e-7 < abs(errors["rna"]) < 1e-4, errors
    assert -7e-4 < errors["truncate"] < -3e-4, errors


@pytest.mark.real_models
@pytest.mark.slow
def test_tf32_accuracy_script(tmp_path):
    """scripts/tf32_accuracy.py on PP-OCR cls: exact products match ONNX
    Runtime to float32's precision, TF32 ones are further off but within
    TF32's (both ways); an unknown model or mode is refused."""
    import json

    script = REPO / "scripts" / "tf32_accuracy.py"
    bad = subprocess.run([sys.executable, str(script), "--modes", "fast"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "--modes takes exact, rna, truncate" in bad.stderr
    bad = subprocess.run([sys.executable, str(script), "--models", "nope"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "unknown models ['nope']" in bad.stderr
    if not (REPO / "models/ppocr/cls.onnx").exists():
        pytest.skip("models/ppocr/cls.onnx not fetched (scripts/fetch_ppocr_models.py)")
    subprocess.run([sys.executable, str(script), "--models", "ppocr-cls", "--json",
                    str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")],
                   check=True, capture_output=True)
    [result] = json.loads((tmp_path / "r.json").read_text())["models"]
    errors = {mode: next(iter(r["outputs"].values()))["rel_l2"]
              for mode, r in result["modes"].items()}
    assert errors["exact"] < 1e-6, errors
    assert 1e-5 < errors["rna"] < 1e-2 and 1e-5 < errors["truncate"] < 1e-2, errors
    assert "| ppocr-cls | " in (tmp_path / "r.md").read_text()


def test_short_rows_few_are_one_row_kernel(tmp_path):
    """A short sequence's attention softmax (136 rows of 17 keys) is one row
    kernel, a warp a row, not one launch per op: short rows are a row group
    when there are at most 4,096 of them and each row writes more than one
    output (a depthwise convolution's window, one output a row, stays a
    thread per output: test_depthwise_convolution_keeps_its_neighbours_in_its_kernel)."""
    expected, actual, strategies = compile_and_emulate(tmp_path, "einsum_attention")
    plan = read_engine(tmp_path / "einsum_attention.engine").plan
    softmax = [launch for launch in plan["launches"] if "Softmax_1" in launch["nodes"]]
    assert len(softmax) == 1 and softmax[0]["strategy"] == "rows", softmax
    assert softmax[0]["grid"][0] == 2 * 4 * 17 and softmax[0]["block"][0] == 32, softmax
    for want, got in zip(expected, actual):
        assert_close(got, want)
