"""Execute a CUDA engine's plan with CuPy, independently of libinferrt.

A second, minimal executor of the engine format (docs/engine-format.md):
it loads the cubin for the GPU's architecture, uploads the weights, and
makes the plan's launches one by one with CuPy. When infer-run and this
script disagree, the runtime is wrong; when both disagree with ONNX
Runtime, the compiler is. Used by scripts/gpu-check.sh on the GPU machine.

Checks a manifest of models (scripts/gpu_models.py) or one engine:
    python3 scripts/cuda_plan_exec.py --manifest build-carry/models/manifest.json
    python3 scripts/cuda_plan_exec.py --engine m.engine --input x=x.npy --reference y=y.npy

Without a GPU, --emulate runs the same plan on the CPU, each kernel from
its MLIR (``infer-opt ... --dump-kernels DIR`` writes DIR/kernels.mlir) by
scripts/infer_tools/gpu_emulator/, which also checks bounds, alignment and races:
    python3 scripts/cuda_plan_exec.py --engine m.engine --emulate DIR/kernels.mlir \
        --input x=x.npy --reference y=y.npy
With --traffic it also counts each launch's memory traffic as a GPU's memory
system would see it (gpu_emulator/traffic.py) and prints the costliest.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .engine_format import DTYPES, read_engine
from .kernel_plan import strategy


def run(path: Path, inputs: dict[str, np.ndarray], profile: bool = False,
        profile_dir: Path | None = None) -> dict[str, np.ndarray]:
    import cupy as cp
    engine = read_engine(path)
    metadata, plan, kernels = engine.metadata, engine.plan, engine.kernels
    major, minor = cp.cuda.Device().compute_capability[0], cp.cuda.Device().compute_capability[1]
    sm = f"sm_{major}{minor}"
    module = next((m for m in plan["modules"] if m["format"] == "cubin" and m["arch"] == sm), None)
    if module is None:
        raise RuntimeError(f"{path}: no cubin for {sm}")
    image = kernels[module["offset"]:module["offset"] + module["bytes"]]
    tmp = Path("/tmp") / f"plan-exec-{path.stem}-{sm}.cubin"
    tmp.write_bytes(image)
    raw = cp.RawModule(path=str(tmp))
    buffers = plan_buffers(metadata, plan, engine.weights, inputs, cp.asarray)
    functions = {}
    events = []
    # Profiling times a second pass: the first loads the kernels (lazily).
    for timed in ([False, True] if profile else [False]):
        for launch in plan["launches"]:
            fn = functions.get(launch["kernel"]) or raw.get_function(launch["kernel"])
            functions[launch["kernel"]] = fn
            args = launch_args(buffers, launch)
            if timed:
                events.append((cp.cuda.Event(), cp.cuda.Event()))
                events[-1][0].record()
            fn(tuple(launch["grid"]), tuple(launch["block"]), tuple(args),
               shared_mem=launch.get("shared_bytes", 0))
            if timed:
                events[-1][1].record()
    cp.cuda.Device().synchronize()
    if profile:
        print_profile(path, plan, [cp.cuda.get_elapsed_time(a, b) for a, b in events], profile_dir)
    return {t["name"]: cp.asnumpy(b) for t, b in zip(metadata["outputs"], buffers["output"])}


def plan_buffers(metadata: dict, plan: dict, weights: bytes, inputs: dict[str, np.ndarray],
                 array) -> dict[str, list]:
    """The buffers a plan's launches name, made by `array` (numpy or CuPy's
    asarray): the inputs, outputs and arena poisoned (7s, 0x7f bytes)."""
    buffers = {"input": [], "output": [], "weight": []}
    for t in metadata["inputs"]:
        buffers["input"].append(array(np.ascontiguousarray(
            inputs[t["name"]].astype(DTYPES[t["dtype"]]))))
    for t in metadata["outputs"]:
        buffers["output"].append(array(np.full(t["shape"], 7, dtype=DTYPES[t["dtype"]])))
    for w in plan["weights"]:
        buffers["weight"].append(array(np.frombuffer(weights, dtype=np.uint8, count=w["bytes"],
                                                     offset=w["offset"]).copy()))
    buffers["arena"] = [array(np.full(max(plan["arena"]["bytes"], 256), 0x7f, dtype=np.uint8))]
    return buffers


def launch_args(buffers: dict[str, list], launch: dict) -> list:
    return [buffers[a["kind"]][a.get("index", 0) if a["kind"] != "arena" else 0]
            for a in launch["args"]]


def emulate(path: Path, kernels: Path, inputs: dict[str, np.ndarray],
            tf32: str | None = None, traffic: list | None = None) -> dict[str, np.ndarray]:
    """The plan of the engine at `path`, its kernels run on the CPU from
    `kernels` (the same compile's --dump-kernels DIR/kernels.mlir); `tf32`
    ("rna" or "truncate") rounds the tensor cores' inputs (the emulator's
    TF32 modes). Given a list as `traffic`, each launch's memory traffic
    (gpu_emulator's Traffic) is appended to it, in the plan's order."""
    from .gpu_emulator import Buffer, Emulator
    engine = read_engine(path)
    metadata, plan = engine.metadata, engine.plan
    emulator = Emulator(kernels.read_text(), tf32=tf32, traffic=traffic is not None)
    buffers = plan_buffers(metadata, plan, engine.weights, inputs, np.asarray)
    wrapped = {kind: [Buffer(b) for b in group] for kind, group in buffers.items()}
    for launch in plan["launches"]:
        emulator.launch(launch["kernel"], launch["grid"][0], launch["block"][0],
                        launch_args(wrapped, launch))
    if traffic is not None:
        traffic.extend(emulator.launch_traffic)
    return {t["name"]: b for t, b in zip(metadata["outputs"], buffers["output"])}


def print_profile(path: Path, plan: dict, ms: list[float], profile_dir: Path | None) -> None:
    """Each launch timed alone (events around it): the largest, and the
    time per strategy (tensor cores, block reductions, vector, SIMT...);
    with `profile_dir`, every launch's time to profile_dir/ENGINE.profile.json."""
    launches = plan["launches"]
    if profile_dir:
        profile_dir.mkdir(parents=True, exist_ok=True)
        rows = [{"kernel": l["kernel"], "strategy": strategy(l), "tile": l.get("tile"),
                 "contraction": l.get("contraction"), "grid": l["grid"][0],
                 "block": l["block"][0], "nodes": l["nodes"], "ms": t}
                for t, l in zip(ms, launches)]
        (profile_dir / f"{path.stem}.profile.json").write_text(json.dumps(rows, indent=1))
    total = sum(ms)
    by_strategy: dict[str, list[float]] = {}
    for t, l in zip(ms, launches):
        by_strategy.setdefault(strategy(l), []).append(t)
    split = ", ".join(f"{name} {sum(times):.3f} ms ({len(times)})"
                      for name, times in sorted(by_strategy.items(), key=lambda x: -sum(x[1])))
    print(f"{path.name}: {len(ms)} launches, {total:.3f} ms summed: {split}; the largest:")
    for t, l in sorted(zip(ms, launches), key=lambda x: -x[0])[:8]:
        print(f"  {t:8.3f} ms  {l['kernel']:<11} grid {l['grid'][0]:<7} block {l['block'][0]:<4} "
              f"{strategy(l):<15} {','.join(l['nodes'])[:60]}")


def print_traffic(path: Path, plan: dict, traffic: list, json_path: Path | None) -> None:
    """The emulated memory traffic of each launch (gpu_emulator/traffic.py):
    the launches with the largest estimated memory time, and the totals per
    strategy; with `json_path`, every launch's counts written there."""
    launches = plan["launches"]
    rows = [{"kernel": l["kernel"], "strategy": strategy(l), "grid": l["grid"][0],
             "block": l["block"][0], "nodes": l["nodes"],
             "estimated_us": t.estimated_seconds * 1e6,
             "sectors_per_request": t.sectors_per_request, "efficiency": t.efficiency,
             "l2_bytes": t.l2_bytes,
             "dram_read_bytes": t.dram_read_bytes, "dram_write_bytes": t.dram_write_bytes,
             "load_requests": t.load_requests, "load_sectors": t.load_sectors,
             "l2_load_sectors": t.l2_load_sectors,
             "store_requests": t.store_requests, "store_sectors": t.store_sectors,
             "shared_wavefronts": t.shared_wavefronts,
             "bank_conflict_factor": t.bank_conflict_factor}
            for t, l in zip(traffic, launches)]
    if json_path:
        json_path.write_text(json.dumps(rows, indent=1))
    total = sum(r["estimated_us"] for r in rows)
    by_strategy: dict[str, list[float]] = {}
    for r in rows:
        by_strategy.setdefault(r["strategy"], []).append(r["estimated_us"])
    split = ", ".join(f"{name} {sum(us):.1f} us ({len(us)})"
                      for name, us in sorted(by_strategy.items(), key=lambda x: -sum(x[1])))
    dram = sum(r["dram_read_bytes"] + r["dram_write_bytes"] for r in rows)
    print(f"{path.name}: {len(rows)} launches, emulated memory time {total:.1f} us, "
          f"{dram / 1e6:.1f} MB from or to DRAM: {split}; the largest:")
    print("  est. us  kernel      strategy        sectors/req  efficiency  L2 MB  DRAM MB  banks"
          "  nodes")
    for r in sorted(rows, key=lambda r: -r["estimated_us"])[:12]:
        print(f"  {r['estimated_us']:7.1f}  {r['kernel']:<11} {r['strategy']:<15} "
              f"{r['sectors_per_request']:11.1f}  {r['efficiency']:9.0%}  "
              f"{r['l2_bytes'] / 1e6:5.2f}  "
              f"{(r['dram_read_bytes'] + r['dram_write_bytes']) / 1e6:7.2f}  "
              f"{r['bank_conflict_factor']:5.1f}  {','.join(r['nodes'])[:40]}")


def profile_timing_only(root: Path, entry: dict, profile_dir: Path | None) -> None:
    import lzma
    import tempfile
    from .engine_weights import randomize, rewrite
    data = bytearray(lzma.decompress((root / entry["engine"]).read_bytes()))
    rewrite(data, randomize)
    metadata = read_engine(data).metadata
    rng = np.random.default_rng(0)
    inputs = {t["name"]: (rng.integers(0, 2, t["shape"]) if "int" in t["dtype"]
                          else rng.standard_normal(t["shape"])).astype(DTYPES[t["dtype"]])
              for t in metadata["inputs"]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{entry['name']}.engine"
        path.write_bytes(bytes(data))
        run(path, inputs, profile=True, profile_dir=profile_dir)


def check(name: str, got: dict, reference: dict, tf32: bool = True) -> bool:
    """Each output against ONNX Runtime's in relative L2: within 1e-2 with
    TF32 contractions (10-bit mantissas), 1e-4 without."""
    limit = 1e-2 if tf32 else 1e-4
    ok = True
    for key, ref in reference.items():
        out = got[key].astype(np.float64)
        ref = ref.astype(np.float64)
        rel = float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))
        bad = not np.isfinite(out).all() or rel > limit
        ok &= not bad
        print(f"{name}: {key}: rel L2 {rel:.2e}, max abs {np.abs(out - ref).max():.2e}"
              f"{'  MISMATCH' if bad else ''}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--manifest", type=Path)
    ap.add_argument("--engine", type=Path)
    ap.add_argument("--input", action="append", default=[], help="NAME=FILE.npy")
    ap.add_argument("--reference", action="append", default=[], help="OUTPUT=FILE.npy")
    ap.add_argument("--emulate", type=Path, metavar="KERNELS_MLIR",
                    help="with --engine: run the plan on the CPU, its kernels from this file "
                         "(infer-opt --dump-kernels DIR writes DIR/kernels.mlir)")
    ap.add_argument("--emulate-tf32", choices=["rna", "truncate"],
                    help="with --emulate: round the tensor cores' inputs to TF32 (as the kernels' "
                         "cvt.rna.tf32.f32 does), or truncate them (unconverted operands)")
    ap.add_argument("--traffic", action="store_true",
                    help="with --emulate: count every launch's memory traffic (sectors per "
                         "request, DRAM bytes, bank conflicts) and print the costliest")
    ap.add_argument("--traffic-json", type=Path, metavar="FILE",
                    help="with --traffic: also write every launch's counts to FILE")
    ap.add_argument("--profile", action="store_true",
                    help="time every launch alone and print the largest (a second run)")
    ap.add_argument("--profile-dir", type=Path,
                    help="with --profile: also write every launch's time to DIR/ENGINE.profile.json")
    args = ap.parse_args()
    ok = True
    if args.manifest:
        root = args.manifest.parent
        for entry in json.loads(args.manifest.read_text()):
            if entry.get("timing_only") or entry.get("restore"):  # Random weights: a profile at most.
                if args.profile:
                    profile_timing_only(root, entry, args.profile_dir)
                continue
            inputs = {k: np.load(root / v) for k, v in entry["inputs"].items()}
            refs = {k: np.load(root / v) for k, v in entry["reference"].items()}
            try:
                ok &= check(entry["name"], run(root / entry["engine"], inputs), refs,
                            tf32=entry.get("tf32", True))
                if args.profile:
                    run(root / entry["engine"], inputs, profile=True, profile_dir=args.profile_dir)
            except Exception as e:
                ok = False
                print(f"{entry['name']}: ERROR {type(e).__name__}: {e}")
    if args.engine:
        inputs = {k: np.load(v) for k, v in (s.split("=", 1) for s in args.input)}
        refs = {k: np.load(v) for k, v in (s.split("=", 1) for s in args.reference)}
        if args.traffic and not args.emulate:
            ap.error("--traffic needs --emulate")
        traffic = [] if args.traffic else None
        outputs = (emulate(args.engine, args.emulate, inputs, args.emulate_tf32, traffic)
                   if args.emulate else run(args.engine, inputs))
        ok &= check(args.engine.name, outputs, refs)
        if traffic is not None:
            print_traffic(args.engine, read_engine(args.engine).plan, traffic, args.traffic_json)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
