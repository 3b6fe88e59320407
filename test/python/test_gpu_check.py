"""scripts/gpu-check.sh run, without a GPU: its phases under one deadline.

The device tool gives a session 15 minutes of GPU time (starts included)
and 8 files back, so `run` gives each phase only the time left, records
each outcome, and packs its results into a few files after every phase.
Here the script runs in a copy of the repository whose tools are stubs (a
cmake that makes an infer-run, a benchmark that writes its tables, a
profiler that never ends), so that the phase logic itself is checked."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from infer_cpu import REPO

BENCH = """import argparse, json, pathlib
ap = argparse.ArgumentParser()
ap.add_argument('--markdown'); ap.add_argument('--json')
args, _ = ap.parse_known_args()
pathlib.Path(args.markdown).write_text('| model | ms |\\n')
pathlib.Path(args.json).write_text(json.dumps({'models': [
    {'name': 'm-b8', 'infer': {'report': {'gpu_ms': {'p50': 2.0}}}}]}))
"""
SLOW = "import time\ntime.sleep(300)\n"
CMAKE = """#!/bin/sh
mkdir -p build-gpu/bin && printf '#!/bin/sh\\n' > build-gpu/bin/infer-run
chmod +x build-gpu/bin/infer-run
"""


def fake_repo(tmp_path: Path) -> tuple[Path, dict]:
    repo = tmp_path / "repo"
    (repo / "scripts" / "bench").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "gpu-check.sh", repo / "scripts")
    (repo / "scripts" / "bench" / "gpu.py").write_text(BENCH)
    (repo / "scripts" / "gpu_models.py").write_text("")
    (repo / "scripts" / "cuda_plan_exec.py").write_text(SLOW)
    (repo / "build-carry" / "models").mkdir(parents=True)
    (repo / "build-carry" / "models" / "manifest.json").write_text("{}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").write_text(CMAKE)
    (bin_dir / "cmake").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    return repo, env


@pytest.mark.slow  # It waits for a 30-s deadline.
def test_phases_share_one_deadline_and_pack_their_results(tmp_path):
    repo, env = fake_repo(tmp_path)
    out = tmp_path / "out"
    env["GPU_CHECK_SECONDS"] = "30"
    began = time.monotonic()
    run = subprocess.run(["bash", str(repo / "scripts" / "gpu-check.sh"), "run", str(out)],
                         env=env, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - began
    assert run.returncode == 1, run.stdout + run.stderr
    assert took < 40, took  # The never-ending profiler was stopped at the deadline.
    log = (out / "gpu-check.log").read_text()
    assert "phase runtime: done" in log
    assert "phase restore: done" in log
    assert "phase bench: done" in log
    assert "phase profiles: timed out" in log
    for later in ("torch", "conformance", "batch8", "sweep"):
        assert f"phase {later}: skipped, no time left" in log
    # At most 8 files come back from the device tool: the log, the tables
    # and one archive.
    files = {p.name for p in out.iterdir()}
    day = time.strftime("%Y-%m-%d")
    assert files == {"gpu-check.log", f"gpu-{day}.md", "results.tar.gz"}, files
    with tarfile.open(out / "results.tar.gz") as archive:
        names = {Path(n).name for n in archive.getnames()}
    assert {f"gpu-{day}.md", f"gpu-{day}.json"} <= names
    # The summary is the output's end, which the device tool returns.
    assert run.stdout.rstrip().splitlines()[-1].startswith("phase sweep: skipped")


def run_phases(tmp_path: Path, phases: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`run` with GPU_CHECK_PHASES=`phases` in a fake repo; its output dir."""
    repo, env = fake_repo(tmp_path)
    out = tmp_path / "out"
    env["GPU_CHECK_PHASES"] = phases
    run = subprocess.run(["bash", str(repo / "scripts" / "gpu-check.sh"), "run", str(out)],
                         env=env, capture_output=True, text=True, timeout=120)
    return run, out


def test_chosen_phases_run_in_their_order(tmp_path):
    run, out = run_phases(tmp_path, "runtime,torch bench")
    assert run.returncode == 0, run.stdout + run.stderr
    outcomes = [line for line in run.stdout.splitlines() if line.startswith("phase ")]
    assert [line.split(":")[0] for line in outcomes[-3:]] == [
        "phase runtime", "phase torch", "phase bench"]
    assert "profiles" not in (out / "gpu-check.log").read_text()
    run, _ = run_phases(tmp_path / "again", "runtime stagd")
    assert run.returncode == 2
    assert "no phase 'stagd' in GPU_CHECK_PHASES" in run.stderr


