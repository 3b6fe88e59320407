"""Random small models through both back ends, against ONNX Runtime.

Each seed makes one model: a chain of CNN blocks (convolutions of every
kind the real models use, batch norms, activations, residuals, pools,
squeeze-and-excitation, upsampling, concats, a classifier head) or of
transformer blocks (layer norms, projections, GELU, multi-head attention
with head transposes and masks, residuals), with random sizes: odd ones,
tile edges and k tails included. The model is compiled by infer-opt for
the CPU (run through the runtime) and for CUDA (its plan run by the kernel
emulator, scripts/infer_tools/gpu_emulator/), and both are compared to ONNX
Runtime at float32's tolerance. The real models' shapes are few; these probe the
combinations the CUDA passes must get right on models nobody has tried.

    scripts/fuzz_models.py --seeds 0-199 --out /tmp/fuzz      # report, exit 1 on a failure
    scripts/fuzz_models.py --seeds 17 --out /tmp/fuzz --keep  # one seed, its files kept

infer-opt and the runtime are build/'s, or $INFER_OPT's and $LIBINFERRT's
(a copy, so that a rebuild does not pull them from under a long run).

A failing seed's model is kept as OUT/seed-N.onnx (with its engines and the
kernels' MLIR), so it can be rerun and reduced; the others are deleted.
A model whose ONNX Runtime outputs themselves move past the tolerance when
its inputs move by 1e-6 (cancellation) is ill-conditioned: counted apart,
not checked. A model infer-opt refuses with a clear message ("unsupported", "not
supported", "cannot lower ... yet") counts as unsupported, not failed; a crash, an emulator refusal (out of bounds, a
race) or a wrong number is a failure.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from .cuda_plan_exec import emulate
from .engine_format import read_engine
from .fuzz_families import FAMILIES, make_model  # noqa: F401  (re-exported)
from .runtime import INFER_OPT, CompiledModel


def model_inputs(model: onnx.ModelProto, rng) -> dict[str, np.ndarray]:
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        if value.name == "mask":  # An attention mask: 0 or a large negative number.
            feeds[value.name] = np.where(rng.random(shape) < 0.2, -1e4, 0).astype(np.float32)
        elif value.name == "ids":
            vocab = next(i.dims[0] for i in model.graph.initializer
                         if i.name == model.graph.node[0].input[0])
            feeds[value.name] = rng.integers(0, vocab, shape, dtype=np.int64)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


# ------------------------------------------------------------------ checking

def close(got: np.ndarray, want: np.ndarray) -> str | None:
    """None if `got` is `want` at float32's tolerance, else what differs.
    Infinities and NaNs must be where ONNX Runtime has them (and the
    tolerance comes from the finite values alone)."""
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    finite = np.isfinite(want)
    largest = float(np.abs(want[finite]).max(initial=0))
    atol = max(1e-5, 1e-5 * largest)
    bad = ~np.isclose(got, want, rtol=1e-3, atol=atol, equal_nan=True)
    if not bad.any():
        return None
    err = np.abs(got.astype(np.float64) - want)
    return (f"{int(bad.sum())} of {want.size} elements differ, max abs err {np.nanmax(err):.3g} "
            f"(largest finite |expected| {largest:.3g})")


def nudged_array(value: np.ndarray, rng) -> np.ndarray:
    """A float array moved by about 1e-6 of itself, element by element."""
    if value.dtype.kind != "f":
        return value
    return (value * (1 + 1e-6 * rng.standard_normal(value.shape))).astype(value.dtype)


def nudged_session(model: onnx.ModelProto, rng):
    """ONNX Runtime on `model` with its float initializers nudged."""
    import onnxruntime as ort
    moved = onnx.ModelProto()
    moved.CopyFrom(model)
    for i, init in enumerate(moved.graph.initializer):
        value = numpy_helper.to_array(init)
        if value.dtype.kind == "f" and value.size > 1:  # Not epsilons, not shapes.
            moved.graph.initializer[i].CopyFrom(
                numpy_helper.from_array(nudged_array(value, rng), init.name))
    return ort.InferenceSession(moved.SerializeToString(), providers=["CPUExecutionProvider"])


def compile_model(onnx_path: Path, engine: Path, target: str, feeds: dict, extra=()) -> str | None:
    """None, or why infer-opt failed."""
    cmd = [str(INFER_OPT), str(onnx_path), f"--target={target}", "--emit=engine",
           "-o", str(engine), *extra]
    for name, value in feeds.items():
        cmd += ["--input-shape", f"{name}:" + "x".join(map(str, value.shape))]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "infer-opt ran for more than 10 minutes"
    if result.returncode == 0:
        return None
    message = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
    return f"exit {result.returncode}: {message}"


def check_seed(seed: int, out: Path, cuda_flags: list[list[str]], keep: bool,
               model: onnx.ModelProto | None = None, family: str = "any") -> dict:
    import onnxruntime as ort

    work = out / f"seed-{seed}"
    work.mkdir(parents=True, exist_ok=True)
    model = model or make_model(seed, family)
    onnx_path = out / f"seed-{seed}.onnx"
    onnx.save(model, str(onnx_path))
    feeds = model_inputs(model, np.random.default_rng(seed + 1))
    result = {"seed": seed, "nodes": len(model.graph.node), "failures": [], "unsupported": [],
              "strategies": set(), "ill_conditioned": False}
    try:
        session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        expected = session.run(None, feeds)
    except Exception as error:  # A model the reference refuses checks nothing.
        result["unsupported"].append(f"onnxruntime: {str(error).splitlines()[0][:200]}")
        shutil.rmtree(work)
        onnx_path.unlink()
        return result
    # A model whose outputs move past the tolerance when its float inputs
    # and weights move by 1e-6 (cancellation, a normalization of
    # near-constant values) would fail on rounding alone: it is counted
    # apart, not checked. The weights move too: a row that a Min with a
    # constant makes constant normalizes rounding noise whatever the input.
    nudge = np.random.default_rng(seed + 2)
    nudged = {k: nudged_array(v, nudge) for k, v in feeds.items()}
    try:
        moved = nudged_session(model, nudge).run(None, nudged)
    except Exception as error:  # Seed 7620: ORT's shape inference refused the copy.
        result["unsupported"].append(f"onnxruntime, nudged: {str(error).splitlines()[0][:200]}")
        shutil.rmtree(work)
        onnx_path.unlink()
        return result
    if any(close(got, want) for got, want in zip(moved, expected)):
        result["ill_conditioned"] = True
        shutil.rmtree(work)
        onnx_path.unlink()
        return result

    def failed(where: str, what: str):
        refused = any(words in what for words in ("unsupported", "not supported", "cannot lower"))
        (result["unsupported"] if refused else result["failures"]).append(f"{where}: {what}")

    why = compile_model(onnx_path, work / "cpu.engine", "cpu", feeds)
    if why:
        failed("cpu", why)
    else:
        try:
            actual = CompiledModel(onnx_path, {k: v.shape for k, v in feeds.items()}, work) \
                .run(feeds, expected)
            for want, got in zip(expected, actual):
                if (diff := close(got, want)):
                    failed("cpu", diff)
        except RuntimeError as error:
            failed("cpu", str(error))
    for flags in cuda_flags:
        where = " ".join(["cuda", *flags])
        tag = "_".join(["cuda", *(f.strip("-").replace("-", "_") for f in flags)])
        engine, dump = work / f"{tag}.engine", work / f"{tag}-kernels"
        why = compile_model(onnx_path, engine, "cuda:sm_90", feeds,
                            ["--dump-kernels", str(dump), *flags])
        if why:
            failed(where, why)
            continue
        result["strategies"] |= {launch.get("strategy", "simt")
                                 for launch in read_engine(engine).plan["launches"]}
        try:
            actual = list(emulate(engine, dump / "kernels.mlir", feeds).values())
            for want, got in zip(expected, actual):
                if (diff := close(np.asarray(got).reshape(want.shape), want)):
                    failed(where, diff)
        except Exception as error:  # The emulator's refusals: bounds, races, barriers.
            failed(where, f"emulator: {type(error).__name__}: {str(error)[:300]}")
    if not result["failures"] and not keep:
        shutil.rmtree(work)
        onnx_path.unlink()
    return result


def parse_seeds(text: str) -> list[int]:
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds += list(range(int(first), int(last or first) + 1))
    return seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0-19", help="seeds: 5, 0-99, or 1,4,10-20")
    parser.add_argument("--out", type=Path, required=True, help="folder for failing seeds' files")
    parser.add_argument("--keep", action="store_true", help="keep every seed's files")
    parser.add_argument("--family", choices=["any", *FAMILIES], default="any",
                        help="the kind of models to make (default: any, by the seed)")
    parser.add_argument("--model", type=Path,
                        help="check this .onnx (a kept failure, reduced by hand) instead of seeds")
    parser.add_argument("--default-kernels-only", action="store_true",
                        help="skip the second CUDA engine, compiled with --no-cuda-stage-tiles")
    parser.add_argument("--cuda-flag", action="append", default=[], metavar="FLAG",
                        help="one more infer-opt flag for the first CUDA engine (repeatable), "
                             "e.g. --cuda-flag=--cuda-tile-plan=warp=4x4 to check plans the "
                             "heuristic does not pick")
    args = parser.parse_args()
    if args.model and not args.model.is_file():
        parser.error(f"--model {args.model}: no such file")
    try:
        parse_seeds(args.seeds)
    except ValueError:
        parser.error(f"--seeds {args.seeds!r}: expected numbers and ranges like 5, 0-99, 1,4,10-20")
    cuda_flags = [args.cuda_flag] + ([] if args.default_kernels_only
                                     else [["--no-cuda-stage-tiles"]])
    args.out.mkdir(parents=True, exist_ok=True)
    failures = unsupported = ill = 0
    seen: dict[str, int] = {}
    seeds = [0] if args.model else parse_seeds(args.seeds)
    for seed in seeds:
        start = time.time()
        result = check_seed(seed, args.out, cuda_flags, args.keep,
                            onnx.load(str(args.model)) if args.model else None, args.family)
        state = "FAIL" if result["failures"] else "unsupported" if result["unsupported"] else \
            "ill-conditioned (not checked)" if result["ill_conditioned"] else "ok"
        print(f"seed {seed}: {state} ({result['nodes']} nodes, {time.time() - start:.0f} s)",
              flush=True)
        for line in result["failures"] + result["unsupported"]:
            print(f"  {line}", flush=True)
        for strategy in result["strategies"]:
            seen[strategy] = seen.get(strategy, 0) + 1
        failures += bool(result["failures"])
        unsupported += bool(result["unsupported"]) and not result["failures"]
        ill += result["ill_conditioned"]
    print("models with a kernel of each strategy: " +
          ", ".join(f"{k} {v}" for k, v in sorted(seen.items(), key=lambda kv: -kv[1])))
    print(f"{failures} failed, {unsupported} unsupported, {ill} ill-conditioned, "
          f"{len(seeds) - failures - unsupported - ill} passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
