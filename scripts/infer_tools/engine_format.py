"""The engine file's container, read and written: the one Python copy of
include/inferrt/engine_format.h (docs/engine-format.md is the specification).

    [header, 64 bytes][section table, 24 bytes an entry][sections, each 256-byte aligned]

``read_engine(path_or_bytes)`` checks the magic, the version, the sizes and
every checksum and returns an `Engine`: its target and its sections by kind,
with the metadata and plan parsed. ``Engine.to_bytes()`` (or
``write_engine``) lays the sections out as infer-opt does, so an engine read
and written again is byte-identical; tests that craft or corrupt engines, and
engine_weights' rewrite, write through it. ``with_header`` changes header
fields of a file and, unless told not to, reseals the header's checksum.

Not checked here (the runtime's loader is the authority): zero padding, the
section kinds the 1.0 loader knows, the JSON's schema.
"""

from __future__ import annotations

import dataclasses
import json
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"INFERENG"
FORMAT_MAJOR, FORMAT_MINOR = 1, 0
ALIGNMENT = 256
MAX_SECTIONS = 16
TARGET_BYTES = 32

METADATA, KERNELS, WEIGHTS, PLAN = 1, 2, 3, 4
SECTION_NAMES = {METADATA: "METADATA", KERNELS: "KERNELS", WEIGHTS: "WEIGHTS", PLAN: "PLAN"}
#: The order infer-opt writes them in.
WRITER_ORDER = (METADATA, PLAN, KERNELS, WEIGHTS)

# inferrt_engine_header and inferrt_section_entry: little-endian, no padding.
_HEADER_FIELDS = (("magic", "8s"), ("format_major", "H"), ("format_minor", "H"),
                  ("header_size", "I"), ("section_count", "I"), ("header_crc", "I"),
                  ("file_size", "Q"), ("target", f"{TARGET_BYTES}s"))
_HEADER = struct.Struct("<" + "".join(code for _, code in _HEADER_FIELDS))
_ENTRY = struct.Struct("<IIQQ")
HEADER_SIZE, ENTRY_SIZE = _HEADER.size, _ENTRY.size  # 64, 24
#: Each header field's byte offset (for tests that corrupt one).
HEADER_OFFSETS = {name: struct.calcsize("<" + "".join(c for _, c in _HEADER_FIELDS[:i]))
                  for i, (name, _) in enumerate(_HEADER_FIELDS)}

#: The metadata's dtype names as numpy dtype names (bfloat16 has none).
DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16", "int8": "int8",
          "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
          "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool": "bool"}


class EngineFormatError(ValueError):
    """The bytes are not a well-formed engine file; the message says where."""


def align(n: int) -> int:
    """`n` rounded up to the section alignment."""
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def crc32(data: bytes) -> int:
    """The format's CRC-32 (IEEE 802.3, as zlib; inferrt_crc32(0, ...))."""
    return zlib.crc32(data)


@dataclass(frozen=True)
class Header:
    """inferrt_engine_header, field by field (`target` without its NULs)."""
    magic: bytes = MAGIC
    format_major: int = FORMAT_MAJOR
    format_minor: int = FORMAT_MINOR
    header_size: int = HEADER_SIZE
    section_count: int = 0
    header_crc: int = 0
    file_size: int = 0
    target: str = ""

    @classmethod
    def unpack(cls, data: bytes) -> "Header":
        if len(data) < HEADER_SIZE:
            raise EngineFormatError(f"truncated: {len(data)} bytes, an engine header needs "
                                    f"{HEADER_SIZE}")
        values = dict(zip((name for name, _ in _HEADER_FIELDS), _HEADER.unpack_from(data)))
        values["target"] = values["target"].split(b"\0", 1)[0].decode("latin-1")
        return cls(**values)

    def pack(self) -> bytes:
        target = self.target.encode("latin-1")
        if len(target) >= TARGET_BYTES:
            raise EngineFormatError(f"target '{self.target}' is longer than "
                                    f"{TARGET_BYTES - 1} characters")
        return _HEADER.pack(self.magic, self.format_major, self.format_minor, self.header_size,
                            self.section_count, self.header_crc, self.file_size, target)


