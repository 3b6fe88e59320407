"""scripts/fuzz_models.py: random models through both back ends.

A few fixed seeds of each family run here (seconds each), so that the
generator keeps making valid models and the CPU engine, the CUDA engine
(emulated, with and without staged tiles) and ONNX Runtime keep agreeing on
them; longer runs are by hand (docs/architecture.md, Tests). The checker
itself must catch what it exists to catch.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from infer_cpu import REPO
from infer_tools import fuzz_models

# Seeds whose models reach the tensor cores, the staged tiles, row kernels
# and block reductions between them (the summary of a run lists which).
SEEDS = {"cnn": [1, 6], "transformer": [2, 3], "tensor": [4, 7], "contractions": [0, 5]}


@pytest.mark.slow
@pytest.mark.parametrize("family,seed", [(f, s) for f, seeds in SEEDS.items() for s in seeds])
def test_seed_agrees_with_onnxruntime(tmp_path, family, seed):
    result = fuzz_models.check_seed(seed, tmp_path, [[], ["--no-cuda-stage-tiles"]], keep=False,
                                    family=family)
    assert not result["failures"], result["failures"]
    assert not result["unsupported"], result["unsupported"]


def test_families_make_valid_models():
    """Every family's models pass ONNX's full check (make_model runs it)."""
    for family in fuzz_models.FAMILIES:
        for seed in range(25):
            fuzz_models.make_model(seed, family)


def test_checker_catches_differences():
    want = np.array([1.0, -2.0, np.inf, np.nan], np.float32)
    assert fuzz_models.close(want.copy(), want) is None
    assert fuzz_models.close(np.array([1.0, -2.01, np.inf, np.nan], np.float32), want)
    # An infinity where ONNX Runtime has a number, or a number for its NaN.
    assert fuzz_models.close(np.array([1.0, -2.0, 5.0, np.nan], np.float32), want)
    assert fuzz_models.close(np.array([1.0, -2.0, np.inf, 0.0], np.float32), want)
    assert fuzz_models.close(want[:3], want)  # A shape.


@pytest.mark.parametrize("args,message", [
    (["--model", "/no/such.onnx"], "no such file"),
    (["--seeds", "a-b"], "expected numbers and ranges"),
])
def test_bad_arguments_are_refused(tmp_path, args, message):
    import subprocess
    result = subprocess.run([sys.executable, str(REPO / "scripts/fuzz_models.py"), "--out",
                             str(tmp_path), *args], capture_output=True, text=True)
    assert result.returncode == 2
    assert message in result.stderr
