"""The emulator's memory traffic counts (scripts/infer_tools/gpu_emulator/traffic.py).

First the counting rules on hand-made warp accesses (coalesced, strided,
misaligned, vector, shared-memory bank conflicts and broadcasts), then
a whole kernel compiled by infer-opt: an elementwise op reads and writes
whole sectors, and the same op reading its input transposed wastes most
of each sector it reads.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from infer_cpu import INFER_OPT, REPO
from infer_tools.gpu_emulator import Buffer, Emulator, Traffic

LANES = np.arange(32)
WARP0 = np.zeros(32, dtype=np.int64)


def count(addresses, size=4, write=False, shared=False, warps=WARP0, blocks=None):
    buffer = Buffer(np.zeros(1 << 16, dtype=np.uint8), shared=shared)
    t = Traffic()
    t.count(buffer, buffer.address + np.asarray(addresses), warps,
            np.zeros_like(warps) if blocks is None else blocks, size, write)
    t.finish()
    return t


def test_a_coalesced_warp_load_is_four_sectors():
    t = count(LANES * 4)
    assert (t.load_requests, t.load_sectors, t.load_bytes) == (1, 4, 128)
    assert t.efficiency == 1.0
    assert t.dram_read_bytes == 128


def test_a_column_walk_touches_a_sector_per_lane():
    t = count(LANES * 4 * 64)
    assert (t.load_requests, t.load_sectors) == (1, 32)
    assert t.efficiency == pytest.approx(4 / 32)


def test_a_misaligned_warp_spans_five_sectors():
    t = count(8 + LANES * 4, write=True)
    assert (t.store_requests, t.store_sectors, t.load_requests) == (1, 5, 0)
    assert t.dram_write_bytes == 5 * 32


def test_two_warps_are_two_requests_and_share_dram_sectors():
    twice, warps = np.concatenate([LANES * 4, LANES * 4]), np.repeat([0, 1], 32)
    t = count(twice, warps=warps)
    assert (t.load_requests, t.load_sectors) == (2, 8)
    assert t.dram_read_bytes == 128  # The same 4 sectors.
    assert t.l2_load_sectors == 4    # One block: the second warp hits its L1.
    # Two blocks each fetch the sectors from L2.
    assert count(twice, warps=warps, blocks=warps).l2_load_sectors == 8
    # Stores go through to L2 every time.
    stored = count(twice, warps=warps, write=True)
    assert (stored.store_sectors, stored.l2_bytes, stored.dram_write_bytes) == (8, 256, 128)


def test_lanes_out_of_order_are_counted_alike():
    shuffled = np.random.default_rng(0).permutation(LANES) * 4
    t = count(np.concatenate([shuffled, shuffled]), warps=np.repeat([0, 1], 32),
              blocks=np.repeat([0, 1], 32))
    assert (t.load_requests, t.load_sectors, t.l2_load_sectors, t.load_bytes) == (2, 8, 8, 256)


def test_sixteen_byte_vectors_are_sixteen_sectors_a_request():
    t = count(LANES * 16, size=16)
    assert (t.load_requests, t.load_sectors, t.load_bytes) == (1, 16, 512)
    assert t.efficiency == 1.0


def test_shared_memory_bank_conflicts():
    # Consecutive words: one wavefront; a 32-word stride: all lanes in bank 0.
    assert count(LANES * 4, shared=True).shared_wavefronts == 1
    conflicted = count(LANES * 128, shared=True)
    assert (conflicted.shared_wavefronts, conflicted.shared_ideal_wavefronts) == (32, 1)
    assert conflicted.bank_conflict_factor == 32
    # A stride of 33 words (a padded row) is conflict free again.
    assert count(LANES * 132, shared=True).shared_wavefronts == 1
    # Every lane reading one word is a broadcast.
    assert count(np.zeros(32, dtype=np.int64), shared=True).shared_wavefronts == 1
    # 16-byte vectors: 512 bytes, 4 wavefronts at best.
    vector = count(LANES * 16, size=16, shared=True)
    assert (vector.shared_wavefronts, vector.shared_ideal_wavefronts) == (4, 4)
    # Shared memory never counts as DRAM traffic.
    assert vector.dram_read_bytes == 0 and vector.load_requests == 0


def test_add_sums_counts():
    a, b = count(LANES * 4), count(LANES * 4 * 64)
    a.add(b)
    assert (a.load_requests, a.load_sectors) == (2, 36)


def kernel_module(tmp_path, body: str, args: str) -> str:
    """`body` (linalg on memrefs) mapped to GPU kernels, in generic form
    (canonicalized, as the CUDA pipeline does: static metadata folded)."""
    source = tmp_path / "k.mlir"
    source.write_text(f"func.func @main({args}) {{\n{body}\n  return\n}}\n")
    return subprocess.run(
        [str(INFER_OPT), str(source), "--infer-outline-kernels=root-arguments=true",
         "--infer-cuda-map-to-gpu", "--canonicalize", "--mlir-print-op-generic"],
        check=True, capture_output=True, text=True).stdout


def run_counted(text: str, arrays: list[np.ndarray]) -> Traffic:
    emulator = Emulator(text, traffic=True)
    emulator.run(arrays)
    assert len(emulator.launch_traffic) == len(emulator.launches) == 1
    return emulator.launch_traffic[0]


DOUBLE = """
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> ({a_map})>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%a : memref<{a_type}>) outs(%b : memref<{b_type}>) {{
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %x : f32
      linalg.yield %z : f32
  }}"""


def doubled(tmp_path, a: np.ndarray, a_map: str) -> Traffic:
    """The traffic of a kernel writing b = a + a (a read through `a_map`,
    b of shape (rows, columns)), after checking what it wrote."""
    expected = a + a if a_map == "i, j" else (a + a).T
    a_type, b_type = ("x".join(map(str, x.shape)) + "xf32" for x in (a, expected))
    text = kernel_module(tmp_path, DOUBLE.format(a_map=a_map, a_type=a_type, b_type=b_type),
                         f"%a: memref<{a_type}>, %b: memref<{b_type}>")
    out = np.zeros(expected.shape, np.float32)
    traffic = run_counted(text, [a, out])
    np.testing.assert_array_equal(out, expected)
    return traffic


def test_a_transpose_wastes_sectors_that_a_copy_does_not(tmp_path):
    # Rows of 1,024: a block of 256 threads (4 elements each) covers one
    # output row, so no two of a block's lanes read one input sector.
    a = np.random.default_rng(0).standard_normal((64, 1024)).astype(np.float32)
    t_copy = doubled(tmp_path, a, "i, j")
    assert t_copy.efficiency == 1.0
    assert t_copy.dram_read_bytes == t_copy.dram_write_bytes == a.nbytes

    t_transpose = doubled(tmp_path, np.ascontiguousarray(a.T), "j, i")
    # Reads down columns: a sector per lane; the writes stay whole.
    assert t_transpose.load_sectors >= 7 * t_copy.load_sectors
    assert t_transpose.store_sectors == t_copy.store_sectors
    assert t_transpose.efficiency < 0.25
    # The same DRAM bytes; each input sector reaches L2 for 8 blocks.
    assert t_transpose.dram_read_bytes == t_copy.dram_read_bytes
    assert t_transpose.l2_load_sectors == 8 * t_copy.l2_load_sectors
    assert t_transpose.estimated_seconds > 1.4 * t_copy.estimated_seconds
