"""nvgpu.ldmatrix and nvgpu.mma.sync (m16n8k8, TF32): registers a lane.

Unlike a WMMA fragment, these values are per thread (a vector a lane), in
the layouts the PTX ISA gives for mma.m16n8k8 with .tf32 (MmaSync.h in
lib/Codegen/CUDA): lane l, in row group g = l // 4 at t = l % 4, holds A's
(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); B's (t, g), (t + 4, g);
C's (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
"""

from __future__ import annotations

import re

import numpy as np

from .base import WARP, EmulationError
from .ir import cached
from .wmma import to_tf32

_LANES = np.arange(WARP)
_G, _T = _LANES // 4, _LANES % 4


# (row, column) of each lane's registers: A's 4 (16 x 8), C's 2 x 2 (16 x 8).
_A_ROWS = np.stack([_G, _G + 8, _G, _G + 8], axis=1)
_A_COLS = np.stack([_T, _T, _T + 4, _T + 4], axis=1)
_C_ROWS = np.stack([_G, _G + 8], axis=1)[:, :, None].repeat(2, axis=2)
_C_COLS = np.stack([2 * _T, 2 * _T + 1], axis=1)[:, None, :].repeat(2, axis=1)


def _m16n8k8_tf32(op) -> bool:
    shape = re.search(r"mmaShape = \[(\d+), (\d+), (\d+)\]", op.text)
    return bool(shape) and shape.groups() == ("16", "8", "8") and "tf32Enabled" in op.text


class MmaSyncOps:
    """Run's handlers of nvgpu.ldmatrix, nvgpu.mma.sync and the TF32
    conversion the kernels apply to their operands."""

    def op_nvgpu_ldmatrix(self, op, ins, mask):
        view, indices = ins[0], ins[1:]
        tiles = cached(op, "tiles", lambda: int(re.search(r"numTiles = (\d+)", op.text).group(1)))
        if cached(op, "transpose", lambda: bool(re.search(r"transpose = true", op.text))):
            raise EmulationError(f"{op.name}: transposed ldmatrix is not emulated")
        if view.type.dtype != np.float32 or not view.buffer.shared:
            raise EmulationError(f"{op.name}: the emulator knows 32-bit ldmatrix from shared "
                                 "memory only")
        warps = self.active_warps(mask, op.name)
        together = self._ldmatrix_at_once(op, view, indices, tiles, warps)
        if together is not None:
            return together
        out = np.zeros((self.threads, tiles, 1), dtype=np.float32)
        for w in warps:
            threads = np.arange(w * WARP, (w + 1) * WARP)
            # Lanes 8q..8q+7 give the rows of matrix q: 16 bytes each.
            rows = 8 * tiles
            starts = view.elements(op, [i[threads[:rows]] for i in indices], rows, 4)
            if ((view.buffer.address + view.byte_base + starts * 4) % 16).any():
                raise EmulationError(f"{op.name}: a row not 16-byte aligned")
            elements = starts[:, None] + np.arange(4)
            self.touch(view, elements, int(w), False, None, threads[:rows] % WARP)
            for q in range(tiles):
                self.count_traffic(view, starts[8 * q:8 * q + 8], threads[8 * q:8 * q + 8],
                                   False, 4)
                # Lane l: element l % 4 of matrix q's row l // 4.
                out[threads, q, 0] = view.data[starts[8 * q + _LANES // 4] + _LANES % 4]
        return out

    def _ldmatrix_at_once(self, op, view, indices, tiles: int, warps: np.ndarray):
        """op_nvgpu_ldmatrix for all `warps` at once, or None where that
        could differ from warp by warp (an error to report, a race to
        decide): then nothing has changed."""
        rows = 8 * tiles
        threads = (warps[:, None] * WARP + np.arange(rows)).reshape(-1)
        try:
            starts = view.elements(op, [i[threads] for i in indices], threads.size, 4)
        except EmulationError:
            return None
        if ((view.buffer.address + view.byte_base + starts * 4) % 16).any():
            return None
        if not self.touch_at_once(view, starts[:, None] + np.arange(4), threads // WARP,
                                  threads % WARP, False):
            return None
        if self.traffic is not None:  # In the order warp by warp would count.
            for k in range(warps.size):
                for q in range(tiles):
                    rows_q = slice(k * rows + 8 * q, k * rows + 8 * q + 8)
                    self.count_traffic(view, starts[rows_q], threads[rows_q], False, 4)
        out = np.zeros((self.threads, tiles, 1), dtype=np.float32)
        # Lane l of warp w: element l % 4 of matrix q's row l // 4.
        starts = starts.reshape(warps.size, tiles, 8)
        values = view.data[starts[:, :, _LANES // 4] + _LANES % 4]  # (warps, tiles, lanes)
        lanes = (warps[:, None] * WARP + _LANES).reshape(-1)
        out[lanes, :, 0] = values.transpose(0, 2, 1).reshape(-1, tiles)
        return out

    def op_nvgpu_mma_sync(self, op, ins, mask):
        if not cached(op, "m16n8k8", lambda: _m16n8k8_tf32(op)):
            raise EmulationError(f"{op.name}: the emulator knows m16n8k8 with TF32 only")
        a, b, c = ins
        out = np.zeros_like(c)
        warps = self.active_warps(mask, op.name)
        if not warps.size:
            return out
        # Every active warp's matrices at once: (warps, rows, columns).
        lanes = (warps[:, None] * WARP + _LANES).reshape(-1)
        count = warps.size
        matrix_a = np.zeros((count, 16, 8), dtype=np.float32)
        matrix_a[:, _A_ROWS, _A_COLS] = a[lanes, :, 0].reshape(count, WARP, 4)
        matrix_b = np.zeros((count, 8, 8), dtype=np.float32)
        lane_b = b[lanes, :, 0].reshape(count, WARP, 2)
        matrix_b[:, _T, _G] = lane_b[:, :, 0]
        matrix_b[:, _T + 4, _G] = lane_b[:, :, 1]
        matrix_c = np.zeros((count, 16, 8), dtype=np.float32)
        matrix_c[:, _C_ROWS, _C_COLS] = c[lanes].reshape(count, WARP, 2, 2)
        # As the tensor cores do: the TF32 bits of A and B (the kernel
        # rounded them already; these drop nothing then), exact products,
        # the sum rounded to the float32 accumulator.
        if self.emulator.tf32:
            matrix_a, matrix_b = to_tf32(matrix_a, "truncate"), to_tf32(matrix_b, "truncate")
        d = (matrix_c.astype(np.float64) + matrix_a.astype(np.float64) @ matrix_b
             ).astype(np.float32)
        out[lanes] = d[:, _C_ROWS, _C_COLS].reshape(count * WARP, 2, 2)
        return out

    def op_nvvm_convert_float_to_tf32(self, op, ins, mask):
        """cvt.rna.tf32.f32. By default the emulator keeps A and B exact (as
        for WMMA: results held to float32's tolerance); in a TF32 mode it
        rounds as the GPU does."""
        if not cached(op, "rna", lambda: bool(re.search(r"fp_rnd_mode<rna>", op.text))):
            raise EmulationError(f"{op.name}: the emulator knows rounding mode rna only")
        x = ins[0].astype(np.float32)
        if self.emulator.tf32:
            x = to_tf32(x, "rna")
        return x.view(np.int32)
