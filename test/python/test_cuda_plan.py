"""A CUDA engine's plan says how each kernel maps its op onto threads.

The plan's informational `strategy` of each launch (docs/engine-format.md)
is what `scripts/cuda_plan_exec.py --profile` sums GPU time by. Compiled
here without a GPU: the example's convolution is an im2col copy, a bias
broadcast and a contraction; its pools and softmax are reductions.
"""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from infer_cpu import INFER_OPT, REPO
from infer_tools.kernel_plan import strategy
from infer_tools.engine_format import read_engine

STRATEGIES = {"tensor_cores", "staged_tiles", "block_reduction", "rows", "vector", "simt",
              "single_thread"}
TENSOR_CORES = {"tensor_cores", "staged_tiles"}


def compile_engine(tmp_path, model, shape, *flags):
    engine = tmp_path / "m.engine"
    subprocess.run([str(INFER_OPT), str(model), "--input-shape", shape, "--target=cuda:sm_90",
                    "--emit=engine", "-o", str(engine), *flags], check=True)
    plan = read_engine(engine).plan
    return plan["launches"]


def test_every_launch_names_its_strategy(tmp_path):
    launches = compile_engine(tmp_path, REPO / "examples/tiny_cnn.onnxtext", "image:1x3x32x32")
    kinds = Counter(launch["strategy"] for launch in launches)
    assert set(kinds) <= STRATEGIES
    # The im2col copy has an innermost dim of 16: 4 elements a thread (the
    # bias broadcast is the convolution's prologue, in its kernel).
    assert kinds["vector"] >= 1
    for launch in launches:
        assert (launch["strategy"] in TENSOR_CORES) == launch["tensor_cores"]


def test_block_reductions_and_tensor_cores_are_named(tmp_path):
    model = REPO / "test/Codegen/CUDA/Inputs/reduce_all.onnxtext"
    launches = compile_engine(tmp_path, model, "x:4x1000")
    assert "block_reduction" in {strategy(l) for l in launches}
    # Four rows: the fill and the row sums are one kernel, a block a row.
    model = REPO / "test/Codegen/CUDA/Inputs/reduce_rows.onnxtext"
    launches = compile_engine(tmp_path, model, "x:4x1000")
    assert [strategy(l) for l in launches] == ["rows"]
    model = REPO / "test/Codegen/CUDA/Inputs/matmul.onnxtext"
    launches = compile_engine(tmp_path, model, "a:64x32")
    assert TENSOR_CORES & {strategy(l) for l in launches}
    # Without TF32 the same MatMul is a SIMT kernel.
    launches = compile_engine(tmp_path, model, "a:64x32", "--no-tf32")
    assert not TENSOR_CORES & {strategy(l) for l in launches}


@pytest.mark.parametrize("flags", [(), ("--cuda-stage-tiles",)], ids=["default", "asked"])
def test_staged_tiles_are_named(tmp_path, flags):
    """Staged tiles (the default, or --cuda-stage-tiles): the MatMul's kernel
    is recorded as staged_tiles, a tensor-core kernel; with
    --no-cuda-stage-tiles as tensor_cores."""
    model = REPO / "test/Codegen/CUDA/Inputs/matmul_staged.onnxtext"
    launches = compile_engine(tmp_path, model, "a:128x96", *flags)
    staged = [l for l in launches if strategy(l) == "staged_tiles"]
    assert len(staged) == 1 and staged[0]["tensor_cores"]
    # Its plan and the contraction it was planned for, as typed objects.
    assert set(staged[0]["tile"]) == {"warp", "step", "stages", "groups", "mma"}
    assert staged[0]["contraction"] == {"batch": 1, "m": 128, "n": 256, "k": 96, "a": "row",
                                        "b": "row"}
    assert "tensor_cores" not in {strategy(l) for l in launches}
    launches = compile_engine(tmp_path, model, "a:128x96", "--no-cuda-stage-tiles")
    assert [strategy(l) for l in launches] == ["tensor_cores"]
