#!/usr/bin/env python3
"""Engine integrity: flip single bytes of an engine and load each copy.

Every flipped engine must be refused by ``inferrt_engine_load`` with a
message (the header, table and section CRC-32s and the zero padding cover
every byte), and none may crash the loader. The flips run in this process
through libinferrt (ctypes), each on a copy written to a temporary file; the
offsets and new byte values come from ``--seed``, so a failure can be
replayed, and the offset being tried is written to ``--progress`` first, so
a crash names it.

  scripts/integrity.py --engine E.engine --flips 10000 --seed 1
  scripts/integrity.py --model models/ppocr/cls.onnx --input-shape x:1x3x48x192 --flips 10000

Prints one line of counts; exits 1 if any flip is accepted (or the
unflipped engine is refused).
"""

from __future__ import annotations

import argparse
import ctypes
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from infer_tools.runtime import INFER_OPT, LIBINFERRT  # build/'s, or $INFER_OPT's and $LIBINFERRT's


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--engine", type=Path, help="an engine file to flip")
    source.add_argument("--model", type=Path, help="an ONNX model to compile first (with --input-shape)")
    parser.add_argument("--input-shape", action="append", default=[], help="passed to infer-opt")
    parser.add_argument("--flips", type=int, default=10000, help="engines to try (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--progress", type=Path, help="file holding the offset being tried")
    parser.add_argument("--list-messages", action="store_true",
                        help="also print each distinct message (the engine path shown as P)")
    args = parser.parse_args()

    lib = ctypes.CDLL(str(LIBINFERRT))
    lib.inferrt_engine_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.inferrt_engine_load.restype = ctypes.c_void_p
    lib.inferrt_engine_free.argtypes = [ctypes.c_void_p]
    lib.inferrt_status_message.argtypes = [ctypes.c_void_p]
    lib.inferrt_status_message.restype = ctypes.c_char_p
    lib.inferrt_status_free.argtypes = [ctypes.c_void_p]

    with tempfile.TemporaryDirectory() as tmp:
        engine = args.engine
        if args.model:
            engine = Path(tmp) / "model.engine"
            command = [str(INFER_OPT), str(args.model), "--emit=engine", "-o", str(engine)]
            for shape in args.input_shape:
                command += ["--input-shape", shape]
            subprocess.run(command, check=True)
        data = bytearray(engine.read_bytes())
        trial = Path(tmp) / "flipped.engine"

        def load(blob: bytes) -> str | None:
            """None if the loader accepts `blob`, else its message."""
            trial.write_bytes(blob)
            handle = ctypes.c_void_p()
            status = lib.inferrt_engine_load(str(trial).encode(), ctypes.byref(handle))
            if not status:
                lib.inferrt_engine_free(handle)
                return None
            message = lib.inferrt_status_message(status).decode()
            lib.inferrt_status_free(status)
            return message

        if load(bytes(data)) is not None:
            print(f"integrity: the unflipped engine is refused: {load(bytes(data))}", file=sys.stderr)
            return 1
        rng = random.Random(args.seed)
        accepted, empty, messages = [], 0, set()
        start = time.perf_counter()
        for _ in range(args.flips):
            offset = rng.randrange(len(data))
            value = rng.choice([v for v in range(256) if v != data[offset]])
            if args.progress:
                args.progress.write_text(f"{offset} {value}\n")
            original = data[offset]
            data[offset] = value
            message = load(bytes(data))
            data[offset] = original
            if message is None:
                accepted.append(offset)
            elif not message.strip():
                empty += 1
            else:
                # Messages name the engine's temporary path: keep their shape only.
                messages.add(message.replace(str(trial), "P"))
        seconds = time.perf_counter() - start
    print(f"integrity: {args.flips} single-byte flips of a {len(data)}-byte engine (seed {args.seed}): "
          f"{args.flips - len(accepted)} refused, {len(accepted)} accepted, {empty} without a message; "
          f"{len(messages)} distinct messages; {seconds:.1f} s")
    if args.list_messages:
        for message in sorted(messages):
            print(f"  {message}")
    if accepted:
        print(f"integrity: accepted flips at offsets {accepted[:20]}", file=sys.stderr)
    return 1 if accepted or empty else 0


if __name__ == "__main__":
    sys.exit(main())
