#!/usr/bin/env bash
# Imports every real model of the Foundation issue with all dims specialized
# and checks that the result verifies and is fully static.
#   scripts/import_real_models.sh [MODELS_DIR]   (default: models/)
# INFER_OPT overrides the binary (e.g. build-asan/bin/infer-opt).
# A synthetic model at opset 18 must import to its opset-17 IR (but for the
# module's infer.opset): what follows the import is then the same, so the
# CUDA kernel checks of the opset-18 copies are the extended tier's only.
# Fetches/generates missing models first (PP-OCR from the rapidocr wheel,
# PicoDet layout and PP-LCNet orientation from RapidAI's wheels, the
# synthetic architectures through scripts/make_models.py).
set -euo pipefail
cd "$(dirname "$0")/.."
models=${1:-models}
py=.venv/bin/python
opt=${INFER_OPT:-build/bin/infer-opt}

[ -f "$models/ppocr/det.onnx" ] || "$py" scripts/fetch_ppocr_models.py --out "$models/ppocr"
[ -f "$models/rapid/orientation.onnx" ] || "$py" scripts/fetch_rapid_models.py --out "$models/rapid"
for opset in 17 18; do
  "$py" scripts/make_models.py --out "$models/synthetic" --opset "$opset" >/dev/null
done

# model path | --input-shape flags
cases=(
  "ppocr/det.onnx|x:1x3x640x640"
  "ppocr/rec.onnx|x:1x3x48x320"
  "ppocr/cls.onnx|x:1x3x48x192"
  "rapid/layout.onnx|image:1x3x800x608"
  "rapid/orientation.onnx|x:1x3x224x224"
)
for opset in 17 18; do
  cases+=(
    "synthetic/resnet50-opset$opset.onnx|input:1x3x224x224"
    "synthetic/mobilenetv2-opset$opset.onnx|input:1x3x224x224"
    "synthetic/bert-base-opset$opset.onnx|input_ids:1x128 attention_mask:1x128 token_type_ids:1x128"
    "synthetic/vit-b16-opset$opset.onnx|pixel_values:1x3x224x224"
    "synthetic/gpt2-opset$opset.onnx|input_ids:1x64"
  )
done

passed=0 failed=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for entry in "${cases[@]}"; do
  model=${entry%%|*}
  flags=()
  for shape in ${entry#*|}; do flags+=(--input-shape "$shape"); done
  start=$(date +%s.%N)
  if "$opt" "$models/$model" "${flags[@]}" --elide-weights 0 -o "$out/m.mlir" 2>"$out/err"; then
    # Fully static: no '?' dims anywhere in the emitted function.
    if grep -q 'tensor<[^>]*?' "$out/m.mlir"; then
      echo "FAIL $model: dynamic dims remain:"; grep -m3 'tensor<[^>]*?' "$out/m.mlir"
      failed=$((failed + 1)); continue
    fi
    ops=$(grep -c ' = infer\.' "$out/m.mlir" || true)
    same=""
    case "$model" in
      synthetic/*-opset17.onnx) sed 's/infer\.opset = 17 : i64/infer.opset = N/' "$out/m.mlir" \
        >"$out/$(basename "$model" -opset17.onnx).mlir" ;;
      synthetic/*-opset18.onnx)
        if ! sed 's/infer\.opset = 18 : i64/infer.opset = N/' "$out/m.mlir" |
            cmp -s - "$out/$(basename "$model" -opset18.onnx).mlir"; then
          echo "FAIL $model: not the IR of its opset-17 copy (but for infer.opset)"
          failed=$((failed + 1)); continue
        fi
        same="  (the IR of opset 17)" ;;
    esac
    printf 'ok   %-36s %5d ops  %5.1fs%s\n' "$model" "$ops" \
      "$(echo "$(date +%s.%N) - $start" | bc)" "$same"
    passed=$((passed + 1))
  else
    echo "FAIL $model:"; head -5 "$out/err"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
