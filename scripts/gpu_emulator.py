"""Runs the CUDA kernels of infer-opt on the CPU: a GPU emulator for tests.

The input is the module after infer-cuda-map-to-gpu in MLIR's generic form:
the kernels as gpu.funcs and the plan in ``infer.launches``. ``infer-opt
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
whole warps; barriers reached by every thread of the block; no shared
memory written by one warp and read or written by another without a barrier
in between (writes of the same value excepted: they are benign); no read of
shared memory nothing wrote.

What it does not model: TF32 rounding (products are exact), the precision
of the GPU's math functions (numpy's), the order of accesses within a warp,
and anything the lowering to NVVM does. An op it does not know is an error
that names it.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

WARP = 32
# Threads emulated at once for kernels without shared memory.
CHUNK_THREADS = 1 << 16


class EmulationError(Exception):
    """The kernel did something a GPU would not do right, or the emulator
    does not know an op."""


# ----------------------------------------------------------------------------
# Parsing MLIR's generic form.


@dataclass
class Op:
    name: str
    results: list[str]
    operands: list[str]
    text: str  # Properties, attributes and types, as printed.
    regions: list["Region"] = field(default_factory=list)

    def result_type(self) -> str:
        types = self.text.rsplit("->", 1)[1].strip()
        return types[1:-1] if types.startswith("(") and types.endswith(")") else types


@dataclass
class Region:
    args: list[tuple[str, str]]  # (name, type)
    ops: list[Op]


_OP = re.compile(r'^(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\(([^)]*)\)(.*)$')
_BLOCK = re.compile(r"^\^bb\d+(?:\((.*)\))?:$")


def _split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside brackets and strings."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_ops(lines: list[str], i: int) -> tuple[list[Op], int, str]:
    """Ops from line i to the end of their region; returns them, the index
    of the line that ends the region, and that line."""
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
        op = Op(name, results, _split_top(operands), rest)
        i += 1
        if rest.rstrip().endswith("({"):
            while True:
                args = []
                block = _BLOCK.match(lines[i].strip())
                if block:
                    args = [tuple(s.strip() for s in a.split(":", 1))
                            for a in _split_top(block.group(1) or "")]
                    i += 1
                body, i, end = _parse_ops(lines, i)
                op.regions.append(Region(args, body))
                i += 1
                if end.startswith("})"):
                    op.text += end[2:]
                    break
        ops.append(op)
    return ops, i, ""


def _prop(op: Op, name: str) -> str:
    match = re.search(r"\b" + name + r" = ([^,}]+)", op.text)
    if not match:
        raise EmulationError(f"{op.name}: no {name}")
    return match.group(1).strip()


# ----------------------------------------------------------------------------
# Types and memory.

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
          "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64,
          "ui8": np.uint8}
UNSIGNED = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
            np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64,
            np.dtype(np.bool_): np.bool_}


def scalar_dtype(typ: str):
    if typ not in DTYPES:
        raise EmulationError(f"the emulator does not know the type {typ}")
    return np.dtype(DTYPES[typ])


@dataclass
class MemRefType:
    shape: list[int]
    dtype: np.dtype
    strides: list[int]
    offset: int
    shared: bool


def parse_memref(typ: str) -> MemRefType:
    match = re.match(r"memref<((?:\d+x)*)(\w+)(.*)>$", typ.strip())
    if not match:
        raise EmulationError(f"unsupported memref type {typ}")
    shape = [int(d) for d in match.group(1).split("x") if d]
    rest = match.group(3)
    strides, offset = [], 0
    layout = re.search(r"strided<\[([-\d, ]*)\](?:, offset: (-?\d+))?>", rest)
    if layout:
        strides = [int(s) for s in layout.group(1).split(",") if s.strip()]
        offset = int(layout.group(2) or 0)
    else:
        stride = 1
        for size in reversed(shape):
            strides.insert(0, stride)
            stride *= size
    return MemRefType(shape, scalar_dtype(match.group(2)), strides, offset,
                      "workgroup" in rest)


class Buffer:
    """Bytes at a pretend device address (256-byte aligned, as cuMemAlloc's)."""
    _next_address = 1 << 20

    def __init__(self, data: np.ndarray, shared: bool = False):
        self.bytes = data.reshape(-1).view(np.uint8)
        self.address = Buffer._next_address
        Buffer._next_address += (self.bytes.size + 511) // 256 * 256
        self.shared = shared
        self._typed: dict[tuple[int, np.dtype], np.ndarray] = {}
        if shared:
            self.written = np.zeros(self.bytes.size, dtype=bool)
            self.write_epoch = np.full(self.bytes.size, -1)
            self.write_warp = np.full(self.bytes.size, -1)
            self.read_epoch = np.full(self.bytes.size, -1)
            self.read_warp = np.full(self.bytes.size, -1)  # -2: several warps.

    def typed(self, byte_base: int, dtype: np.dtype) -> np.ndarray:
        key = (byte_base, dtype)
        if key not in self._typed:
            if byte_base % dtype.itemsize:
                raise EmulationError(f"a {dtype} view at byte {byte_base}: misaligned")
            usable = (self.bytes.size - byte_base) // dtype.itemsize * dtype.itemsize
            self._typed[key] = self.bytes[byte_base:byte_base + usable].view(dtype)
        return self._typed[key]


@dataclass
class View:
    buffer: Buffer
    byte_base: int  # Where element 0 of this view's element type lies.
    type: MemRefType

    @property
    def data(self) -> np.ndarray:
        return self.buffer.typed(self.byte_base, self.type.dtype)

    def retyped(self, typ: MemRefType) -> "View":
        return View(self.buffer, self.byte_base, typ)

    def elements(self, op: Op, indices: list[np.ndarray], count: int, lanes: int = 1
                 ) -> np.ndarray:
        """Element numbers (in data) of `count` accesses at `indices` (one
        array per dim, one entry per access), checked against the memref."""
        t = self.type
        if len(indices) != len(t.shape):
            raise EmulationError(f"{op.name}: {len(indices)} indices for rank {len(t.shape)}")
        position = np.full(count, t.offset, dtype=np.int64)
        for k, (index, size, stride) in enumerate(zip(indices, t.shape, t.strides)):
            last = index + (lanes - 1 if k == len(t.shape) - 1 else 0)
            if (index < 0).any() or (last >= size).any():
                bad = index[(index < 0) | (last >= size)][0]
                raise EmulationError(f"{op.name}: index {bad} outside dim {k} of {t.shape}")
            position = position + index.astype(np.int64) * stride
        if position.size and (position.min() < 0 or position.max() + lanes > self.data.size):
            raise EmulationError(f"{op.name}: outside its buffer")
        return position


# ----------------------------------------------------------------------------
# Dense constants (memref.global).


def parse_dense(text: str, typ: MemRefType) -> np.ndarray:
    match = re.search(r'dense<(.*)> : tensor<', text)
    if not match:
        raise EmulationError(f"cannot read the initial value of {text[:80]}")
    body = match.group(1).strip()
    count = int(np.prod(typ.shape)) if typ.shape else 1
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3:-1])
        values = np.frombuffer(raw, dtype=typ.dtype)
        return np.resize(values, count) if values.size == 1 else values.copy()
    flat = re.findall(r"true|false|0x[0-9A-Fa-f]+|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)",
                      body)
    def value(v):
        if v in ("true", "false"):
            return v == "true"
        if v.startswith("0x"):  # A float's bits.
            bits = int(v, 16)
            fmt = {2: "<H", 4: "<I", 8: "<Q"}[typ.dtype.itemsize]
            return np.frombuffer(struct.pack(fmt, bits), dtype=typ.dtype)[0]
        return float(v) if typ.dtype.kind == "f" else int(float(v))
    values = np.array([value(v) for v in flat], dtype=typ.dtype)
    return np.resize(values, count) if values.size == 1 else values


