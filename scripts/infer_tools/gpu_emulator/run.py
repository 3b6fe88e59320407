"""Running a gpu.func over a batch of threads: values, masks, control flow.
"""

from __future__ import annotations

import re

import numpy as np

from .arith import FLOAT_BINARY, FLOAT_UNARY, INT_BINARY, ArithOps
from .base import WARP, EmulationError
from .ir import Op, Region, cached
from .memory import View
from .memory_ops import MemoryOps
from .wmma import WmmaOps
from .async_copy import AsyncCopyOps
from .mma_sync import MmaSyncOps


def _handler(cls, name: str):
    """The function that runs the op `name` on a `cls` (Run): its op_
    method, or a numpy function of the tables; an op the emulator does not
    know is an error when it runs."""
    method = getattr(cls, "op_" + name.replace(".", "_"), None)
    if method:
        return method
    if name in FLOAT_BINARY:
        binary = FLOAT_BINARY[name]
        return lambda run, op, ins, mask: binary(ins[0], ins[1]).astype(ins[0].dtype)
    if name in FLOAT_UNARY:
        unary = FLOAT_UNARY[name]
        return lambda run, op, ins, mask: np.asarray(unary(ins[0])).astype(ins[0].dtype)
    if name in INT_BINARY:
        integer = INT_BINARY[name]
        return lambda run, op, ins, mask: integer(ins[0], ins[1]).astype(ins[0].dtype)

    def unknown(run, op, ins, mask):
        raise EmulationError(f"the emulator does not know {name}")
    return unknown


