#!/usr/bin/env python3
"""Generate the corpus of malformed ONNX models used by the importer's
bad-input tests (test/Import/ONNX/malformed).

Each file is deliberately broken in exactly one way; the importer must reject
it with exit code 1 and a diagnostic that names the problem and the offending
node / initializer / value (see the generated README.md for the expectations).

Rules the generator follows:
  * onnx.checker is never called: it would (rightly) reject most of these.
  * Everything is pinned (IR version, opsets, producer name, tensor contents),
    so re-running the script yields byte-identical files and the checked-in
    corpus only changes when this script changes.
  * Every file stays under 4 KiB; the script refuses to write a larger one.
  * Nothing in the corpus is a symlink: external_symlink.onnx refers to
    'link.bin', which the lit test creates at test time (symlinks do not
    survive every checkout and must point at a test-time-specific path).
    Likewise external_directory.onnx refers to 'data.bin', which the lit
    test creates as a directory.

Usage:
    scripts/make_malformed_corpus.py [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from onnx import (
    ModelProto,
    NodeProto,
    TensorProto,
    ValueInfoProto,
    helper,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "test" / "Import" / "ONNX" / "malformed"

MAX_FILE_BYTES = 4096

# Pinned instead of taken from the installed onnx package, so that upgrading
# onnx does not silently change the corpus bytes.
IR_VERSION = 8
DEFAULT_OPSET = 17
PRODUCER = "infer-opt/make_malformed_corpus"

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


# --------------------------------------------------------------------------
# Small builders
# --------------------------------------------------------------------------

def vi(name: str, elem_type: int, shape: list[int] | None) -> ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def model(
    nodes: list[NodeProto],
    inputs: list[ValueInfoProto],
    outputs: list[ValueInfoProto],
    initializers: Sequence[TensorProto] = (),
    opsets: dict[str, int] | None = None,
    graph_name: str = "g",
) -> ModelProto:
    graph = helper.make_graph(nodes, graph_name, inputs, outputs,
                              initializer=list(initializers))
    opsets = {"": DEFAULT_OPSET} if opsets is None else opsets
    m = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()],
        producer_name=PRODUCER,
    )
    m.ir_version = IR_VERSION
    return m


def float_bytes(n: int) -> bytes:
    # Non-zero, recognisable values: a buggy reader that returns garbage or
    # zeros instead of failing is easier to spot in a debugger.
    return np.arange(1, n + 1, dtype="<f4").tobytes()


def raw_tensor(name: str, dims: list[int], raw: bytes,
               data_type: int = FLOAT) -> TensorProto:
    # Built field by field: helper.make_tensor validates sizes, which is
    # exactly what several of these cases must violate.
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def external_tensor(name: str, dims: list[int], location: str,
                    offset: int | None = None,
                    length: int | None = None) -> TensorProto:
    t = TensorProto()
    t.name = name
    t.data_type = FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def add_with_initializer(w: TensorProto, x_shape: list[int] | None = None,
                         node_name: str = "add0") -> ModelProto:
    """y = x + w, the minimal graph in which initializer `w` is actually used
    (an importer may legitimately skip validating unused initializers)."""
    shape = list(w.dims) if x_shape is None else x_shape
    return model(
        [helper.make_node("Add", ["x", w.name], ["y"], name=node_name)],
        [vi("x", FLOAT, shape)],
        [vi("y", FLOAT, shape)],
        [w],
    )


def relu_model(opsets: dict[str, int] | None = None) -> ModelProto:
    return model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
        opsets=opsets,
    )


# --------------------------------------------------------------------------
# Cases. Each returns {filename: bytes}; most produce a single .onnx file.
# --------------------------------------------------------------------------

def truncated() -> dict[str, bytes]:
    w = raw_tensor("w", [2, 3], float_bytes(6))
    data = add_with_initializer(w).SerializeToString()
    # Cut inside the initializer's raw_data payload so that the length prefix
    # promises more bytes than the file holds (a hard parse error, not a
    # model that merely happens to be shorter).
    start = data.index(w.raw_data)
    return {"truncated.onnx": data[: start + len(w.raw_data) // 2]}


def not_protobuf() -> dict[str, bytes]:
    # Starts with 'H' (0x48 = field 9, wire type 0) followed by 'e', which is
    # fine as a varint, but later bytes ('l' = 0x6c, wire type 4: end-group
    # with no open group) are invalid; main() double-checks it fails to parse.
    return {"not_protobuf.onnx": b"Hello, I am definitely not an ONNX model.\n"}


def raw_data_size_mismatch() -> dict[str, bytes]:
    # [2,3] float needs 24 bytes; give 20 (five floats).
    w = raw_tensor("w", [2, 3], float_bytes(5))
    return {"raw_data_size_mismatch.onnx": add_with_initializer(w).SerializeToString()}


def negative_dim() -> dict[str, bytes]:
    # 12 bytes = 3 floats, i.e. what a reader that takes abs() or treats -1
    # as "infer" might be tempted to accept.
    w = raw_tensor("w", [-1, 3], float_bytes(3))
    m = add_with_initializer(w, x_shape=[1, 3])
    return {"negative_dim.onnx": m.SerializeToString()}


def negative_input_dim() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        [vi("x", FLOAT, [-5, 3])],
        [vi("y", FLOAT, [-5, 3])],
    )
    return {"negative_input_dim.onnx": m.SerializeToString()}


def undefined_input() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Relu", ["nowhere"], ["y"], name="relu0")],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"undefined_input.onnx": m.SerializeToString()}


def cycle() -> dict[str, bytes]:
    # No graph inputs at all: every value is produced inside the cycle, so a
    # topological sort is the only thing that can catch it.
    m = model(
        [
            helper.make_node("Relu", ["b_out"], ["a_out"], name="a"),
            helper.make_node("Neg", ["a_out"], ["b_out"], name="b"),
        ],
        [],
        [vi("a_out", FLOAT, [2, 3])],
    )
    return {"cycle.onnx": m.SerializeToString()}


def duplicate_output() -> dict[str, bytes]:
    m = model(
        [
            helper.make_node("Relu", ["x"], ["y"], name="n1"),
            helper.make_node("Neg", ["x"], ["y"], name="n2"),
        ],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"duplicate_output.onnx": m.SerializeToString()}


def unknown_op() -> dict[str, bytes]:
    m = model(
        [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="mystery0",
                          domain="")],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"unknown_op.onnx": m.SerializeToString()}


def unknown_domain() -> dict[str, bytes]:
    # The domain is properly declared in opset_import, so the failure must
    # come from "no such op set is supported", not from a missing import.
    m = model(
        [helper.make_node("Relu", ["x"], ["y"], name="custom0",
                          domain="com.example")],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
        opsets={"": DEFAULT_OPSET, "com.example": 1},
    )
    return {"unknown_domain.onnx": m.SerializeToString()}


def missing_attribute() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Cast", ["x"], ["y"], name="cast0")],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", INT64, [2, 3])],
        opsets={"": 13},
    )
    return {"missing_attribute.onnx": m.SerializeToString()}


def bad_attribute_value() -> dict[str, bytes]:
    # perm must be a permutation of [0, rank); [0,0] repeats an axis.
    m = model(
        [helper.make_node("Transpose", ["x"], ["y"], name="tr0", perm=[0, 0])],
        [vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [3, 2])],
    )
    return {"bad_attribute_value.onnx": m.SerializeToString()}


def external(filename: str, location: str, **kw) -> Callable[[], dict[str, bytes]]:
    # All external-data cases share one shape so that the only difference
    # between them is the location / offset under test.
    def build() -> dict[str, bytes]:
        w = external_tensor("w", [2, 3], location, **kw)
        return {filename: add_with_initializer(w).SerializeToString()}
    build.__name__ = Path(filename).stem
    return build


def external_offset_past_end() -> dict[str, bytes]:
    w = external_tensor("w", [2, 3], "external_offset_past_end.bin",
                        offset=64, length=24)
    return {
        "external_offset_past_end.onnx": add_with_initializer(w).SerializeToString(),
        # Exactly the 24 bytes the tensor needs, but they live at offset 0,
        # so offset 64 lies past the end of the file.
        "external_offset_past_end.bin": float_bytes(6),
    }


def huge_constant_of_shape() -> dict[str, bytes]:
    # 1e12 float elements (4 TB): the importer / constant folder must refuse
    # rather than try to allocate.  Each dim alone fits comfortably in int32,
    # so only the product overflows anything.
    shape = raw_tensor("shape", [3],
                       np.array([100000, 100000, 100], dtype="<i8").tobytes(),
                       data_type=INT64)
    value = helper.make_tensor("value", FLOAT, [1], [0.0])
    m = model(
        [helper.make_node("ConstantOfShape", ["shape"], ["y"], name="big0",
                          value=value)],
        [],
        [vi("y", FLOAT, [100000, 100000, 100])],
        [shape],
    )
    return {"huge_constant_of_shape.onnx": m.SerializeToString()}


def string_tensor() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Identity", ["s"], ["t"], name="id0")],
        [vi("s", TensorProto.STRING, [2])],
        [vi("t", TensorProto.STRING, [2])],
    )
    return {"string_tensor.onnx": m.SerializeToString()}


def unsupported_opset() -> dict[str, bytes]:
    return {"unsupported_opset.onnx": relu_model({"": 99}).SerializeToString()}


def old_opset() -> dict[str, bytes]:
    # Opset 6 Relu is otherwise well formed; only the version is out of range.
    return {"old_opset.onnx": relu_model({"": 6}).SerializeToString()}


def control_flow_if() -> dict[str, bytes]:
    # Valid ONNX; rejected only because control flow is not supported.  The
    # branches read 'x' from the enclosing scope, as ONNX allows.
    then_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["then_out"], name="then_id")],
        "then_branch", [], [vi("then_out", FLOAT, [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["else_out"], name="else_neg")],
        "else_branch", [], [vi("else_out", FLOAT, [2, 3])])
    m = model(
        [helper.make_node("If", ["cond"], ["y"], name="if0",
                          then_branch=then_g, else_branch=else_g)],
        [vi("cond", TensorProto.BOOL, []), vi("x", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"control_flow_if.onnx": m.SerializeToString()}


def wrong_input_count() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Add", ["a", "b", "c"], ["y"], name="add1")],
        [vi("a", FLOAT, [2, 3]), vi("b", FLOAT, [2, 3]), vi("c", FLOAT, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"wrong_input_count.onnx": m.SerializeToString()}


def rank_mismatch_matmul() -> dict[str, bytes]:
    # Ranks agree; it is the contracted dimension (3 vs 4) that does not.
    # The declared output [2,5] is what the outer dims imply, so the only
    # contradiction is the one between the two inputs.
    m = model(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm0")],
        [vi("a", FLOAT, [2, 3]), vi("b", FLOAT, [4, 5])],
        [vi("y", FLOAT, [2, 5])],
    )
    return {"rank_mismatch_matmul.onnx": m.SerializeToString()}


def empty_graph_no_outputs() -> dict[str, bytes]:
    m = model([], [vi("x", FLOAT, [2, 3])], [], graph_name="empty")
    return {"empty_graph_no_outputs.onnx": m.SerializeToString()}


def bad_elem_type() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Identity", ["x"], ["y"], name="id0")],
        [vi("x", 999, [2, 3])],
        [vi("y", FLOAT, [2, 3])],
    )
    return {"bad_elem_type.onnx": m.SerializeToString()}


def raw_data_and_typed() -> dict[str, bytes]:
    # Both encodings are present and even agree on the values; the spec still
    # says only one may be set, and a reader must not guess which one wins.
    w = raw_tensor("w", [2, 3], float_bytes(6))
    w.float_data.extend(np.arange(1, 7, dtype=np.float32).tolist())
    return {"raw_data_and_typed.onnx": add_with_initializer(w).SerializeToString()}


def unnamed_initializer() -> dict[str, bytes]:
    # Unused: the name check must not depend on a node looking it up.
    m = relu_model()
    m.graph.initializer.append(raw_tensor("", [2, 3], float_bytes(6)))
    return {"unnamed_initializer.onnx": m.SerializeToString()}


def sparse_initializer() -> dict[str, bytes]:
    # A well-formed 2x3 sparse tensor with one value at flat index 4.
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("w", FLOAT, [1], [5.0]),
        helper.make_tensor("w_indices", INT64, [1], [4]),
        [2, 3])
    m = relu_model()
    m.graph.sparse_initializer.append(sparse)
    return {"sparse_initializer.onnx": m.SerializeToString()}


def sequence_input() -> dict[str, bytes]:
    m = model(
        [helper.make_node("Identity", ["x"], ["y"], name="id0")],
        [helper.make_tensor_sequence_value_info("x", FLOAT, [2, 3])],
        [helper.make_tensor_sequence_value_info("y", FLOAT, [2, 3])],
    )
    return {"sequence_input.onnx": m.SerializeToString()}


def external_no_location() -> dict[str, bytes]:
    w = external_tensor("w", [2, 3], "unused.bin", offset=0, length=24)
    kept = [e for e in w.external_data if e.key != "location"]
    del w.external_data[:]
    w.external_data.extend(kept)
    return {"external_no_location.onnx": add_with_initializer(w).SerializeToString()}


# (builder, what is wrong, what a good diagnostic should name).  The README is
# generated from this table so that the documentation cannot drift from the
# files.  "Must not parse" cases are listed in UNPARSEABLE and verified below.
CASES: list[tuple[Callable[[], dict[str, bytes]], str, str]] = [
    (truncated, "valid model cut off in the middle of initializer `w`'s raw_data",
     "the file (protobuf parse failure / unexpected end of data)"),
    (not_protobuf, "plain ASCII text, not a protobuf message",
     "the file (protobuf parse failure)"),
    (raw_data_size_mismatch, "initializer `w` is float [2,3] (24 bytes) but raw_data has 20 bytes",
     "initializer `w` (used by node `add0`, Add); expected 24 bytes, got 20"),
    (negative_dim, "initializer `w` has dims [-1,3]",
     "initializer `w` (used by node `add0`), the negative dimension -1"),
    (negative_input_dim, "graph input `x` has dim_value -5",
     "graph input `x`, dimension 0 = -5"),
    (undefined_input, "node consumes `nowhere`, which is not a graph input, initializer or node output",
     "node `relu0` (Relu), value `nowhere`"),
    (cycle, "`a` (Relu) consumes `b_out`, `b` (Neg) consumes `a_out`",
     "nodes `a` and `b` (the cycle)"),
    (duplicate_output, "nodes `n1` (Relu) and `n2` (Neg) both produce `y`",
     "value `y`, nodes `n1` and `n2`"),
    (unknown_op, "op_type `FrobnicateTensor` does not exist in the default domain",
     "node `mystery0`, op `FrobnicateTensor`"),
    (unknown_domain, "Relu in domain `com.example` (declared as opset 1), an unsupported domain",
     "node `custom0`, domain `com.example`"),
    (missing_attribute, "Cast (opset 13) without its required `to` attribute",
     "node `cast0` (Cast), attribute `to`"),
    (bad_attribute_value, "Transpose perm [0,0] on a rank-2 input (axis 0 repeated, axis 1 missing)",
     "node `tr0` (Transpose), attribute `perm`"),
    (external("external_dotdot.onnx", "../secret.bin"),
     "initializer `w` is EXTERNAL with location `../secret.bin` (escapes the model directory)",
     "initializer `w`, location `../secret.bin`"),
    (external("external_absolute.onnx", "/etc/passwd"),
     "initializer `w` is EXTERNAL with absolute location `/etc/passwd`",
     "initializer `w`, location `/etc/passwd`"),
    (external("external_symlink.onnx", "link.bin"),
     "initializer `w` is EXTERNAL at `link.bin`; the lit test makes `link.bin` a symlink pointing "
     "outside the model directory (not shipped here)",
     "initializer `w`, location `link.bin` (resolves outside the model directory)"),
    (external_offset_past_end,
     "initializer `w` (float [2,3]) reads offset 64, length 24 from `external_offset_past_end.bin`, "
     "which is only 24 bytes long",
     "initializer `w`, file `external_offset_past_end.bin`, offset 64 / length 24 vs file size 24"),
    (external("external_missing_file.onnx", "does_not_exist.bin"),
     "initializer `w` is EXTERNAL at `does_not_exist.bin`, which does not exist",
     "initializer `w`, file `does_not_exist.bin`"),
    (huge_constant_of_shape,
     "ConstantOfShape with shape initializer [100000,100000,100] (1e12 floats, 4 TB)",
     "node `big0` (ConstantOfShape), the element count / size limit"),
    (string_tensor, "graph input `s` has elem_type STRING", "graph input `s` / node `id0` (Identity), type STRING"),
    (unsupported_opset, "default-domain opset_import version 99", "the default domain, opset 99 (and the supported range)"),
    (old_opset, "default-domain opset_import version 6 (minimum supported is 7)",
     "the default domain, opset 6 (and the supported range)"),
    (control_flow_if, "If node with then/else subgraphs (control flow is unsupported)",
     "node `if0` (If)"),
    (wrong_input_count, "Add with three inputs `a`,`b`,`c` (Add takes exactly 2)",
     "node `add1` (Add), 3 inputs vs expected 2"),
    (rank_mismatch_matmul, "MatMul of [2,3] by [4,5]: inner dimensions 3 and 4 differ",
     "node `mm0` (MatMul), shapes [2,3] and [4,5]"),
    (empty_graph_no_outputs, "graph `empty` has an input but no nodes and no outputs",
     "graph `empty` (no outputs)"),
    (bad_elem_type, "graph input `x` has elem_type 999 (not a TensorProto.DataType)",
     "graph input `x`, elem_type 999"),
    (raw_data_and_typed, "initializer `w` has both raw_data and float_data set",
     "initializer `w` (used by node `add0`)"),
    (unnamed_initializer, "an (unused) initializer has an empty name", "the file (an initializer has no name)"),
    (sparse_initializer, "the graph has a sparse initializer `w`", "the file (sparse initializers)"),
    (sequence_input, "graph input `x` is a sequence of tensors", "graph input `x` (not a tensor)"),
    (external("external_bad_offset.onnx", "external_offset_past_end.bin", offset=-8),
     "initializer `w` is EXTERNAL with offset `-8`", "initializer `w`, the key `offset` and its value"),
    (external_no_location, "initializer `w` is EXTERNAL with offset and length but no location",
     "initializer `w` (no location)"),
    (external("external_length_mismatch.onnx", "external_offset_past_end.bin", length=20),
     "initializer `w` (float [2,3], 24 bytes) is EXTERNAL with length 20",
     "initializer `w`, both lengths"),
    (external("external_directory.onnx", "data.bin"),
     "initializer `w` is EXTERNAL at `data.bin`; the lit test makes `data.bin` a directory "
     "(not shipped here)",
     "initializer `w`, location `data.bin` (not a regular file)"),
]

UNPARSEABLE = {"truncated.onnx", "not_protobuf.onnx"}


def readme(rows: list[tuple[list[str], str, str]]) -> str:
    lines = [
        "# Malformed ONNX corpus",
        "",
        "Generated by `scripts/make_malformed_corpus.py`; do not edit by hand "
        "(re-run the script, it is deterministic).",
        "",
        "Every model here is broken in exactly one way. The importer must reject "
        "each one with exit code 1 and a diagnostic that states the problem and "
        "names the node / initializer / value listed below. It must never crash, "
        "hang, allocate the 4 TB of `huge_constant_of_shape.onnx`, or read a "
        "file outside the model's directory.",
        "",
        "`external_symlink.onnx` expects `link.bin` next to it to be a symlink "
        "pointing outside this directory, and `external_directory.onnx` expects "
        "`data.bin` to be a directory; the lit test creates both at test time "
        "(they are not checked in).",
        "",
        "| File | What is wrong | A good error names |",
        "| --- | --- | --- |",
    ]
    for files, wrong, names in rows:
        cell = "<br>".join(f"`{f}`" for f in files)
        lines.append(f"| {cell} | {wrong} | {names} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Writes %d cases plus README.md; see the module docstring for "
               "the rules they follow." % len(CASES),
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: %(default)s)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    rows = []
    for build, wrong, names in CASES:
        files = build()
        for name, data in files.items():
            if len(data) >= MAX_FILE_BYTES:
                raise SystemExit(f"{name}: {len(data)} bytes, corpus files must be < {MAX_FILE_BYTES}")
            if name.endswith(".onnx"):
                # Guard against a case silently turning into the wrong kind of
                # broken: the unparseable ones must not parse, the rest must.
                try:
                    ModelProto.FromString(data)
                    parsed = True
                except Exception:
                    parsed = False
                if parsed == (name in UNPARSEABLE):
                    raise SystemExit(f"{name}: expected parse {'failure' if parsed else 'success'}")
            (args.out / name).write_bytes(data)
            print(f"{len(data):6d}  {args.out / name}")
        rows.append((list(files), wrong, names))

    (args.out / "README.md").write_text(readme(rows))
    print(f"{'':6}  {args.out / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
