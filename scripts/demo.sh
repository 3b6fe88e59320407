#!/usr/bin/env bash
# The main job on the bundled example: set up if needed, then import
# examples/tiny_cnn.onnxtext (a small CNN with a dynamic batch dim and a
# Shape -> Reshape chain), specialize its batch to 1 and show the optimized
# `infer` dialect. Pass another model and flags to run on something else:
#   scripts/demo.sh [MODEL [infer-opt flags...]]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
model=${1:-examples/tiny_cnn.onnxtext}
shift || true
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--input-shape image:1x3x32x32)

echo "== infer-opt $model ${flags[*]}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bin/infer-opt "$model" "${flags[@]}" --elide-weights 16 -o "$out/model.mlir"
cat "$out/model.mlir"
echo "== summary"
echo "ops after import + simplification:"
grep -oE '= infer\.[a-z_]+' "$out/model.mlir" | sort | uniq -c | sort -rn
echo "without --input-shape the batch stays symbolic:"
build/bin/infer-opt "$model" --elide-weights 0 | grep -m1 'func.func'
