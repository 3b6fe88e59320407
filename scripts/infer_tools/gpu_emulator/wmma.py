"""gpu.subgroup_mma_* (WMMA): one logical matrix a warp.
"""

from __future__ import annotations

import re

import numpy as np

from .base import WARP, EmulationError
from .ir import Op, cached, prop
from .memory import View


def to_tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """float32 values with TF32's 10-bit mantissa: rounded to nearest, ties
    away from zero ("rna", PTX's cvt.rna.tf32.f32: half of the dropped
    bits' range added to the magnitude, then dropped), or truncated
    ("truncate"). Infinities and NaNs pass unchanged."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    if mode == "rna":
        bits = bits + np.uint32(0x1000)
    rounded = (bits & np.uint32(0xFFFFE000)).view(np.float32)
    return np.where(np.isfinite(x), rounded, x).astype(np.float32)


def _transposed(op: Op) -> bool:
    return cached(op, "transpose", lambda: bool(re.search(r"\btranspose\b", op.text)))


def _fragment_shape(op: Op) -> tuple[int, int]:
    return cached(op, "fragment", lambda: tuple(
        int(x) for x in re.search(r"-> !gpu\.mma_matrix<(\d+)x(\d+)x", op.text).groups()))


class WmmaOps:
    """Run's handlers of the WMMA ops."""

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
        lead = cached(op, "lead", lambda: int(prop(op, "leadDimension").split(":")[0]))
        size = view.type.dtype.itemsize
        if (view.buffer.address + view.byte_base + base * size) % 32 or (lead * size) % 16:
            raise EmulationError(f"{op.name}: fragment at element {base} or lead dim {lead} "
                                 "misaligned (32-byte fragments, 16-byte lead dims)")
        r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        elements = base + (c * lead + r if _transposed(op) else r * lead + c)
        extent = sum((n - 1) * s for n, s in zip(view.type.shape, view.type.strides)) + 1
        if elements.max() - view.type.offset >= extent or elements.max() >= view.data.size:
            raise EmulationError(f"{op.name}: fragment outside its memref {view.type.shape}")
        return elements

    def count_fragment(self, view: View, elements: np.ndarray, warp: int, write: bool) -> None:
        """A fragment's traffic: its lanes load or store it an element each
        at a time, so one request per 32 elements."""
        self.count_traffic(view, elements, np.full(elements.size, warp * WARP), write,
                           requests=-(-elements.size // WARP))

    def op_gpu_subgroup_mma_load_matrix(self, op, ins, mask):
        view, indices = ins[0], ins[1:]
        rows, cols = _fragment_shape(op)
        out = np.zeros((self.warps, rows, cols), dtype=np.float32)
        for w in self.active_warps(mask, op.name):
            elements = self.fragment_elements(op, view, indices, mask, w, rows, cols)
            self.touch(view, elements, int(w), False)
            self.count_fragment(view, elements, int(w), False)
            out[w] = view.data[elements]
        # The layout it was loaded with, for the product to check (by the
        # value's name: a fragment carried through a loop is not checked).
        self.fragment_layouts[op.results[0]] = _transposed(op)
        return out

    def op_gpu_subgroup_mma_store_matrix(self, op, ins, mask):
        value, view, indices = ins[0], ins[1], ins[2:]
        rows, cols = value.shape[1:]
        for w in self.active_warps(mask, op.name):
            elements = self.fragment_elements(op, view, indices, mask, w, rows, cols)
            self.touch(view, elements, int(w), True, value[w])
            self.count_fragment(view, elements, int(w), True)
            view.data[elements] = value[w]

    def op_gpu_subgroup_mma_compute(self, op, ins, mask):
        # The product must take A and B in the layouts they were loaded in
        # (PTX's wmma.mma .row/.col must match the loads'); otherwise the
        # fragments' registers mean other elements.
        for operand, attribute in zip(op.operands[:2], ("a_transpose", "b_transpose")):
            loaded = self.fragment_layouts.get(operand)
            if loaded is not None and loaded != cached(
                    op, attribute, lambda: bool(re.search(rf"\b{attribute}\b", op.text))):
                raise EmulationError(f"{op.name}: {attribute} does not match how {operand} "
                                     "was loaded")
        # Each step's products and sum exact, then rounded to the float32
        # accumulator, as the tensor cores do; the inputs first rounded to
        # TF32 if the emulator was asked to (Emulator's tf32).
        a, b, c = ins
        if self.emulator.tf32:
            a, b = to_tf32(a, self.emulator.tf32), to_tf32(b, self.emulator.tf32)
        return (c.astype(np.float64) + a.astype(np.float64) @ b).astype(np.float32)

    def op_gpu_subgroup_mma_constant_matrix(self, op, ins, mask):
        rows, cols = _fragment_shape(op)
        value = ins[0].reshape(self.warps, WARP)[:, 0].astype(np.float32)
        return np.repeat(value, rows * cols).reshape(self.warps, rows, cols)

    def op_gpu_subgroup_mma_elementwise(self, op, ins, mask):
        kinds = {"addf": np.add, "mulf": np.multiply, "subf": np.subtract,
                 "maxf": np.maximum, "minf": np.minimum, "divf": np.divide}
        return kinds[cached(op, "kind", lambda: re.search(r"mma_element_wise (\w+)",
                                                         op.text).group(1))](*ins)
