#!/usr/bin/env python3
"""Run the ONNX backend node tests end to end through infer-opt and infer-run.

For every test case of ``onnx.backend.test.case.node.collect_testcases()``
(the generators the ``onnx/backend/test/data/node`` models are built from),
the model and its first data set are taken, and:

  1. the model is written to a scratch directory;
  2. it is compiled with
       infer-opt model.onnx --input-shape NAME:DIMS ... --emit=engine -o t.engine
     (one --input-shape per graph input, from the shape of the test's input
     array; ``NAME:`` for a scalar), timeout 60 s;
  3. the inputs are saved as .npy and the engine is run with
       infer-run t.engine --input NAME=FILE.npy ... --output-dir OUT
                 --warmup 0 --iterations 1
     timeout 60 s;
  4. every ``OUT/<output name>.npy`` ('/' in a name written as '_') is
     compared with the expected output, with the test's tolerance (the ONNX
     backend default is rtol=1e-3, atol=1e-7; np.testing.assert_allclose
     semantics), exactly for integer and boolean outputs.

Status of a test:
  passed       every output matches.
  failed       an output has the wrong shape, dtype kind or values (the
               reason has the max abs error).
  unsupported  infer-opt exited 1 (the reason is the first stderr line), or
               the test has non-tensor inputs/outputs (sequences, optionals).
  error        any other infer-opt exit or a timeout, an infer-run failure,
               or a missing output file.  Failed and error results are
               compiler bugs.

Results go to JSON ({total, passed, failed, unsupported, error, tests}) and
a Markdown summary.

With --must-pass FILE only the tests named in FILE are run (one name a line,
'#' starts a comment; test/conformance/cpu-must-pass.txt is the curated list
that scripts/test.sh runs).  Every test that does not pass is printed with its
reason, a listed name that is not a test of the installed onnx package counts
as an error, the reports are written only where --json/--markdown say, and the
exit status is 1 unless every listed test passes.

With --expect REPORT (a whole run's JSON, docs/conformance/cpu.json or
cuda-emulated.json) every test that passed there must pass again: each one
that does not is printed, and so is every error; it ends with "expect: N
passed, M failed" and exits 1 on any (scripts/test.sh --extended).

With --target cuda --emulate, step 3 runs no GPU: the engine is compiled
with --dump-kernels and its plan executed on the CPU by
scripts/infer_tools/gpu_emulator/ (infer_tools.cuda_plan_exec's emulate),
which also refuses out-of-bounds, misaligned or racing kernels (an error).

Example:
    scripts/conformance.py --target cpu --jobs 2
    scripts/conformance.py --target cpu --filter conv --json /tmp/c.json --markdown /tmp/c.md
    scripts/conformance.py --target cpu --must-pass test/conformance/cpu-must-pass.txt
    scripts/conformance.py --target cuda --emulate --must-pass test/conformance/cpu-must-pass.txt
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnx.numpy_helper

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INFER_OPT = REPO_ROOT / "build" / "bin" / "infer-opt"
DEFAULT_INFER_RUN = REPO_ROOT / "build" / "bin" / "infer-run"
MUST_PASS_LIST = "test/conformance/cpu-must-pass.txt"
TIMEOUT_S = 60.0
STATUSES = ("passed", "failed", "unsupported", "error")


def collect_cases(name_filter: str | None, limit: int | None):
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some generators overflow on purpose
        cases = node_cases.collect_testcases()
    cases = sorted((c for c in cases if c.model is not None and c.data_sets),
                   key=lambda c: c.name)
    if name_filter:
        cases = [c for c in cases if name_filter in c.name]
    if limit is not None:
        cases = cases[:limit]
    return cases


def read_list(path: Path) -> list[str]:
    """Test names of a must-pass list: one a line, '#' to the end of a line is a comment."""
    names = []
    for line in path.read_text().splitlines():
        name = line.split("#", 1)[0].strip()
        if name:
            names.append(name)
    return names


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def as_array(value) -> np.ndarray:
    """A test value as a plain numpy array; TypeError for what infer-run cannot take."""
    if isinstance(value, onnx.TensorProto):
        value = onnx.numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise TypeError("non-tensor input or output (sequence/optional/map)")
    if value.dtype.kind not in "biufc":
        raise TypeError(f"element type {value.dtype} has no standard .npy form")
    return value


def compare(name: str, got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str | None:
    """None when got matches want, else a reason."""
    if got.shape != want.shape:
        return f"output '{name}': shape {got.shape} != expected {want.shape}"
    exact = want.dtype.kind in "biuUSO"
    if exact:
        if want.dtype.kind == "b" or got.dtype.kind == "b":
            got, want = got.astype(bool), want.astype(bool)
        if not np.array_equal(got, want):
            diff = int(np.count_nonzero(got != want))
            try:
                err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
            except (TypeError, ValueError):
                err = float("nan")
            return f"output '{name}': {diff}/{want.size} elements differ (max abs err {err:.3g})"
        return None
    try:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    except AssertionError:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            d = np.abs(g - w)
        d = np.where(np.isnan(g) & np.isnan(w), 0.0, d)
        err = float(np.nanmax(d)) if d.size else 0.0
        if np.isnan(d).any():
            err = float("nan")
        return f"output '{name}': mismatch (max abs err {err:.3g}, rtol={rtol:g}, atol={atol:g})"
    return None


def compile_case(case, in_names, inputs, infer_opt: Path, target: str, engine: Path,
                 model_path: Path, flags: tuple[str, ...] = ()) -> dict | None:
    """Compiles the case's model into `engine`; a result dict if that failed."""
    onnx.save(case.model, str(model_path))
    cmd = [str(infer_opt), str(model_path)]
    for n, a in zip(in_names, inputs):
        cmd += ["--input-shape", f"{n}:" + "x".join(str(d) for d in a.shape)]
    if target != "cpu":
        cmd += [f"--target={target}"]
    cmd += ["--emit=engine", "-o", str(engine), *flags]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return dict(name=case.name, status="error", reason=f"infer-opt timeout ({TIMEOUT_S:g} s)")
    stderr = p.stderr.replace(str(model_path), "model.onnx")
    if p.returncode == 1:
        return dict(name=case.name, status="unsupported", reason=first_line(stderr))
    if p.returncode != 0 or not engine.exists():
        return dict(name=case.name, status="error",
                    reason=f"infer-opt exit {p.returncode}: {first_line(stderr)}")
    return None


