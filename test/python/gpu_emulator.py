"""Runs the tensor-core kernels of infer-cuda-map-to-gpu on the CPU, for tests.

``infer-opt X.mlir --infer-outline-kernels=root-arguments=true
--infer-cuda-map-to-gpu --mlir-print-op-generic`` prints a module whose
gpu.funcs are the kernels and whose ``infer.launches`` is the plan.
``run_launches(text, buffers)`` parses that (MLIR's generic form) and runs
every launch over numpy buffers, one thread block at a time, so that a
kernel's index arithmetic, tiling, shared-memory staging and barriers can
be checked against numpy without a GPU.

How it runs a block: its threads in lockstep, each SSA value an array with
one entry per thread (a WMMA fragment: one logical matrix per warp). A
divergent scf.if runs each side under a mask; memory accesses are made by
the active threads only.

What it checks, where a GPU would compute garbage or hang instead: every
access inside its memref and buffer; vector accesses aligned as their
`alignment` says and WMMA fragments on 32-byte boundaries with lead dims a
multiple of 16 bytes; WMMA ops, and their indices, uniform over whole
warps; barriers reached by every thread of the block; no shared memory
written by one warp and read or written by another without a barrier in
between (writes of the same value excepted: they are benign); no read of
shared memory that nothing wrote (it starts as NaN).

What it does not model: TF32 rounding (products are exact float64), the
order of accesses within a warp, anything the lowering to NVVM does, and
ops other than those the tensor-core kernels use (it says which).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

WARP = 32


class EmulationError(Exception):
    """The kernel did something a GPU would not do right."""


# ----------------------------------------------------------------------------
# Parsing MLIR's generic form (the subset the kernels use).


@dataclass
class Op:
    name: str
    results: list[str]
    operands: list[str]
    text: str  # Properties, attributes and types, as printed.
    regions: list["Region"] = field(default_factory=list)


@dataclass
class Region:
    args: list[tuple[str, str]]  # (name, type)
    ops: list[Op]


_OP = re.compile(r'^(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\(([^)]*)\)(.*)$')
_BLOCK = re.compile(r"^\^bb\d+\((.*)\):$")


def _split_args(text: str) -> list[tuple[str, str]]:
    """'%a: type, %b: type' (types may hold commas inside <...>)."""
    args, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            name, typ = text[start:i].split(":", 1)
            args.append((name.strip(), typ.strip()))
            start = i + 1
    return args


def _parse_ops(lines: list[str], i: int) -> tuple[list[Op], int, str]:
    """Ops from line i to the end of their region; returns them, the index
    of the line that ends the region, and how it ends ('}, {' or '})')."""
    ops = []
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("}, {") or line.startswith("})"):
            return ops, i, line
        match = _OP.match(line)
        if not match:
            raise EmulationError(f"cannot parse: {line[:120]}")
        result, count, name, operands, rest = match.groups()
        results = []
        if result:
            results = [f"{result}#{k}" for k in range(int(count))] if count else [result]
        op = Op(name, results, [o.strip() for o in operands.split(",") if o.strip()], rest)
        i += 1
        if rest.rstrip().endswith("({"):
            while True:
                args = []
                block = _BLOCK.match(lines[i].strip())
                if block:
                    args = _split_args(block.group(1))
                    i += 1
                body, i, end = _parse_ops(lines, i)
                op.regions.append(Region(args, body))
                i += 1
                if end.startswith("})"):
                    op.text += end[2:]
                    break
        ops.append(op)
    return ops, i, ""


def parse_module(text: str) -> tuple[dict[str, Op], list[dict]]:
    """The gpu.funcs by name, and the launches of infer.launches."""
    lines = [line for line in text.splitlines() if line.strip()]
    ops, _, _ = _parse_ops(lines, 0)
    module = ops[0]
    funcs = {}
    for op in module.regions[0].ops:
        if op.name == "gpu.module":
            for func in op.regions[0].ops:
                if func.name == "gpu.func":
                    funcs[re.search(r'sym_name = "(\w+)"', func.text).group(1)] = func
    launches = []
    for entry in re.finditer(r"\{args = \[([\d, ]*)\], block = (\d+) : i64, grid = (\d+) : i64, "
                             r'kernel = "(\w+)"', module.text):
        args, block, grid, kernel = entry.groups()
        launches.append({"args": [int(a) for a in args.split(",") if a.strip()],
                         "block": int(block), "grid": int(grid), "kernel": kernel})
    return funcs, launches


# ----------------------------------------------------------------------------
# Values.


@dataclass
class Buffer:
    data: np.ndarray  # Flat float32 (or float64) elements.
    shared: bool = False

    def __post_init__(self):
        if self.shared:
            n = self.data.size
            self.write_epoch = np.full(n, -1)
            self.write_warp = np.full(n, -1)
            self.read_epoch = np.full(n, -1)
            self.read_warp = np.full(n, -1)  # -2: several warps.


@dataclass
class View:
    buffer: Buffer
    offset: int
    shape: list[int]
    strides: list[int]

    def element(self, indices: list[int]) -> int:
        for index, size in zip(indices, self.shape):
            if not 0 <= index < size:
                raise EmulationError(f"index {indices} outside memref of shape {self.shape}")
        return self.offset + sum(i * s for i, s in zip(indices, self.strides))


def parse_memref(typ: str) -> tuple[list[int], list[int], int]:
    """Shape, strides and offset of a memref type."""
    match = re.match(r"memref<((?:\d+x)*)(f32|f64|f16|i32|i64)(.*)>$", typ)
    if not match:
        raise EmulationError(f"unsupported memref type {typ}")
    shape = [int(d) for d in match.group(1).split("x") if d]
    strides, offset = [], 0
    layout = re.search(r"strided<\[([-\d, ]*)\](?:, offset: (-?\d+))?>", match.group(3))
    if layout:
        strides = [int(s) for s in layout.group(1).split(",") if s.strip()]
        offset = int(layout.group(2) or 0)
    else:
        stride = 1
        for size in reversed(shape):
            strides.insert(0, stride)
            stride *= size
    return shape, strides, offset


def _prop(op: Op, name: str) -> str:
    match = re.search(name + r" = ([^,}]+)", op.text)
    if not match:
        raise EmulationError(f"{op.name}: no {name}")
    return match.group(1).strip()


def _mma_shape(op: Op) -> tuple[int, int]:
    rows, cols = re.search(r"-> !gpu\.mma_matrix<(\d+)x(\d+)xf32", op.text).groups()
    return int(rows), int(cols)


_PREDICATES = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
               5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater,
               9: np.greater_equal}


# ----------------------------------------------------------------------------
# Running a block.


class BlockRun:
    def __init__(self, threads: int, block: int):
        if threads % WARP:
            raise EmulationError(f"block of {threads} threads is not whole warps")
        self.threads, self.block = threads, block
        self.warps = threads // WARP
        self.epoch = 0
        self.env: dict[str, object] = {}

    # -- helpers -------------------------------------------------------------

    def uniform(self, value: np.ndarray, mask: np.ndarray, what: str) -> int:
        active = value[mask]
        if active.size and (active != active[0]).any():
            raise EmulationError(f"{what} differs between threads")
        return int(active[0]) if active.size else 0

    def active_warps(self, mask: np.ndarray, what: str) -> np.ndarray:
        lanes = mask.reshape(self.warps, WARP)
        if (lanes.any(1) != lanes.all(1)).any():
            raise EmulationError(f"{what} with part of a warp")
        return np.flatnonzero(lanes.all(1))

    def warp_index(self, op: Op, view: View, mask: np.ndarray, warp: int) -> int:
        lanes = slice(warp * WARP, (warp + 1) * WARP)
        indices = []
        for name in op.operands[2 if op.name.endswith("store_matrix") else 1:]:
            values = self.env[name][lanes]
            if (values != values[0]).any():
                raise EmulationError(f"{op.name}: index differs within warp {warp}")
            indices.append(int(values[0]))
        return view.element(indices)

    def fragment(self, op: Op, view: View, base: int, rows: int, cols: int) -> np.ndarray:
        lead = int(_prop(op, "leadDimension").split(":")[0])
        size = view.buffer.data.itemsize
        if (base * size) % 32 or (lead * size) % 16:
            raise EmulationError(f"{op.name}: fragment at element {base} or lead dim {lead} "
                                 "misaligned (32-byte fragments, 16-byte lead dims)")
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        offsets = base + (c * lead + r if "transpose" in op.text else r * lead + c)
        self.check_bounds(op, view, offsets)
        return offsets

    def check_bounds(self, op: Op, view: View, offsets: np.ndarray) -> None:
        extent = sum((n - 1) * s for n, s in zip(view.shape, view.strides)) + 1
        rel = offsets - view.offset
        if rel.min() < 0 or rel.max() >= extent or offsets.max() >= view.buffer.data.size:
            raise EmulationError(f"{op.name}: access outside its memref ({view.shape}, elements "
                                 f"{offsets.min()}..{offsets.max()})")

    def touch(self, buffer: Buffer, offsets: np.ndarray, warp: int, write: bool,
              values: np.ndarray | None = None) -> None:
        if not buffer.shared:
            return
        offsets = offsets.ravel()
        e = self.epoch
        if write:
            racing = (buffer.read_epoch[offsets] == e) & (buffer.read_warp[offsets] != warp)
            if racing.any():
                raise EmulationError("shared memory written while another warp reads it, with "
                                     "no barrier between")
            clobber = (buffer.write_epoch[offsets] == e) & (buffer.write_warp[offsets] != warp)
            if clobber.any() and not np.array_equal(buffer.data[offsets][clobber],
                                                    values.ravel()[clobber]):
                raise EmulationError("shared memory written by two warps with no barrier between")
            buffer.write_epoch[offsets] = e
            buffer.write_warp[offsets] = warp
        else:
            stale = (buffer.write_epoch[offsets] == e) & (buffer.write_warp[offsets] != warp)
            if stale.any():
                raise EmulationError("shared memory read while another warp writes it, with no "
                                     "barrier between")
            if np.isnan(buffer.data[offsets]).any():
                raise EmulationError("shared memory read before anything wrote it")
            same = buffer.read_epoch[offsets] == e
            other = same & (buffer.read_warp[offsets] != warp)
            buffer.read_warp[offsets] = np.where(other, -2,
                                                 np.where(same, buffer.read_warp[offsets], warp))
            buffer.read_epoch[offsets] = e

    # -- ops -----------------------------------------------------------------

    def run_region(self, region: Region, args: list, mask: np.ndarray) -> list:
        for (name, _), value in zip(region.args, args):
            self.env[name] = value
        for op in region.ops:
            if op.name in ("scf.yield", "gpu.return"):
                return [self.env[o] for o in op.operands]
            self.run_op(op, mask)
        return []

    def run_op(self, op: Op, mask: np.ndarray) -> None:
        env, T = self.env, self.threads
        ins = [env[o] for o in op.operands]
        out = None
        name = op.name
        if name == "arith.constant":
            text, _, typ = _prop(op, "value").partition(":")
            text, typ = text.strip(), typ.strip()
            if text in ("true", "false"):
                out = np.full(T, text == "true")
            elif typ in ("f32", "f64"):
                out = np.full(T, float(text))
            else:
                out = np.full(T, int(text), dtype=np.int64)
        elif name in ("arith.addi", "arith.muli", "arith.subi"):
            a, b = ins
            out = a + b if name == "arith.addi" else a * b if name == "arith.muli" else a - b
        elif name in ("arith.divui", "arith.remui"):
            a, b = ins
            safe = np.where(b == 0, 1, b)
            out = a // safe if name == "arith.divui" else a % safe
        elif name == "arith.minui":
            out = np.minimum(*ins)
        elif name == "arith.cmpi":
            out = _PREDICATES[int(_prop(op, "predicate").split(":")[0])](*ins)
        elif name in ("arith.andi", "arith.ori", "arith.xori"):
            a, b = ins
            f = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
                 "arith.xori": np.bitwise_xor}[name]
            out = f(a, b)
        elif name == "arith.select":
            out = np.where(ins[0], ins[1], ins[2])
        elif name == "gpu.thread_id":
            out = np.arange(T, dtype=np.int64)
        elif name == "gpu.block_id":
            out = np.full(T, self.block, dtype=np.int64)
        elif name == "gpu.barrier":
            if not mask.all():
                raise EmulationError("gpu.barrier not reached by every thread of the block")
            self.epoch += 1
        elif name in ("memref.subview", "memref.reinterpret_cast"):
            # Static offsets, sizes and strides: the result type says them all.
            shape, strides, offset = parse_memref(op.text.rsplit("-> ", 1)[1].strip())
            out = View(ins[0].buffer, offset, shape, strides)
        elif name in ("vector.load", "vector.store"):
            out = self.vector_access(op, ins, mask)
        elif name == "scf.if":
            out = self.run_if(op, ins[0], mask)
        elif name == "scf.for":
            out = self.run_for(op, ins, mask)
        elif name.startswith("gpu.subgroup_mma_"):
            out = self.mma(op, ins, mask)
        else:
            raise EmulationError(f"the emulator does not know {name}")
        if op.results:
            if len(op.results) == 1 and not isinstance(out, list):
                out = [out]
            for result, value in zip(op.results, out):
                env[result] = value

    def vector_access(self, op: Op, ins: list, mask: np.ndarray) -> np.ndarray | None:
        store = op.name == "vector.store"
        value, view, indices = (ins[0], ins[1], ins[2:]) if store else (None, ins[0], ins[1:])
        lanes = int(re.search(r"vector<(\d+)x", op.text).group(1))
        size = view.buffer.data.itemsize
        align = int(re.search(r"alignment = (\d+)", op.text).group(1)) if "alignment" in op.text \
            else size
        if view.strides[-1] != 1:
            raise EmulationError(f"{op.name}: innermost stride {view.strides[-1]}")
        threads = np.flatnonzero(mask)
        index = np.stack([i[threads] for i in indices], axis=1)
        shape = np.array(view.shape)
        if (index < 0).any() or (index >= shape).any() or (index[:, -1] + lanes > shape[-1]).any():
            raise EmulationError(f"{op.name}: vector outside memref of shape {view.shape}")
        starts = view.offset + index @ np.array(view.strides)
        if ((starts * size) % align).any():
            raise EmulationError(f"{op.name}: an access not {align}-byte aligned")
        offsets = starts[:, None] + np.arange(lanes)
        if offsets.max(initial=0) >= view.buffer.data.size:
            raise EmulationError(f"{op.name}: outside its buffer")
        warps = threads // WARP
        for w in np.unique(warps):
            mine = warps == w
            self.touch(view.buffer, offsets[mine], int(w), store,
                       value[threads[mine]] if store else None)
            if store:
                view.buffer.data[offsets[mine]] = value[threads[mine]]
        if store:
            return None
        result = np.zeros((self.threads, lanes))
        result[threads] = view.buffer.data[offsets]
        return result

    def run_if(self, op: Op, cond: np.ndarray, mask: np.ndarray):
        sides = []
        for region, side in zip(op.regions, (mask & cond, mask & ~cond)):
            sides.append((self.run_region(region, [], side) if side.any() else None, side))
        if not op.results:
            return None
        then_values = sides[0][0]
        else_values = sides[1][0] if len(sides) > 1 else None
        results = []
        for k in range(len(op.results)):
            a = then_values[k] if then_values is not None else None
            b = else_values[k] if else_values is not None else None
            if a is None or b is None:
                results.append(a if b is None else b)
                continue
            if a.shape[0] == self.warps and a.ndim == 3:  # A fragment: per warp.
                warp_cond = cond.reshape(self.warps, WARP)
                for w in self.active_warps(mask, "scf.if yielding a fragment"):
                    if (warp_cond[w] != warp_cond[w][0]).any():
                        raise EmulationError("scf.if yields a fragment on a divergent condition")
                choose = warp_cond[:, 0].reshape(-1, 1, 1)
            else:
                choose = cond.reshape((-1,) + (1,) * (a.ndim - 1))
            results.append(np.where(choose, a, b))
        return results

    def run_for(self, op: Op, ins: list, mask: np.ndarray):
        lower, upper, step = (self.uniform(v, mask, "scf.for bound") for v in ins[:3])
        values = list(ins[3:])
        for i in range(lower, upper, step):
            values = self.run_region(op.regions[0], [np.full(self.threads, i)] + values, mask)
        return values

    def mma(self, op: Op, ins: list, mask: np.ndarray):
        warps = self.active_warps(mask, op.name)
        kind = op.name[len("gpu.subgroup_mma_"):]
        if kind == "load_matrix":
            view = ins[0]
            rows, cols = _mma_shape(op)
            out = np.zeros((self.warps, rows, cols))
            for w in warps:
                offsets = self.fragment(op, view, self.warp_index(op, view, mask, w), rows, cols)
                self.touch(view.buffer, offsets, w, False)
                out[w] = view.buffer.data[offsets]
            return out
        if kind == "store_matrix":
            value, view = ins[0], ins[1]
            for w in warps:
                rows, cols = value.shape[1:]
                offsets = self.fragment(op, view, self.warp_index(op, view, mask, w), rows, cols)
                self.touch(view.buffer, offsets, w, True, value[w])
                view.buffer.data[offsets] = value[w]
            return None
        if kind == "compute":
            a, b, c = ins
            return c + a @ b
        if kind == "constant_matrix":
            rows, cols = _mma_shape(op)
            return np.repeat(ins[0].reshape(self.warps, WARP)[:, :1], rows * cols, 1) \
                .reshape(self.warps, rows, cols)
        if kind == "elementwise":
            kinds = {"addf": np.add, "mulf": np.multiply, "subf": np.subtract,
                     "maxf": np.maximum, "minf": np.minimum}
            which = re.search(r"mma_element_wise (\w+)", op.text).group(1)
            return kinds[which](*ins)
        raise EmulationError(f"the emulator does not know {op.name}")


def run_launches(text: str, buffers: list[np.ndarray]) -> None:
    """Runs every launch of the module `text` over `buffers` (flat arrays,
    one per argument of the entry function), in place."""
    funcs, launches = parse_module(text)
    for launch in launches:
        func = funcs[launch["kernel"]]
        region = func.regions[0]
        args = []
        for (name, typ), index in zip(region.args, launch["args"]):
            shape, strides, offset = parse_memref(typ)
            args.append(View(Buffer(buffers[index]), offset, shape, strides))
        workgroup = region.args[len(launch["args"]):]
        for block in range(launch["grid"]):
            run = BlockRun(launch["block"], block)
            shared = []
            for _, typ in workgroup:
                shape, strides, offset = parse_memref(typ)
                data = np.full(int(np.prod(shape)), np.nan, dtype=np.float32)
                shared.append(View(Buffer(data, shared=True),
                                   offset, shape, strides))
            run.run_region(region, args + shared, np.ones(launch["block"], dtype=bool))