class Run(ArithOps, MemoryOps, WmmaOps, MmaSyncOps, AsyncCopyOps):
    """One batch of threads (a block, or several when the kernel has no
    shared memory) running a gpu.func."""

    def __init__(self, emulator: "Emulator", block_size: int, first_block: int, blocks: int,
                 grid: int):
        self.emulator = emulator
        # A block of part of a warp (a single-thread kernel) is padded to
        # whole warps with threads that never run.
        self.lanes_per_block = -(-block_size // WARP) * WARP
        self.threads = self.lanes_per_block * blocks
        self.block_size, self.first_block, self.grid = block_size, first_block, grid
        self.warps = self.threads // WARP
        lane = np.arange(self.threads, dtype=np.int64)
        self.thread_id = lane % self.lanes_per_block
        self.block_id = first_block + lane // self.lanes_per_block
        self.real = self.thread_id < block_size  # The threads that exist.
        self.epoch = 0
        self.warp_syncs = np.zeros(self.warps, dtype=np.int64)  # Warp barriers passed.
        self.env: dict[str, object] = {}
        self.fragment_layouts: dict[str, bool] = {}  # WMMA fragment: loaded col-major?
        self.async_copies: list = []  # cp.async copies in flight (async_copy.py).
        self.async_committed = np.zeros(self.threads, dtype=np.int64)  # Groups committed.
        self.traffic = emulator.traffic  # The launch's Traffic, or None (not counted).
        self.quiet = False  # In numpy's errstate of run_op.

    # -- helpers -------------------------------------------------------------

    def full(self, value, dtype) -> np.ndarray:
        return np.full(self.threads, value, dtype=dtype)

    def uniform_per_warp(self, values: np.ndarray, what: str, mask: np.ndarray) -> np.ndarray:
        lanes = values.reshape(self.warps, WARP, *values.shape[1:])
        active = mask.reshape(self.warps, WARP).all(1)
        if (lanes[active] != lanes[active][:, :1]).any():
            raise EmulationError(f"{what} differs within a warp")
        return lanes[:, 0]

    def active_warps(self, mask: np.ndarray, what: str) -> np.ndarray:
        lanes = mask.reshape(self.warps, WARP)
        if (lanes.any(1) != lanes.all(1)).any():
            raise EmulationError(f"{what} with part of a warp")
        return np.flatnonzero(lanes.all(1))

    # -- regions ---------------------------------------------------------------

    def run_region(self, region: Region, args: list, mask: np.ndarray) -> list:
        if len(region.blocks) > 1:
            return self.run_cfg(region, args, mask)
        for (name, _), value in zip(region.args, args):
            self.env[name] = value
        for op in region.ops:
            if op.name in ("scf.yield", "gpu.return", "func.return", "scf.condition"):
                return [self.env[o] for o in op.operands]
            self.run_op(op, mask)
        return []

    def run_cfg(self, region: Region, args: list, mask: np.ndarray) -> list:
        """A region of several blocks (cf.br, cf.cond_br: the helpers that
        math-to-funcs makes). Each thread has its own block; the lowest
        block that some thread is at runs next, for those threads, and a
        value keeps its other threads' entries."""
        index = {block.label: k for k, block in enumerate(region.blocks)}
        at = np.zeros(self.threads, dtype=np.int64)
        done = ~mask
        results = None

        def assign(name, value, lanes):
            old = self.env.get(name)
            self.env[name] = value if old is None else self.merge(lanes, value, old, mask)

        for (name, _), value in zip(region.args, args):
            self.env[name] = value
        while not done.all():
            k = int(at[~done].min())
            lanes = ~done & (at == k)
            block = region.blocks[k]
            for op in block.ops[:-1]:
                old = {r: self.env.get(r) for r in op.results}
                self.run_op(op, lanes)
                for r in op.results:
                    if old[r] is not None:
                        self.env[r] = self.merge(lanes, self.env[r], old[r], mask)
            end = block.ops[-1]
            values = [self.env[o] for o in end.operands]
            if end.name in ("func.return", "gpu.return"):
                results = values if results is None else \
                    [self.merge(lanes, v, r, mask) for v, r in zip(values, results)]
                done = done | lanes
                continue
            targets = [t.strip() for t in re.match(r"\s*\[([^\]]*)\]", end.text).group(1)
                       .split(",")]
            if end.name == "cf.br":
                branches = [(lanes, targets[0], values)]
            elif end.name == "cf.cond_br":
                sizes = [int(v) for v in re.search(r"operandSegmentSizes = array<i32: ([\d, ]*)>",
                                                   end.text).group(1).split(",")]
                cond = values[0].astype(bool)
                branches = [(lanes & cond, targets[0], values[1:1 + sizes[1]]),
                            (lanes & ~cond, targets[1], values[1 + sizes[1]:])]
            else:
                raise EmulationError(f"the emulator does not know the terminator {end.name}")
            for taken, target, operands in branches:
                if not taken.any():
                    continue
                for (name, _), value in zip(region.blocks[index[target]].args, operands):
                    assign(name, value, taken)
                at = np.where(taken, index[target], at)
        return results or []

    def merge(self, cond: np.ndarray, a, b, mask: np.ndarray):
        """Per-thread choice between two values of one SSA type."""
        if a is None or b is None:
            return a if b is None else b
        if isinstance(a, View):
            return a  # Views are the same buffer on both sides (checked by use).
        if a.ndim == 3 and a.shape[0] == self.warps and a.shape[0] != self.threads:
            choose = self.uniform_per_warp(cond, "a fragment's condition", mask)
            return np.where(choose.reshape(-1, 1, 1), a, b)
        return np.where(cond.reshape((-1,) + (1,) * (a.ndim - 1)), a, b)

    def run_if(self, op: Op, cond: np.ndarray, mask: np.ndarray):
        then_mask, else_mask = mask & cond, mask & ~cond
        then_values = self.run_region(op.regions[0], [], then_mask) if then_mask.any() else None
        else_values = None
        if len(op.regions) > 1 and op.regions[1].ops and else_mask.any():
            else_values = self.run_region(op.regions[1], [], else_mask)
        if not op.results:
            return None
        return [self.merge(cond, then_values[k] if then_values else None,
                           else_values[k] if else_values else None, mask)
                for k in range(len(op.results))]

    def run_for(self, op: Op, ins: list, mask: np.ndarray):
        lower, upper, step = ins[:3]
        values = list(ins[3:])
        live = mask.copy()
        i = lower.copy()
        while True:
            live = live & (i < upper)
            if not live.any():
                return values
            new = self.run_region(op.regions[0], [i] + values, live)
            values = [self.merge(live, n, v, mask) for n, v in zip(new, values)]
            i = np.where(live, i + step, i)

    def run_while(self, op: Op, ins: list, mask: np.ndarray):
        values, live, results = list(ins), mask.copy(), None
        while True:
            out = self.run_region(op.regions[0], values, live)
            cond, forwarded = out[0], out[1:]
            results = forwarded if results is None else \
                [self.merge(live, f, r, mask) for f, r in zip(forwarded, results)]
            live = live & cond
            if not live.any():
                return results
            new = self.run_region(op.regions[1], forwarded, live)
            values = [self.merge(live, n, v, mask) for n, v in zip(new, values)]

    # -- ops -------------------------------------------------------------------

    def run_op(self, op: Op, mask: np.ndarray) -> None:
        env = self.env
        ins = [env[o] for o in op.operands]
        handler = op.cache.get("handler")
        if handler is None:
            handler = op.cache["handler"] = _handler(type(self), op.name)
        try:
            if self.quiet:  # Inside an op (a loop's or a branch's body).
                out = handler(self, op, ins, mask)
            else:
                with np.errstate(all="ignore"):  # As on a GPU: no traps, wrapping integers.
                    self.quiet = True
                    try:
                        out = handler(self, op, ins, mask)
                    finally:
                        self.quiet = False
        except EmulationError:
            raise
        except Exception as e:  # The emulator's own failure: say where.
            raise EmulationError(f"{op.name} {' '.join(op.results)}: {type(e).__name__}: {e}") \
                from e
        if op.results:
            if len(op.results) == 1 and not isinstance(out, (list, tuple)):
                out = [out]
            for result, value in zip(op.results, out):
                env[result] = value

    def op_gpu_thread_id(self, op, ins, mask):
        self.only_x(op)
        return self.thread_id.copy()

    def op_gpu_block_id(self, op, ins, mask):
        self.only_x(op)
        return self.block_id.copy()

    @staticmethod
    def only_x(op):
        if "#gpu<dim x>" not in op.text:  # The plan launches 1-D grids and blocks.
            raise EmulationError(f"{op.name}: only dimension x is emulated")

    def op_gpu_block_dim(self, op, ins, mask):
        self.only_x(op)
        return self.full(self.block_size, np.int64)

    def op_gpu_grid_dim(self, op, ins, mask):
        self.only_x(op)
        return self.full(self.grid, np.int64)

    def op_gpu_barrier(self, op, ins, mask):
        if (mask != self.real).any():
            raise EmulationError("gpu.barrier not reached by every thread of the block")
        self.epoch += 1

    def op_nvvm_bar_warp_sync(self, op, ins, mask):
        """__syncwarp: the whole warp, orders its lanes' shared-memory accesses."""
        if (ins[0][mask] != -1).any():
            raise EmulationError("nvvm.bar.warp.sync with a mask other than the whole warp")
        self.warp_syncs[self.active_warps(mask, op.name)] += 1

    def op_gpu_shuffle(self, op, ins, mask):
        value, offset, width = ins
        mode = cached(op, "mode",
                      lambda: re.search(r"mode = #gpu<shuffle_mode (\w+)>", op.text).group(1))
        self.active_warps(mask, "gpu.shuffle")
        offset = self.uniform_per_warp(offset, "a shuffle's offset", mask)
        width = self.uniform_per_warp(width, "a shuffle's width", mask)
        lane = np.arange(self.threads) % WARP
        offset = np.repeat(offset, WARP)
        width = np.repeat(width, WARP)
        source = {"xor": lane ^ offset, "down": lane + offset, "up": lane - offset,
                  "idx": offset}[mode]
        valid = (source >= 0) & (source < width)
        index = np.arange(self.threads) - lane + np.where(valid, source, lane)
        return [value[index], valid]

    def op_scf_if(self, op, ins, mask):
        return self.run_if(op, ins[0], mask)

    def op_scf_for(self, op, ins, mask):
        return self.run_for(op, ins, mask)

    def op_scf_while(self, op, ins, mask):
        return self.run_while(op, ins, mask)

    def op_func_call(self, op, ins, mask):
        callee = cached(op, "callee", lambda: re.search(r"callee = @([\w$.]+)", op.text).group(1))
        caller, self.env = self.env, {}  # Value names restart in each function.
        try:
            return self.run_region(self.emulator.function(callee).regions[0], ins, mask)
        finally:
            self.env = caller