# ----------------------------------------------------------------------------
# Elementwise ops.

_CMPI = {0: "eq", 1: "ne", 2: "slt", 3: "sle", 4: "sgt", 5: "sge", 6: "ult", 7: "ule",
         8: "ugt", 9: "uge"}
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal}
_CMPF = {0: "false", 1: "oeq", 2: "ogt", 3: "oge", 4: "olt", 5: "ole", 6: "one", 7: "ord",
         8: "ueq", 9: "ugt", 10: "uge", 11: "ult", 12: "ule", 13: "une", 14: "uno", 15: "true"}


def _unsigned(a: np.ndarray) -> np.ndarray:
    return a.astype(UNSIGNED[a.dtype]) if a.dtype in UNSIGNED else a


def _cmpf(predicate: str, a, b):
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == "false":
        return np.zeros(np.broadcast(a, b).shape, dtype=bool)
    if predicate == "true":
        return np.ones(np.broadcast(a, b).shape, dtype=bool)
    if predicate == "ord":
        return ~unordered
    if predicate == "uno":
        return unordered
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
            "le": np.less_equal, "ne": np.not_equal}[predicate[1:]]
    with np.errstate(invalid="ignore"):
        result = base(a, b)
    return (result & ~unordered) if predicate[0] == "o" else (result | unordered)


