"""The halves of the GPU benchmark that need no GPU: scripts/bench/gpu.py's
report (at batch N a run of the engine is N samples, so the throughput column
is N times infer-run's runs per second, and the text says the batch), and
scripts/gpu_models.py --batch, which compiles the engines it times."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from argparse import Namespace

import numpy as np
import pytest

from infer_cpu import REPO
from infer_tools.cuda_plan_exec import check
from infer_tools.engine_format import read_engine


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", REPO / "scripts" / "bench" / "gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_counts_samples_at_batch_8(tmp_path):
    bench = load_bench()
    args = Namespace(json=tmp_path / "r.json", markdown=tmp_path / "r.md", title=None,
                     warmup=20, iterations=200, batch=8)
    rows = [{"name": "resnet50-b8", "torch": "resnet50",
             "infer": {"report": {"gpu_ms": {"p50": 2.0}, "latency_ms": {"p50": 2.5},
                                  "throughput_per_s": 400.0},
                       "outputs": {}, "timing_only": True},
             "pytorch": {"eager_ms": 5.0, "compiled_ms": 3.0}}]
    bench.write_reports(args, {"nvidia_smi": "NVIDIA H100"}, rows)
    text = (tmp_path / "r.md").read_text()
    assert "batch 8, float32" in text
    assert "| resnet50-b8 (random weights: timing only) | 2.000 | 2.500 | 3200.0 |" in text, text
    assert json.loads((tmp_path / "r.json").read_text())["batch"] == 8


def gpu_models_of_cls(tmp_path, *flags) -> list[dict]:
    """scripts/gpu_models.py on PP-OCR cls (sm_90 only) with `flags`: the
    manifest it writes into tmp_path."""
    if not (REPO / "models/ppocr/cls.onnx").exists():
        pytest.skip("models/ppocr/cls.onnx not fetched (scripts/fetch_ppocr_models.py)")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gpu_models.py"), "--out", str(tmp_path),
         "--models", "ppocr-cls", "--archs", "sm_90", *flags], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads((tmp_path / "manifest.json").read_text())


def test_batch_engines_are_timing_only_at_that_batch(tmp_path):
    """`gpu_models.py --batch 2` (what `gpu-check.sh prepare` runs at batch 8):
    each engine is compiled at twice the input batch, named MODEL-b2, and
    travels weightless, without inputs (infer-run makes seeded ones)."""
    import lzma

    [entry] = gpu_models_of_cls(tmp_path, "--batch", "2")
    assert (entry["name"], entry["batch"], entry["timing_only"], entry["inputs"]) == \
        ("ppocr-cls-b2", 2, True, {})
    engine = tmp_path / "cls-b2.engine"
    engine.write_bytes(lzma.decompress((tmp_path / entry["engine"]).read_bytes()))
    metadata = read_engine(engine).metadata
    assert [i["shape"] for i in metadata["inputs"]] == [[2, 3, 48, 192]], metadata["inputs"]


def test_also_fp32_adds_a_full_float32_engine_with_the_same_data(tmp_path):
    """`gpu_models.py --also-fp32 ppocr-cls`: besides the TF32 engine, a
    --no-tf32 one (ppocr-cls-fp32) that reads the same input and reference
    files; its entry says tf32 false, which the GPU check holds to 1e-4."""
    tf32, fp32 = gpu_models_of_cls(tmp_path, "--also-fp32", "ppocr-cls")
    assert (tf32["name"], tf32["tf32"], fp32["name"], fp32["tf32"]) == \
        ("ppocr-cls", True, "ppocr-cls-fp32", False)
    assert (fp32["inputs"], fp32["reference"]) == (tf32["inputs"], tf32["reference"])
    flags = {name: read_engine(tmp_path / e["engine"]).metadata["cuda"]["tf32"]
             for name, e in (("tf32", tf32), ("fp32", fp32))}
    assert flags == {"tf32": True, "fp32": False}, flags


def test_outputs_are_held_to_tf32s_tolerance_or_float32s():
    """cuda_plan_exec.check: a relative L2 of 1e-3 is TF32's rounding in a
    TF32 engine, a mismatch in a full float32 one."""
    ref = {"y": np.linspace(1.0, 2.0, 100, dtype=np.float32)}
    got = {"y": ref["y"] * np.float32(1.001)}
    assert check("m", got, ref, tf32=True)
    assert not check("m", got, ref, tf32=False)
    assert check("m", {"y": ref["y"].copy()}, ref, tf32=False)


INFER_RUN_STUB = """#!/usr/bin/env python3
import json, sys, time
args = sys.argv[1:]
if args[0].endswith("slow.engine"):
    time.sleep(30)
report = args[args.index("--json") + 1]
json.dump({"gpu_ms": {"p50": 1.5}, "latency_ms": {"p50": 2.0}, "throughput_per_s": 500.0},
          open(report, "w"))
"""


@pytest.mark.slow  # It waits for a 10-s deadline.
def test_a_cut_off_run_keeps_the_models_it_timed(tmp_path):
    """The device tool stops a phase at its deadline: the table is written
    after each model, and without the PyTorch twins PyTorch is not imported."""
    stub = tmp_path / "infer-run"
    stub.write_text(INFER_RUN_STUB)
    stub.chmod(0o755)
    manifest = [{"name": name, "engine": f"{name}.engine", "inputs": {}, "reference": {}}
                for name in ("fast", "slow")]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    md = tmp_path / "r.md"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, str(REPO / "scripts" / "bench" / "gpu.py"), "--dir",
                        str(tmp_path), "--infer-run", str(stub), "--no-torch", "--markdown",
                        str(md), "--json", str(tmp_path / "r.json")], timeout=10)
    text = md.read_text()
    assert "| fast | 1.500 | 2.000 | 500.0 |" in text, text
    assert "slow" not in text
    assert "PyTorch not run." in text