# A profiler that writes one staged-tiles launch, faster in warp=4x4's engine.
PROFILER = """import argparse, json, pathlib
ap = argparse.ArgumentParser()
ap.add_argument('--profile-dir'); ap.add_argument('--manifest'); ap.add_argument('--profile', action='store_true')
args = ap.parse_args()
d = pathlib.Path(args.profile_dir); d.mkdir(parents=True, exist_ok=True)
plan = d.name if d.name.startswith('warp') else 'warp=1x1'
ms = {'warp=4x4': 0.5, 'warp=2x2': 0.99}.get(plan, 1.0)
warp = [int(side) for side in plan[len('warp='):].split('x')]
key = {'batch': 8, 'm': 1024, 'n': 768, 'k': 768, 'a': 'row', 'b': 'col'}
(d / 'm-b8.profile.json').write_text(json.dumps([
    {'kernel': 'kernel_0', 'strategy': 'staged_tiles', 'ms': ms, 'tile': {'warp': warp, 'step': 16},
     'contraction': key},
    {'kernel': 'kernel_1', 'strategy': 'rows', 'ms': 0.25, 'tile': None, 'contraction': None},
    {'kernel': 'kernel_2', 'strategy': 'staged_tiles', 'ms': 1.0 if plan == 'warp=1x1' else 0.985,
     'tile': {'warp': warp, 'step': 32},
     'contraction': {'batch': 8, 'm': 1024, 'n': 64, 'k': 64, 'a': 'row', 'b': 'row'}}]))
"""


def test_sweep_tables_each_plan_against_the_heuristic(tmp_path):
    repo, env = fake_repo(tmp_path)
    shutil.copy(REPO / "scripts" / "bench" / "sweep.py", repo / "scripts" / "bench")
    (repo / "scripts" / "infer_tools").mkdir()
    for module in ("__init__.py", "kernel_plan.py"):
        shutil.copy(REPO / "scripts" / "infer_tools" / module, repo / "scripts" / "infer_tools")
    (repo / "scripts" / "cuda_plan_exec.py").write_text(PROFILER)
    carry = repo / "build-carry"
    for d in ("models-b8", "models-sweep/warp=4x4", "models-sweep/warp=2x2"):
        (carry / d).mkdir(parents=True)
        (carry / d / "manifest.json").write_text("[]")
    out = tmp_path / "out"
    env["GPU_CHECK_PHASES"] = "runtime sweep"
    run = subprocess.run(["bash", str(repo / "scripts" / "gpu-check.sh"), "run", str(out)],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    day = time.strftime("%Y-%m-%d")
    table = (out / f"gpu-sweep-{day}.md").read_text()
    # The heuristic first (timed here: batch8 did not run), then the plans.
    assert "| model | `heuristic` | `warp=2x2` | `warp=4x4` |" in table
    assert "| m-b8 | **2.000** | **2.000** | **2.000** |" in table
    # kernel_0 is fastest with warp=4x4, kernel_2 with either plan; the rows
    # launch is not counted.
    assert "| m-b8 | 2.000 | 1.485 | `warp=4x4` 1, `warp=2x2` 1 |" in table, table
    # The tuned plans (infer-opt --cuda-tile-plans): kernel_0's contraction
    # gets warp=4x4's plan, kernel_2's none (1.5% faster is within the margin).
    with tarfile.open(out / "results.tar.gz") as archive:
        tuned = json.load(archive.extractfile(f"./tuned-plans-{day}.json"))
    assert tuned["plans"] == [{
        "contraction": {"batch": 8, "m": 1024, "n": 768, "k": 768, "a": "row", "b": "col"},
        "plan": {"warp": [4, 4], "step": 16}}]
    assert tuned["timings_ms"]["batch=8,m=1024,n=64,k=64,a=row,b=row"] == {
        "heuristic": 1.0, "warp=2x2": 0.985, "warp=4x4": 0.985}


def test_a_variant_without_its_engines_says_so(tmp_path):
    """`prepare` compiles the variants GPU_CHECK_VARIANTS names; a phase of
    another fails with what to do, and the next phases still run."""
    run, out = run_phases(tmp_path, "runtime direct bench")
    assert run.returncode == 1, run.stdout + run.stderr
    log = (out / "gpu-check.log").read_text()
    assert 'no build-carry/models-direct: prepare with GPU_CHECK_VARIANTS="direct"' in log
    assert "phase direct: failed" in log
    assert "phase bench: done" in log


def test_run_without_prepare_says_so(tmp_path):
    repo, env = fake_repo(tmp_path)
    shutil.rmtree(repo / "build-carry")
    run = subprocess.run(["bash", str(repo / "scripts" / "gpu-check.sh"), "run", str(tmp_path / "o")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "run 'scripts/gpu-check.sh prepare' (or prepare-sweep) first" in run.stderr


def test_usage_errors(tmp_path):
    script = REPO / "scripts" / "gpu-check.sh"
    for args in (["run"], ["batch"], []):
        run = subprocess.run(["bash", str(script), *args], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 2, args
        assert "usage: scripts/gpu-check.sh" in run.stderr
