"""Memref types, buffers (bytes at pretend device addresses), views of
them, and the dense constants of memref.global.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

import numpy as np

from .base import EmulationError
from .ir import Op


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
    offset: int | None  # None: dynamic, known to the view, not the type.
    shared: bool


def vector_shape(typ: str) -> list[int]:
    """vector<4x1xf32> -> [4, 1]."""
    match = re.fullmatch(r"vector<((?:\d+x)+)\w+>", typ.strip())
    if not match:
        raise EmulationError(f"not a vector type: {typ}")
    return [int(d) for d in match.group(1).split("x") if d]


def parse_memref(typ: str) -> MemRefType:
    match = re.match(r"memref<((?:\d+x)*)(\w+)(.*)>$", typ.strip())
    if not match:
        raise EmulationError(f"unsupported memref type {typ}")
    shape = [int(d) for d in match.group(1).split("x") if d]
    rest = match.group(3)
    if "affine_map" in rest:
        raise EmulationError(f"memref layouts other than strided are not supported: {typ}")
    strides, offset = [], 0
    layout = re.search(r"strided<\[([-\d, ]*)\](?:, offset: (-?\d+|\?))?>", rest)
    if "strided<" in rest and not layout:  # A dynamic stride (?).
        raise EmulationError(f"memref layouts with dynamic strides are not supported: {typ}")
    if layout:
        strides = [int(s) for s in layout.group(1).split(",") if s.strip()]
        # A dynamic offset (None) is the op's to compute: memref.subview.
        offset = None if layout.group(2) == "?" else int(layout.group(2) or 0)
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
            # Within the writing warp: its lane (-1: a WMMA store, by the
            # whole warp) and how many warp barriers it had passed.
            self.write_lane = np.full(self.bytes.size, -1, dtype=np.int8)
            self.write_sync = np.full(self.bytes.size, -1)
            # Likewise for the reads of one warp: the reading lane (-1: a
            # WMMA load; -3: several lanes) and its warp barriers passed.
            self.read_lane = np.full(self.bytes.size, -1, dtype=np.int8)
            self.read_sync = np.full(self.bytes.size, -1)
            self.in_flight = np.zeros(self.bytes.size, dtype=np.int32)  # cp.async copies.

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
            extra = lanes - 1 if k == len(t.shape) - 1 else 0
            if count and (index.min() < 0 or index.max() + extra >= size):
                last = index + extra
                bad = index[(index < 0) | (last >= size)][0]
                raise EmulationError(f"{op.name}: index {bad} outside dim {k} of {t.shape}")
            position += index.astype(np.int64) * stride
        if position.size and (position.min() < 0 or position.max() + lanes > self.data.size):
            raise EmulationError(f"{op.name}: outside its buffer")
        return position


def float_from_bits(text: str, dtype: np.dtype):
    """A float written as its bits in hex (0x7FC00000: NaN), as MLIR prints
    the floats it cannot print as decimals."""
    fmt = {2: "<H", 4: "<I", 8: "<Q"}[dtype.itemsize]
    return np.frombuffer(struct.pack(fmt, int(text, 16)), dtype=dtype)[0]


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
        if v.startswith("0x"):
            return float_from_bits(v, typ.dtype)
        if typ.dtype.kind == "f":
            return float(v)
        # Exactly: an int64's extremes do not survive a trip through float.
        return int(v) if re.fullmatch(r"[-+]?\d+", v) else int(float(v))
    values = np.array([value(v) for v in flat], dtype=typ.dtype)
    return np.resize(values, count) if values.size == 1 else values
