#!/usr/bin/env python3
"""Measure how much of the ONNX backend node test suite infer-opt can import.

Every ONNX backend node test (one small model per operator feature, e.g.
``test_conv_with_strides_padding``) is imported with::

    infer-opt MODEL.onnx --elide-weights 0 -o OUT.mlir

under a timeout, and each test gets one status:

  imported     exit 0 and an output file was written.  The result is also
               flagged ``dynamic`` when every graph input of the model has a
               fully static shape but the emitted IR still has a ``?`` (or an
               unranked ``*``) in some tensor type.  Such a result is further
               marked ``onnx_static`` when ONNX's own shape inference (with
               the declared output shapes removed) does find static shapes
               for every graph output: then the missing shape is a likely
               importer gap rather than a shape that depends on input values.
  unsupported  exit 1: the importer rejected the model with a diagnostic.
               The diagnostic is kept, and the operator and a reason
               category are extracted from it (see CATEGORIES).
  crash        any other exit code, a signal, a timeout, or exit 0 without
               an output file.  Every crash is an importer bug.

Where the models come from: the onnx wheel used to ship them under
``onnx/backend/test/data/node/*/model.onnx``; that directory is used when it
is present.  Newer wheels leave it out, and then the same models are built
from the test case generators that ship in the wheel
(``onnx.backend.test.case.node``, which is what ``data/node`` is generated
from) and cached under ``.cache/onnx-node-tests/<onnx version>/``.
``--tests-dir`` points at any directory of ``<test>/model.onnx`` instead.

Results are written as JSON (every test, sorted by name) and as a Markdown
report (summary, unsupported reasons grouped by operator, every crash, every
dynamic result).  Apart from the date in the Markdown header the output is
deterministic.

Example:
    scripts/import_coverage.py --jobs 2
    scripts/import_coverage.py --filter resize --json /tmp/r.json --markdown /tmp/r.md
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import onnx
import onnx.shape_inference

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_INFER_OPT = REPO_ROOT / "build" / "bin" / "infer-opt"
DEFAULT_JSON = REPO_ROOT / "docs" / "import-coverage.json"
DEFAULT_MARKDOWN = REPO_ROOT / "docs" / "import-coverage.md"
DEFAULT_CACHE = REPO_ROOT / ".cache" / "onnx-node-tests"
SHIPPED_NODE_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"

DEFAULT_TIMEOUT_S = 10.0
STDERR_TAIL_CHARS = 2000

# Reason categories of an 'unsupported' result, in report order.
CATEGORIES = {
    "operator": "operator not implemented by the importer",
    "attribute": "attribute value, mode or optional output of an implemented operator",
    "non-constant input": "an input the importer needs as a constant is a graph input",
    "type": "element or value type (strings, sequences, maps, optionals, ...)",
    "domain": "operator domain other than the default ONNX domain",
    "opset": "opset version of the model",
    "control flow": "If / Loop / Scan",
    "other": "anything else",
}

# Diagnostics look like
#   infer-opt: error: node 'n0' (Conv): <message>
#   infer-opt: error: graph input 'x': <message>
#   infer-opt: error: path/to/model.onnx: <message>
ERROR_PREFIX = "infer-opt: error: "
NODE_RE = re.compile(r"^node '[^']*'(?: \((?P<op>[A-Za-z0-9_.]+)\))?: (?P<msg>.*)$")
MODEL_RE = re.compile(r"^\S+\.onnx(?:text)?: (?P<msg>.*)$")
UNSUPPORTED_OP_RE = re.compile(
    r"unsupported operator '(?P<op>[^']+)' \(domain '(?P<domain>[^']*)'")
UNSUPPORTED_DOMAIN_RE = re.compile(
    r"domain '[^']*' is not supported(?: \(operator '(?P<op>[^']+)')?")
QUOTED_INPUT_RE = re.compile(r"(graph input) '[^']*'")
TENSOR_TYPE_RE = re.compile(r"tensor<([^<>]*)>")

DEFAULT_DOMAINS = ("", "ai.onnx")
MODEL_LEVEL_OP = "(model)"
GRAPH_INPUT_OP = "(graph input)"


@dataclasses.dataclass
class Result:
    """The outcome of importing one test model."""

    name: str
    status: str  # imported | unsupported | crash
    reason: str | None = None  # normalized diagnostic, or why it crashed
    category: str | None = None  # for unsupported
    op: str | None = None  # operator the diagnostic is about, for unsupported
    exit_code: int | None = None  # for crash; None on timeout
    stderr_tail: str | None = None  # for crash
    dynamic: bool = False  # for imported: static inputs, '?' in the output
    onnx_static: bool = False  # for dynamic: ONNX infers static output shapes

    def to_json(self) -> dict:
        entry = {"name": self.name, "status": self.status, "reason": self.reason}
        if self.status == "imported":
            entry["dynamic"] = self.dynamic
            if self.dynamic:
                entry["onnx_static"] = self.onnx_static
        elif self.status == "unsupported":
            entry.update(category=self.category, op=self.op)
        else:
            entry.update(exit_code=self.exit_code, stderr_tail=self.stderr_tail)
        return entry


# --------------------------------------------------------------------------
# Finding the test models
# --------------------------------------------------------------------------

def models_in(directory: Path) -> dict[str, Path]:
    """Map test name -> model path for every <directory>/<test>/model.onnx."""
    return {p.parent.name: p for p in sorted(directory.glob("*/model.onnx"))}


def generate_node_models(directory: Path) -> None:
    """Write model.onnx of every node test case the onnx package defines."""
    import onnx.backend.test.case.node as node_cases

    print(f"generating ONNX node test models into {directory} ...", file=sys.stderr)
    with warnings.catch_warnings():
        # Some generators compute reference outputs that overflow on purpose.
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    partial = directory.with_name(directory.name + ".partial")
    partial.mkdir(parents=True, exist_ok=True)
    for case in cases:
        test_dir = partial / case.name
        test_dir.mkdir(exist_ok=True)
        (test_dir / "model.onnx").write_bytes(case.model.SerializeToString())
    partial.rename(directory)


def find_models(tests_dir: Path | None, cache_dir: Path) -> tuple[dict[str, Path], str]:
    """Return the test models and a description of where they came from."""
    if tests_dir is not None:
        return models_in(tests_dir), str(tests_dir)
    shipped = models_in(SHIPPED_NODE_DIR)
    if shipped:
        return shipped, "onnx/backend/test/data/node of the onnx package"
    generated = cache_dir / onnx.__version__
    if not generated.is_dir():
        generate_node_models(generated)
    return models_in(generated), "generated from onnx.backend.test.case.node"


# --------------------------------------------------------------------------
# Running and classifying one test
# --------------------------------------------------------------------------

def is_static(value: onnx.ValueInfoProto) -> bool:
    """True for a tensor value with a known shape whose dims all have values."""
    if not value.type.HasField("tensor_type"):
        return False
    tensor = value.type.tensor_type
    return tensor.HasField("shape") and all(d.HasField("dim_value") for d in tensor.shape.dim)


def has_static_inputs(model: onnx.ModelProto) -> bool:
    """True when every non-initializer graph input is a tensor of static shape."""
    initializers = {t.name for t in model.graph.initializer}
    for value in model.graph.input:
        if value.name not in initializers and not is_static(value):
            return False
    return True


def onnx_infers_static_outputs(model: onnx.ModelProto) -> bool:
    """True when ONNX shape inference (with data propagation, which folds shape
    computations) gives every graph output a static
    shape (the declared output shapes and value_info are dropped first: the
    node tests declare the shapes of the reference outputs)."""
    stripped = onnx.ModelProto()
    stripped.CopyFrom(model)
    for value in stripped.graph.output:
        if value.type.HasField("tensor_type"):
            value.type.tensor_type.ClearField("shape")
    stripped.graph.ClearField("value_info")
    try:
        inferred = onnx.shape_inference.infer_shapes(stripped, data_prop=True)
    except Exception:  # inference failing is no evidence either way
        return False
    return all(is_static(value) for value in inferred.graph.output)


def has_dynamic_types(mlir: str) -> bool:
    """True when some tensor type in the IR has a dynamic dim or no rank."""
    return any("?" in t or t.startswith("*") for t in TENSOR_TYPE_RE.findall(mlir))


def normalize(message: str) -> str:
    """Drop the per-test names from a diagnostic so equal reasons group."""
    return QUOTED_INPUT_RE.sub(r"\1 '…'", message)


def classify_message(stderr: str) -> tuple[str, str, str]:
    """Return (normalized reason, op, category) of the first error line."""
    lines = [line for line in stderr.splitlines() if line.startswith(ERROR_PREFIX)]
    if not lines:
        tail = stderr.strip().splitlines()
        last = tail[-1] if tail else "(no diagnostic on stderr)"
        return last, MODEL_LEVEL_OP, "other"

    body = lines[0][len(ERROR_PREFIX):]

    op = MODEL_LEVEL_OP
    if match := NODE_RE.match(body):
        body = match["msg"]
        op = match["op"] or MODEL_LEVEL_OP
    elif match := MODEL_RE.match(body):
        body = match["msg"]
    if body.startswith("graph input "):
        op = GRAPH_INPUT_OP
    reason = normalize(body)

    if match := UNSUPPORTED_OP_RE.search(body):
        op = match["op"]
        category = "operator" if match["domain"] in DEFAULT_DOMAINS else "domain"
    elif match := UNSUPPORTED_DOMAIN_RE.search(body):
        op = match["op"] or op
        category = "domain"
    elif "imports no opset of the default" in body:
        category = "domain"
    elif "control flow" in body:
        category = "control flow"
    elif re.search(r"\bopset\b", body):
        category = "opset"
    elif op == GRAPH_INPUT_OP or re.search(
            r"string tensor|not a tensor|element type|data type|dtype|cast to \S+ is not supported",
            body):
        category = "type"
    elif re.search(r"must be (a )?constant|must be known at compile time", body):
        category = "non-constant input"
    elif "not supported" in body and op not in (MODEL_LEVEL_OP, GRAPH_INPUT_OP):
        category = "attribute"
    else:
        category = "other"
    return reason, op, category


def stderr_tail(stderr: str) -> str:
    tail = stderr.strip()
    return tail if len(tail) <= STDERR_TAIL_CHARS else "…" + tail[-STDERR_TAIL_CHARS:]


def run_test(name: str, model: Path, infer_opt: Path, timeout: float, scratch: Path) -> Result:
    out = scratch / f"{name}.mlir"
    command = [str(infer_opt), str(model), "--elide-weights", "0", "-o", str(out)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        stderr = exc.stderr or ""
        if isinstance(stderr, bytes):  # TimeoutExpired may carry undecoded output
            stderr = stderr.decode(errors="replace")
        return Result(name, "crash", reason=f"timeout after {timeout:g} s",
                      stderr_tail=stderr_tail(stderr))

    if proc.returncode == 1:
        reason, op, category = classify_message(proc.stderr)
        return Result(name, "unsupported", reason=reason, category=category, op=op)
    if proc.returncode != 0:
        code = proc.returncode
        why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return Result(name, "crash", reason=why, exit_code=code,
                      stderr_tail=stderr_tail(proc.stderr))
    if not out.is_file():
        return Result(name, "crash", reason="exit 0 but no output written", exit_code=0,
                      stderr_tail=stderr_tail(proc.stderr))
    mlir = out.read_text(errors="replace")
    out.unlink()
    result = Result(name, "imported")
    if has_dynamic_types(mlir):
        try:
            proto = onnx.load(str(model), load_external_data=False)
        except Exception:  # onnx cannot parse it: no static inputs to speak of
            return result
        result.dynamic = has_static_inputs(proto)
        result.onnx_static = result.dynamic and onnx_infers_static_outputs(proto)
    return result


def run_all(models: dict[str, Path], infer_opt: Path, jobs: int, timeout: float) -> list[Result]:
    with tempfile.TemporaryDirectory(prefix="import-coverage-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_test, name, path, infer_opt, timeout, Path(scratch))
                   for name, path in sorted(models.items())]
        results = []
        for done, future in enumerate(futures, 1):
            results.append(future.result())
            if done % 200 == 0 or done == len(futures):
                print(f"  {done}/{len(futures)}", file=sys.stderr)
    return results


# --------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------

def infer_opt_version(infer_opt: Path) -> str | None:
    """The binary's version line, or None when it does not even start."""
    try:
        proc = subprocess.run([str(infer_opt), "--version"], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = proc.stdout.strip().splitlines()
    return lines[0] if proc.returncode == 0 and lines else None


def summarize(results: list[Result]) -> dict:
    counts = collections.Counter(r.status for r in results)
    return {
        "total": len(results),
        "imported": counts["imported"],
        "imported_dynamic": sum(r.dynamic for r in results),
        "imported_dynamic_onnx_static": sum(r.onnx_static for r in results),
        "unsupported": counts["unsupported"],
        "crashed": counts["crash"],
    }


def write_json(path: Path, results: list[Result], meta: dict) -> None:
    """Write the summary and metadata, then one test per line (diffs stay small)."""
    header = {**summarize(results), **meta}
    lines = ["{"]
    lines += [f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},"
              for key, value in header.items()]
    lines.append(' "tests": [')
    entries = [f"  {json.dumps(r.to_json(), ensure_ascii=False)}" for r in results]
    lines.append(",\n".join(entries))
    lines += [" ]", "}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def examples(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" (+{len(names) - limit})" if len(names) > limit else "")


def by_count(groups: dict) -> list:
    """Items of a {key: [names]} dict, largest group first, then by key."""
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def markdown_report(results: list[Result], meta: dict) -> str:
    summary = summarize(results)
    unsupported = [r for r in results if r.status == "unsupported"]
    crashes = [r for r in results if r.status == "crash"]
    dynamic = [r for r in results if r.dynamic]

    def share(n: int) -> str:
        return f"{100.0 * n / summary['total']:.1f}%" if summary["total"] else "-"

    lines = [
        "# ONNX backend node test import coverage",
        "",
        "Generated by `scripts/import_coverage.py`; do not edit by hand.",
        "",
        f"- date: {meta['date']}",
        f"- onnx: {meta['onnx_version']} (tests {meta['tests_source']})",
        f"- infer-opt: {meta['infer_opt_version']}",
        "",
        "| | tests | share |",
        "| --- | ---: | ---: |",
        f"| total | {summary['total']} | |",
        f"| imported | {summary['imported']} | {share(summary['imported'])} |",
        "| ... of which dynamic (static inputs, `?` in the output) "
        f"| {summary['imported_dynamic']} | |",
        "| ... of which ONNX infers static shapes "
        f"| {summary['imported_dynamic_onnx_static']} | |",
        f"| unsupported (exit 1) | {summary['unsupported']} | {share(summary['unsupported'])} |",
        f"| crashed (bugs) | {summary['crashed']} | {share(summary['crashed'])} |",
        "",
        "## Unsupported, by category",
        "",
        "| category | tests | meaning |",
        "| --- | ---: | --- |",
    ]
    per_category = collections.Counter(r.category for r in unsupported)
    for category, meaning in CATEGORIES.items():
        if per_category[category]:
            lines.append(f"| {category} | {per_category[category]} | {meaning} |")

    per_op: dict[str, list[str]] = collections.defaultdict(list)
    op_categories: dict[str, set[str]] = collections.defaultdict(set)
    per_reason: dict[tuple[str, str, str], list[str]] = collections.defaultdict(list)
    for r in unsupported:
        per_op[r.op].append(r.name)
        op_categories[r.op].add(r.category)
        per_reason[(r.op, r.category, r.reason)].append(r.name)

    lines += [
        "",
        "## Unsupported, by operator",
        "",
        f"`{MODEL_LEVEL_OP}` is a model-level rejection (e.g. the opset), "
        f"`{GRAPH_INPUT_OP}` a graph input the importer cannot take.",
        "",
        "| operator | tests | categories |",
        "| --- | ---: | --- |",
    ]
    for op, names in by_count(per_op):
        lines.append(f"| {md_cell(op)} | {len(names)} | {', '.join(sorted(op_categories[op]))} |")

    lines += [
        "",
        "## Unsupported reasons",
        "",
        "| operator | category | tests | reason | examples |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for (op, category, reason), names in by_count(per_reason):
        lines.append(f"| {md_cell(op)} | {category} | {len(names)} | {md_cell(reason)} "
                     f"| {examples(names)} |")

    lines += ["", f"## Crashes ({len(crashes)})", ""]
    if not crashes:
        lines.append("None.")
    for r in crashes:
        lines += [f"### `{r.name}`: {r.reason}", "", "```", r.stderr_tail or "(no stderr)",
                  "```", ""]
    if crashes:
        lines.pop()

    gaps = [r for r in dynamic if r.onnx_static]
    value_dependent = [r for r in dynamic if not r.onnx_static]
    lines += ["", f"## Dynamic results ({len(dynamic)})", "",
              "Imported with every input static, yet the output has a dynamic or "
              "unranked tensor type.", "",
              f"### ONNX shape inference finds static shapes: likely importer gaps "
              f"({len(gaps)})", ""]
    lines += [f"- `{r.name}`" for r in gaps] or ["None."]
    lines += ["", f"### Shape depends on input values or ONNX cannot infer it "
                  f"({len(value_dependent)})", "",
              "Usually legitimate: a shape that depends on the value of a graph "
              "input (e.g. Reshape's `shape`), which the node tests feed as inputs.", ""]
    lines += [f"- `{r.name}`" for r in value_dependent] or ["None."]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="See the module docstring for the statuses and where the models come from.")
    parser.add_argument("--infer-opt", type=Path, default=DEFAULT_INFER_OPT,
                        help="infer-opt binary (default: %(default)s)")
    parser.add_argument("--jobs", "-j", type=int, default=2,
                        help="tests imported in parallel (default: %(default)s)")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON,
                        help="JSON results file (default: %(default)s)")
    parser.add_argument("--markdown", type=Path, default=DEFAULT_MARKDOWN,
                        help="Markdown report file (default: %(default)s)")
    parser.add_argument("--filter", default="",
                        help="only tests whose name contains this substring")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help="seconds per import before it counts as a crash "
                             "(default: %(default)s)")
    parser.add_argument("--tests-dir", type=Path,
                        help="directory of <test>/model.onnx to use instead of the "
                             "onnx package's node tests")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE,
                        help="where generated node test models are kept "
                             "(default: %(default)s)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if not os.access(args.infer_opt, os.X_OK):
        parser.error(f"infer-opt binary not found or not executable: {args.infer_opt}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    version = infer_opt_version(args.infer_opt)
    if version is None:
        # Otherwise a half-written binary or library would report every test as a crash.
        print(f"{args.infer_opt} --version fails; is the build complete?", file=sys.stderr)
        return 1
    models, source = find_models(args.tests_dir, args.cache_dir)
    models = {name: path for name, path in models.items() if args.filter in name}
    if not models:
        print("no test models matched", file=sys.stderr)
        return 1

    print(f"importing {len(models)} models with {args.infer_opt} ({args.jobs} jobs)",
          file=sys.stderr)
    results = run_all(models, args.infer_opt, args.jobs, args.timeout)
    meta = {
        "onnx_version": onnx.__version__,
        "tests_source": source,
        "infer_opt_version": version,
        "filter": args.filter,
    }
    write_json(args.json, results, meta)
    meta["date"] = datetime.date.today().isoformat()
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(markdown_report(results, meta))

    summary = summarize(results)
    print(", ".join(f"{key} {value}" for key, value in summary.items()))
    print(f"wrote {args.json} and {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
