#!/usr/bin/env python3
"""GPU benchmark: infer-opt engines against ONNX Runtime outputs, and PyTorch
eager and torch.compile timings of the same architectures, on one GPU.

Runs on the GPU machine (scripts/gpu-check.sh calls it). It reads a
directory made on the build machine by ``scripts/gpu-check.sh prepare``:

  DIR/manifest.json   [{"name", "engine", "inputs": {NAME: FILE.npy},
                        "reference": {OUTPUT: FILE.npy}, "torch": ARCH|null}]

For every model:
  1. ``infer-run ENGINE --device cuda --input ... --warmup W --iterations N
     --json R --output-dir O``; the outputs are compared with the ONNX Runtime
     CPU outputs computed on the build machine (max abs difference and
     ||out - ref|| / ||ref||); the GPU time (CUDA events around the kernels)
     and the end-to-end time (host clock, copies included) come from R.
  2. If the model has a PyTorch twin (torchvision / transformers, same
     architecture and shapes, random weights): eager and torch.compile
     latency, median of N runs timed with CUDA events after W warm-ups,
     float32 with TF32 matmuls and convolutions, as the engines (printed in the report).

Writes a Markdown table and a JSON file. Timings are medians; nothing is
hard-coded.

Example (on the GPU machine):
    python3 scripts/bench/gpu.py --dir build-carry/models --infer-run build-gpu/bin/infer-run \\
        --markdown docs/benchmarks/gpu-2026-11-22.md --json /tmp/gpu.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def timing_engine(entry: dict, root: Path, tmp: Path) -> Path:
    """A timing-only entry's engine: decompressed, weights randomized (by
    scripts/engine_weights.py, a command: this script, run from
    scripts/bench/, does not import the infer_tools package)."""
    import lzma
    stripped, path = tmp / "stripped.engine", tmp / "timing.engine"
    stripped.write_bytes(lzma.decompress((root / entry["engine"]).read_bytes()))
    subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "engine_weights.py"),
                    "randomize", str(stripped), str(path)], check=True)
    stripped.unlink()
    return path


def run_engine(infer_run: Path, entry: dict, root: Path, warmup: int, iterations: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        out = Path(tmp) / "out"
        # A split engine not rebuilt (gpu_models.py --restore) runs for timing only.
        timing_only = bool(entry.get("timing_only") or entry.get("restore"))
        engine = timing_engine(entry, root, Path(tmp)) if timing_only else root / entry["engine"]
        cmd = [str(infer_run), str(engine), "--device", "cuda",
               "--warmup", str(warmup), "--iterations", str(iterations),
               "--json", str(report), "--output-dir", str(out)]
        for name, f in entry["inputs"].items():
            cmd += ["--input", f"{name}={root / f}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            return {"error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
        r = json.loads(report.read_text())
        result = {"report": r, "outputs": {}, "timing_only": timing_only}
        for name, f in entry["reference"].items():
            got = np.load(out / (name.replace("/", "_") + ".npy")).astype(np.float64)
            ref = np.load(root / f).astype(np.float64)
            diff = got - ref
            result["outputs"][name] = {
                "max_abs": float(np.abs(diff).max()) if diff.size else 0.0,
                "rel_l2": float(np.linalg.norm(diff) / max(np.linalg.norm(ref), 1e-30)),
                "finite": bool(np.isfinite(got).all()),
            }
        return result


def torch_model(arch: str, batch: int = 1):
    import torch
    if arch in ("resnet50", "mobilenetv2"):
        import torchvision
        net = torchvision.models.resnet50() if arch == "resnet50" else torchvision.models.mobilenet_v2()
        return net, (torch.randn(batch, 3, 224, 224),)
    import transformers
    if arch == "bert-base":
        net = transformers.BertModel(transformers.BertConfig())
        ids = torch.randint(0, 30000, (batch, 128))
        return net, (ids, torch.ones_like(ids), torch.zeros_like(ids))
    if arch == "vit-b16":
        return transformers.ViTModel(transformers.ViTConfig()), (torch.randn(batch, 3, 224, 224),)
    if arch == "gpt2":
        return (transformers.GPT2Model(transformers.GPT2Config()),
                (torch.randint(0, 50000, (batch, 64)),))
    raise ValueError(arch)


def time_torch(fn, args, warmup: int, iterations: int) -> float:
    import torch
    with torch.inference_mode():
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*args)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return float(np.median(times))


def run_torch(arch: str, warmup: int, iterations: int, compile_: bool, batch: int = 1) -> dict:
    import torch
    # The engines run float32 matmuls and convolutions on TF32 tensor cores
    # (infer-opt's default): PyTorch gets the same.
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    try:
        net, args = torch_model(arch, batch)
    except Exception as e:  # a missing package is reported, not fatal
        return {"error": f"{type(e).__name__}: {e}"}
    net = net.eval().cuda()
    args = tuple(a.cuda() for a in args)
    result = {"eager_ms": time_torch(net, args, warmup, iterations)}
    if compile_:
        try:
            start = time.time()
            compiled = torch.compile(net)
            with torch.inference_mode():
                compiled(*args)
            result["compile_s"] = time.time() - start
            result["compiled_ms"] = time_torch(compiled, args, warmup, iterations)
        except Exception as e:
            result["compile_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    return result


def gpu_description(with_torch: bool = True) -> dict:
    info = {"torch": None}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        info["nvidia_smi"] = q.stdout.strip()
    except OSError:
        info["nvidia_smi"] = "nvidia-smi not found"
    if not with_torch:
        return info
    try:
        import torch
        info["torch"] = torch.__version__
        torch.backends.cuda.matmul.allow_tf32 = True  # As in run_torch.
        torch.backends.cudnn.allow_tf32 = True
        info["tf32_matmul"] = torch.backends.cuda.matmul.allow_tf32
        info["tf32_cudnn"] = torch.backends.cudnn.allow_tf32
    except ImportError:
        info["torch"] = None
    return info


def fmt(v, digits=3):
    return "—" if v is None else f"{v:.{digits}f}"


def write_reports(args, device: dict, rows: list) -> None:
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"device": device, "date": datetime.date.today().isoformat(),
                                     "batch": args.batch, "warmup": args.warmup,
                                     "iterations": args.iterations, "models": rows},
                                    indent=1) + "\n")
    title = args.title or f"GPU benchmark, {datetime.date.today().isoformat()}"
    lines = [f"# {title}", "",
             f"Device: {device.get('nvidia_smi')}; " +
             (f"PyTorch {device['torch']} (TF32 matmul {device.get('tf32_matmul')}, "
              f"cuDNN TF32 {device.get('tf32_cudnn')})." if device.get("torch")
              else "PyTorch not run."),
             f"Made by `scripts/gpu-check.sh` (`scripts/bench/gpu.py`): batch {args.batch}, float32, "
             f"median of "
             f"{args.iterations} runs after {args.warmup} warm-ups. infer-opt GPU time is CUDA "
             "events around the kernels (one CUDA graph); end-to-end adds the input and output "
             "copies and the host. Accuracy is against ONNX Runtime CPU outputs of the same "
             "model and inputs; engines too large for the GPU machine's 64 MiB transfer went there "
             "with their weights split off and were rebuilt there from the regenerated model, "
             "every weight's SHA-256 checked (scripts/gpu_models.py); a row marked 'timing only' "
             "ran with random weights instead. PyTorch twins have the same architecture with "
             "random weights." +
             (f" The PyTorch columns come from an earlier run: {device['pytorch_from']}."
              if device.get("pytorch_from") else ""),
             "", "| model | infer-opt GPU p50 ms | infer-opt end-to-end p50 ms | samples/s | "
             "max abs diff vs ORT | rel L2 | PyTorch eager ms | torch.compile ms |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        infer, torch_r = row.get("infer"), row.get("pytorch") or {}
        gpu = e2e = thr = diff = rel = None
        note = ""
        if infer and "error" in infer:
            note = f" (error: {' '.join(infer['error'])})"
        elif infer:
            if infer.get("timing_only"):
                note = " (random weights: timing only)"
            rep = infer["report"]
            gpu = (rep.get("gpu_ms") or {}).get("p50")
            e2e = rep["latency_ms"]["p50"]
            thr = rep.get("throughput_per_s")
            thr = thr * args.batch if thr is not None else None  # A run is `batch` samples.
            outs = infer["outputs"].values()
            diff = max((o["max_abs"] for o in outs), default=None)
            rel = max((o["rel_l2"] for o in outs), default=None)
        else:
            note = f" ({row.get('why_no_engine')})"
        lines.append(f"| {row['name']}{note} | {fmt(gpu)} | {fmt(e2e)} | {fmt(thr, 1)} | "
                     f"{'—' if diff is None else f'{diff:.2e}'} | "
                     f"{'—' if rel is None else f'{rel:.2e}'} | {fmt(torch_r.get('eager_ms'))} | "
                     f"{fmt(torch_r.get('compiled_ms'))} |")
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--dir", type=Path, required=True, help="directory with manifest.json")
    ap.add_argument("--infer-run", type=Path, required=True)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--torch-archs", default="mobilenetv2,resnet50,bert-base,vit-b16,gpt2",
                    help="PyTorch twins to time even without an engine (comma-separated)")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--no-torch", action="store_true",
                    help="infer-opt engines only (a second set of engines of the same models)")
    ap.add_argument("--title", help="the report's heading (default: GPU benchmark, DATE)")
    ap.add_argument("--torch-from", type=Path, metavar="JSON",
                    help="take the PyTorch timings from an earlier report of this script (same "
                         "GPU) instead of measuring them again; the report says so")
    ap.add_argument("--markdown", type=Path, required=True)
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args()

    manifest = json.loads((args.dir / "manifest.json").read_text())
    # The engines' batch (scripts/gpu_models.py --batch): the PyTorch twins get the same.
    batches = {entry.get("batch", 1) for entry in manifest}
    if len(batches) > 1:
        ap.error(f"{args.dir}: engines of several batches {sorted(batches)}")
    args.batch = batches.pop() if batches else 1
    if args.no_torch:
        args.torch_archs = ""
    # Importing PyTorch takes seconds: not without its twins.
    device = gpu_description(with_torch=not args.no_torch)
    rows = []
    for entry in manifest:
        print(f"infer-opt: {entry['name']}", file=sys.stderr, flush=True)
        rows.append({"name": entry["name"], "torch": None if args.no_torch else entry.get("torch"),
                     "infer": run_engine(args.infer_run, entry, args.dir, args.warmup,
                                         args.iterations)})
        write_reports(args, device, rows)  # After each model: a cut-off run keeps what it has.
    have = {r["torch"] for r in rows}
    for arch in [a for a in args.torch_archs.split(",") if a and a not in have]:
        rows.append({"name": arch, "torch": arch, "infer": None,
                     "why_no_engine": "engine not carried (over the 64 MiB transfer limit)"})
    write_reports(args, device, rows)  # With the twins whose engines did not come.
    earlier = {}
    if args.torch_from:
        previous = json.loads(args.torch_from.read_text())
        if previous.get("batch", 1) != args.batch:
            ap.error(f"{args.torch_from}: PyTorch timed at batch {previous.get('batch', 1)}, "
                     f"the engines are at batch {args.batch}")
        earlier = {r["torch"]: r.get("pytorch") for r in previous["models"] if r.get("torch")}
        device["pytorch_from"] = f"{args.torch_from.name} ({previous['device'].get('nvidia_smi')})"
    for row in rows:
        if row["torch"] and row["torch"] in earlier:
            row["pytorch"] = earlier[row["torch"]]
        elif row["torch"]:
            print(f"torch: {row['torch']}", file=sys.stderr, flush=True)
            row["pytorch"] = run_torch(row["torch"], args.warmup, args.iterations,
                                       not args.no_compile, args.batch)
            write_reports(args, device, rows)
    write_reports(args, device, rows)
    print(args.markdown.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
