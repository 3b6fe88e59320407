"""Runs the CUDA kernels of infer-opt on the CPU: a GPU emulator for tests.

The input is the module after infer-cuda-map-to-gpu in MLIR's generic form:
the kernels as gpu.funcs and the plan in ``plan.launches``. ``infer-opt
--target=cuda:... --dump-kernels DIR`` writes it as DIR/kernels.mlir;
``infer-opt X.mlir --infer-outline-kernels=root-arguments=true
--infer-cuda-map-to-gpu --mlir-print-op-generic`` prints it for a test.
``Emulator(text).run(buffers)`` makes every launch over numpy buffers (one
per argument of the entry: inputs, weights, outputs, arena), so that a
kernel's index arithmetic, tiling, shared memory and barriers are checked
against numpy or ONNX Runtime without a GPU (scripts/cuda_plan_exec.py
--emulate runs a whole engine so).

How it runs: the threads of a block in lockstep, each SSA value an array
with one entry per thread (a WMMA fragment: one logical matrix per warp).
A kernel without shared memory runs many blocks at once. A divergent
scf.if (or a loop whose lanes stop at different times) runs under a mask;
memory accesses are made by the active threads only.

What it checks, where a GPU would compute garbage or hang instead: every
access inside its memref and buffer; vector accesses aligned as their
``alignment`` says, WMMA fragments on 32-byte boundaries with lead dims a
multiple of 16 bytes; WMMA ops, their indices and shuffles uniform over
whole warps; WMMA products taking their fragments in the layouts they were
loaded in; barriers reached by every thread of the block; no shared
memory written by one warp and read or written by another without a barrier
in between (writes of the same value excepted: they are benign); no read of
shared memory nothing wrote.

TF32: by default a WMMA product's inputs are exact (products exact, each
step's sum rounded to the float32 accumulator), so that results can be held
to float32's tolerance. ``Emulator(text, tf32="rna")`` rounds A's and B's
elements to TF32 first, to nearest with ties away from zero, as the kernels'
cvt.rna.tf32.f32 does (withTF32Rounding, lib/Codegen/CUDA/RoundTF32.cpp);
``tf32="truncate"`` drops their 13 low mantissa bits instead, what the
tensor cores make of unconverted float32 operands. Either predicts a TF32
engine's distance from float32 on a GPU.

Traffic: ``Emulator(text, traffic=True)`` also counts each launch's memory
traffic (``launch_traffic``: global sectors per request, DRAM bytes, shared
memory bank conflicts; traffic.py), a measure of how well a kernel uses the
memory system that needs no GPU.

What it does not model: the precision of the GPU's math
functions (numpy's), fused multiply-adds (ops marked fastmath<contract>
become one fma on the GPU, rounded once; here a product and a sum are
rounded apart), the order of accesses within a warp, races in global
memory, and anything the lowering to NVVM does. An op it does not know is an error
that names it.
"""

from __future__ import annotations

import re

import numpy as np

from .base import CHUNK_THREADS, EmulationError
from .ir import Op, parse_region
from .memory import Buffer, View, parse_dense, parse_memref
from .run import Run
from .traffic import Traffic

__all__ = ["Buffer", "EmulationError", "Emulator", "Traffic", "View", "run_launches"]


def _uses(op: Op, name: str) -> bool:
    return any(inner.name == name or _uses(inner, name)
               for region in op.regions for inner in region.ops)