def case_inputs(case):
    """(input names, inputs, output names, outputs) of the case's first data set."""
    inputs, outputs = case.data_sets[0]
    graph = case.model.graph
    init_names = {i.name for i in graph.initializer}
    in_names = [i.name for i in graph.input if i.name not in init_names]
    out_names = [o.name for o in graph.output]
    if len(inputs) != len(in_names) or len(outputs) != len(out_names):
        # Optional/omitted inputs: ONNX feeds inputs positionally.
        in_names = in_names[:len(inputs)]
    return in_names, [as_array(a) for a in inputs], out_names, [as_array(a) for a in outputs]


def compile_only(case, infer_opt: Path, target: str, store: Path,
                 flags: tuple[str, ...] = ()) -> dict:
    """--compile-to: the engine goes to STORE/<name>.engine; the result says
    'compiled' or why not."""
    try:
        in_names, inputs, _, _ = case_inputs(case)
    except TypeError as e:
        return dict(name=case.name, status="unsupported", reason=str(e))
    with tempfile.TemporaryDirectory(prefix="conf-") as tmp:
        failed = compile_case(case, in_names, inputs, infer_opt, target,
                              store / f"{case.name}.engine", Path(tmp) / "model.onnx", flags)
    return failed or dict(name=case.name, status="compiled", reason=None)


def emulate_outputs(engine: Path, kernels: Path, in_names, inputs, out_dir: Path) -> None:
    """--emulate: the engine's plan run on the CPU by
    scripts/infer_tools/gpu_emulator/, its outputs written as infer-run
    writes them."""
    from infer_tools.cuda_plan_exec import emulate
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, value in emulate(engine, kernels, dict(zip(in_names, inputs))).items():
        np.save(out_dir / (name.replace("/", "_") + ".npy"), value)


