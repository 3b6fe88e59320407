"""Shared pytest fixtures (seeded random inputs, printed so failures
reproduce) and the tiers: `--quick` leaves out the tests marked `slow` or
`real_models`, and the tests marked `extended` run only with `--extended`
(pytest.ini lists the markers; scripts/test.sh runs the tiers). A test
named on the command line (FILE::TEST) runs in any tier."""

import os

import numpy as np
import pytest


def pytest_addoption(parser):
    group = parser.getgroup("infer-opt tiers")
    group.addoption("--quick", action="store_true",
                    help="the quick tier: leave out tests marked slow or real_models")
    group.addoption("--extended", action="store_true",
                    help="the extended tier: also run the tests marked extended")


def pytest_collection_modifyitems(config, items):
    quick, extended = config.getoption("--quick"), config.getoption("--extended")
    if quick and extended:
        raise pytest.UsageError("--quick and --extended are different tiers")
    left_out = {"extended"} if not extended else set()
    if quick:
        left_out |= {"slow", "real_models"}
    # A test named on the command line (FILE::TEST) runs whatever its tier.
    named = []
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        if sep:
            relative = os.path.relpath(os.path.abspath(path), config.rootpath)
            named.append(f"{relative}::{rest}")
    keep, drop = [], []
    for item in items:
        asked = any(item.nodeid == n or item.nodeid.startswith(n + "[") for n in named)
        tiered = left_out & {m.name for m in item.iter_markers()}
        (drop if tiered and not asked else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("INFER_TEST_SEED", "20261122"))
    print(f"random seed {seed} (set INFER_TEST_SEED to change)")
    return np.random.default_rng(seed)
