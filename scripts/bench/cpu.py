#!/usr/bin/env python3
"""CPU benchmark: infer-opt engines against ONNX Runtime, side by side.

For each model this script

  1. compiles it with ``build/bin/infer-opt MODEL --input-shape ... --emit=engine``
     (the compile wall time is recorded; a failed compile is reported, not fatal),
  2. writes seeded random inputs as ``.npy`` files (floats: standard normal;
     ``input_ids``: token ids in [0, 30000), valid for BERT and GPT-2;
     ``token_type_ids``: 0/1; ``attention_mask``: ones with the last 3 positions 0;
     other integers and bools: 0/1),
  3. runs ``build/bin/infer-run ENGINE --input NAME=FILE.npy ... --warmup W
     --iterations N --json ...`` (with ``--threads T`` when infer-run has it),
  4. runs ONNX Runtime (CPUExecutionProvider, ``intra_op_num_threads`` = T,
     ``inter_op_num_threads`` = 1) on the same arrays with the same warmup and
     iterations, timing each ``session.run`` with ``time.perf_counter``,
  5. compares the outputs (max abs diff; allclose at rtol 1e-3, atol 1e-4), so
     a fast but wrong engine shows up.

Latency percentiles use the nearest-rank rule of infer-run for both sides.
The ratio is infer-opt p50 / ORT p50: above 1 means infer-opt is slower.

The results are printed as a table and written to docs/benchmarks/cpu.md
(``--out``) together with the date, the command line, the machine, the
infer-opt revision and the onnxruntime version. Only the text between the
``<!-- bench:begin -->`` and ``<!-- bench:end -->`` markers is replaced, so
hand-written analysis around it survives a re-run. ``--json`` writes the raw
numbers (every ORT iteration, infer-run's report).

Models (input shapes as in scripts/import_real_models.sh and docs/models.md):

  det, rec, cls            models/ppocr/*.onnx   (scripts/fetch_ppocr_models.py)
  resnet50-opset17, ...    models/synthetic/*.onnx (scripts/make_models.py)

A model whose file is missing is skipped with a line in the report, unless
``--fetch`` is given, which runs the fetch/generate scripts first.

Examples:
  .venv/bin/python scripts/bench/cpu.py --list
  .venv/bin/python scripts/bench/cpu.py                       # every available model
  .venv/bin/python scripts/bench/cpu.py --models cls,'resnet50-*' --threads 2
  .venv/bin/python scripts/bench/cpu.py --models cls --warmup 1 --iterations 5 \\
      --extra examples/tiny_cnn.onnxtext:image:1x3x32x32 --out /tmp/cpu.md --json /tmp/cpu.json
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
PYTHON = ".venv/bin/python"  # fetch commands run in REPO
DEFAULT_OUT = REPO / "docs" / "benchmarks" / "cpu.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
RTOL, ATOL = 1e-3, 1e-4
DEFAULT_SEED = 20261122  # the seed of infer-run and the pytest suites

FETCH_PPOCR = [PYTHON, "scripts/fetch_ppocr_models.py", "--out", "models/ppocr"]


def make_synthetic(name: str, opset: int) -> list[str]:
    return [PYTHON, "scripts/make_models.py", "--out", "models/synthetic",
            "--opset", str(opset), "--models", name]


@dataclass
class Model:
    """A model to benchmark: its file, static input shapes and how to get it."""

    name: str
    path: Path
    shapes: dict[str, tuple[int, ...]]
    fetch: list[str] | None = None  # command (run in REPO) that creates `path`


def real_models() -> list[Model]:
    """The project's real models with the shapes of scripts/import_real_models.sh."""
    ppocr = {"det": (1, 3, 640, 640), "rec": (1, 3, 48, 320), "cls": (1, 3, 48, 192)}
    models = [Model(n, REPO / "models" / "ppocr" / f"{n}.onnx", {"x": s}, FETCH_PPOCR)
              for n, s in ppocr.items()]
    seq = {"bert-base": 128, "gpt2": 64}
    for opset in (17, 18):
        image = (1, 3, 224, 224)
        synthetic = {
            "resnet50": {"input": image},
            "mobilenetv2": {"input": image},
            "bert-base": {k: (1, seq["bert-base"])
                          for k in ("input_ids", "attention_mask", "token_type_ids")},
            "vit-b16": {"pixel_values": image},
            "gpt2": {"input_ids": (1, seq["gpt2"])},
        }
        for arch, shapes in synthetic.items():
            name = f"{arch}-opset{opset}"
            models.append(Model(name, REPO / "models" / "synthetic" / f"{name}.onnx", shapes,
                                make_synthetic(arch, opset)))
    return models


