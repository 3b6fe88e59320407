"""Memory traffic of the emulated kernels, counted the way a GPU's memory
system sees it, so that machines without a GPU can tell a coalesced kernel
from a wasteful one (what Nsight Compute calls sectors per request, L2
and DRAM bytes, and bank conflicts).

Global memory, at three levels:
- L1: each warp-wide access instruction is one request, and the 32-byte
  sectors its active lanes touch are what L1 moves for it (a coalesced
  4-byte load: 4 sectors for 128 useful bytes; a column walk: 32 sectors
  for the same bytes).
- L2: loads reach L2 once per block and sector (as if each block had an
  L1 of its own and of any size: a lower bound, which counts the reuse of
  one warp's neighbours and of the block's later loop steps as hits);
  stores go through to L2 sector by sector.
- DRAM: the distinct sectors the launch reads and writes, per buffer (a
  lower bound too: nothing read twice from beyond L2).

Shared memory: a warp's access takes as many wavefronts as the most
distinct 4-byte words any one of the 32 banks must deliver (a broadcast of
one word is free). For a WMMA fragment this is a lower bound: its lanes'
elements are taken all together, not instruction by instruction.

The estimate of a launch's memory time is the largest of its DRAM, L2 and
L1 bytes, each at its rate below (an H100 SXM's order of magnitude): a way
to rank kernels and to compare two versions of one, not a prediction of
its time (latency, occupancy, cache capacity and arithmetic are not
modelled).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

SECTOR = 32
BANKS = 32
DRAM_BYTES_PER_S = 3.35e12  # H100 SXM HBM3.
L2_BYTES_PER_S = 5.5e12     # H100 L2 loads, as measured by microbenchmarks.
L1_BYTES_PER_S = 29.6e12    # 132 SMs x 128 bytes a clock x 1.755 GHz.
COMPACT_KEYS = 1 << 22      # L2 keys kept before duplicates are dropped.


@dataclass
class Traffic:
    """Counts of one launch (or of a sum of launches)."""
    load_requests: int = 0
    load_sectors: int = 0        # L1 sectors of the loads.
    load_bytes: int = 0          # Distinct bytes each warp asked for.
    store_requests: int = 0
    store_sectors: int = 0
    store_bytes: int = 0
    l2_load_sectors: int = 0     # Distinct (block, sector) loads.
    dram_read_bytes: int = 0     # Distinct sectors read, in bytes.
    dram_write_bytes: int = 0    # Distinct sectors written, in bytes.
    shared_requests: int = 0
    shared_wavefronts: int = 0
    shared_ideal_wavefronts: int = 0  # Without bank conflicts.
    # Until finish(): per buffer (by id) which sectors this launch read and
    # wrote; the (buffer, block, sector) keys of its loads.
    _read: dict = field(default_factory=dict, repr=False)
    _written: dict = field(default_factory=dict, repr=False)
    _l2_keys: list = field(default_factory=list, repr=False)
    _l2_pending: int = 0

    def add(self, other: "Traffic") -> None:
        for f in fields(self):
            if not f.name.startswith("_"):
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def finish(self) -> None:
        """Turns the sector maps and keys into the L2 and DRAM counts."""
        self.dram_read_bytes = SECTOR * sum(int(m.sum()) for m in self._read.values())
        self.dram_write_bytes = SECTOR * sum(int(m.sum()) for m in self._written.values())
        self._compact()
        self.l2_load_sectors = sum(k.size for k in self._l2_keys)
        self._read, self._written, self._l2_keys = {}, {}, []

    @property
    def sectors_per_request(self) -> float:
        requests = self.load_requests + self.store_requests
        return (self.load_sectors + self.store_sectors) / requests if requests else 0.0

    @property
    def efficiency(self) -> float:
        """Useful bytes over the bytes of the L1 sectors moved (1.0: coalesced)."""
        moved = SECTOR * (self.load_sectors + self.store_sectors)
        return (self.load_bytes + self.store_bytes) / moved if moved else 1.0

    @property
    def l2_bytes(self) -> int:
        return SECTOR * (self.l2_load_sectors + self.store_sectors)

    @property
    def bank_conflict_factor(self) -> float:
        """Shared-memory wavefronts over the conflict-free count (1.0: none)."""
        ideal = self.shared_ideal_wavefronts
        return self.shared_wavefronts / ideal if ideal else 1.0

    @property
    def estimated_seconds(self) -> float:
        dram = (self.dram_read_bytes + self.dram_write_bytes) / DRAM_BYTES_PER_S
        l1 = SECTOR * (self.load_sectors + self.store_sectors) / L1_BYTES_PER_S
        return max(dram, self.l2_bytes / L2_BYTES_PER_S, l1)

    # -- counting ------------------------------------------------------------

    def count(self, buffer, addresses: np.ndarray, warps: np.ndarray, blocks: np.ndarray,
              size: int, write: bool, requests: int | None = None) -> None:
        """One access instruction: its lanes' byte `addresses` (`size` bytes
        each), with each lane's warp and block, in thread order (warps
        non-decreasing). A request per warp, unless `requests` says how many
        the instruction makes."""
        if not addresses.size:
            return
        addresses = addresses.astype(np.int64)
        warps = np.asarray(warps, dtype=np.int64)
        if buffer.shared:
            self._count_shared(addresses, warps, size)
            return
        first, last = addresses // SECTOR, (addresses + size - 1) // SECTOR
        new_warp = np.empty(addresses.size, dtype=bool)
        new_warp[0] = True
        np.not_equal(warps[1:], warps[:-1], out=new_warp[1:])
        straddles = bool((last != first).any())
        if straddles:  # Count both sectors of each access.
            new_warp, warps = np.concatenate([new_warp, new_warp]), np.tile(warps, 2)
            blocks, first = np.tile(blocks, 2), np.concatenate([first, last])
        firsts = _first_of_each(first, new_warp, warps, sort=straddles)
        sectors = int(firsts.sum()) if firsts.dtype == bool else firsts.size
        n = addresses.size
        useful = _first_of_each(addresses, new_warp[:n], warps[:n])
        useful = (int(useful.sum()) if useful.dtype == bool else useful.size) * size
        n_requests = requests if requests is not None else int(new_warp[:n].sum())
        if write:
            self.store_requests += n_requests
            self.store_sectors += sectors
            self.store_bytes += useful
        else:
            self.load_requests += n_requests
            self.load_sectors += sectors
            self.load_bytes += useful
            picked = firsts if firsts.dtype != bool else np.flatnonzero(firsts)
            if firsts.dtype == bool:
                keys = (np.asarray(blocks, dtype=np.int64)[picked] << 36) + first[picked]
            else:  # Already the distinct (warp, sector) keys; a warp is in one block.
                keys = _keys_of_sorted(firsts, warps, blocks)
            self._add_l2_keys(keys)
        maps = self._written if write else self._read
        sector_map = maps.get(id(buffer))
        if sector_map is None:
            sector_map = maps[id(buffer)] = np.zeros(buffer.bytes.size // SECTOR + 2, dtype=bool)
        sector_map[first - buffer.address // SECTOR] = True

    def _add_l2_keys(self, keys: np.ndarray) -> None:
        self._l2_keys.append(keys)
        self._l2_pending += keys.size
        if self._l2_pending > COMPACT_KEYS:
            self._compact()

    def _compact(self) -> None:
        if len(self._l2_keys) > 1:
            self._l2_keys = [np.unique(np.concatenate(self._l2_keys))]
        elif self._l2_keys:
            self._l2_keys = [np.unique(self._l2_keys[0])]
        self._l2_pending = 0

    def _count_shared(self, addresses: np.ndarray, warps: np.ndarray, size: int) -> None:
        # Every 4-byte word of each access (a 16-byte vector lane: 4 words).
        per_access = max(1, size // 4)
        words = (addresses[:, None] // 4 + np.arange(per_access)).reshape(-1)
        word_warps = np.repeat(warps, per_access)
        distinct = np.unique(word_warps * (1 << 40) + words)
        warp_of, word = distinct >> 40, distinct & ((1 << 40) - 1)
        ids, of_word = np.unique(warp_of, return_inverse=True)
        banks, count = np.unique(of_word * BANKS + word % BANKS, return_counts=True)
        worst = np.zeros(ids.size, dtype=np.int64)
        np.maximum.at(worst, banks // BANKS, count)
        self.shared_requests += ids.size
        self.shared_wavefronts += int(worst.sum())
        self.shared_ideal_wavefronts += int((-(-np.bincount(of_word) // BANKS)).sum())


def _first_of_each(values: np.ndarray, new_warp: np.ndarray, warps: np.ndarray,
                   sort: bool = False) -> np.ndarray:
    """The distinct (warp, value) pairs: as a mask of the positions that
    start one, when each warp's values are non-decreasing (the lanes of a
    warp mostly access ascending addresses: a change between neighbours is
    a new value, and no sort is needed); else as sorted keys warp << 40 |
    value (an int64 array, no longer a mask)."""
    step = np.diff(values)
    if not sort and not ((step < 0) & ~new_warp[1:]).any():
        mask = new_warp.copy()
        mask[1:] |= step != 0
        return mask
    return np.unique((warps << 40) + values)


def _keys_of_sorted(keys: np.ndarray, warps: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """(block, sector) keys from sorted (warp, sector) keys."""
    block_of_warp = dict(zip(warps.tolist(), np.asarray(blocks).tolist()))
    warp = keys >> 40
    sector = keys & ((1 << 40) - 1)
    block = np.array([block_of_warp[w] for w in warp.tolist()], dtype=np.int64)
    return (block << 36) + sector
