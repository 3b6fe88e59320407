"""MLIR's generic form, parsed into ops, blocks and regions: the subset
that the kernels of infer-cuda-map-to-gpu print (one op a line, regions
between '({' and '})', blocks labelled ^bbN).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import EmulationError


@dataclass
class Op:
    name: str
    results: list[str]
    operands: list[str]
    text: str  # Properties, attributes and types, as printed.
    regions: list["Region"] = field(default_factory=list)
    # What the emulator read from `text` once (its handler, parsed types):
    # an op runs once per loop step and block.
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def result_type(self) -> str:
        types = self.text.rsplit("->", 1)[1].strip()
        return types[1:-1] if types.startswith("(") and types.endswith(")") else types


@dataclass
class Block:
    label: str
    args: list[tuple[str, str]]  # (name, type)
    ops: list[Op]


@dataclass
class Region:
    blocks: list[Block]

    @property
    def args(self) -> list[tuple[str, str]]:
        return self.blocks[0].args

    @property
    def ops(self) -> list[Op]:
        return self.blocks[0].ops


_OP = re.compile(r'^(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\(([^)]*)\)(.*)$')
_BLOCK = re.compile(r"^(\^bb\d+)(?:\((.*)\))?:(?:\s*//.*)?$")


def split_top(text: str, sep: str = ",") -> list[str]:
    """`text` split at `sep` outside brackets and strings."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_region(lines: list[str], i: int) -> tuple[Region, int, str]:
    """The region from line i to its end; returns it, the index of the line
    that ends it, and that line ('}, {' or '})...')."""
    blocks = [Block("^bb0", [], [])]
    labelled = False
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("}, {") or line.startswith("})"):
            return Region(blocks), i, line
        i += 1
        label = _BLOCK.match(line)
        if label:
            args = [tuple(s.strip() for s in a.split(":", 1))
                    for a in split_top(label.group(2) or "")]
            if labelled or blocks[-1].ops:
                blocks.append(Block(label.group(1), args, []))
            else:
                blocks[0] = Block(label.group(1), args, [])
            labelled = True
            continue
        match = _OP.match(line)
        if not match:
            raise EmulationError(f"cannot parse: {line[:120]}")
        result, count, name, operands, rest = match.groups()
        results = []
        if result:
            results = [f"{result}#{k}" for k in range(int(count))] if count else [result]
        op = Op(name, results, split_top(operands), rest)
        if rest.rstrip().endswith("({"):
            while True:
                region, i, end = parse_region(lines, i)
                op.regions.append(region)
                i += 1
                if end.startswith("})"):
                    op.text += end[2:]
                    break
        blocks[-1].ops.append(op)
    return Region(blocks), i, ""


def cached(op: Op, key: str, make):
    """`make()`, computed once for `op` (its cache): what an op's text says
    does not change between the times it runs."""
    try:
        return op.cache[key]
    except KeyError:
        value = op.cache[key] = make()
        return value


def prop(op: Op, name: str) -> str:
    match = re.search(r"\b" + name + r" = ([^,}]+)", op.text)
    if not match:
        raise EmulationError(f"{op.name}: no {name}")
    return match.group(1).strip()
