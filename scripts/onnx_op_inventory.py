#!/usr/bin/env python3
"""Write an operator inventory of ONNX models for importer authors.

For every model the report lists the IR version, producer and opset imports,
the graph inputs and outputs with their shapes (symbolic dimensions by name,
``?`` for a dimension with neither a value nor a name), initializer totals,
and a table of every (domain, op_type) used with:

  * the node count and the number of outputs the nodes produce,
  * each attribute name with the distinct values seen (abbreviated),
  * for every input position, where the value comes from:
      init   - a graph initializer
      const  - the output of a ``Constant`` node
      input  - a graph input
      dyn    - computed by another node
      empty  - an omitted optional input (empty name)
      absent - the node has fewer inputs than this position
    together with the constant's dtype/shape (and small values inline),
  * the dtype/rank signatures of the inputs, from ONNX shape inference.

A summary at the top maps each op to the models using it, and a per-model
"oddities" section flags things an importer must not trip over (``-1`` or
unnamed dims, empty optional inputs, default-valued attributes omitted,
initializers duplicated as graph inputs, unused initializers, ...).

Example:
  python scripts/onnx_op_inventory.py models/ppocr models/synthetic \\
      --out models/OPS.txt
"""

import argparse
import collections
import pathlib
import sys

import numpy as np
import onnx
from onnx import numpy_helper

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_INPUTS = [REPO_ROOT / "models" / "ppocr", REPO_ROOT / "models" / "synthetic"]
DEFAULT_OUT = REPO_ROOT / "models" / "OPS.txt"

MAX_INLINE_ELEMENTS = 8
MAX_DISTINCT_VALUES = 6

DTYPE_NAMES = {
    value: name.lower()
    for name, value in onnx.TensorProto.DataType.items()
    if name != "UNDEFINED"
}
SHORT_DTYPE = {
    "float": "f32",
    "float16": "f16",
    "double": "f64",
    "int64": "i64",
    "int32": "i32",
    "int8": "i8",
    "uint8": "u8",
    "bool": "bool",
}


def dtype_name(elem_type):
    name = DTYPE_NAMES.get(elem_type, f"type{elem_type}")
    return SHORT_DTYPE.get(name, name)


def format_dims(tensor_type):
    if not tensor_type.HasField("shape"):
        return "<unranked>"
    dims = []
    for dim in tensor_type.shape.dim:
        if dim.HasField("dim_param"):
            dims.append(repr(dim.dim_param))
        elif dim.HasField("dim_value"):
            dims.append(str(dim.dim_value))
        else:
            dims.append("?")
    return "[" + ", ".join(dims) + "]"


def format_value_info(info):
    tensor_type = info.type.tensor_type
    return (
        f"{info.name}: {dtype_name(tensor_type.elem_type)} {format_dims(tensor_type)}"
    )


def format_array(array):
    """dtype[shape], plus the values for scalars and small integer tensors.

    Shape-like constants (axes, starts, Reshape targets) are what importers
    care about; small float tensors are usually per-channel weights whose
    values would only bloat the report.
    """
    dtype = dtype_name(onnx.helper.np_dtype_to_tensor_dtype(array.dtype))
    text = f"{dtype}{list(array.shape)}"
    is_integral = array.dtype.kind in "iub"
    if array.size == 1 or (is_integral and array.size <= MAX_INLINE_ELEMENTS):
        if array.dtype.kind == "f":
            # Shortest text that round-trips in the tensor's own precision.
            values = [str(v) for v in array.reshape(-1)]
            text += "=" + (
                values[0] if array.ndim == 0 else "[" + ", ".join(values) + "]"
            )
        else:
            text += f"={array.tolist()}"
    return text


def format_source(kind, array):
    """Describe an initializer/constant input; big tensors by rank only."""
    if array.size > MAX_INLINE_ELEMENTS:
        dtype = dtype_name(onnx.helper.np_dtype_to_tensor_dtype(array.dtype))
        return f"{kind} {dtype} rank{array.ndim}"
    return f"{kind} {format_array(array)}"


