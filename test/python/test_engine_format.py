"""infer_tools.engine_format, the Python reader and writer of engine files.

Real engines (the example, compiled for the CPU and for CUDA) read and
written again must be byte-identical; corrupt and truncated files must be
refused with a message; a file the module writes must be one the runtime
(infer-run) loads and runs as it runs infer-opt's.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from infer_cpu import INFER_OPT, REPO
from infer_tools.engine_format import (ALIGNMENT, ENTRY_SIZE, HEADER_OFFSETS, HEADER_SIZE,
                                       KERNELS, METADATA, PLAN, WEIGHTS, EngineFormatError,
                                       read_engine, with_header, write_engine)

INFER_RUN = INFER_OPT.parent / "infer-run"
EXAMPLE = REPO / "examples" / "tiny_cnn.onnxtext"


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    """The example compiled for the CPU and for CUDA (sm_80 and sm_90)."""
    d = tmp_path_factory.mktemp("format")
    paths = {}
    for target, flags in {"cpu": [], "cuda": ["--target=cuda:sm_80,sm_90"]}.items():
        paths[target] = d / f"{target}.engine"
        subprocess.run([str(INFER_OPT), str(EXAMPLE), "--input-shape", "image:2x3x32x32",
                        "--emit=engine", "-o", str(paths[target]), *flags], check=True)
    return paths


def test_layout_is_the_c_headers():
    # include/inferrt/engine_format.h, docs/engine-format.md's tables.
    assert (HEADER_SIZE, ENTRY_SIZE, ALIGNMENT) == (64, 24, 256)
    assert HEADER_OFFSETS == {"magic": 0, "format_major": 8, "format_minor": 10,
                              "header_size": 12, "section_count": 16, "header_crc": 20,
                              "file_size": 24, "target": 32}


@pytest.mark.parametrize("target,name", [("cpu", "cpu-x86_64"), ("cuda", "cuda")])
def test_real_engines_round_trip_byte_identical(engines, target, name):
    data = engines[target].read_bytes()
    engine = read_engine(engines[target])
    assert engine.target == name
    assert (engine.format_major, engine.format_minor) == (1, 0)
    assert engine.header.file_size == len(data)
    # The writer's order; every section 256-byte aligned.
    assert list(engine.sections) == [METADATA, PLAN, KERNELS, WEIGHTS]
    assert all(entry.offset % ALIGNMENT == 0 for entry in engine.table)
    assert engine.metadata["inputs"] == [{"name": "image", "dtype": "float32",
                                          "shape": [2, 3, 32, 32]}]
    assert engine.to_bytes() == data
    assert read_engine(data).to_bytes() == data


def test_weights_are_the_plans(engines):
    engine = read_engine(engines["cpu"])
    plan = engine.plan
    assert plan["weights"], "the example has weights"
    for index, w in enumerate(plan["weights"]):
        array = engine.weight(index, plan)
        assert (str(array.dtype), list(array.shape)) == (w["dtype"], w["shape"])
        assert array.tobytes() == engine.weights[w["offset"]:w["offset"] + w["bytes"]]


@pytest.mark.parametrize("corrupt,message", [
    (lambda d: d[:-ALIGNMENT], "truncated or padded"),
    (lambda d: d + b"\0" * ALIGNMENT, "truncated or padded"),
    (lambda d: d[:10], "truncated: 10 bytes"),
    (lambda d: b"NOTANENG" + d[8:], "bad magic"),
    (lambda d: with_header(d, format_major=2), "format 2.0"),
    (lambda d: with_header(d, seal=False, target="cuda"), "corrupt header (checksum mismatch)"),
    (lambda d: with_header(d, section_count=0), "corrupt header (size 64, 0 sections)"),
])
def test_bad_files_are_refused(engines, corrupt, message):
    data = engines["cpu"].read_bytes()
    with pytest.raises(EngineFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_engine(corrupt(data))


def test_a_corrupt_section_is_named(engines, tmp_path):
    data = bytearray(engines["cpu"].read_bytes())
    kernels = next(e for e in read_engine(data).table if e.kind == KERNELS)
    data[kernels.offset + kernels.size // 2] ^= 0x40
    flipped = tmp_path / "flipped.engine"
    flipped.write_bytes(bytes(data))
    with pytest.raises(EngineFormatError, match=r"flipped.engine: section KERNELS is corrupt"):
        read_engine(flipped)
    # Unverified, the sections are still found.
    assert read_engine(data, verify=False).metadata == read_engine(engines["cpu"]).metadata


def test_sealed_header_edits_read_back(engines):
    edited = read_engine(with_header(engines["cpu"].read_bytes(), target="cuda", format_minor=3))
    assert (edited.target, edited.format_minor) == ("cuda", 3)


def test_written_engines_run_in_the_runtime(engines, tmp_path, rng):
    """A file write_engine lays out, the sections in another order than
    infer-opt's (the loader finds them through the table), runs as the
    original does."""
    engine = read_engine(engines["cpu"])
    reordered = tmp_path / "reordered.engine"
    reordered.write_bytes(write_engine(engine.target, [(k, engine.sections[k]) for k in
                                                       (WEIGHTS, KERNELS, PLAN, METADATA)]))
    assert list(read_engine(reordered).sections) == [WEIGHTS, KERNELS, PLAN, METADATA]
    np.save(tmp_path / "image.npy", rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
    outputs = {}
    for path in (engines["cpu"], reordered):
        out = tmp_path / path.stem
        result = subprocess.run([str(INFER_RUN), str(path), "--input",
                                 f"image={tmp_path / 'image.npy'}", "--iterations", "1",
                                 "--output-dir", str(out)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        outputs[path.stem] = np.load(out / "probabilities.npy")
    assert outputs["cpu"].tobytes() == outputs["reordered"].tobytes()
