#!/usr/bin/env python3
"""One table of a tile-plan sweep on a GPU (scripts/gpu-check.sh's sweep phase).

The same models at batch 8 compiled once with the heuristic's plans and once
per `infer-opt --cuda-tile-plan PLAN` (every staged-tiles kernel given PLAN
where it suits the contraction) were timed by scripts/bench/gpu.py and each
launch alone by scripts/cuda_plan_exec.py --profile. This puts them side by
side:

  - each model's GPU time per plan, the fastest in bold;
  - what a tuner could reach: every staged-tiles launch at the plan that
    timed fastest for it (the launches of one model's engines are the same
    kernels in the same order, whatever the plan), against the heuristic's
    launches, and which plans those are.

    python3 scripts/bench/sweep.py --markdown gpu-sweep.md \\
        --run heuristic b8.json profiles-b8 --run warp=4x4 sweep/warp=4x4.json profiles/warp=4x4

The first --run is the heuristic's (the baseline); a missing file leaves its
cells empty.

With --tuned-plans FILE it also writes what `infer-opt --cuda-tile-plans FILE`
reads: for each contraction (the launch records' key), the plan whose
launches of it (summed over the models) timed fastest, where that beats the
heuristic's by more than --margin (default 3%, above run-to-run noise).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from infer_tools.kernel_plan import describe_contraction, tuned_plans_entries


def gpu_ms(bench: dict) -> dict[str, float]:
    """Model name -> GPU p50 ms, from a scripts/bench/gpu.py JSON report."""
    times = {}
    for row in bench.get("models", []):
        infer = row.get("infer") or {}
        p50 = ((infer.get("report") or {}).get("gpu_ms") or {}).get("p50")
        if p50 is not None:
            times[row["name"]] = p50
    return times


def load_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def staged_launches(profile_dir: Path, model: str) -> list[dict] | None:
    """The model's launches timed alone (cuda_plan_exec.py --profile-dir)."""
    rows = load_json(profile_dir / f"{model}.profile.json")
    return rows if isinstance(rows, list) else None


def comparable_profiles(runs: list[tuple[str, Path]], model: str):
    """The model's launches in each run whose engine has the baseline's
    (the first run's) kernels in its order: [(label, launches)], the
    baseline first; empty without the baseline's profile."""
    profiles = [(label, staged_launches(d, model)) for label, d in runs]
    base = profiles[0][1]
    if not base:
        return []
    return [(label, rows) for label, rows in profiles
            if rows and [r["kernel"] for r in rows] == [r["kernel"] for r in base]]


def best_per_launch(runs: list[tuple[str, Path]], model: str):
    """Each staged-tiles launch at its fastest plan: (the baseline's staged
    ms, the best's, {plan: launches it wins}), or None without the
    baseline's profile."""
    usable = comparable_profiles(runs, model)
    if not usable:
        return None
    base = usable[0][1]
    base_ms = best_ms = 0.0
    wins: dict[str, int] = {}
    for i, launch in enumerate(base):
        if launch.get("strategy") != "staged_tiles":
            continue
        label, rows = min(usable, key=lambda x: x[1][i]["ms"])
        base_ms += launch["ms"]
        best_ms += rows[i]["ms"]
        wins[label] = wins.get(label, 0) + 1
    return base_ms, best_ms, wins


def tuned_plans(runs: list[tuple[str, Path]], models: list[str],
                margin: float) -> tuple[dict[str, tuple[dict, dict]], dict[str, dict[str, float]]]:
    """Contraction (its text) -> (contraction, the fastest tile plan) where
    that beats the heuristic's (the first run) by more than `margin`; and
    every contraction's summed ms per run that profiled all of its launches."""
    totals: dict[str, dict[str, list]] = {}  # contraction -> label -> [ms, launches, tile]
    contractions: dict[str, dict] = {}
    for model in models:
        usable = comparable_profiles(runs, model)
        for label, rows in usable:
            for heuristic, launch in zip(usable[0][1], rows):
                key = describe_contraction(heuristic.get("contraction"))
                if heuristic.get("strategy") != "staged_tiles" or not key:
                    continue
                contractions[key] = heuristic["contraction"]
                cell = totals.setdefault(key, {}).setdefault(label, [0.0, 0, launch.get("tile")])
                cell[0] += launch["ms"]
                cell[1] += 1
    chosen, timings = {}, {}
    heuristic_label = runs[0][0]
    for key, by_label in totals.items():
        base = by_label.get(heuristic_label)
        if not base:
            continue
        complete = {label: cell for label, cell in by_label.items() if cell[1] == base[1]}
        timings[key] = {label: round(cell[0], 6) for label, cell in complete.items()}
        label, (ms, _, tile) = min(complete.items(), key=lambda x: x[1][0])
        if ms < base[0] * (1 - margin) and tile and tile != base[2]:
            chosen[key] = (contractions[key], tile)
    return chosen, timings


