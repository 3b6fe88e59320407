"""The kernel plans of a CUDA engine's launch records, as the Python tools read them.

The compiler's include/infer-opt/Plan/KernelPlan.h is the source: each launch
of an engine's plan has a "strategy" and, for a staged-tiles kernel, a "tile"
plan ({"warp": [M, N], "step": K, "stages": S, "groups": G, "mma": "sync"})
and the "contraction" it was planned for ({"batch", "m", "n", "k", "a", "b"}).
The text forms here are the compiler's (`infer-opt --dump-kernels`'
launches.txt, and --cuda-tile-plan's syntax for a tile plan).
"""

from __future__ import annotations

import re

TENSOR_CORE_STRATEGIES = {"tensor_cores", "staged_tiles"}


def strategy(launch: dict) -> str:
    """How the kernel maps its op onto threads (engines older than the
    "strategy" field only say whether it is a tensor-core kernel)."""
    return launch.get("strategy") or ("tensor_cores" if launch.get("tensor_cores") else "simt")


def describe_tile(tile: dict | None) -> str:
    """"warp=2x2,step=32,stages=3,groups=1,mma=sync" (its given parts), or ""."""
    if not tile:
        return ""
    parts = []
    if "warp" in tile:
        parts.append("warp={}x{}".format(*tile["warp"]))
    parts += [f"{key}={tile[key]}" for key in ("step", "stages", "groups", "mma") if key in tile]
    return ",".join(parts)


def describe_contraction(contraction: dict | None) -> str:
    """"batch=1,m=128,n=768,k=768,a=row,b=col", or ""."""
    if not contraction:
        return ""
    return ",".join(f"{key}={contraction[key]}" for key in ("batch", "m", "n", "k", "a", "b"))


def tuned_plans_entries(plans: dict[str, tuple[dict, dict]]) -> list[dict]:
    """The "plans" list of a tuned-plans file (infer-opt --cuda-tile-plans)
    from {contraction text: (contraction, tile plan)}, in a stable order."""
    return [{"contraction": contraction, "plan": tile}
            for _, (contraction, tile) in sorted(plans.items())]


def tiles_in_mlir(text: str) -> list[str]:
    """The tile plans of the launch records (#plan.launch) in MLIR text
    (`--dump-kernels`' kernels.mlir), in launch order, in the text form."""


    return ["warp={}x{},step={},stages={},groups={},mma={}".format(*fields) for fields in re.findall(
        r"tile = <warp_m = (\d+), warp_n = (\d+), step = (\d+), stages = (\d+), groups = (\d+), "
        r"mma = (\w+)>", text)]
