"""Strip, randomize or split off the weights of an engine, for running large
models on a machine they cannot be copied to.

The GPU machine takes at most 64 MiB per transfer; ResNet-50, BERT, ViT and
GPT-2 engines are 100 to 650 MB, nearly all weights. Two ways across:

Timing only: ``strip`` zeroes the WEIGHTS section (the file then compresses
to almost nothing with xz); ``randomize`` fills every floating-point weight
with N(0, 0.02) values (integer weights stay 0: valid indices for Gather).
The result computes garbage but takes the same time as the real model: use
it for latency only, never for accuracy.

Exact: ``split`` zeroes only the weights that are an initializer of the
ONNX model, as stored or as a 2-D transpose (what constant folding leaves
of MatMul, Gemm and Conv weights), or 2-D initializers (in either form) side
by side along one axis (infer-cuda-merge-projections' Q, K and V weights),
and writes a recipe naming them with their SHA-256; the rest stays in the
engine. ``restore`` rebuilds the
engine from the stripped file, the recipe and the model (which the other
machine can regenerate: scripts/make_models.py is seeded), checks every
weight's SHA-256 and rewrites the checksums: the engine is byte-identical
to the original. Layout: docs/engine-format.md.

Example:
    python3 scripts/engine_weights.py strip resnet50.engine resnet50.stripped.engine
    python3 scripts/engine_weights.py randomize resnet50.stripped.engine resnet50.random.engine
    python3 scripts/engine_weights.py split resnet50.engine resnet50.stripped.engine \
        --model resnet50.onnx --recipe resnet50.recipe.json
    python3 scripts/engine_weights.py restore resnet50.stripped.engine resnet50.engine \
        --model resnet50.onnx --recipe resnet50.recipe.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from .engine_format import WEIGHTS, EngineFormatError, read_engine

FLOATS = {"float32": np.float32, "float16": np.float16, "float64": np.float64}


def rewrite(data: bytearray, fill) -> None:
    """Rewrites the engine file `data` in place: `fill(section, table)`
    changes the WEIGHTS section (a writable uint8 array) as the plan's
    weights `table` describes it. Every checksum is recomputed, so `data`
    is verified first: a corrupt engine must not come out sealed."""
    engine = read_engine(data)
    section = bytearray(engine.weights)
    fill(np.frombuffer(section, dtype=np.uint8), engine.plan["weights"])
    if WEIGHTS in engine.sections or section:
        engine.sections[WEIGHTS] = bytes(section)
    data[:] = engine.to_bytes()


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


def initializer_arrays(model_path: Path) -> dict[str, np.ndarray]:
    """The model's float initializers (external data loaded)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(model_path))
    arrays = {}
    for tensor in model.graph.initializer:
        array = numpy_helper.to_array(tensor)
        if array.dtype.kind == "f":
            arrays[tensor.name] = np.ascontiguousarray(array)
    return arrays


def candidates(array: np.ndarray):
    """The byte forms a folded weight may take: as stored, or transposed."""
    yield "copy", array
    if array.ndim == 2:
        yield "transpose", np.ascontiguousarray(array.T)


def digest(raw) -> str:
    return hashlib.sha256(raw).hexdigest()


def side_by_side(weight: np.ndarray, edges: dict, axis: int) -> list[dict] | None:
    """The 2-D initializer forms that `weight` is, side by side along `axis`
    (each found by the digest of its first row or column, `edges`), or None."""
    parts, at = [], 0
    while at < weight.shape[axis]:
        edge = weight[:, at] if axis == 1 else weight[at]
        for name, how, form in edges.get(digest(np.ascontiguousarray(edge).tobytes()), []):
            width = form.shape[axis]
            block = weight[:, at:at + width] if axis == 1 else weight[at:at + width]
            if block.shape == form.shape and np.array_equal(block.view(np.uint8),
                                                            form.view(np.uint8)):
                parts.append({"initializer": name, "how": how})
                at += width
                break
        else:
            return None
    return parts if len(parts) > 1 else None


