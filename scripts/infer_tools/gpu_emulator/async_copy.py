"""cp.async: copies from global to shared memory that complete later.

`nvgpu.device_async_copy` reads its source when issued and writes its
destination only when the thread waits for its group: `nvvm.cp.async.
commit.group` closes the thread's copies issued since the last commit into
a group, and `nvvm.cp.async.wait.group N` completes the thread's oldest
groups until at most N are in flight. From issue to completion the
destination's bytes are in flight: any access to them (a read of stale
data, a write that the copy would overwrite) is an error, and so is a
kernel that ends with copies in flight. A completed copy counts as a write
by its thread at the wait, so other warps see it only after a barrier, as
on a GPU. With ``srcElements`` (cp.async's source size) a copy reads that
many elements, each checked against its source, and zero-fills the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .base import WARP, EmulationError
from .ir import cached


@dataclass
class AsyncCopy:
    """One device_async_copy of some threads, not yet complete for them."""
    view: object              # The destination (a shared-memory View).
    threads: np.ndarray       # Threads whose copy is still in flight.
    elements: np.ndarray      # Per thread: destination elements.
    values: np.ndarray        # Per thread: the source's values at issue.
    group: np.ndarray         # Per thread: its commit group, -1 before the commit.


class AsyncCopyOps:
    """Run's handlers of the cp.async ops; Run.__init__ sets the state."""

    def op_nvgpu_device_async_copy(self, op, ins, mask):
        segments = cached(op, "segments", lambda: [int(x) for x in re.search(
            r"operandSegmentSizes = array<i32: ([\d, ]+)>", op.text).group(1).split(",")])
        dst, src = ins[0], ins[1 + segments[1]]
        dst_indices = ins[1:1 + segments[1]]
        src_indices = ins[2 + segments[1]:2 + segments[1] + segments[3]]
        count = cached(op, "count",
                       lambda: int(re.search(r"dstElements = (\d+)", op.text).group(1)))
        if not dst.buffer.shared or src.buffer.shared:
            raise EmulationError("nvgpu.device_async_copy copies from global to shared memory")
        threads = np.flatnonzero(mask)
        if threads.size:
            size = dst.type.dtype.itemsize
            if count * size not in (4, 8, 16):
                raise EmulationError(f"cp.async copies 4, 8 or 16 bytes, not {count * size}")
            # srcElements (cp.async's source size): only the first n elements
            # are read, from within the source; the rest are zero-filled. (A
            # copy that reads none must still point into the source.)
            read = ins[-1][threads].astype(np.int64) if segments[4] else np.full(threads.size, count)
            if ((read < 0) | (read > count)).any():
                raise EmulationError(f"cp.async: a source size outside 0..{count} elements")
            dst_start = dst.elements(op, [i[threads] for i in dst_indices], threads.size, count)
            src_start = np.zeros(threads.size, dtype=np.int64)
            for n in np.unique(read):
                some = read == n
                src_start[some] = src.elements(op, [i[threads][some] for i in src_indices],
                                               int(some.sum()), max(int(n), 1))
            for view, start in ((dst, dst_start), (src, src_start)):
                if ((view.buffer.address + view.byte_base + start * size) % (count * size)).any():
                    raise EmulationError(f"cp.async: an access not {count * size}-byte aligned")
            self.count_traffic(src, src_start, threads, False, count)
            self.count_traffic(dst, dst_start, threads, True, count)
            lanes = np.arange(count)
            elements = dst_start[:, None] + lanes
            self.check_not_in_flight(dst, elements)
            inside = lanes[None, :] < read[:, None]
            values = np.where(inside, src.data[np.where(inside, src_start[:, None] + lanes, 0)],
                              0).astype(src.data.dtype)
            self.in_flight(dst, elements, +1)
            self.async_copies.append(AsyncCopy(dst, threads, elements, values,
                                               np.full(threads.size, -1)))
        return np.zeros(self.threads, dtype=np.int64)  # The token, unused.

    def op_nvvm_cp_async_commit_group(self, op, ins, mask):
        for copy in self.async_copies:
            new = mask[copy.threads] & (copy.group == -1)
            copy.group[new] = self.async_committed[copy.threads[new]]
        self.async_committed[mask] += 1

    def op_nvvm_cp_async_wait_group(self, op, ins, mask):
        allowed = cached(op, "n", lambda: int(re.search(r"n = (\d+)", op.text).group(1)))
        remaining = []
        for copy in self.async_copies:
            committed = self.async_committed[copy.threads]
            done = mask[copy.threads] & (copy.group >= 0) & \
                (copy.group < committed - allowed)
            if done.any():
                self.complete(copy, done)
            keep = ~done
            if keep.any():
                remaining.append(AsyncCopy(copy.view, copy.threads[keep], copy.elements[keep],
                                           copy.values[keep], copy.group[keep]))
        self.async_copies = remaining

    def complete(self, copy: AsyncCopy, done: np.ndarray) -> None:
        """Writes the copies of the threads `done` as stores of theirs, now."""
        threads, elements = copy.threads[done], copy.elements[done]
        values = copy.values[done]
        self.in_flight(copy.view, elements, -1)
        warps = threads // WARP
        if self.touch_at_once(copy.view, elements, warps, threads % WARP, True):
            copy.view.data[elements] = values
            return
        for w in np.unique(warps):
            mine = warps == w
            self.touch(copy.view, elements[mine], int(w), True, values[mine], threads[mine] % WARP)
            copy.view.data[elements[mine]] = values[mine]

    @staticmethod
    def in_flight(view, elements: np.ndarray, change: int) -> None:
        size = view.type.dtype.itemsize
        first = view.byte_base + elements.reshape(-1) * size
        where = (first[:, None] + np.arange(size)).reshape(-1)
        ordered = np.sort(elements.reshape(-1))
        if (ordered[1:] != ordered[:-1]).all():  # Each byte once: no need for add.at's care.
            view.buffer.in_flight[where] += change
        else:
            np.add.at(view.buffer.in_flight, where, change)

    @staticmethod
    def check_not_in_flight(view, elements: np.ndarray) -> None:
        buffer = view.buffer
        if not buffer.shared:
            return
        size = view.type.dtype.itemsize
        first = view.byte_base + elements.reshape(-1) * size
        if buffer.in_flight[(first[:, None] + np.arange(size)).reshape(-1)].any():
            raise EmulationError("shared memory accessed while a cp.async copy into it is in "
                                 "flight (no cp.async.wait.group for it)")

    def check_no_copies_in_flight(self) -> None:
        if self.async_copies:
            raise EmulationError("the kernel ends with cp.async copies in flight")