def parse_extra(spec: str) -> Model:
    """MODEL:NAME:DIMS[,NAME:DIMS...] (infer-opt's --input-shape syntax) -> Model."""
    match = re.match(r"(.+?\.(?:onnx|onnxtext|txt)):(.+)$", spec)
    if not match:
        raise argparse.ArgumentTypeError(
            f"--extra '{spec}': expected MODEL.onnx:NAME:D0xD1x...[,NAME:DIMS...]")
    path, shape_text = Path(match.group(1)), match.group(2)
    shapes = {}
    for item in shape_text.split(","):
        name, _, dims = item.rpartition(":")
        if not name or not re.fullmatch(r"(\d+(x\d+)*)?", dims):
            raise argparse.ArgumentTypeError(f"--extra '{spec}': bad input shape '{item}'")
        shapes[name] = tuple(int(d) for d in dims.split("x")) if dims else ()
    return Model(path.name, path if path.is_absolute() else Path.cwd() / path, shapes)


def shape_flag(name: str, shape: tuple[int, ...]) -> str:
    return f"{name}:{'x'.join(map(str, shape))}"


# --------------------------------------------------------------------------- environment

def run_text(cmd: list[str], **kwargs) -> str:
    """stdout of `cmd`, or '' when it cannot run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, **kwargs).stdout
    except OSError:
        return ""


def wait_for_binary(path: Path, timeout_s: float = 300) -> None:
    """Waits while a concurrent build relinks `path` (it is briefly missing)."""
    deadline = time.monotonic() + timeout_s
    while not os.access(path, os.X_OK):
        if time.monotonic() > deadline:
            sys.exit(f"cpu.py: {path} is missing; build the project first (scripts/setup.sh)")
        print(f"waiting for {path} (being rebuilt?)", file=sys.stderr)
        time.sleep(5)


def run_binary(cmd: list[str], timeout_s: float | None, retries: int = 12):
    """subprocess.run for a build/bin tool, retrying while it is missing or busy."""
    for attempt in range(retries):
        wait_for_binary(Path(cmd[0]))
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        except (FileNotFoundError, PermissionError, OSError) as error:  # ETXTBSY, relinking
            if attempt == retries - 1:
                raise
            print(f"retrying {Path(cmd[0]).name}: {error}", file=sys.stderr)
            time.sleep(5)
    raise AssertionError("unreachable")


def machine_info() -> dict:
    """CPU model, cores, memory, kernel, and the ISA features that matter for codegen."""
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    family = re.search(r"^cpu family\s*:\s*(\d+)", cpuinfo, re.M)
    number = re.search(r"^model\s*:\s*(\d+)", cpuinfo, re.M)
    flags = re.search(r"^flags\s*:\s*(.+)$", cpuinfo, re.M)
    flags = set(flags.group(1).split()) if flags else set()
    lscpu = run_text(["lscpu"])
    field_of = lambda key: (re.search(rf"^{key}:\s*(.+)$", lscpu, re.M) or [None, None])[1]  # noqa: E731
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    mem_kb = re.search(r"^MemTotal:\s*(\d+)", meminfo, re.M)
    quota = Path("/sys/fs/cgroup/cpu.max")
    interesting = ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                   "avx512_vnni", "avx512_bf16", "amx_tile"]
    return {
        "cpu": model.group(1).strip() if model else field_of("Model name") or platform.processor(),
        "cpu_family_model": (f"family {family.group(1)}, model {number.group(1)}"
                             if family and number else None),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "cores_per_socket": field_of("Core\\(s\\) per socket"),
        "sockets": field_of("Socket\\(s\\)"),
        "threads_per_core": field_of("Thread\\(s\\) per core"),
        "hypervisor": field_of("Hypervisor vendor"),
        "l3": re.sub(r"\s*\(.*\)", "", field_of("L3 cache") or "") or None,
        "memory_gib": round(int(mem_kb.group(1)) / 2**20, 1) if mem_kb else None,
        "cgroup_cpu_max": quota.read_text().strip() if quota.exists() else None,
        "isa": [f for f in interesting if f in flags],
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


def git_info(ignore: list[Path]) -> dict:
    """Revision and dirtiness of the tree (ignoring the files this script writes)."""
    rev = run_text(["git", "rev-parse", "--short", "HEAD"]).strip() or "unknown"
    ignored = {str(p.resolve()) for p in ignore}
    changed = []
    for line in run_text(["git", "status", "--porcelain"]).splitlines():
        path = line[3:].split(" -> ")[-1]
        if str((REPO / path).resolve()) not in ignored:
            changed.append(line)
    return {"revision": rev, "dirty": bool(changed), "changes": changed}


def newer_libraries(binary: Path) -> list[str]:
    """Project libraries the binary loads that are newer than it: a build in progress."""
    newer = []
    for line in run_text(["ldd", str(binary)]).splitlines():
        match = re.search(r"=> (\S+)", line)
        if match and Path(match.group(1)).is_relative_to(REPO):
            lib = Path(match.group(1))
            if lib.exists() and lib.stat().st_mtime > binary.stat().st_mtime:
                newer.append(str(lib.relative_to(REPO)))
    return newer


def binary_info(path: Path) -> dict:
    """Version and build time of a tool in build/bin (it may not match HEAD)."""
    wait_for_binary(path)
    version = run_text([str(path), "--version"]).strip()
    built = datetime.datetime.fromtimestamp(path.stat().st_mtime).isoformat(timespec="seconds")
    return {"path": str(path.relative_to(REPO) if path.is_relative_to(REPO) else path),
            "version": version, "built": built, "newer_libraries": newer_libraries(path)}


def infer_run_has_threads(infer_run: Path) -> bool:
    wait_for_binary(infer_run)
    return "--threads" in run_text([str(infer_run), "--help"])


# --------------------------------------------------------------------------- inputs

ORT_DTYPES = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8, "tensor(bool)": np.bool_,
}


def random_input(name: str, dtype, shape: tuple[int, ...], rng) -> np.ndarray:
    """Seeded values that are valid for the input's role (see the module docstring)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if name == "input_ids":
        return rng.integers(0, 30000, size=shape).astype(dtype)
    if name == "attention_mask":
        mask = np.ones(shape, dtype)
        if mask.ndim:
            mask[..., -3:] = 0
        return mask
    return rng.integers(0, 2, size=shape).astype(dtype)