def split(data: bytearray, model_path: Path) -> dict:
    """Zeroes the weights that the model's initializers give; returns the recipe."""
    found = {}
    edges = {1: {}, 0: {}}  # 2-D forms by the digest of their first column (axis 1) or row (0).
    for name, array in initializer_arrays(model_path).items():
        for how, form in candidates(array):
            found.setdefault(digest(form.tobytes()), (name, how))
            if form.ndim == 2 and form.size:
                for axis, edge in ((1, form[:, 0]), (0, form[0])):
                    edges[axis].setdefault(digest(np.ascontiguousarray(edge).tobytes()),
                                               []).append((name, how, form))
    recipe = {"model": model_path.name, "weights": []}

    def fill(section: np.ndarray, table: list) -> None:
        for index, w in enumerate(table):
            view = section[w["offset"]:w["offset"] + w["bytes"]]
            sha = digest(view.tobytes())
            if sha in found:
                name, how = found[sha]
                recipe["weights"].append({"index": index, "initializer": name, "how": how,
                                          "sha256": sha})
                view[:] = 0
                continue
            dtype = FLOATS.get(w["dtype"])
            if dtype is None or len(w.get("shape", [])) != 2:
                continue
            weight = view.view(dtype).reshape(w["shape"])
            for axis in (1, 0):
                parts = side_by_side(weight, edges[axis], axis)
                if parts:
                    recipe["weights"].append({"index": index, "parts": parts, "axis": axis,
                                              "sha256": sha})
                    view[:] = 0
                    break

    rewrite(data, fill)
    return recipe


def restore(data: bytearray, model_path: Path, recipe: dict) -> None:
    """Fills the recipe's weights back from the model; raises on a mismatch."""
    arrays = initializer_arrays(model_path)

    def form_of(part: dict) -> np.ndarray:
        array = arrays.get(part["initializer"])
        if array is None:
            raise ValueError(f"{model_path}: no initializer {part['initializer']}")
        return dict(candidates(array))[part["how"]]

    def fill(section: np.ndarray, table: list) -> None:
        for entry in recipe["weights"]:
            w = table[entry["index"]]
            if "parts" in entry:
                forms = [form_of(part) for part in entry["parts"]]
                if any(f.ndim != 2 for f in forms) or \
                        len({f.shape[1 - entry["axis"]] for f in forms}) != 1:
                    raise ValueError(f"{model_path}: the parts of the engine's weight "
                                     f"{entry['index']} do not fit side by side")
                form = np.concatenate(forms, axis=entry["axis"])
                what = "+".join(part["initializer"] for part in entry["parts"])
            else:
                form = form_of(entry)
                what = f"{entry['initializer']} ({entry['how']})"
            raw = np.ascontiguousarray(form).tobytes()
            if len(raw) != w["bytes"] or digest(raw) != entry["sha256"]:
                raise ValueError(f"{model_path}: initializer {what} "
                                 f"differs from the engine's weight {entry['index']}: "
                                 "not the model the engine was compiled from")
            section[w["offset"]:w["offset"] + w["bytes"]] = np.frombuffer(raw, dtype=np.uint8)

    rewrite(data, fill)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("action", choices=["strip", "randomize", "split", "restore"])
    ap.add_argument("engine", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--model", type=Path, help="split, restore: the ONNX model")
    ap.add_argument("--recipe", type=Path, help="split: written; restore: read")
    args = ap.parse_args()
    data = bytearray(args.engine.read_bytes())
    try:
        read_engine(data)
    except EngineFormatError as error:
        ap.error(f"{args.engine}: {error}")
    if args.action in ("split", "restore") and not (args.model and args.recipe):
        ap.error(f"{args.action} needs --model and --recipe")
    if args.action == "split":
        recipe = split(data, args.model)
        args.recipe.write_text(json.dumps(recipe, indent=1) + "\n")
        kept = sum(1 for _ in recipe["weights"])
        print(f"{args.engine.name}: {kept} weights split off", file=sys.stderr)
    elif args.action == "restore":
        try:
            restore(data, args.model, json.loads(args.recipe.read_text()))
        except ValueError as error:
            print(f"engine_weights: error: {error}", file=sys.stderr)
            return 1
    else:
        rewrite(data, strip if args.action == "strip" else randomize)
    args.output.write_bytes(bytes(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