def format_attribute(attr):
    value = onnx.helper.get_attribute_value(attr)
    if isinstance(value, onnx.TensorProto):
        return "tensor " + format_array(numpy_helper.to_array(value))
    if isinstance(value, onnx.GraphProto):
        return f"<subgraph {value.name}: {len(value.node)} nodes>"
    if isinstance(value, bytes):
        return repr(value.decode("utf-8", "replace"))
    if isinstance(value, float):
        return str(np.float32(value))
    if isinstance(value, list):
        items = [v.decode() if isinstance(v, bytes) else v for v in value]
        return str(items)
    return str(value)


def initializer_source(init):
    """Like format_source, without decoding large initializers."""
    size = int(np.prod(init.dims)) if init.dims else 1
    if size > MAX_INLINE_ELEMENTS:
        return f"init {dtype_name(init.data_type)} rank{len(init.dims)}"
    return format_source("init", numpy_helper.to_array(init))


class OpStats:
    def __init__(self):
        self.count = 0
        self.output_counts = collections.Counter()
        self.input_counts = collections.Counter()
        self.attributes = collections.defaultdict(collections.Counter)
        # position -> Counter of source descriptions
        self.sources = collections.defaultdict(collections.Counter)
        self.signatures = collections.Counter()


def tensor_types(model):
    """Name -> (dtype, rank or None) for every typed tensor after inference."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception as error:  # Inference failure is itself worth reporting.
        print(f"warning: shape inference failed: {error}", file=sys.stderr)
        inferred = model
    graph = inferred.graph
    types = {}
    for info in list(graph.value_info) + list(graph.input) + list(graph.output):
        tensor_type = info.type.tensor_type
        rank = len(tensor_type.shape.dim) if tensor_type.HasField("shape") else None
        types[info.name] = (dtype_name(tensor_type.elem_type), rank)
    for init in graph.initializer:
        types[init.name] = (dtype_name(init.data_type), len(init.dims))
    return types


def analyze(model):
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    graph_inputs = {info.name for info in graph.input}
    constants = {}
    for node in graph.node:
        if node.op_type == "Constant" and node.attribute:
            attr = node.attribute[0]
            if attr.name == "value":
                constants[node.output[0]] = numpy_helper.to_array(attr.t)
            else:
                constants[node.output[0]] = np.asarray(
                    onnx.helper.get_attribute_value(attr)
                )
    types = tensor_types(model)

    stats = collections.defaultdict(OpStats)
    used = collections.Counter()
    for node in graph.node:
        key = (node.domain or "ai.onnx", node.op_type)
        op = stats[key]
        op.count += 1
        op.output_counts[len(node.output)] += 1
        op.input_counts[len(node.input)] += 1
        for attr in node.attribute:
            op.attributes[attr.name][format_attribute(attr)] += 1
        signature = []
        for position, name in enumerate(node.input):
            used[name] += 1
            if not name:
                source = "empty"
            elif name in initializers:
                source = initializer_source(initializers[name])
            elif name in constants:
                source = format_source("const", constants[name])
            elif name in graph_inputs:
                source = "input"
            else:
                source = "dyn"
            op.sources[position][source] += 1
            dtype, rank = types.get(name, ("?", None)) if name else ("-", None)
            signature.append(
                f"{dtype} r{'?' if rank is None else rank}" if name else "-"
            )
        op.signatures["(" + ", ".join(signature) + ")"] += 1
    for op in stats.values():
        max_inputs = max(op.input_counts)
        for position in range(max_inputs):
            absent = sum(c for n, c in op.input_counts.items() if n <= position)
            if absent:
                op.sources[position]["absent"] += absent
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                for sub in node.attribute:
                    for inner in getattr(sub.g, "node", []):
                        for name in inner.input:
                            used[name] += 1
    return stats, initializers, constants, used


# (op_type, first opset with the modern form, what differs below it).
VERSION_NOTES = [
    (
        "Softmax",
        13,
        "pre-13 semantics: input coerced to 2-D at `axis` "
        "(softmax over all trailing dims), not per-axis",
    ),
    ("LogSoftmax", 13, "pre-13 semantics: input coerced to 2-D at `axis`"),
    ("Squeeze", 13, "`axes` is an attribute, not an input"),
    ("Unsqueeze", 13, "`axes` is an attribute, not an input"),
    ("Split", 13, "`split` is an attribute, not an input"),
    ("ReduceSum", 13, "`axes` is an attribute, not an input"),
    ("ReduceMean", 18, "`axes` is an attribute, not an input"),
    ("ReduceMax", 18, "`axes` is an attribute, not an input"),
    ("ReduceMin", 18, "`axes` is an attribute, not an input"),
    ("ReduceProd", 18, "`axes` is an attribute, not an input"),
    (
        "Resize",
        13,
        "`roi` input is present (often an empty tensor) and "
        "'tf_half_pixel_for_nn' is still a valid coordinate mode",
    ),
    ("Clip", 11, "`min`/`max` are attributes, not inputs"),
    ("Pad", 11, "`pads`/`value` are attributes, not inputs"),
]


def find_oddities(model, stats, initializers, used):
    graph = model.graph
    notes = []
    default_opset = next(
        (imp.version for imp in model.opset_import if imp.domain in ("", "ai.onnx")),
        None,
    )
    present = {op_type for (_, op_type) in stats}
    for op_type, modern, text in VERSION_NOTES:
        if op_type in present and default_opset is not None and default_opset < modern:
            notes.append(f"{op_type} at opset {default_opset}: {text}")
    for info in list(graph.input) + list(graph.output):
        for index, dim in enumerate(info.type.tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value < 0:
                notes.append(
                    f"{info.name} dim {index} has dim_value {dim.dim_value} "
                    "(negative literal, treat as dynamic)"
                )
            elif not dim.HasField("dim_value") and not dim.HasField("dim_param"):
                notes.append(f"{info.name} dim {index} is unnamed and unknown ('?')")
    input_params = {
        dim.dim_param
        for info in graph.input
        for dim in info.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }
    fresh = sorted(
        {
            dim.dim_param
            for info in graph.output
            for dim in info.type.tensor_type.shape.dim
            if dim.HasField("dim_param")
        }
        - input_params
    )
    if fresh:
        notes.append(
            f"output dims use symbolic names not found on any input ({fresh}); "
            "their relation to the input dims is not declared"
        )
    duplicated = [i.name for i in graph.input if i.name in initializers]
    if duplicated:
        notes.append(
            f"{len(duplicated)} initializers are also listed as graph inputs "
            "(IR<4 style overridable weights)"
        )
    unused = [name for name in initializers if not used[name]]
    if unused:
        notes.append(f"{len(unused)} initializers are never used: {unused[:5]}")
    for (domain, op_type), op in sorted(stats.items()):
        if op.sources and any("empty" in s for s in op.sources.values()):
            positions = [p for p, s in op.sources.items() if "empty" in s]
            notes.append(f"{op_type}: optional input(s) {positions} given as ''")
        if domain != "ai.onnx":
            notes.append(f"{domain}::{op_type}: non-default domain")
    constant_forms = collections.Counter(
        node.attribute[0].name
        for node in graph.node
        if node.op_type == "Constant" and node.attribute
    )
    if constant_forms:
        forms = ", ".join(f"{k} x{v}" for k, v in sorted(constant_forms.items()))
        notes.append(f"Constant nodes use attribute forms: {forms}")
    large_constants = [
        node
        for node in graph.node
        if node.op_type == "Constant"
        and node.attribute
        and node.attribute[0].name == "value"
        and int(np.prod(node.attribute[0].t.dims)) > MAX_INLINE_ELEMENTS
    ]
    if large_constants:
        notes.append(
            f"{len(large_constants)} Constant nodes hold tensors of more than "
            f"{MAX_INLINE_ELEMENTS} elements (weights stored as Constant nodes, "
            "not initializers)"
        )
    names = collections.Counter(node.name for node in graph.node if node.name)
    repeated = sorted(name for name, count in names.items() if count > 1)
    if repeated:
        notes.append(
            f"{len(repeated)} node names are used by more than one node "
            f"(e.g. {repeated[:3]}); do not key nodes by name"
        )
    unnamed = sum(1 for node in graph.node if not node.name)
    if unnamed:
        notes.append(f"{unnamed} nodes have no name")
    if any(
        init.data_location == onnx.TensorProto.EXTERNAL for init in graph.initializer
    ):
        notes.append("some initializers use external data")
    if graph.value_info:
        notes.append(f"graph carries {len(graph.value_info)} value_info entries")
    return notes


# Facts found by running the pinned models (see fetch_ppocr_models.py) that
# the graph alone does not show.
KNOWN_NOTES = {
    "ppocr/det.onnx": [
        "PP-OCRv4 detector (DBNet). Runs in onnxruntime for H, W multiples of "
        "32 (e.g. [1,3,640,640] -> [1,1,640,640]); [1,3,100,100] fails in a "
        "broadcasting Add of the FPN.",
        "Weights live in Constant nodes (0 initializers); Conv bias optional "
        "(2 or 3 inputs); BatchNormalization left unfolded; Resize is "
        "nearest/asymmetric/floor with an empty f32[0] roi and constant scales.",
    ],
    "ppocr/rec.onnx": [
        "PP-OCRv4 recognizer (SVTR-LCNet + CTC head, 6625 classes). Input H "
        "is unnamed ('?'); the model expects H=48 (32 also runs), output is "
        "[N, W/8, 6625], e.g. [1,3,48,320] -> [1,40,6625].",
        "LayerNorm is decomposed (ReduceMean/Sub/Pow/Add eps/Sqrt/Div); "
        "Reshape targets are built at run time by Shape->Cast(i32)->Slice->"
        "Cast(i64)->Concat chains mixed with Cast(i64) of i32 Constants; "
        "Squeeze uses attribute axes (opset 12).",
    ],
    "ppocr/cls.onnx": [
        "PP-OCR mobile v2.0 text-direction classifier (not a v4 model), "
        "input e.g. [N,3,48,192] -> [N,2]. IR 7 / opset 11, producer "
        "PaddlePaddle (older paddle2onnx than det/rec).",
        "Batch dim is a literal dim_value -1 rather than a dim_param; H, W "
        "unnamed. Bias vectors are Reshape'd from Constant nodes at run time "
        "(Reshape with a constant data input).",
    ],
}


def summarize_counter(counter, limit=MAX_DISTINCT_VALUES):
    items = counter.most_common()
    text = ", ".join(f"{value} x{count}" for value, count in items[:limit])
    if len(items) > limit:
        text += f", ... ({len(items) - limit} more distinct)"
    return text


def report_model(path, label, lines, usage):
    model = onnx.load(str(path))
    graph = model.graph
    stats, initializers, constants, used = analyze(model)
    for key in stats:
        usage[key].append(label)

    init_bytes = sum(
        onnx.helper.tensor_dtype_to_np_dtype(init.data_type).itemsize
        * int(np.prod(init.dims))
        for init in graph.initializer
    )
    init_types = collections.Counter(dtype_name(i.data_type) for i in graph.initializer)
    opsets = ", ".join(
        f"{imp.domain or 'ai.onnx'} v{imp.version}" for imp in model.opset_import
    )
    lines.append("=" * 78)
    lines.append(f"MODEL {label}  ({path.stat().st_size / 2**20:.1f} MiB)")
    lines.append("=" * 78)
    lines.append(f"ir_version: {model.ir_version}   opset_import: {opsets}")
    lines.append(
        f"producer: {model.producer_name!r} {model.producer_version!r}   "
        f"graph: {graph.name!r}"
    )
    init_summary = f"{len(graph.initializer)}"
    if graph.initializer:
        init_summary += (
            f" ({init_bytes / 2**20:.1f} MiB; "
            + ", ".join(f"{k} x{v}" for k, v in sorted(init_types.items()))
            + ")"
        )
    lines.append(
        f"nodes: {len(graph.node)}   initializers: {init_summary}   "
        f"Constant nodes: {len(constants)}"
    )
    lines.append("inputs:")
    real_inputs = [i for i in graph.input if i.name not in initializers]
    for info in real_inputs:
        lines.append(f"  {format_value_info(info)}")
    lines.append("outputs:")
    for info in graph.output:
        lines.append(f"  {format_value_info(info)}")
    lines.append("oddities:")
    notes = KNOWN_NOTES.get(label, []) + find_oddities(model, stats, initializers, used)
    for note in notes or ["none"]:
        lines.append(f"  - {note}")
    lines.append("ops (domain, op_type): count")
    for (domain, op_type), op in sorted(stats.items(), key=lambda kv: kv[0]):
        lines.append(f"  ({domain}, {op_type}): {op.count}")
    lines.append("op details:")
    for (domain, op_type), op in sorted(stats.items(), key=lambda kv: kv[0]):
        lines.append(f"  {op_type} [{domain}] x{op.count}")
        lines.append(
            "    #inputs: "
            + ", ".join(f"{n} x{c}" for n, c in sorted(op.input_counts.items()))
            + "   #outputs: "
            + ", ".join(f"{n} x{c}" for n, c in sorted(op.output_counts.items()))
        )
        if op.attributes:
            lines.append("    attributes:")
            for name in sorted(op.attributes):
                values = op.attributes[name]
                missing = op.count - sum(values.values())
                suffix = f" (absent on {missing})" if missing else ""
                lines.append(f"      {name}: {summarize_counter(values)}{suffix}")
        else:
            lines.append("    attributes: none")
        for position in sorted(op.sources):
            lines.append(
                f"    in[{position}]: {summarize_counter(op.sources[position])}"
            )
        lines.append(f"    signatures: {summarize_counter(op.signatures, 4)}")
    lines.append("")


def compact_labels(labels):
    """'synthetic/gpt2-opset17.onnx', '...opset18...' -> 'gpt2@17,18'."""
    groups = {}
    for label in labels:
        stem = pathlib.PurePosixPath(label).name.removesuffix(".onnx")
        base, sep, version = stem.rpartition("-opset")
        if sep:
            groups.setdefault(base, []).append(version)
        else:
            groups.setdefault(stem, [])
    parts = []
    for base, versions in groups.items():
        parts.append(f"{base}@{','.join(versions)}" if versions else base)
    return ", ".join(parts)


def collect_paths(inputs):
    paths = []
    for item in inputs:
        item = pathlib.Path(item)
        if item.is_dir():
            paths.extend(sorted(item.glob("*.onnx")))
        else:
            paths.append(item)
    return paths


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        default=DEFAULT_INPUTS,
        help="model files or directories of *.onnx (default: models/ppocr "
        "models/synthetic)",
    )
    parser.add_argument(
        "--out",
        type=pathlib.Path,
        default=DEFAULT_OUT,
        help="report file (default: %(default)s)",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    paths = collect_paths(args.inputs)
    if not paths:
        print("no models found", file=sys.stderr)
        return 1
    body = []
    usage = collections.defaultdict(list)
    for path in paths:
        label = f"{path.parent.name}/{path.name}"
        print(f"analyzing {label}")
        report_model(path, label, body, usage)

    header = [
        "ONNX operator inventory (generated by scripts/onnx_op_inventory.py)",
        "",
        "Legend for in[i]: init = initializer, const = Constant node output,",
        "input = graph input, dyn = computed, empty = optional input given as '',",
        "absent = node has fewer inputs. Small constants are shown inline as",
        "dtype[shape]=values (tensors over 8 elements as dtype + rank); signatures",
        "are the inputs' dtype and rank (rN) after ONNX shape inference ('-' =",
        "empty input, r? = rank unknown). 'absent on N' after an attribute means",
        "N nodes omit it (default value applies).",
        "",
        f"{len(usage)} distinct ops across {len(paths)} models:",
    ]
    width = max(len(f"{d}::{o}") for d, o in usage)
    for (domain, op_type), labels in sorted(usage.items()):
        key = f"{domain}::{op_type}"
        header.append(f"  {key:<{width}}  {compact_labels(labels)}")
    header.append("")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(header + body) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