def _trunc_div(a, b):
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    return np.where((a < 0) != (safe < 0), -q, q).astype(a.dtype)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


_FLOAT_BINARY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
                 "arith.divf": np.divide, "arith.remf": np.fmod, "arith.maximumf": np.maximum,
                 "arith.minimumf": np.minimum, "arith.maxnumf": np.fmax,
                 "arith.minnumf": np.fmin, "math.powf": np.power, "math.atan2": np.arctan2,
                 "math.copysign": np.copysign}
_FLOAT_UNARY = {"arith.negf": np.negative, "math.exp": np.exp, "math.exp2": np.exp2,
                "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2,
                "math.log10": np.log10, "math.log1p": np.log1p, "math.sqrt": np.sqrt,
                "math.rsqrt": lambda x: 1 / np.sqrt(x), "math.tanh": np.tanh,
                "math.sinh": np.sinh, "math.cosh": np.cosh, "math.sin": np.sin,
                "math.cos": np.cos, "math.tan": np.tan, "math.asin": np.arcsin,
                "math.acos": np.arccos, "math.atan": np.arctan, "math.asinh": np.arcsinh,
                "math.acosh": np.arccosh, "math.atanh": np.arctanh, "math.absf": np.abs,
                "math.ceil": np.ceil, "math.floor": np.floor, "math.trunc": np.trunc,
                "math.roundeven": np.rint, "math.erf": _erf,
                "math.round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)}
_INT_BINARY = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
               "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or,
               "arith.xori": np.bitwise_xor, "arith.maxsi": np.maximum,
               "arith.minsi": np.minimum, "arith.shli": np.left_shift,
               "arith.shrsi": np.right_shift}


# ----------------------------------------------------------------------------
# Running kernels.


