"""scripts/bench/gpu.py's report (its timings need a GPU; the report does not):
at batch N a run of the engine is N samples, so the throughput column is N
times infer-run's runs per second, and the text says the batch."""

from __future__ import annotations

import importlib.util
import json
from argparse import Namespace

from infer_cpu import REPO


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
