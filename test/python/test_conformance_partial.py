"""scripts/conformance.py stopped by a deadline's SIGTERM (scripts/gpu-check.sh
runs it under `timeout`): it writes a report of the tests that ran, marked
partial, and exits 1 without waiting for the tests still running."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from infer_cpu import REPO


def children(pid: int) -> set[int]:
    """The process's children now (its threads' test processes)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found |= {int(child) for child in task.read_text().split()}
        except OSError:  # The thread ended.
            pass
    return found


@pytest.mark.slow
def test_sigterm_writes_a_partial_report(tmp_path):
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    run = subprocess.Popen([sys.executable, str(REPO / "scripts" / "conformance.py"), "--target",
                            "cpu", "--filter", "test_", "--limit", "400", "--markdown", str(md),
                            "--json", str(js)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    # Some tests finish: a test is an infer-opt and an infer-run, so once 6
    # processes have been seen, one of the 2 threads (--jobs 2) has started
    # its third, after its first test. Counted rather than slept for, so
    # that a loaded machine (pytest -n 2) still gets there.
    seen: set[int] = set()
    deadline = time.monotonic() + 120
    while len(seen) < 6 and time.monotonic() < deadline and run.poll() is None:
        seen |= children(run.pid)
        time.sleep(0.02)
    time.sleep(0.5)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 1, out + err
    assert "conformance: stopped after" in err
    summary = json.loads(js.read_text())
    assert summary["partial"] is True
    assert 0 < summary["total"] < 400
    assert f"**Partial: stopped after {summary['total']} of 400 tests**" in md.read_text()
