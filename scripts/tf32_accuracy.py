#!/usr/bin/env python3
"""How far a TF32 engine's outputs are from float32, predicted without a GPU.

Each model is compiled for the CUDA target (--target=cuda:sm_90, TF32 on,
--dump-kernels, the staged kernels multiplying with WMMA: see below), and its
plan run by the kernel emulator (scripts/infer_tools/gpu_emulator/) once per
mode: ``exact`` (products in float64, each step's sum rounded to float32),
``rna`` (the tensor cores' inputs rounded to TF32, to nearest with ties away
from zero, as the kernels' cvt.rna.tf32.f32 does) and ``truncate`` (their 13
low mantissa bits dropped, what the tensor cores make of raw float32
operands). Each output is compared with ONNX
Runtime's (CPU, float32) in relative L2 and max abs. The inputs are normals
(token ids uniform in [0, 1000), masks and type ids 0/1) from seed 0, each
model's own: the same kind as scripts/gpu_models.py's, not the same values.

The emulator takes seconds (PP-OCR cls) to minutes (ResNet-50: about 6 a
mode on 2 cores) per model and mode. The models are scripts/gpu_models.py's
(those present under models/).

Example:
    .venv/bin/python scripts/tf32_accuracy.py --models ppocr-cls,mobilenetv2 \\
        --markdown docs/benchmarks/tf32-emulated.md
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from infer_tools import REPO
from infer_tools.cuda_plan_exec import emulate
from infer_tools.gpu_models import MODELS, seeded_inputs

MODES = ("exact", "rna", "truncate")


def measure(name: str, path: Path, shapes: dict, modes: list[str], infer_opt: Path) -> dict:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    inputs = seeded_inputs(session, shapes, np.random.default_rng(0))
    expected = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
    result = {"model": name, "modes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        engine, dump = Path(tmp) / "m.engine", Path(tmp) / "kernels"
        # WMMA kernels: the mode rounds their operands (mma.sync's, the
        # default, are rounded by the kernel's own cvt.rna, bit for bit as
        # the rna mode rounds WMMA's), so that truncate means something.
        cmd = [str(infer_opt), str(path), "--target=cuda:sm_90", "--emit=engine", "-o",
               str(engine), "--dump-kernels", str(dump), "--cuda-tile-plan=mma=wmma"]
        for n, s in shapes.items():
            cmd += ["--input-shape", f"{n}:" + "x".join(map(str, s))]
        subprocess.run(cmd, check=True, capture_output=True)
        for mode in modes:
            start = time.time()
            got = emulate(engine, dump / "kernels.mlir", inputs, None if mode == "exact" else mode)
            outputs = {}
            for key, want in expected.items():
                want64, got64 = want.astype(np.float64), got[key].astype(np.float64)
                outputs[key] = {
                    "rel_l2": float(np.linalg.norm(got64 - want64) /
                                    max(np.linalg.norm(want64), 1e-30)),
                    "max_abs": float(np.abs(got64 - want64).max())}
            result["modes"][mode] = {"outputs": outputs, "seconds": round(time.time() - start, 1)}
            first = next(iter(outputs.values()))
            print(f"{name} {mode}: rel L2 {first['rel_l2']:.2e}, max abs {first['max_abs']:.2e} "
                  f"({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    return result


def markdown(results: list[dict], modes: list[str]) -> str:
    lines = ["# TF32 engines against ONNX Runtime, emulated", "",
             f"Made {time.strftime('%Y-%m-%d')} by `scripts/tf32_accuracy.py` on the CPU (no GPU): "
             "each model compiled with `--target=cuda:sm_90` (TF32 on), its plan run by the kernel "
             "emulator with the tensor cores' inputs exact, rounded to TF32 (`rna`, what the "
             "kernels' `cvt.rna.tf32.f32` does) or truncated (`truncate`, what the tensor cores "
             "make of raw float32 bits). Relative L2 (max abs) of the first output against ONNX "
             "Runtime's, seeded normal inputs.", "",
             "| model | " + " | ".join(modes) + " |",
             "|---|" + "---|" * len(modes)]
    for r in results:
        cells = []
        for mode in modes:
            first = next(iter(r["modes"][mode]["outputs"].values()))
            cells.append(f"{first['rel_l2']:.2e} ({first['max_abs']:.1e})")
        lines.append(f"| {r['model']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--models", help="comma-separated names from scripts/gpu_models.py "
                                     "(default: all that exist)")
    ap.add_argument("--modes", default="exact,rna,truncate",
                    help="comma-separated: exact, rna, truncate (default: all three)")
    ap.add_argument("--infer-opt", type=Path, default=REPO / "build" / "bin" / "infer-opt")
    ap.add_argument("--markdown", type=Path, help="write the table here")
    ap.add_argument("--json", type=Path, help="write every output's numbers here")
    args = ap.parse_args()
    modes = args.modes.split(",")
    if any(m not in MODES for m in modes):
        ap.error(f"--modes takes {', '.join(MODES)}")
    wanted = set(args.models.split(",")) if args.models else None
    known = {name for name, *_ in MODELS}
    if wanted and wanted - known:
        ap.error(f"unknown models {sorted(wanted - known)}; known: {sorted(known)}")
    results = []
    for name, rel, shapes, _ in MODELS:
        if wanted and name not in wanted:
            continue
        path = REPO / rel
        if not path.exists():
            print(f"{name}: {rel} missing, skipped", file=sys.stderr)
            continue
        results.append(measure(name, path, shapes, modes, args.infer_opt))
    if args.json:
        args.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "models": results},
                                        indent=1) + "\n")
    text = markdown(results, modes)
    if args.markdown:
        args.markdown.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