class Run:
    """One batch of threads (a block, or several when the kernel has no
    shared memory) running a gpu.func."""

    def __init__(self, emulator: "Emulator", block_size: int, first_block: int, blocks: int,
                 grid: int):
        self.emulator = emulator
        self.threads = block_size * blocks
        if block_size % WARP:
            raise EmulationError(f"blocks of {block_size} threads are not whole warps")
        self.block_size, self.first_block, self.grid = block_size, first_block, grid
        self.warps = self.threads // WARP
        self.epoch = 0
        self.env: dict[str, object] = {}

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

    def touch(self, view: View, elements: np.ndarray, warp: int, write: bool,
              values: np.ndarray | None = None) -> None:
        """Shared-memory race checks for `warp`'s accesses of `elements`."""
        buffer = view.buffer
        if not buffer.shared:
            return
        size = view.type.dtype.itemsize
        first = (view.byte_base + elements.reshape(-1) * size)
        where = (first[:, None] + np.arange(size)).reshape(-1)
        e = self.epoch
        if write:
            if ((buffer.read_epoch[where] == e) & (buffer.read_warp[where] != warp)).any():
                raise EmulationError("shared memory written while another warp reads it, with "
                                     "no barrier between")
            clobber = (buffer.write_epoch[where] == e) & (buffer.write_warp[where] != warp)
            if clobber.any():
                old = view.data[elements.reshape(-1)]
                if not np.array_equal(old, values.reshape(-1).astype(view.type.dtype)):
                    raise EmulationError("shared memory written by two warps with no barrier "
                                         "between")
            buffer.write_epoch[where] = e
            buffer.write_warp[where] = warp
            buffer.written[where] = True
        else:
            if ((buffer.write_epoch[where] == e) & (buffer.write_warp[where] != warp)).any():
                raise EmulationError("shared memory read while another warp writes it, with no "
                                     "barrier between")
            if not buffer.written[where].all():
                raise EmulationError("shared memory read before anything wrote it")
            same = buffer.read_epoch[where] == e
            other = same & (buffer.read_warp[where] != warp)
            buffer.read_warp[where] = np.where(other, -2,
                                               np.where(same, buffer.read_warp[where], warp))
            buffer.read_epoch[where] = e

    # -- regions ---------------------------------------------------------------

    def run_region(self, region: Region, args: list, mask: np.ndarray) -> list:
        for (name, _), value in zip(region.args, args):
            self.env[name] = value
        for op in region.ops:
            if op.name in ("scf.yield", "gpu.return", "func.return", "scf.condition"):
                return [self.env[o] for o in op.operands]
            self.run_op(op, mask)
        return []

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
        name = op.name
        env = self.env
        ins = [env[o] for o in op.operands]
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        try:
            with np.errstate(all="ignore"):  # As on a GPU: no traps, wrapping integers.
                if handler:
                    out = handler(op, ins, mask)
                elif name in _FLOAT_BINARY:
                    out = _FLOAT_BINARY[name](ins[0], ins[1]).astype(ins[0].dtype)
                elif name in _FLOAT_UNARY:
                    out = np.asarray(_FLOAT_UNARY[name](ins[0])).astype(ins[0].dtype)
                elif name in _INT_BINARY:
                    out = _INT_BINARY[name](ins[0], ins[1]).astype(ins[0].dtype)
                else:
                    raise EmulationError(f"the emulator does not know {name}")
        except EmulationError:
            raise
        except Exception as e:  # The emulator's own failure: say where.
            raise EmulationError(f"{name} {' '.join(op.results)}: {type(e).__name__}: {e}") from e
        if op.results:
            if len(op.results) == 1 and not isinstance(out, (list, tuple)):
                out = [out]
            for result, value in zip(op.results, out):
                env[result] = value

    def op_arith_constant(self, op, ins, mask):
        text, _, typ = _prop(op, "value").partition(":")
        text, typ = text.strip(), typ.strip()
        if text in ("true", "false"):
            return self.full(text == "true", bool)
        vector = re.search(r"(dense<.*>) : vector<(\d+)x(\w+)>", op.text)
        if vector:  # A splat or a list, the same in every thread.
            lanes, dtype = int(vector.group(2)), scalar_dtype(vector.group(3))
            values = parse_dense(vector.group(1) + " : tensor<",
                                 MemRefType([lanes], dtype, [1], 0, False))
            return np.repeat(values[None, :], self.threads, axis=0)
        dtype = scalar_dtype(typ)
        if text.startswith("0x") and dtype.kind == "f":
            bits = int(text, 16)
            fmt = {2: "<H", 4: "<I", 8: "<Q"}[dtype.itemsize]
            return self.full(np.frombuffer(struct.pack(fmt, bits), dtype=dtype)[0], dtype)
        return self.full(float(text) if dtype.kind == "f" else int(text), dtype)

    def op_arith_divui(self, op, ins, mask):
        a, b = (_unsigned(x) for x in ins)
        return (a // np.where(b == 0, 1, b)).astype(ins[0].dtype)

    def op_arith_remui(self, op, ins, mask):
        a, b = (_unsigned(x) for x in ins)
        return (a % np.where(b == 0, 1, b)).astype(ins[0].dtype)

    def op_arith_divsi(self, op, ins, mask):
        return _trunc_div(*ins)

    def op_arith_remsi(self, op, ins, mask):
        a, b = ins
        return (a - _trunc_div(a, b) * np.where(b == 0, 1, b)).astype(a.dtype)

    def op_arith_floordivsi(self, op, ins, mask):
        a, b = ins
        return (a // np.where(b == 0, 1, b)).astype(a.dtype)

    def op_arith_ceildivsi(self, op, ins, mask):
        a, b = ins
        return (-((-a) // np.where(b == 0, 1, b))).astype(a.dtype)

    def op_arith_minui(self, op, ins, mask):
        return np.minimum(*(_unsigned(x) for x in ins)).astype(ins[0].dtype)

    def op_arith_maxui(self, op, ins, mask):
        return np.maximum(*(_unsigned(x) for x in ins)).astype(ins[0].dtype)

    def op_arith_shrui(self, op, ins, mask):
        return np.right_shift(_unsigned(ins[0]), _unsigned(ins[1])).astype(ins[0].dtype)

    def op_arith_cmpi(self, op, ins, mask):
        predicate = _CMPI[int(_prop(op, "predicate").split(":")[0])]
        a, b = ins
        if predicate[0] == "u":
            a, b = _unsigned(a), _unsigned(b)
        return _CMP[predicate[-2:]](a, b)

    def op_arith_cmpf(self, op, ins, mask):
        return _cmpf(_CMPF[int(_prop(op, "predicate").split(":")[0])], *ins)

    def op_arith_select(self, op, ins, mask):
        return self.merge(ins[0], ins[1], ins[2], mask)

    def _cast(self, op, ins, mask):
        dtype = scalar_dtype(op.result_type())
        with np.errstate(all="ignore"):
            return ins[0].astype(dtype)

    op_arith_sitofp = op_arith_extf = op_arith_truncf = op_arith_extsi = _cast
    op_arith_trunci = op_arith_index_cast = op_arith_fptosi = _cast

    def op_arith_uitofp(self, op, ins, mask):
        return _unsigned(ins[0]).astype(scalar_dtype(op.result_type()))

    def op_arith_extui(self, op, ins, mask):
        return _unsigned(ins[0]).astype(scalar_dtype(op.result_type()))

    op_arith_index_castui = op_arith_extui

    def op_arith_fptoui(self, op, ins, mask):
        dtype = scalar_dtype(op.result_type())
        with np.errstate(all="ignore"):
            return ins[0].astype(UNSIGNED.get(dtype, dtype)).astype(dtype)

    def op_arith_bitcast(self, op, ins, mask):
        return ins[0].view(scalar_dtype(op.result_type()))

    def op_math_fma(self, op, ins, mask):
        return (ins[0].astype(np.float64) * ins[1] + ins[2]).astype(ins[0].dtype)

    def op_math_fpowi(self, op, ins, mask):
        return np.power(ins[0], ins[1].astype(np.float64)).astype(ins[0].dtype)

    def op_math_ipowi(self, op, ins, mask):
        return np.power(ins[0], np.maximum(ins[1], 0)).astype(ins[0].dtype)

    def op_math_absi(self, op, ins, mask):
        return np.abs(ins[0])

    def op_math_isnan(self, op, ins, mask):
        return np.isnan(ins[0])

    def op_math_isinf(self, op, ins, mask):
        return np.isinf(ins[0])

    def op_affine_apply(self, op, ins, mask):
        match = re.search(r"affine_map<\(([^)]*)\)(?:\[([^\]]*)\])? -> \((.*)\)>", op.text)
        if not match:
            raise EmulationError(f"affine.apply: cannot read its map in {op.text[:80]}")
        names = [n.strip() for n in match.group(1).split(",") if n.strip()] + \
            [n.strip() for n in (match.group(2) or "").split(",") if n.strip()]
        expr = match.group(3)
        if "ceildiv" in expr or "," in expr:
            raise EmulationError(f"affine.apply: unsupported map {match.group(0)}")
        python = expr.replace("floordiv", "//").replace("mod", "%")
        return eval(python, {"__builtins__": {}}, dict(zip(names, ins))).astype(np.int64)

    def op_gpu_thread_id(self, op, ins, mask):
        return np.arange(self.threads, dtype=np.int64) % self.block_size

    def op_gpu_block_id(self, op, ins, mask):
        return self.first_block + np.arange(self.threads, dtype=np.int64) // self.block_size

    def op_gpu_block_dim(self, op, ins, mask):
        return self.full(self.block_size, np.int64)

    def op_gpu_grid_dim(self, op, ins, mask):
        return self.full(self.grid, np.int64)

    def op_gpu_barrier(self, op, ins, mask):
        if not mask.all():
            raise EmulationError("gpu.barrier not reached by every thread of the block")
        self.epoch += 1

    def op_gpu_shuffle(self, op, ins, mask):
        value, offset, width = ins
        mode = re.search(r"mode = #gpu<shuffle_mode (\w+)>", op.text).group(1)
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

    def op_memref_view(self, op, ins, mask):
        source, shift = ins[0], ins[1]
        shift = int(self.uniform_scalar(shift, mask, "memref.view's shift"))
        typ = parse_memref(op.result_type())
        return View(source.buffer, source.byte_base + source.type.offset + shift, typ)

    def uniform_scalar(self, value: np.ndarray, mask: np.ndarray, what: str):
        active = value[mask] if mask.any() else value[:1]
        if (active != active[0]).any():
            raise EmulationError(f"{what} differs between threads")
        return active[0]

    def _recast(self, op, ins, mask):
        # Static offsets, sizes and strides: the result type says them all.
        return ins[0].retyped(parse_memref(op.result_type()))

    op_memref_subview = op_memref_reinterpret_cast = op_memref_cast = _recast
    op_memref_expand_shape = op_memref_collapse_shape = _recast

    def op_memref_get_global(self, op, ins, mask):
        return self.emulator.global_view(re.search(r'name = @([\w$.]+)', op.text).group(1))

    def op_memref_extract_aligned_pointer_as_index(self, op, ins, mask):
        view = ins[0]
        return self.full(view.buffer.address + view.byte_base, np.int64)

    def op_memref_load(self, op, ins, mask):
        view, indices = ins[0], ins[1:]
        result = np.zeros(self.threads, dtype=view.type.dtype)
        active = np.flatnonzero(mask)
        if active.size:
            elements = view.elements(op, [i[active] for i in indices], active.size)
            self.touch_threads(view, elements, active, False)
            result[active] = view.data[elements]
        return result

    def op_memref_store(self, op, ins, mask):
        value, view, indices = ins[0], ins[1], ins[2:]
        active = np.flatnonzero(mask)
        if active.size:
            elements = view.elements(op, [i[active] for i in indices], active.size)
            self.touch_threads(view, elements, active, True, value[active])
            view.data[elements] = value[active]

    def touch_threads(self, view, elements, threads, write, values=None):
        if not view.buffer.shared:
            return
        warps = threads // WARP
        for w in np.unique(warps):
            mine = warps == w
            self.touch(view, elements[mine], int(w), write,
                       values[mine] if values is not None else None)

    def _vector(self, op, ins, mask, store):
        value, view, indices = (ins[0], ins[1], ins[2:]) if store else (None, ins[0], ins[1:])
        vector = re.search(r"vector<(\d+)x(\w+)>", op.text)
        lanes = int(vector.group(1))
        size = view.type.dtype.itemsize
        align = int(re.search(r"alignment = (\d+)", op.text).group(1)) \
            if "alignment" in op.text else size
        if view.type.strides and view.type.strides[-1] != 1:
            raise EmulationError(f"{op.name}: innermost stride {view.type.strides[-1]}")
        threads = np.flatnonzero(mask)
        result = np.zeros((self.threads, lanes), dtype=view.type.dtype)
        if not threads.size:
            return None if store else result
        starts = view.elements(op, [i[threads] for i in indices], threads.size, lanes)
        if ((view.buffer.address + view.byte_base + starts * size) % align).any():
            raise EmulationError(f"{op.name}: an access not {align}-byte aligned")
        elements = starts[:, None] + np.arange(lanes)
        if store:
            warps = threads // WARP
            for w in np.unique(warps) if view.buffer.shared else [None]:
                mine = warps == w if w is not None else slice(None)
                if w is not None:
                    self.touch(view, elements[mine], int(w), True, value[threads[mine]])
                view.data[elements[mine]] = value[threads[mine]]
            return None
        self.touch_threads(view, elements, threads, False)
        result[threads] = view.data[elements]
        return result

    def op_vector_load(self, op, ins, mask):
        return self._vector(op, ins, mask, False)

    def op_vector_store(self, op, ins, mask):
        return self._vector(op, ins, mask, True)

    def op_vector_extract(self, op, ins, mask):
        position = [int(p) for p in re.search(r"static_position = array<i64: ([-\d, ]*)>",
                                              op.text).group(1).split(",") if p.strip()]
        return ins[0][:, position[0]]

    def op_vector_from_elements(self, op, ins, mask):
        return np.stack(ins, axis=1)

    def op_vector_broadcast(self, op, ins, mask):
        lanes = int(re.search(r"-> vector<(\d+)x", op.text).group(1))
        return np.repeat(ins[0][:, None], lanes, axis=1)

    def op_scf_if(self, op, ins, mask):
        return self.run_if(op, ins[0], mask)

    def op_scf_for(self, op, ins, mask):
        return self.run_for(op, ins, mask)

    def op_scf_while(self, op, ins, mask):
        return self.run_while(op, ins, mask)

    def op_func_call(self, op, ins, mask):
        callee = re.search(r"callee = @([\w$.]+)", op.text).group(1)
        caller, self.env = self.env, {}  # Value names restart in each function.
        try:
            return self.run_region(self.emulator.function(callee).regions[0], ins, mask)
        finally:
            self.env = caller

    # -- WMMA ------------------------------------------------------------------

    def fragment_elements(self, op: Op, view: View, indices: list[np.ndarray], mask, w: int,
                          rows: int, cols: int) -> np.ndarray:
        lanes = slice(w * WARP, (w + 1) * WARP)
        at = []
        for index in indices:
            values = index[lanes]
            if (values != values[0]).any():
                raise EmulationError(f"{op.name}: index differs within warp {w}")
            at.append(values[:1])
        base = int(view.elements(op, at, 1)[0])
        lead = int(_prop(op, "leadDimension").split(":")[0])
        size = view.type.dtype.itemsize
        if (view.buffer.address + view.byte_base + base * size) % 32 or (lead * size) % 16:
            raise EmulationError(f"{op.name}: fragment at element {base} or lead dim {lead} "
                                 "misaligned (32-byte fragments, 16-byte lead dims)")
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        elements = base + (c * lead + r if re.search(r"\btranspose\b", op.text) else r * lead + c)
        extent = sum((n - 1) * s for n, s in zip(view.type.shape, view.type.strides)) + 1
        if elements.max() - view.type.offset >= extent or elements.max() >= view.data.size:
            raise EmulationError(f"{op.name}: fragment outside its memref {view.type.shape}")
        return elements

    def op_gpu_subgroup_mma_load_matrix(self, op, ins, mask):
        view, indices = ins[0], ins[1:]
        rows, cols = (int(x) for x in re.search(r"-> !gpu\.mma_matrix<(\d+)x(\d+)x",
                                                op.text).groups())
        out = np.zeros((self.warps, rows, cols))
        for w in self.active_warps(mask, op.name):
            elements = self.fragment_elements(op, view, indices, mask, w, rows, cols)
            self.touch(view, elements, int(w), False)
            out[w] = view.data[elements]
        return out

    def op_gpu_subgroup_mma_store_matrix(self, op, ins, mask):
        value, view, indices = ins[0], ins[1], ins[2:]
        rows, cols = value.shape[1:]
        for w in self.active_warps(mask, op.name):
            elements = self.fragment_elements(op, view, indices, mask, w, rows, cols)
            self.touch(view, elements, int(w), True, value[w])
            view.data[elements] = value[w]

    def op_gpu_subgroup_mma_compute(self, op, ins, mask):
        a, b, c = ins
        return c + a @ b

    def op_gpu_subgroup_mma_constant_matrix(self, op, ins, mask):
        rows, cols = (int(x) for x in re.search(r"-> !gpu\.mma_matrix<(\d+)x(\d+)x",
                                                op.text).groups())
        value = ins[0].reshape(self.warps, WARP)[:, 0].astype(np.float64)
        return np.repeat(value, rows * cols).reshape(self.warps, rows, cols)

    def op_gpu_subgroup_mma_elementwise(self, op, ins, mask):
        kinds = {"addf": np.add, "mulf": np.multiply, "subf": np.subtract,
                 "maxf": np.maximum, "minf": np.minimum, "divf": np.divide}
        return kinds[re.search(r"mma_element_wise (\w+)", op.text).group(1)](*ins)


def _uses(op: Op, name: str) -> bool:
    return any(inner.name == name or _uses(inner, name)
               for region in op.regions for inner in region.ops)


class Emulator:
    """The kernels and launches of one module (generic form)."""

    def __init__(self, text: str):
        lines = [line for line in text.splitlines() if line.strip()]
        # Attribute aliases (#map = affine_map<...>) are spelled out where used.
        aliases = dict(re.match(r"^(#\w+) = (.*)$", line).groups() for line in lines
                       if line.startswith("#"))
        lines = [line for line in lines if not line.startswith("#")]
        if aliases:
            pattern = re.compile("|".join(re.escape(a) + r"\b" for a in
                                          sorted(aliases, key=len, reverse=True)))
            lines = [pattern.sub(lambda m: aliases[m.group(0)], line) for line in lines]
        ops, _, _ = _parse_ops(lines, 0)
        module = ops[0]
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
        for entry in re.finditer(r"\{args = \[([\d, ]*)\], block = (\d+) : i64, grid = (\d+) : "
                                 r'i64, kernel = "(\w+)"', module.text):
            args, block, grid, kernel = entry.groups()
            self.launches.append({"args": [int(a) for a in args.split(",") if a.strip()],
                                  "block": int(block), "grid": int(grid), "kernel": kernel})

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
        views = [View(buffer, 0, parse_memref(typ)) for (_, typ), buffer in zip(region.args, args)]
        workgroup = [parse_memref(typ) for _, typ in region.args[len(args):]]
        # Blocks that share nothing run together.
        together = 1 if workgroup or _uses(func, "gpu.barrier") else max(1, CHUNK_THREADS // block)
        for first in range(0, grid, together):
            run = Run(self, block, first, min(together, grid - first), grid)
            shared = [View(Buffer(np.zeros(int(np.prod(t.shape)), dtype=t.dtype), shared=True),
                           0, t) for t in workgroup]
            try:
                run.run_region(region, views + shared, np.ones(run.threads, dtype=bool))
            except EmulationError as e:
                raise EmulationError(f"{kernel} (blocks from {first}): {e}") from e


def run_launches(text: str, buffers: list[np.ndarray]) -> None:
    """Runs every launch of the module `text` over `buffers`, in place."""
    Emulator(text).run(buffers)
