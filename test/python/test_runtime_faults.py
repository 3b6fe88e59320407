"""Fault injection: every allocation of engine loading and context creation
is made to fail once (build/bin/inferrt-fault-injection, which interposes
malloc); each failure must give an error status, leak nothing and leave the
engine usable."""

from __future__ import annotations

import re
import subprocess

from infer_cpu import INFER_OPT, REPO

EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"
FAULTS = INFER_OPT.parent / "inferrt-fault-injection"


def test_every_allocation_failure_is_a_status(tmp_path):
    engine = tmp_path / "tiny.engine"
    subprocess.run([str(INFER_OPT), str(EXAMPLE), "--input-shape", "image:2x3x32x32",
                    "--emit=engine", "-o", str(engine)], check=True, capture_output=True)
    result = subprocess.run([str(FAULTS), str(engine)], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    # It must have reached a real number of allocations in both calls.
    counts = re.search(r"the (\d+) allocations of inferrt_engine_load and the (\d+) of", result.stdout)
    assert counts, result.stdout
    assert int(counts[1]) > 20 and int(counts[2]) > 3, result.stdout