@dataclass(frozen=True)
class SectionEntry:
    """inferrt_section_entry: where a section lies and its checksum."""
    kind: int
    crc: int
    offset: int
    size: int


def _header_crc(header: bytes, table: bytes) -> int:
    """The header's checksum: over the header with its CRC field zeroed,
    then the section table."""
    at = HEADER_OFFSETS["header_crc"]
    return zlib.crc32(table, zlib.crc32(header[:at] + b"\0\0\0\0" + header[at + 4:HEADER_SIZE]))


@dataclass
class Engine:
    """An engine file's content: its target and its sections by kind, in
    table order (dicts keep insertion order). `header` and `table` are as
    read (None and [] for an engine built here); `to_bytes` recomputes them."""
    target: str
    sections: dict[int, bytes]
    format_major: int = FORMAT_MAJOR
    format_minor: int = FORMAT_MINOR
    header: Header | None = None
    table: list[SectionEntry] = field(default_factory=list)

    def section(self, kind: int) -> bytes:
        if kind not in self.sections:
            raise EngineFormatError(f"the engine lacks section {SECTION_NAMES.get(kind, kind)}")
        return self.sections[kind]

    @property
    def metadata(self) -> dict:
        """The METADATA section's JSON: inputs, outputs, compiler, target."""
        return json.loads(self.section(METADATA))

    @property
    def plan(self) -> dict:
        """The PLAN section's JSON: weights table, arena, kernels or CUDA launches."""
        return json.loads(self.section(PLAN))

    @property
    def kernels(self) -> bytes:
        return self.section(KERNELS)

    @property
    def weights(self) -> bytes:
        """The WEIGHTS section (empty if the engine has none)."""
        return self.sections.get(WEIGHTS, b"")

    def weight(self, index: int, plan: dict | None = None):
        """The plan's weight `index` as a numpy array (a read-only view of
        the section); pass `plan` to save parsing it again."""
        import numpy as np

        w = (plan if plan is not None else self.plan)["weights"][index]
        return np.frombuffer(self.weights, dtype=DTYPES[w["dtype"]], offset=w["offset"],
                             count=w["bytes"] // np.dtype(DTYPES[w["dtype"]]).itemsize
                             ).reshape(w["shape"])

    def to_bytes(self) -> bytes:
        return write_engine(self.target, self.sections, self.format_major, self.format_minor)


def make_engine(target: str, metadata: dict, plan: dict, kernels: bytes,
                weights: bytes = b"") -> Engine:
    """An engine with the four sections in the writer's order, the JSON
    written as infer-opt writes it (sorted keys, two-space indentation)."""
    def as_json(value: dict) -> bytes:
        return json.dumps(value, indent=2, sort_keys=True).encode()
    parts = {METADATA: as_json(metadata), PLAN: as_json(plan), KERNELS: kernels, WEIGHTS: weights}
    return Engine(target, {kind: parts[kind] for kind in WRITER_ORDER})


def write_engine(target: str, sections, format_major: int = FORMAT_MAJOR,
                 format_minor: int = FORMAT_MINOR) -> bytes:
    """An engine file: the header, the table and `sections` ({kind: bytes}
    or (kind, bytes) pairs, in the table's order), each at the next multiple
    of 256 as lib/Target/Engine/EngineWriter.cpp lays them out (an empty
    section at the end of the file), with every checksum."""
    pairs = list(sections.items() if isinstance(sections, dict) else sections)
    if not 1 <= len(pairs) <= MAX_SECTIONS:
        raise EngineFormatError(f"{len(pairs)} sections (1 to {MAX_SECTIONS})")
    offsets = [align(HEADER_SIZE + ENTRY_SIZE * len(pairs))]
    for _, data in pairs:
        offsets.append(align(offsets[-1] + len(data)))
    table = b"".join(_ENTRY.pack(kind, crc32(data), at, len(data))
                     for (kind, data), at in zip(pairs, offsets))
    header = Header(format_major=format_major, format_minor=format_minor,
                    section_count=len(pairs), file_size=offsets[-1], target=target)
    header = dataclasses.replace(header, header_crc=_header_crc(header.pack(), table))
    out = bytearray(offsets[-1])
    out[:HEADER_SIZE + len(table)] = header.pack() + table
    for (_, data), at in zip(pairs, offsets):
        out[at:at + len(data)] = data
    return bytes(out)


