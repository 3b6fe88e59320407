#!/usr/bin/env python3
"""Strip or randomize the weights of an engine, for timing large models on a
machine they cannot be copied to.

The GPU machine takes at most 64 MiB per transfer; ResNet-50, BERT, ViT and
GPT-2 engines are 100 to 650 MB, nearly all weights. ``strip`` zeroes the
WEIGHTS section (the file then compresses to almost nothing with xz);
``randomize`` fills every floating-point weight with N(0, 0.02) values
(integer weights stay 0: valid indices for Gather) and rewrites the
checksums. The result computes garbage but takes the same time as the real
model: use it for latency only, never for accuracy (its outputs are not
compared with anything). Layout: docs/engine-format.md.

Example:
    python3 scripts/engine_weights.py strip resnet50.engine resnet50.stripped.engine
    python3 scripts/engine_weights.py randomize resnet50.stripped.engine resnet50.random.engine
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

WEIGHTS, PLAN = 3, 4
FLOATS = {"float32": np.float32, "float16": np.float16, "float64": np.float64}


def rewrite(data: bytearray, fill) -> None:
    count = struct.unpack_from("<I", data, 16)[0]
    table = {}
    for i in range(count):
        kind, _, offset, size = struct.unpack_from("<IIQQ", data, 64 + 24 * i)
        table[kind] = (i, offset, size)
    _, poff, psize = table[PLAN]
    plan = json.loads(bytes(data[poff:poff + psize]))
    i, woff, wsize = table[WEIGHTS]
    section = np.frombuffer(data, dtype=np.uint8, count=wsize, offset=woff)
    fill(section, plan["weights"])
    struct.pack_into("<I", data, 64 + 24 * i + 4, zlib.crc32(bytes(data[woff:woff + wsize])))
    head = bytearray(data[:64 + 24 * count])
    head[20:24] = b"\0\0\0\0"
    struct.pack_into("<I", data, 20, zlib.crc32(head))


def strip(section: np.ndarray, table: list) -> None:
    section[:] = 0


def randomize(section: np.ndarray, table: list) -> None:
    rng = np.random.default_rng(0)
    for w in table:
        dtype = FLOATS.get(w["dtype"])
        view = section[w["offset"]:w["offset"] + w["bytes"]]
        if dtype is None:
            view[:] = 0
            continue
        values = (rng.standard_normal(w["bytes"] // np.dtype(dtype).itemsize) * 0.02).astype(dtype)
        view[:] = values.view(np.uint8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("action", choices=["strip", "randomize"])
    ap.add_argument("engine", type=Path)
    ap.add_argument("output", type=Path)
    args = ap.parse_args()
    data = bytearray(args.engine.read_bytes())
    if data[:8] != b"INFERENG":
        ap.error(f"{args.engine} is not an infer-opt engine")
    rewrite(data, strip if args.action == "strip" else randomize)
    args.output.write_bytes(bytes(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