def make_inputs(session, model: Model, seed: int) -> dict[str, np.ndarray]:
    """One array per graph input, in the session's order, with the model's static shapes."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for arg in session.get_inputs():
        shape = model.shapes.get(arg.name)
        if shape is None:
            if not all(isinstance(d, int) and d >= 0 for d in arg.shape):
                raise ValueError(f"input '{arg.name}' has dynamic dims {arg.shape}: "
                                 "give its shape")
            shape = tuple(arg.shape)
        if arg.type not in ORT_DTYPES:
            raise ValueError(f"input '{arg.name}' has unsupported type {arg.type}")
        inputs[arg.name] = random_input(arg.name, ORT_DTYPES[arg.type], shape, rng)
    return inputs


# --------------------------------------------------------------------------- stats

def percentile(sorted_ms: list[float], p: float) -> float:
    """Nearest-rank percentile, as infer-run computes it."""
    index = int(np.ceil(p / 100 * len(sorted_ms))) - 1
    return sorted_ms[min(max(index, 0), len(sorted_ms) - 1)]


def summarize(latencies_ms: list[float]) -> dict:
    s = sorted(latencies_ms)
    return {"mean": float(np.mean(s)), "min": s[0], "p50": percentile(s, 50),
            "p90": percentile(s, 90), "p99": percentile(s, 99)}


def compare_outputs(names: list[str], want: list[np.ndarray], got: dict[str, np.ndarray]) -> dict:
    """Max abs diff over all outputs, and whether each is allclose at RTOL/ATOL."""
    per_output, max_abs, match = {}, 0.0, True
    for name, expected in zip(names, want):
        actual = got.get(name)
        if actual is None or actual.shape != expected.shape:
            per_output[name] = {"match": False, "error": "missing or wrong shape"}
            match = False
            continue
        if expected.dtype.kind == "f":
            diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
            worst = float(np.nanmax(diff)) if diff.size else 0.0
            if diff.size and np.isnan(diff).any():
                worst = float("nan")
            ok = bool(np.allclose(actual, expected, rtol=RTOL, atol=ATOL))
        else:
            worst = float(np.max(np.abs(actual.astype(np.int64) - expected.astype(np.int64)))
                          if expected.size else 0)
            ok = bool(np.array_equal(actual, expected))
        per_output[name] = {"match": ok, "max_abs": worst}
        max_abs = worst if np.isnan(worst) or np.isnan(max_abs) else max(max_abs, worst)
        match &= ok
    return {"match": match, "max_abs": max_abs, "outputs": per_output}


# --------------------------------------------------------------------------- one model

@dataclass
class Result:
    name: str
    path: str
    shapes: dict
    status: str = "ok"  # ok, missing, compile-failed, ort-failed, run-failed
    error: str = ""
    compile_s: float | None = None
    engine_bytes: int | None = None
    infer_opt: dict | None = None  # latency summary (ms), from infer-run's JSON
    ort: dict | None = None
    ort_latencies_ms: list[float] = field(default_factory=list)
    infer_run_report: dict | None = None
    compare: dict | None = None
    loadavg_before: tuple | None = None

    @property
    def ratio(self) -> float | None:
        if self.infer_opt and self.ort and self.ort["p50"] > 0:
            return self.infer_opt["p50"] / self.ort["p50"]
        return None


def tail(text: str, lines: int = 3) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:]) or "no stderr"


def exit_text(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def load_model_bytes(path: Path) -> bytes:
    """The serialized ModelProto (ONNX text files are parsed for ONNX Runtime)."""
    if path.suffix in (".onnxtext", ".txt"):
        import onnx.parser
        return onnx.parser.parse_model(path.read_text()).SerializeToString()
    return path.read_bytes()


def ort_session(model_bytes: bytes, threads: int):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def time_ort(session, inputs: dict, warmup: int, iterations: int):
    """Per-iteration latencies (ms) of session.run, and the last outputs."""
    outputs = None
    for _ in range(warmup):
        outputs = session.run(None, inputs)
    latencies = []
    for _ in range(iterations):
        start = time.perf_counter()
        outputs = session.run(None, inputs)
        latencies.append((time.perf_counter() - start) * 1e3)
    return latencies, outputs


def compile_engine(args, model: Model, engine: Path, result: Result) -> bool:
    cmd = [str(args.infer_opt), str(model.path), "--emit=engine", "-o", str(engine)]
    for name, shape in model.shapes.items():
        cmd += ["--input-shape", shape_flag(name, shape)]
    print(f"  compile: {shlex.join(cmd)}", flush=True)
    start = time.perf_counter()
    try:
        proc = run_binary(cmd, args.compile_timeout)
    except subprocess.TimeoutExpired:
        result.status, result.error = "compile-failed", f"timed out after {args.compile_timeout} s"
        return False
    result.compile_s = time.perf_counter() - start
    if proc.returncode != 0:
        result.status = "compile-failed"
        result.error = f"{exit_text(proc.returncode)}: {tail(proc.stderr)}"
        return False
    result.engine_bytes = engine.stat().st_size
    return True


def run_engine(args, engine: Path, files: dict[str, Path], out_dir: Path, result: Result,
               threads_flag: bool) -> dict[str, np.ndarray] | None:
    """Runs infer-run; fills result.infer_opt and returns its outputs by tensor name."""
    report_path = out_dir / "report.json"
    cmd = [str(args.infer_run), str(engine), "--warmup", str(args.warmup),
           "--iterations", str(args.iterations), "--json", str(report_path),
           "--output-dir", str(out_dir / "outputs")]
    for name, path in files.items():
        cmd += ["--input", f"{name}={path}"]
    if threads_flag:
        cmd += ["--threads", str(args.threads)]
    print(f"  run:     {shlex.join(cmd)}", flush=True)
    try:
        proc = run_binary(cmd, args.run_timeout)
    except subprocess.TimeoutExpired:
        result.status, result.error = "run-failed", f"infer-run timed out after {args.run_timeout} s"
        return None
    if proc.returncode != 0 or not report_path.exists():
        result.status = "run-failed"
        result.error = f"infer-run {exit_text(proc.returncode)}: {tail(proc.stderr or proc.stdout)}"
        return None
    report = json.loads(report_path.read_text())
    result.infer_run_report = report
    result.infer_opt = {k: float(v) for k, v in report["latency_ms"].items()}
    outputs = {}
    for npy in (out_dir / "outputs").glob("*.npy"):
        outputs[npy.stem] = np.load(npy)
    return outputs


def bench_model(args, model: Model, workdir: Path, threads_flag: bool) -> Result:
    result = Result(model.name, str(model.path.relative_to(REPO) if model.path.is_relative_to(REPO)
                                    else model.path),
                    {k: list(v) for k, v in model.shapes.items()})
    print(f"== {model.name}", flush=True)
    if not model.path.exists():
        result.status = "missing"
        result.error = (f"{result.path} not found" +
                        (f"; create it with: {shlex.join(model.fetch)} (or pass --fetch)"
                         if model.fetch else ""))
        print(f"  skipped: {result.error}")
        return result
    model_dir = workdir / re.sub(r"[^A-Za-z0-9_.-]", "_", model.name)
    model_dir.mkdir(parents=True, exist_ok=True)

    # Inputs first (a model ORT cannot load is not worth compiling).
    try:
        session = ort_session(load_model_bytes(model.path), args.threads)
        inputs = make_inputs(session, model, args.seed)
    except Exception as error:  # noqa: BLE001 - any ORT failure is a result
        result.status, result.error = "ort-failed", f"{type(error).__name__}: {error}"
        print(f"  ONNX Runtime failed: {result.error}")
        return result
    files = {}
    for i, (name, array) in enumerate(inputs.items()):
        files[name] = model_dir / f"input{i}.npy"
        np.save(files[name], array)

    engine = model_dir / "model.engine"
    if not compile_engine(args, model, engine, result):
        print(f"  compile failed: {result.error}")
        return result
    print(f"  compiled in {result.compile_s:.1f} s ({result.engine_bytes / 2**20:.1f} MiB)")

    result.loadavg_before = os.getloadavg()
    outputs = run_engine(args, engine, files, model_dir, result, threads_flag)
    if args.cleanup:
        engine.unlink(missing_ok=True)
    try:
        latencies, expected = time_ort(session, inputs, args.warmup, args.iterations)
    except Exception as error:  # noqa: BLE001
        result.status, result.error = "ort-failed", f"{type(error).__name__}: {error}"
        return result
    result.ort_latencies_ms = latencies
    result.ort = summarize(latencies)
    if outputs is not None:
        names = [o.name.replace("/", "_") for o in session.get_outputs()]
        result.compare = compare_outputs(names, expected, outputs)
    print(f"  {format_row(result)}", flush=True)
    return result


# --------------------------------------------------------------------------- report

COLUMNS = ["model", "compile s", "infer-opt mean", "p50", "p90", "ORT mean", "p50", "p90",
           "ratio p50", "outputs match (max abs diff)"]


def ms(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.1f}"


def match_text(result: Result) -> str:
    if not result.compare:
        return "—"
    return f"{'yes' if result.compare['match'] else 'NO'} ({result.compare['max_abs']:.2g})"


def row_cells(result: Result) -> list[str]:
    if result.status in ("missing", "ort-failed", "compile-failed") and not result.infer_opt:
        compile_s = "—" if result.compile_s is None else f"{result.compile_s:.1f}"
        note = {"missing": "skipped: file missing", "ort-failed": "ONNX Runtime failed",
                "compile-failed": "compile failed"}[result.status]
        return [result.name, compile_s] + ["—"] * 7 + [note]
    io, ort = result.infer_opt or {}, result.ort or {}
    ratio = "—" if result.ratio is None else f"{result.ratio:.2f}×"
    return [result.name, f"{result.compile_s:.1f}", ms(io.get("mean")), ms(io.get("p50")),
            ms(io.get("p90")), ms(ort.get("mean")), ms(ort.get("p50")), ms(ort.get("p90")),
            ratio, match_text(result) if result.status == "ok" else result.status]


def format_row(result: Result) -> str:
    """One progress line: the p50s, the ratio and the comparison."""
    io, ort = result.infer_opt or {}, result.ort or {}
    ratio = "—" if result.ratio is None else f"{result.ratio:.2f}×"
    return (f"p50: infer-opt {ms(io.get('p50'))} ms, ORT {ms(ort.get('p50'))} ms, "
            f"ratio {ratio}; outputs match: {match_text(result)}")


def text_table(results: list[Result]) -> str:
    rows = [COLUMNS] + [row_cells(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(c.ljust(w) if i in (0, 9) else c.rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def markdown_table(results: list[Result]) -> str:
    header = ["Model", "Compile (s)", "infer-opt mean (ms)", "infer-opt p50", "infer-opt p90",
              "ORT mean (ms)", "ORT p50", "ORT p90", "Ratio p50 (infer-opt / ORT)",
              "Outputs match (max abs diff)"]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["---:"] * 8 + ["---"]) + " |"]
    for result in results:
        cells = row_cells(result)
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def notes(results: list[Result]) -> list[str]:
    """One line per model that was skipped or failed, with the reason."""
    out = []
    for r in results:
        if r.error:
            out.append(f"- `{r.name}`: {r.status}: {r.error}")
        elif r.compare and not r.compare["match"]:
            bad = [n for n, o in r.compare["outputs"].items() if not o["match"]]
            out.append(f"- `{r.name}`: outputs outside rtol {RTOL:g} / atol {ATOL:g}: "
                       + ", ".join(f"`{n}`" for n in bad))
    return out


def build_warnings(meta: dict) -> list[str]:
    """A tool older than the project libraries it loads: the build was not finished."""
    return [f"{meta[tool]['path']} is older than {', '.join(meta[tool]['newer_libraries'])} "
            "(a build in progress?); results may not match any source tree"
            for tool in ("infer_opt", "infer_run") if meta[tool]["newer_libraries"]]


def generated_block(meta: dict, results: list[Result]) -> str:
    m = meta["machine"]
    cpu = m["cpu"] + (f" ({m['cpu_family_model']})" if m["cpu_family_model"] else "")
    cores = (f"{m['usable_cpus']} usable CPUs ({m['sockets']} socket(s) × "
             f"{m['cores_per_socket']} core(s) × {m['threads_per_core']} thread(s) per core)")
    if m["hypervisor"]:
        cores += f", {m['hypervisor']} guest"
    git = meta["git"]
    dirty = (f"dirty: {len(git['changes'])} changed/untracked file(s)" if git["dirty"]
             else "clean tree")
    threads = meta["threads"]
    infer_threads = (f"`infer-run --threads {threads}`" if meta["infer_run_threads_flag"] else
                     "**1 (single-threaded: this infer-run has no `--threads` flag)**")
    lines = [
        BEGIN,
        "<!-- Generated by scripts/bench/cpu.py; edit outside the markers. -->",
        "",
        f"- **Date**: {meta['date']}",
        f"- **Command**: `{meta['command']}`",
        f"- **Machine**: {cpu}; {cores}; L3 {m['l3']}; {m['memory_gib']} GiB memory; "
        f"ISA {', '.join(m['isa']) or 'baseline'}; Linux {m['kernel']}",
        f"- **infer-opt**: revision `{git['revision']}` ({dirty}); "
        f"`{meta['infer_opt']['version']}`, binary built {meta['infer_opt']['built']}; "
        "engines compiled with `--cpu native`",
        f"- **ONNX Runtime**: {meta['onnxruntime']} (CPUExecutionProvider, "
        f"intra_op_num_threads={threads}, inter_op_num_threads=1, default graph optimizations); "
        f"numpy {meta['numpy']}, Python {m['python']}",
        f"- **Threads**: ONNX Runtime {threads}; infer-opt {infer_threads}",
        f"- **Timing**: {meta['warmup']} warmup + {meta['iterations']} timed runs per model "
        "and runtime, one after the other; nearest-rank percentiles. infer-run times "
        "`inferrt_context_run` in C++, ONNX Runtime is timed around `session.run` from Python "
        f"(includes its binding overhead). Inputs: seed {meta['seed']}. Ratio above 1: "
        "infer-opt is slower.",
        f"- **Load average** at the start: {meta['loadavg']}",
        *[f"- **Warning**: {line}" for line in build_warnings(meta)],
        "",
        markdown_table(results),
        "",
    ]
    extra = notes(results)
    if extra:
        lines += ["Notes:", ""] + extra + [""]
    lines += [END]
    return "\n".join(lines)


TEMPLATE = """# CPU performance: infer-opt against ONNX Runtime

