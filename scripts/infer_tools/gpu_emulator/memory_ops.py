"""memref and vector ops: loads, stores, views, globals, and the
shared-memory race checks.
"""

from __future__ import annotations

import re

import numpy as np

from .base import WARP, EmulationError
from .ir import cached
from .memory import MemRefType, View, parse_memref, vector_shape


def _result_memref(op) -> MemRefType:
    """The memref type of `op`'s result, parsed once; a copy of its own
    (a view's offset may be filled in)."""
    typ = cached(op, "memref", lambda: parse_memref(op.result_type()))
    return MemRefType(typ.shape, typ.dtype, typ.strides, typ.offset, typ.shared)


class MemoryOps:
    """Run's handlers of memref and vector ops."""

    def touch(self, view: View, elements: np.ndarray, warp: int, write: bool,
              values: np.ndarray | None = None, lanes: np.ndarray | None = None) -> None:
        """Shared-memory race checks for `warp`'s accesses of `elements`, by
        the lanes `lanes` (one per element, or per row of `elements`), or by
        the whole warp at once (a WMMA load or store) when None."""
        buffer = view.buffer
        if not buffer.shared:
            return
        size = view.type.dtype.itemsize
        first = (view.byte_base + elements.reshape(-1) * size)
        where = (first[:, None] + np.arange(size)).reshape(-1)
        self.check_not_in_flight(view, elements)
        if lanes is None:
            byte_lanes = np.full(where.size, -1)
        else:
            lanes = np.asarray(lanes).reshape(-1, *[1] * (elements.ndim - 1))
            byte_lanes = np.repeat(np.broadcast_to(lanes, elements.shape).reshape(-1), size)
        e = self.epoch
        # Within a warp, lanes see each other's writes (and a WMMA op the
        # lanes', or the lanes a WMMA store's) only after a warp barrier.
        same_warp = self._since_warp_barrier(buffer.write_epoch, buffer.write_warp,
                                             buffer.write_sync, where, warp)
        if not write and (same_warp & (buffer.write_lane[where] != byte_lanes)).any():
            raise EmulationError("shared memory read by a lane of a warp that another lane (or a "
                                 "WMMA store) of it wrote, with no warp barrier between")
        if write:
            # And a lane's write waits for the other lanes' reads (or a WMMA
            # load's, or a WMMA store for the lanes' reads).
            read_here = self._since_warp_barrier(buffer.read_epoch, buffer.read_warp,
                                                 buffer.read_sync, where, warp)
            if (read_here & (buffer.read_lane[where] != byte_lanes)).any():
                raise EmulationError("shared memory written by a lane of a warp (or a WMMA store) "
                                     "that another lane (or a WMMA load) of it read, with no "
                                     "warp barrier between")
            buffer.write_lane[where] = byte_lanes
            buffer.write_sync[where] = self.warp_syncs[warp]
            if ((buffer.read_epoch[where] == e) & (buffer.read_warp[where] != warp)).any():
                raise EmulationError("shared memory written while another warp reads it, with "
                                     "no barrier between")
            clobber = (buffer.write_epoch[where] == e) & (buffer.write_warp[where] != warp)
            clobbered = clobber.reshape(-1, size).any(1)  # Per element.
            if clobbered.any():
                old = view.data[elements.reshape(-1)[clobbered]]
                new = values.reshape(-1)[clobbered].astype(view.type.dtype)
                # Bit for bit: the same bytes written twice are harmless, NaNs
                # included (the garbage of a grown tile's unused columns,
                # copied by two warps' clamped threads).
                if old.tobytes() != new.tobytes():
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
            self._note_read_lanes(buffer, where, byte_lanes, warp)
            buffer.read_warp[where] = np.where(other, -2,
                                               np.where(same, buffer.read_warp[where], warp))
            buffer.read_epoch[where] = e

    def touch_at_once(self, view: View, elements: np.ndarray, warps: np.ndarray,
                      lanes: np.ndarray | None, write: bool) -> bool:
        """touch() for the accesses of several warps in one op, all at once:
        the rows of `elements`, made by the warps `warps` (one per row) and
        lanes `lanes` (one per row; None: each warp as a whole, a WMMA op),
        with the outcome of touch() warp by warp in increasing order. Where
        a check fails, or an element is written by two of the warps or was
        written by another warp in this epoch (a race, or the same value
        again), it changes nothing and returns False: the caller then
        touches warp by warp, which decides and says which warp did what."""
        buffer = view.buffer
        if not buffer.shared or not warps.size:
            return True
        size = view.type.dtype.itemsize
        flat = elements.reshape(-1)
        per_row = flat.size // warps.size
        element_warp = np.repeat(warps, per_row)
        where = ((view.byte_base + flat * size)[:, None] + np.arange(size)).reshape(-1)
        byte_warp = np.repeat(element_warp, size)
        byte_lanes = np.full(where.size, -1) if lanes is None else np.repeat(lanes, per_row * size)
        if buffer.in_flight[where].any():
            return False
        e = self.epoch
        write_epoch, write_warp = buffer.write_epoch[where], buffer.write_warp[where]
        if ((write_epoch == e) & (write_warp != byte_warp)).any():
            return False
        # One view, one element type: two accesses share a byte only if they
        # are of the same element, so elements stand for their bytes below.
        if write:
            if warps[0] != warps[-1] or (warps != warps[0]).any():
                order = np.argsort(flat, kind="stable")
                ordered, owners = flat[order], element_warp[order]
                if ((ordered[1:] == ordered[:-1]) & (owners[1:] != owners[:-1])).any():
                    return False  # Two warps write one element: touch() decides.
            syncs = self.warp_syncs[byte_warp]
            read_epoch, read_warp = buffer.read_epoch[where], buffer.read_warp[where]
            read_here = (read_epoch == e) & (read_warp == byte_warp) & \
                (buffer.read_sync[where] == syncs)
            if (read_here & (buffer.read_lane[where] != byte_lanes)).any() or \
                    ((read_epoch == e) & (read_warp != byte_warp)).any():
                return False
            buffer.write_lane[where] = byte_lanes
            buffer.write_sync[where] = syncs
            buffer.write_epoch[where] = e
            buffer.write_warp[where] = byte_warp
            buffer.written[where] = True
            return True
        same_warp = (write_epoch == e) & (write_warp == byte_warp) & \
            (buffer.write_sync[where] == self.warp_syncs[byte_warp])
        if (same_warp & (buffer.write_lane[where] != byte_lanes)).any() or \
                not buffer.written[where].all():
            return False
        # What touch() warp by warp would leave: an element read by one warp
        # as touch() records it; one read by several, warp after warp, ends
        # read by several (-2), with the last warp's lanes and count of warp
        # barriers. Keys sorted by (element, warp, lane).
        element_lane = np.full(flat.size, -1) if lanes is None else np.repeat(lanes, per_row)
        keys = np.sort((flat * self.warps + element_warp) * 64 + (element_lane + 4))
        new = np.empty(keys.size, dtype=bool)
        new[0] = True
        np.not_equal(keys[1:], keys[:-1], out=new[1:])
        keys = keys[new]
        element, warp, lane = keys // (64 * self.warps), keys // 64 % self.warps, keys % 64 - 4
        new = np.empty(keys.size, dtype=bool)
        new[0] = True
        np.not_equal(element[1:], element[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        ends = np.append(starts[1:], keys.size) - 1
        new[1:] |= warp[1:] != warp[:-1]
        runs = np.flatnonzero(new)  # Where each (element, warp) starts.
        low = lane[runs[np.searchsorted(runs, ends, side="right") - 1]]
        lane, several = np.where(low == lane[ends], low, -3), warp[starts] != warp[ends]
        byte = ((view.byte_base + element[starts] * size)[:, None] + np.arange(size)).reshape(-1)
        warp, lane, several = (np.repeat(a, size) for a in (warp[ends], lane, several))
        syncs = self.warp_syncs[warp]
        same = buffer.read_epoch[byte] == e
        old_warp = buffer.read_warp[byte]
        earlier = same & (old_warp == warp) & (buffer.read_sync[byte] == syncs) & ~several
        buffer.read_lane[byte] = np.where(earlier & (buffer.read_lane[byte] != lane), -3, lane)
        buffer.read_sync[byte] = syncs
        buffer.read_warp[byte] = np.where(several | (same & (old_warp != warp)), -2, warp)
        buffer.read_epoch[byte] = e
        return True

    def _since_warp_barrier(self, epoch: np.ndarray, warps: np.ndarray, syncs: np.ndarray,
                            where: np.ndarray, warp: int) -> np.ndarray:
        """Which bytes of `where` `warp` accessed (by the epoch, warp and
        warp-barrier count recorded for them) since its last warp barrier."""
        return (epoch[where] == self.epoch) & (warps[where] == warp) & \
            (syncs[where] == self.warp_syncs[warp])

    def _note_read_lanes(self, buffer, where: np.ndarray, byte_lanes: np.ndarray,
                         warp: int) -> None:
        """Records which lane of `warp` read each byte of `where` since its
        last warp barrier: -3 where several did (in this access or with an
        earlier one)."""
        if (byte_lanes == byte_lanes[0]).all():  # One lane, or a WMMA load: no sorting.
            byte, lane = where, byte_lanes
        else:
            order = np.lexsort((byte_lanes, where))
            ordered, lanes = where[order], byte_lanes[order]
            starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
            byte = ordered[starts]
            low, high = lanes[starts], np.maximum.reduceat(lanes, starts)
            lane = np.where(low == high, low, -3)
        earlier = self._since_warp_barrier(buffer.read_epoch, buffer.read_warp, buffer.read_sync,
                                           byte, warp)
        buffer.read_lane[byte] = np.where(earlier & (buffer.read_lane[byte] != lane), -3, lane)
        buffer.read_sync[byte] = self.warp_syncs[warp]

    def count_traffic(self, view: View, elements: np.ndarray, threads: np.ndarray, write: bool,
                      lanes: int = 1, requests: int | None = None) -> None:
        """Counts the accesses of `threads` (one each) at `elements` (their
        first elements, `lanes` wide) when the emulator counts traffic; a
        request per warp unless `requests` says otherwise."""
        if self.traffic is None:
            return
        size = view.type.dtype.itemsize
        addresses = view.buffer.address + view.byte_base + elements.reshape(-1) * size
        threads = np.asarray(threads)
        self.traffic.count(view.buffer, addresses, threads // WARP, self.block_id[threads],
                           size * lanes, write, requests)

    def op_memref_view(self, op, ins, mask):
        source, shift = ins[0], ins[1]
        shift = int(self.uniform_scalar(shift, mask, "memref.view's shift"))
        typ = _result_memref(op)
        return View(source.buffer, source.byte_base + source.type.offset + shift, typ)

    def uniform_scalar(self, value: np.ndarray, mask: np.ndarray, what: str):
        active = value[mask] if mask.any() else value[:1]
        if (active != active[0]).any():
            raise EmulationError(f"{what} differs between threads")
        return active[0]

    def _recast(self, op, ins, mask):
        # Static strides: the result type says them, and its offset unless
        # that is dynamic, the source's then (a reshape or cast keeps it).
        typ = _result_memref(op)
        if typ.offset is None:
            if op.name != "memref.subview":
                typ.offset = ins[0].type.offset
            else:
                typ.offset = self._subview_offset(op, ins, mask)
        return ins[0].retyped(typ)

    def _subview_offset(self, op, ins, mask):
        """The element offset of a subview with dynamic offsets, which must be
        the same on every thread (views are per op, not per thread)."""
        source = ins[0].type
        if source.offset is None:
            raise EmulationError(f"{op.name}: a view of a view whose offset is unknown")
        static = cached(op, "static_offsets", lambda: [
            int(v) for v in re.search(r"static_offsets = array<i64: ([-\d, ]*)>",
                                      op.text).group(1).split(",") if v.strip()])
        dynamic = iter(ins[1:])
        offset = source.offset
        for value, stride in zip(static, source.strides):
            if value == -(1 << 63):  # ShapedType::kDynamic
                value = int(self.uniform_scalar(next(dynamic), mask, "a subview's offset"))
            offset += value * stride
        return offset

    op_memref_subview = op_memref_reinterpret_cast = op_memref_cast = _recast
    op_memref_expand_shape = op_memref_collapse_shape = op_memref_memory_space_cast = _recast

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
            self.count_traffic(view, elements, active, False)
            result[active] = view.data[elements]
        return result

    def op_memref_store(self, op, ins, mask):
        value, view, indices = ins[0], ins[1], ins[2:]
        active = np.flatnonzero(mask)
        if active.size:
            elements = view.elements(op, [i[active] for i in indices], active.size)
            self.touch_threads(view, elements, active, True, value[active])
            self.count_traffic(view, elements, active, True)
            view.data[elements] = value[active]

    def touch_threads(self, view, elements, threads, write, values=None):
        if not view.buffer.shared:
            return
        warps = threads // WARP
        if self.touch_at_once(view, elements, warps, threads % WARP, write):
            return
        for w in np.unique(warps):
            mine = warps == w
            self.touch(view, elements[mine], int(w), write,
                       values[mine] if values is not None else None, threads[mine] % WARP)

    def _vector(self, op, ins, mask, store):
        value, view, indices = (ins[0], ins[1], ins[2:]) if store else (None, ins[0], ins[1:])
        if "vector" not in op.cache:
            op.cache["vector"] = (
                int(re.search(r"vector<(\d+)x(\w+)>", op.text).group(1)),
                int(re.search(r"alignment = (\d+)", op.text).group(1))
                if "alignment" in op.text else None)
        lanes, align = op.cache["vector"]
        size = view.type.dtype.itemsize
        align = align or size
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
        self.count_traffic(view, starts, threads, store, lanes)
        if store:
            warps = threads // WARP
            if self.touch_at_once(view, elements, warps, threads % WARP, True):
                view.data[elements] = value[threads]
                return None
            for w in np.unique(warps):
                mine = warps == w
                self.touch(view, elements[mine], int(w), True, value[threads[mine]],
                           threads[mine] % WARP)
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
        position = cached(op, "position", lambda: [
            int(p) for p in re.search(r"static_position = array<i64: ([-\d, ]*)>",
                                      op.text).group(1).split(",") if p.strip()])
        return ins[0][(slice(None), *position)]

    def op_vector_from_elements(self, op, ins, mask):
        shape = cached(op, "shape", lambda: vector_shape(op.result_type()))
        return np.stack(ins, axis=1).reshape(self.threads, *shape)

    def op_vector_broadcast(self, op, ins, mask):
        shape = cached(op, "shape", lambda: vector_shape(op.result_type()))
        return np.broadcast_to(ins[0].reshape(self.threads, *[1] * len(shape)),
                               (self.threads, *shape)).copy()

