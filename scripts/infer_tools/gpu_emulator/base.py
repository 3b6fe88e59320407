"""What every part of the emulator shares.
"""

from __future__ import annotations


WARP = 32
# Threads emulated at once for kernels without shared memory.
CHUNK_THREADS = 1 << 16


class EmulationError(Exception):
    """The kernel did something a GPU would not do right, or the emulator
    does not know an op."""