def run_case(case, infer_opt: Path, infer_run: Path, target: str = "cpu",
             prebuilt: dict | None = None, device: str | None = None,
             emulate: bool = False, flags: tuple[str, ...] = ()) -> dict:
    name = case.name
    try:
        in_names, inputs, out_names, outputs = case_inputs(case)
    except TypeError as e:
        return dict(name=name, status="unsupported", reason=str(e))

    with tempfile.TemporaryDirectory(prefix="conf-") as tmp:
        tmp = Path(tmp)
        if prebuilt is not None:  # --prebuilt: compiled elsewhere (--compile-to)
            compiled = prebuilt["results"].get(name)
            if compiled is None:
                return dict(name=name, status="error", reason="not in the prebuilt index")
            if compiled["status"] != "compiled":
                return dict(compiled, name=name)
            engine = prebuilt["dir"] / f"{name}.engine"
        else:
            engine = tmp / "t.engine"
            dump = ("--dump-kernels", str(tmp / "kernels")) if emulate else ()
            failed = compile_case(case, in_names, inputs, infer_opt, target, engine,
                                  tmp / "model.onnx", flags + dump)
            if failed:
                return failed

        out_dir = tmp / "out"
        if emulate:
            try:
                emulate_outputs(engine, tmp / "kernels" / "kernels.mlir", in_names, inputs,
                                out_dir)
            except Exception as e:  # The emulator's refusal is the kernel's error.
                return dict(name=name, status="error", reason=f"emulator: {first_line(str(e))}")
            return check_outputs(case, out_names, outputs, out_dir)
        cmd = [str(infer_run), str(engine)]
        for i, (n, a) in enumerate(zip(in_names, inputs)):
            f = tmp / f"in{i}.npy"
            np.save(f, a)
            cmd += ["--input", f"{n}={f}"]
        cmd += ["--output-dir", str(out_dir), "--warmup", "0", "--iterations", "1"]
        if device:
            cmd += ["--device", device]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return dict(name=name, status="error", reason=f"infer-run timeout ({TIMEOUT_S:g} s)")
        if p.returncode != 0:
            err = first_line(p.stderr.replace(str(engine), "t.engine")) or first_line(p.stdout)
            return dict(name=name, status="error", reason=f"infer-run exit {p.returncode}: {err}")

        return check_outputs(case, out_names, outputs, out_dir)


def check_outputs(case, out_names, outputs, out_dir: Path) -> dict:
    """The result of a case whose outputs are in `out_dir`, one .npy each."""
    rtol = getattr(case, "rtol", 1e-3)
    atol = getattr(case, "atol", 1e-7)
    for n, want in zip(out_names, outputs):
        f = out_dir / (n.replace("/", "_") + ".npy")
        if not f.exists():
            return dict(name=case.name, status="error", reason=f"no output {f.name} was written")
        got = np.load(f, allow_pickle=False)
        reason = compare(n, got, np.asarray(want), rtol, atol)
        if reason:
            return dict(name=case.name, status="failed", reason=reason)
    return dict(name=case.name, status="passed", reason=None)


class Stopped(Exception):
    """SIGTERM arrived: report what ran."""


def _stop_on_sigterm(signum, frame):
    raise Stopped()


def write_markdown(path: Path, summary: dict, note: str | None, target: str = "cpu") -> None:
    tests = summary["tests"]
    if target == "cpu":
        lines = ["# ONNX backend node conformance (cpu)", "",
                 f"Generated {datetime.date.today().isoformat()} by `scripts/conformance.py --target cpu` "
                 f"on a 2-core dev machine (onnx {onnx.__version__}).", "",
                 f"The tests listed in `{MUST_PASS_LIST}` must pass: `scripts/test.sh` runs them "
                 f"with `scripts/conformance.py --target cpu --must-pass {MUST_PASS_LIST}` "
                 "(about two minutes on 2 cores) and fails on any that does not.", ""]
    elif target == "cuda-emulated":
        lines = ["# ONNX backend node conformance (cuda, kernels emulated on the CPU)", "",
                 f"Generated {datetime.date.today().isoformat()} by `scripts/conformance.py "
                 f"--target cuda --emulate` on a 2-core dev machine (onnx {onnx.__version__}): "
                 "each test compiled for sm_90 and its plan run by "
                 "`scripts/infer_tools/gpu_emulator/` (no TF32 rounding, numpy's math "
                 "functions). The GPU's own results are in "
                 "[cuda.md](cuda.md).", ""]
    else:
        lines = [f"# ONNX backend node conformance ({target})", "",
                 f"Generated {datetime.date.today().isoformat()} by `scripts/gpu-check.sh` "
                 f"(`scripts/conformance.py --prebuilt`; onnx {onnx.__version__}).", ""]
    if note:
        lines += [note, ""]
    lines += ["| status | count |", "|---|---|"]
    lines += [f"| {s} | {summary[s]} |" for s in STATUSES]
    lines += [f"| **total** | {summary['total']} |", ""]
    reasons = collections.Counter(t["reason"] for t in tests if t["status"] == "unsupported")
    lines += ["## Top unsupported reasons", "", "| count | reason |", "|---|---|"]
    for r, c in reasons.most_common(25):
        lines.append(f"| {c} | `{(r or '').replace('|', '/')}` |")
    lines.append("")
    for status in ("failed", "error"):
        bad = [t for t in tests if t["status"] == status]
        lines += [f"## {status.capitalize()} ({len(bad)})", ""]
        lines += [f"- `{t['name']}`: {t['reason']}" for t in bad] or ["None."]
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


