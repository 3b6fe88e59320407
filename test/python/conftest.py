"""Shared pytest fixtures: seeded random inputs, printed so failures reproduce."""

import os

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("INFER_TEST_SEED", "20261122"))
    print(f"random seed {seed} (set INFER_TEST_SEED to change)")
    return np.random.default_rng(seed)