Latency of engines compiled by `infer-opt --emit=engine` and run by `infer-run`, next to ONNX
Runtime's CPU execution provider on the same inputs, threads, warmup and iteration counts.
The section between the `bench` markers is written by `scripts/bench/cpu.py` (see its `--help`);
everything else in this file is hand-written and survives a re-run.

```sh
.venv/bin/python scripts/bench/cpu.py                   # every available model, 1 thread
.venv/bin/python scripts/bench/cpu.py --threads 2 --models cls,rec,det
```

## Results

{block}

## Analysis

*To be written once the numbers above come from a full run.*
"""


def write_markdown(path: Path, block: str) -> None:
    """Replaces the marked block of `path` (or creates the file from TEMPLATE)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        text = path.read_text()
        start, end = text.find(BEGIN), text.find(END)
        if start != -1 and end > start:
            text = text[:start] + block + text[end + len(END):]
        else:
            print(f"{path}: no {BEGIN} ... {END} markers; appending the results",
                  file=sys.stderr)
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    else:
        text = TEMPLATE.format(block=block)
    path.write_text(text)


# --------------------------------------------------------------------------- main

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="all",
                        help="comma-separated model names or globs (see --list); "
                             "default: every available model")
    parser.add_argument("--list", action="store_true",
                        help="list the models, their shapes and whether they are present")
    parser.add_argument("--extra", action="append", default=[], type=parse_extra,
                        metavar="MODEL:NAME:DIMS[,NAME:DIMS]",
                        help="also benchmark another model with these input shapes, e.g. "
                             "examples/tiny_cnn.onnxtext:image:1x3x32x32 (repeatable)")
    parser.add_argument("--fetch", action="store_true",
                        help="fetch/generate missing models first (PP-OCR: pip download of "
                             "the rapidocr wheel; synthetic: make_models.py, up to ~2.7 GB)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for both runtimes (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed runs per model and runtime (default: %(default)s)")
    parser.add_argument("--iterations", type=int, default=10,
                        help="timed runs per model and runtime (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help="seed of the random inputs (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="Markdown report; only the marked block is replaced "
                             "(default: docs/benchmarks/cpu.md)")
    parser.add_argument("--no-out", action="store_true", help="do not write the Markdown report")
    parser.add_argument("--json", type=Path, help="also write the raw numbers as JSON here")
    parser.add_argument("--workdir", type=Path,
                        help="keep engines, inputs and outputs here (default: a temporary "
                             "directory, removed at the end)")
    parser.add_argument("--build-dir", type=Path, default=REPO / "build",
                        help="where bin/infer-opt and bin/infer-run are (default: build)")
    parser.add_argument("--compile-timeout", type=float, default=3600,
                        help="seconds before a compile counts as failed (default: %(default)s)")
    parser.add_argument("--run-timeout", type=float, default=3600,
                        help="seconds before an infer-run counts as failed (default: %(default)s)")
    args = parser.parse_args(argv)
    for flag in ("threads", "iterations"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1")
    if args.warmup < 0:
        parser.error("--warmup must be non-negative")
    args.infer_opt = args.build_dir.resolve() / "bin" / "infer-opt"
    args.infer_run = args.build_dir.resolve() / "bin" / "infer-run"
    args.cleanup = args.workdir is None  # engines of the big models are ~0.5 GB each
    return args


def select_models(spec: str, extra: list[Model]) -> list[Model]:
    models = real_models()
    if spec == "all":
        chosen = models
    else:
        patterns = [p.strip() for p in spec.split(",") if p.strip()]
        unknown = [p for p in patterns if not any(fnmatch.fnmatch(m.name, p) for m in models)]
        if unknown:
            sys.exit(f"cpu.py: unknown model(s) {', '.join(unknown)}; "
                     f"known: {', '.join(m.name for m in models)}")
        chosen = [m for m in models if any(fnmatch.fnmatch(m.name, p) for p in patterns)]
        if not patterns:
            chosen = []
    return chosen + extra


def list_models(models: list[Model]) -> None:
    for m in models:
        shapes = " ".join(shape_flag(k, v) for k, v in m.shapes.items())
        present = "present" if m.path.exists() else "missing"
        rel = m.path.relative_to(REPO) if m.path.is_relative_to(REPO) else m.path
        print(f"{m.name:20} {present:8} {rel}  {shapes}")


def fetch_missing(models: list[Model]) -> None:
    done = set()
    for m in models:
        if m.path.exists() or not m.fetch or tuple(m.fetch) in done:
            continue
        print(f"fetching: {shlex.join(m.fetch)}", flush=True)
        subprocess.run(m.fetch, cwd=REPO, check=False)
        done.add(tuple(m.fetch))


def command_line(argv) -> str:
    """The command as typed, with paths inside the repository made relative."""
    def rel(path: str) -> str:
        absolute = Path(path).absolute()
        return str(absolute.relative_to(REPO)) if absolute.is_relative_to(REPO) else path
    return shlex.join([rel(sys.executable), rel(sys.argv[0]),
                       *(sys.argv[1:] if argv is None else argv)])


def main(argv=None) -> int:
    args = parse_args(argv)
    models = select_models(args.models, args.extra)
    if args.list:
        list_models(models)
        return 0
    if args.fetch:
        fetch_missing(models)

    import onnxruntime
    threads_flag = infer_run_has_threads(args.infer_run)
    meta = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": command_line(argv),
        "machine": machine_info(),
        "git": git_info([args.out] + ([args.json] if args.json else [])),
        "infer_opt": binary_info(args.infer_opt),
        "infer_run": binary_info(args.infer_run),
        "onnxruntime": onnxruntime.__version__,
        "numpy": np.__version__,
        "threads": args.threads,
        "infer_run_threads_flag": threads_flag,
        "warmup": args.warmup,
        "iterations": args.iterations,
        "seed": args.seed,
        "rtol": RTOL,
        "atol": ATOL,
        "loadavg": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }

    if not threads_flag:
        print("note: infer-run has no --threads flag; it runs single-threaded", flush=True)
    for line in build_warnings(meta):
        print(f"warning: {line}", flush=True)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="infer-bench-"))
    try:
        results = [bench_model(args, m, workdir, threads_flag) for m in models]
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    print()
    print(text_table(results))
    for line in notes(results):
        print(line)
    if not args.no_out:
        write_markdown(args.out, generated_block(meta, results))
        print(f"wrote {args.out}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(
            {"meta": meta, "results": [r.__dict__ for r in results]}, indent=2, default=list)
            + "\n")
        print(f"wrote {args.json}")
    return 0 if all(r.status in ("ok", "missing") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
