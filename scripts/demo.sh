#!/usr/bin/env bash
# The main job on the bundled example: set up if needed, then
#   1. import examples/tiny_cnn.onnxtext (a small CNN with a dynamic batch dim
#      and a Shape -> Reshape chain), specialize its batch to 1 and show the
#      optimized `infer` dialect;
#   2. compile it to a CPU engine and run the engine with infer-run (seeded
#      random input), printing its outputs' summary and timings.
# Pass another model and its --input-shape flags to run on something else:
#   scripts/demo.sh [MODEL [infer-opt flags...]]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
model=${1:-examples/tiny_cnn.onnxtext}
shift || true
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--input-shape image:1x3x32x32)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "== infer-opt $model ${flags[*]} --emit=infer"
build/bin/infer-opt "$model" "${flags[@]}" --elide-weights 16 -o "$out/model.mlir"
cat "$out/model.mlir"
echo "== ops after import + simplification"
grep -oE '= infer\.[a-z_]+' "$out/model.mlir" | sort | uniq -c | sort -rn

echo "== infer-opt $model ${flags[*]} --emit=engine -o model.engine"
start=$(date +%s.%N)
build/bin/infer-opt "$model" "${flags[@]}" --emit=engine -o "$out/model.engine"
printf 'compiled in %.1f s: %s bytes\n' "$(echo "$(date +%s.%N) - $start" | bc)" \
  "$(stat -c %s "$out/model.engine")"
echo "== infer-run model.engine --output-dir outputs"
build/bin/infer-run "$out/model.engine" --warmup 10 --iterations 200 --output-dir "$out/outputs"
.venv/bin/python - "$out/outputs" <<'PY'
import sys, pathlib, numpy as np
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.npy")):
    a = np.load(f)
    print(f"{f.stem}: shape {a.shape}, values {np.array2string(a.ravel()[:8], precision=4)}")
PY