def table(runs: list[tuple[str, Path, Path]], device: str) -> str:
    timed = [(label, gpu_ms(load_json(bench) or {})) for label, bench, _ in runs]
    models = list(dict.fromkeys(m for _, times in timed for m in times))
    lines = [f"# Tile-plan sweep at batch 8: {device}", "",
             "Made by `scripts/gpu-check.sh` (sweep phase, `scripts/bench/sweep.py`). Each "
             "column is the models compiled with `infer-opt --cuda-tile-plan PLAN` (every "
             "staged-tiles kernel gets PLAN where it suits the contraction, else the "
             "heuristic's plan); `heuristic` is the default. GPU p50 ms (CUDA events around "
             "the CUDA graph), random weights; the fastest in bold.", "",
             "| model | " + " | ".join(f"`{label}`" for label, _ in timed) + " |",
             "|---|" + "---|" * len(timed)]
    for model in models:
        cells = [times.get(model) for _, times in timed]
        fastest = min((c for c in cells if c is not None), default=None)
        lines.append(f"| {model} | " + " | ".join(
            "—" if c is None else (f"**{c:.3f}**" if c == fastest else f"{c:.3f}")
            for c in cells) + " |")
    lines += ["", "Each staged-tiles launch timed alone (`cuda_plan_exec.py --profile`), summed: "
              "the heuristic's plans against every launch at the plan fastest for it (what "
              "a tuner choosing per contraction could reach), and how many launches each "
              "plan wins.", "",
              "| model | heuristic's staged launches ms | each at its best plan ms | wins |",
              "|---|---|---|---|"]
    for model in models:
        best = best_per_launch([(label, profiles) for label, _, profiles in runs], model)
        if best is None:
            lines.append(f"| {model} | — | — | no profile of the heuristic's engine |")
            continue
        base_ms, best_ms, wins = best
        won = ", ".join(f"`{label}` {n}" for label, n in sorted(wins.items(), key=lambda x: -x[1]))
        lines.append(f"| {model} | {base_ms:.3f} | {best_ms:.3f} | {won or '—'} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--run", nargs=3, action="append", required=True,
                    metavar=("LABEL", "BENCH_JSON", "PROFILE_DIR"),
                    help="one plan's gpu.py report and per-launch profiles; the first is the "
                         "heuristic's")
    ap.add_argument("--markdown", type=Path, required=True)
    ap.add_argument("--tuned-plans", type=Path, metavar="FILE",
                    help="write the plans that beat the heuristic, per contraction, for "
                         "infer-opt --cuda-tile-plans")
    ap.add_argument("--margin", type=float, default=0.03,
                    help="how much faster than the heuristic's a plan must be to be written "
                         "(a fraction; default 0.03)")
    args = ap.parse_args()
    runs = [(label, Path(bench), Path(profiles)) for label, bench, profiles in args.run]
    device = next((d["device"].get("nvidia_smi") for _, bench, _ in runs
                   if (d := load_json(bench)) and isinstance(d.get("device"), dict)), None)
    args.markdown.write_text(table(runs, device or "device unknown"))
    print(args.markdown.read_text())
    if args.tuned_plans:
        models = list(dict.fromkeys(m for _, bench, _ in runs
                                    for m in gpu_ms(load_json(bench) or {})))
        plans, timings = tuned_plans([(label, profiles) for label, _, profiles in runs], models,
                                     args.margin)
        args.tuned_plans.write_text(json.dumps({
            "device": device or "device unknown", "made_by": "scripts/bench/sweep.py",
            "date": datetime.date.today().isoformat(), "margin": args.margin,
            "plans": tuned_plans_entries(plans), "timings_ms": timings}, indent=1) + "\n")
        print(f"{args.tuned_plans}: {len(plans)} of {len(timings)} contractions tuned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