class Emulator:
    """The kernels and launches of one module (generic form)."""

    def __init__(self, text: str, tf32: str | None = None, traffic: bool = False):
        if tf32 not in (None, "rna", "truncate"):
            raise ValueError(f"tf32 must be None, 'rna' or 'truncate', not {tf32!r}")
        self.tf32 = tf32
        # With `traffic`, each launch's memory traffic (traffic.py), in the
        # order of the launches.
        self.counts_traffic = traffic
        self.traffic: Traffic | None = None  # The running launch's.
        self.launch_traffic: list[Traffic] = []
        lines = [line for line in text.splitlines() if line.strip()]
        # Attribute aliases (#map = affine_map<...>) are spelled out where used.
        aliases = dict(re.match(r"^(#\w+) = (.*)$", line).groups() for line in lines
                       if line.startswith("#"))
        lines = [line for line in lines if not line.startswith("#")]
        if aliases:
            pattern = re.compile("|".join(re.escape(a) + r"\b" for a in
                                          sorted(aliases, key=len, reverse=True)))
            lines = [pattern.sub(lambda m: aliases[m.group(0)], line) for line in lines]
        module = parse_region(lines, 0)[0].ops[0]
        self.funcs: dict[str, Op] = {}
        self.globals: dict[str, Op] = {}
        self._global_views: dict[str, View] = {}
        for op in module.regions[0].ops:
            if op.name != "gpu.module":
                continue
            for symbol in op.regions[0].ops:
                match = re.search(r'sym_name = "([\w$.]+)"', symbol.text)
                if symbol.name in ("gpu.func", "func.func"):
                    self.funcs[match.group(1)] = symbol
                elif symbol.name == "memref.global":
                    self.globals[match.group(1)] = symbol
        self.launches = []
        # Each launch record (#plan.launch, PlanAttrs.td) opens with its
        # kernel, grid, block and arguments; its strategy and plan follow.
        for record in re.findall(r"#plan\.launch<[^>]*", module.text):
            field = {key: re.search(pattern, record) for key, pattern in (
                ("args", r"args = \[([\d, ]*)\]"), ("block", r"block = (\d+)"),
                ("grid", r"grid = (\d+)"), ("kernel", r'kernel = "(\w+)"'))}
            missing = [key for key, found in field.items() if not found]
            if missing:
                raise EmulationError(f"a launch record without {', '.join(missing)}: {record}")
            self.launches.append({
                "args": [int(a) for a in field["args"].group(1).split(",") if a.strip()],
                "block": int(field["block"].group(1)), "grid": int(field["grid"].group(1)),
                "kernel": field["kernel"].group(1)})
        if not self.launches and any(f.name == "gpu.func" for f in self.funcs.values()):
            raise EmulationError("kernels but no launch records (plan.launches) to run them")

    def function(self, name: str) -> Op:
        if name not in self.funcs:
            raise EmulationError(f"no function @{name} in the GPU module")
        return self.funcs[name]

    def global_view(self, name: str) -> View:
        if name not in self._global_views:
            symbol = self.globals[name]
            typ = parse_memref(re.search(r"type = (memref<[^>]*>)", symbol.text).group(1))
            data = parse_dense(symbol.text, typ)
            self._global_views[name] = View(Buffer(np.ascontiguousarray(data)), 0, typ)
        return self._global_views[name]

    def run(self, buffers: list[np.ndarray]) -> None:
        """Makes every launch of the module's plan over `buffers` (one array
        per argument of the entry function), in place."""
        wrapped = [Buffer(b) for b in buffers]
        for launch in self.launches:
            self.launch(launch["kernel"], launch["grid"], launch["block"],
                        [wrapped[i] for i in launch["args"]])

    def launch(self, kernel: str, grid: int, block: int, args: list[Buffer]) -> None:
        """Runs `kernel` on `grid` blocks of `block` threads over `args` (one
        buffer per kernel argument)."""
        func = self.function(kernel)
        region = func.regions[0]
        self.traffic = Traffic() if self.counts_traffic else None
        views = [View(buffer, 0, parse_memref(typ)) for (_, typ), buffer in zip(region.args, args)]
        workgroup = [parse_memref(typ) for _, typ in region.args[len(args):]]
        # Blocks that share nothing run together.
        together = 1 if workgroup or _uses(func, "gpu.barrier") else max(1, CHUNK_THREADS // block)
        for first in range(0, grid, together):
            run = Run(self, block, first, min(together, grid - first), grid)
            shared = [View(Buffer(np.zeros(int(np.prod(t.shape)), dtype=t.dtype), shared=True),
                           0, t) for t in workgroup]
            try:
                run.run_region(region, views + shared, run.real.copy())
                run.check_no_copies_in_flight()
            except EmulationError as e:
                raise EmulationError(f"{kernel} (blocks from {first}): {e}") from e
        if self.traffic is not None:
            self.traffic.finish()
            self.launch_traffic.append(self.traffic)
            self.traffic = None


def run_launches(text: str, buffers: list[np.ndarray]) -> None:
    """Runs every launch of the module `text` over `buffers`, in place."""
    Emulator(text).run(buffers)