def read_engine(source, verify: bool = True) -> Engine:
    """The engine in `source` (a path, or the file's bytes). With `verify`
    the magic, major version, header size, section count, file size, the
    header's and every section's CRC-32 and each section's alignment are
    checked; without, only what is needed to find the sections. Raises
    EngineFormatError saying what is wrong (after the path, given one)."""
    if not isinstance(source, (str, Path)):
        return _parse(bytes(source), verify)
    try:
        return _parse(Path(source).read_bytes(), verify)
    except EngineFormatError as error:
        raise EngineFormatError(f"{source}: {error}") from None


def _parse(data: bytes, verify: bool) -> Engine:
    header = Header.unpack(data)
    if header.magic != MAGIC:
        raise EngineFormatError("not an infer-opt engine (bad magic)")
    if verify and header.format_major != FORMAT_MAJOR:
        raise EngineFormatError(f"format {header.format_major}.{header.format_minor}, this "
                                f"reader knows {FORMAT_MAJOR}.x")
    count = header.section_count
    if header.header_size != HEADER_SIZE or not 1 <= count <= MAX_SECTIONS:
        raise EngineFormatError(f"corrupt header (size {header.header_size}, {count} sections)")
    if verify and header.file_size != len(data):
        raise EngineFormatError(f"truncated or padded: the header says {header.file_size} "
                                f"bytes, the file has {len(data)}")
    end = HEADER_SIZE + ENTRY_SIZE * count
    if end > len(data):
        raise EngineFormatError("truncated inside its section table")
    if verify and _header_crc(data, data[HEADER_SIZE:end]) != header.header_crc:
        raise EngineFormatError("corrupt header (checksum mismatch)")
    table, sections = [], {}
    for i in range(count):
        entry = SectionEntry(*_ENTRY.unpack_from(data, HEADER_SIZE + ENTRY_SIZE * i))
        what = f"section {SECTION_NAMES.get(entry.kind, entry.kind)}"
        if entry.kind in sections:
            raise EngineFormatError(f"has {what} twice")
        if entry.offset + entry.size > len(data) or (verify and entry.offset % ALIGNMENT):
            raise EngineFormatError(f"{what} lies outside the file or is misaligned")
        body = data[entry.offset:entry.offset + entry.size]
        if verify and crc32(body) != entry.crc:
            raise EngineFormatError(f"{what} is corrupt (checksum mismatch)")
        table.append(entry)
        sections[entry.kind] = body
    return Engine(header.target, sections, header.format_major, header.format_minor, header,
                  table)


def with_header(data: bytes, seal: bool = True, **fields) -> bytes:
    """`data` (an engine file) with the header `fields` replaced (Header's
    names: target="cuda", format_major=2, ...) and the rest unchanged. With
    `seal` the header's checksum is recomputed, as a writer of such a file
    would; without, it is left as it was (a corrupt header)."""
    header = dataclasses.replace(Header.unpack(data), **fields)
    packed = header.pack()
    if seal:
        end = HEADER_SIZE + ENTRY_SIZE * header.section_count
        header = dataclasses.replace(header, header_crc=_header_crc(packed, data[HEADER_SIZE:end]))
        packed = header.pack()
    return packed + bytes(data[HEADER_SIZE:])