def expect(before: list[dict], results: list[dict], report: Path) -> int:
    """--expect: the tests that passed in `before` must pass in `results`;
    errors fail too. Prints each that does not, then the counts."""
    now = {r["name"]: r for r in results}
    passed = failed = 0
    for test in before:
        if test["status"] != "passed":
            continue
        result = now.get(test["name"], {"status": "missing", "reason": "not run"})
        if result["status"] == "passed":
            passed += 1
        else:
            failed += 1
            print(f"regressed: {test['name']}: {result['status']}: {result.get('reason')}")
    errors = [r for r in results if r["status"] == "error" and r["name"] not in
              {t["name"] for t in before if t["status"] == "passed"}]
    for r in errors:
        print(f"error: {r['name']}: {r['reason']}")
    newly = sum(r["status"] == "passed" for r in results) - passed
    if newly:
        print(f"{newly} tests pass that did not in {report}: run the whole suite to update it")
    print(f"expect: {passed} passed, {failed + len(errors)} failed ({report})")
    return 1 if failed or errors else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--target", choices=["cpu", "cuda"], required=True, help="compilation target")
    ap.add_argument("--cuda-archs", default="sm_90",
                    help="with --target cuda: the architectures to compile for (default sm_90)")
    ap.add_argument("--compile-to", type=Path, metavar="DIR",
                    help="compile only: engines to DIR/<test>.engine and DIR/index.json, for "
                         "--prebuilt on a machine without infer-opt (the GPU machine)")
    ap.add_argument("--prebuilt", type=Path, metavar="DIR",
                    help="run the engines of a --compile-to DIR instead of compiling")
    ap.add_argument("--device", help="infer-run --device (default: the engine's own)")
    ap.add_argument("--emulate", action="store_true",
                    help="with --target cuda: run each engine's kernels on the CPU "
                         "(scripts/infer_tools/gpu_emulator/) instead of infer-run on a GPU")
    ap.add_argument("--flag", action="append", default=[], metavar="FLAG",
                    help="one more infer-opt flag, e.g. --flag=--cuda-stage-tiles (repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel tests (default 2)")
    ap.add_argument("--filter", help="only tests whose name contains this substring")
    ap.add_argument("--limit", type=int, help="only the first N tests (by name, after --filter)")
    ap.add_argument("--must-pass", type=Path, metavar="FILE",
                    help="run only the tests listed in FILE; exit 1 unless all of them pass")
    ap.add_argument("--json", type=Path,
                    help="JSON report (default, for a whole run: docs/conformance/<target>.json; "
                         "none with --must-pass, --filter or --limit)")
    ap.add_argument("--markdown", type=Path,
                    help="Markdown report (default, for a whole run: docs/conformance/<target>.md; "
                         "none with --must-pass, --filter or --limit)")
    ap.add_argument("--infer-opt", type=Path, default=DEFAULT_INFER_OPT)
    ap.add_argument("--infer-run", type=Path, default=DEFAULT_INFER_RUN)
    ap.add_argument("--note", help="extra line for the Markdown report")
    ap.add_argument("--expect", type=Path, metavar="REPORT",
                    help="a whole run's JSON report: what passed there must pass")
    args = ap.parse_args()
    if args.must_pass and (args.filter or args.limit is not None):
        ap.error("--must-pass runs exactly the listed tests; it takes no --filter or --limit")
    target = "cpu" if args.target == "cpu" else f"cuda:{args.cuda_archs}"
    if args.emulate and (args.target != "cuda" or args.prebuilt or args.compile_to):
        ap.error("--emulate runs CUDA engines it compiles: use it with --target cuda, without "
                 "--prebuilt or --compile-to")
    if args.flag and args.prebuilt:
        ap.error("--flag changes how engines are compiled; --prebuilt ones are compiled already")
    prebuilt = None
    if args.prebuilt:
        index = args.prebuilt / "index.json"
        if not index.is_file():
            ap.error(f"{index} not found (make it with --compile-to)")
        prebuilt = {"dir": args.prebuilt, "results": json.loads(index.read_text())["results"]}
    tools = [] if args.prebuilt else [args.infer_opt]
    tools += [] if args.compile_to or args.emulate else [args.infer_run]
    for tool in tools:
        if not tool.is_file():
            ap.error(f"{tool} not found (build the project first)")

    results = []
    if args.must_pass:
        try:
            names = read_list(args.must_pass)
        except OSError as e:
            ap.error(f"cannot read {args.must_pass}: {e.strerror}")
        dups = sorted({n for n in names if names.count(n) > 1})
        if dups:
            ap.error(f"{args.must_pass}: listed more than once: {', '.join(dups)}")
        by_name = {c.name: c for c in collect_cases(None, None)}
        cases = [by_name[n] for n in names if n in by_name]
        for n in names:
            if n not in by_name:  # a renamed or removed test must not silently drop out
                r = dict(name=n, status="error",
                         reason=f"listed in {args.must_pass} but not an ONNX backend node test "
                                f"of onnx {onnx.__version__}")
                results.append(r)
                print(f"{r['name']}: {r['status']}: {r['reason']}", file=sys.stderr)
    else:
        cases = collect_cases(args.filter, args.limit)
        # The committed reports are of whole runs: a partial one (--filter,
        # --limit) writes only where --json/--markdown say.
        if not args.compile_to and not args.filter and not args.limit:
            report = args.target + ("-emulated" if args.emulate else "")
            args.json = args.json or REPO_ROOT / "docs" / "conformance" / f"{report}.json"
            args.markdown = args.markdown or REPO_ROOT / "docs" / "conformance" / f"{report}.md"
    if args.compile_to:
        args.compile_to.mkdir(parents=True, exist_ok=True)
        work = lambda c: compile_only(c, args.infer_opt, target, args.compile_to, tuple(args.flag))
    else:
        work = lambda c: run_case(c, args.infer_opt, args.infer_run, target, prebuilt, args.device,
                                  args.emulate, tuple(args.flag))
    shown = ("failed", "error") + (("unsupported",) if args.must_pass else ())
    # A deadline's SIGTERM (scripts/gpu-check.sh runs this under `timeout`)
    # ends the run early, and the report says how far it got.
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    stopped = False
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        futs = {pool.submit(work, c): c for c in cases}
        for i, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            try:
                r = fut.result()
            except Exception as e:  # a harness problem, reported as an error
                r = dict(name=futs[fut].name, status="error", reason=f"harness: {e!r}")
            results.append(r)
            if r["status"] in shown:
                print(f"[{i}/{len(cases)}] {r['name']}: {r['status']}: {r['reason']}", file=sys.stderr)
    except Stopped:
        stopped = True
        print(f"conformance: stopped after {len(results)} of {len(cases)} tests", file=sys.stderr)
    finally:
        pool.shutdown(wait=not stopped, cancel_futures=stopped)
    if stopped and args.compile_to:
        return 1
    if stopped:  # Exits after the report (below).
        args.note = "\n\n".join(filter(None, [
            f"**Partial: stopped after {len(results)} of {len(cases)} tests** (SIGTERM; the "
            "counts are of those).", args.note]))
    results.sort(key=lambda r: r["name"])
    if args.compile_to:
        index = {"target": target, "results": {r["name"]: r for r in results}}
        (args.compile_to / "index.json").write_text(json.dumps(index, indent=1) + "\n")
        counts = collections.Counter(r["status"] for r in results)
        print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
        return 0
    summary = {"total": len(results), "partial": stopped}
    for s in STATUSES:
        summary[s] = sum(r["status"] == s for r in results)
    summary["tests"] = results
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
    if args.markdown:
        write_markdown(args.markdown, summary, args.note,
                       args.target + ("-emulated" if args.emulate else ""))
    print(" ".join(f"{s}={summary[s]}" for s in ("total",) + STATUSES))
    if stopped:  # Without waiting for the tests still running.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
    if args.expect:
        return expect(json.loads(args.expect.read_text())["tests"], results, args.expect)
    if args.must_pass:
        bad = summary["total"] - summary["passed"]
        print(f"must-pass: {summary['passed']} passed, {bad} failed ({args.must_pass})")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
