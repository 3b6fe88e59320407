#!/usr/bin/env bash
# The CUDA target checked on a real GPU, in two halves:
#
#   scripts/gpu-check.sh prepare     on the build machine (has infer-opt, no GPU):
#       compiles the ONNX backend node tests (--target cuda, sm_90) and the
#       real models (--target=cuda:sm_80,sm_90) into build-carry/, with
#       seeded inputs and ONNX Runtime CPU reference outputs, plus the CLI11
#       and nlohmann/json headers for building infer-run there. Engines too
#       large for the GPU machine's 64 MiB transfer (MobileNetV2, ResNet-50,
#       BERT, ViT, GPT-2) go with their weights split off
#       (scripts/gpu_models.py). A second set
#       of engines, compiled with --cuda-stage-tiles (the experimental
#       shared-memory tensor-core kernels), goes in build-carry/models-staged:
#       the synthetic models split (their outputs are checked), PP-OCR's as
#       timing-only engines (they would not fit). PP-OCR det also goes
#       compiled with --no-tf32 (ppocr-det-fp32): its TF32 outputs were 7e-2
#       off ONNX Runtime's in relative L2, and full float32 tells whether
#       that is TF32's rounding.
#   scripts/gpu-check.sh run [OUTDIR] on the GPU machine (CUDA driver, CMake,
#       Python with onnx and PyTorch; no MLIR, no network): builds the
#       runtime and infer-run without MLIR (-DINFER_RUNTIME_ONLY=ON),
#       regenerates the synthetic models and rebuilds their engines, runs
#       the runtime's tests, the conformance suite on the GPU and the
#       benchmark (scripts/bench/gpu.py), and writes OUTDIR/cuda.json,
#       OUTDIR/cuda.md and OUTDIR/gpu-<date>.md (default OUTDIR: docs/),
#       and every launch's time in OUTDIR/profiles/MODEL.profile.json; then
#       the same for the --cuda-stage-tiles engines, without PyTorch
#       (OUTDIR/gpu-staged-<date>.md, OUTDIR/profiles-staged/).
#   scripts/gpu-check.sh batch [OUTDIR] on the GPU machine, in a call of its
#       own (run takes most of a call's 10 minutes): throughput at batch 8
#       of the models with PyTorch twins, against the twins at batch 8
#       (timing-only engines from build-carry/models-b8; OUTDIR/gpu-b8-<date>.md).
#
# With the device tool: `prepare` here, then one call running
# `bash scripts/gpu-check.sh run $OUT` with carry ["build-carry"], and
# another running `bash scripts/gpu-check.sh batch $OUT`; copy the files back
# to docs/conformance/ and docs/benchmarks/.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
CARRY=build-carry

prepare() {
  local py=.venv/bin/python infer_opt=build/bin/infer-opt
  [[ -x $infer_opt ]] || { echo "gpu-check: build infer-opt first (scripts/setup.sh)" >&2; exit 1; }
  rm -rf "$CARRY" && mkdir -p "$CARRY/include" "$CARRY/models"
  cp -r /usr/include/CLI /usr/include/nlohmann "$CARRY/include/"
  echo "== conformance engines (sm_90)"
  $py scripts/conformance.py --target cuda --cuda-archs sm_90 --compile-to "$CARRY/conformance"
  tar -C "$CARRY" -cJf "$CARRY/conformance.tar.xz" conformance && rm -rf "$CARRY/conformance"
  echo "== real models"
  # Models over 12 MB go split: the transfer is 64 MiB with the repo, and
  # MobileNetV2's 15 MB engine would leave under 2 MiB (PP-OCR rec's 10.4 MB
  # ONNX file is the largest that goes whole: it cannot be regenerated).
  $py scripts/gpu_models.py --infer-opt "$infer_opt" --out "$CARRY/models" --max-mb 12 \
    --also-fp32 ppocr-det
  echo "== real models, --cuda-stage-tiles"
  $py scripts/gpu_models.py --infer-opt "$infer_opt" --out "$CARRY/models-staged" --max-mb 0 \
    --flag=--cuda-stage-tiles
  echo "== models with PyTorch twins at batch 8 (timing only)"
  $py scripts/gpu_models.py --infer-opt "$infer_opt" --out "$CARRY/models-b8" --batch 8 \
    --models mobilenetv2,resnet50,bert-base,vit-b16,gpt2
  # What travels: the repo's files and the carry, 64 MiB at most.
  local bytes
  bytes=$(( $(du -sb "$CARRY" | cut -f1) + $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) ))
  echo "build-carry and the repo's files: $((bytes / 1048576)) MiB of the transfer's 64"
  if [ "$bytes" -gt $((60 * 1048576)) ]; then
    echo "gpu-check: warning: within 4 MiB of the 64 MiB transfer; a larger engine will not go" >&2
  fi
}

# The runtime and infer-run without MLIR (a machine kept warm has them).
build_runtime() {
  cmake -G Ninja -S . -B build-gpu -DINFER_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
    -DINFER_HEADERS_DIR="$PWD/$CARRY/include" >/dev/null
  cmake --build build-gpu | tail -n 1
}

batch() {
  local out=${1:-docs} date
  date=$(date +%F)
  mkdir -p "$out"
  echo "== runtime and infer-run, without MLIR"
  build_runtime
  echo "== batch 8: infer-opt (random weights) and PyTorch"
  PYTHONUNBUFFERED=1 python3 scripts/bench/gpu.py --dir "$CARRY/models-b8" \
    --infer-run build-gpu/bin/infer-run --title "GPU benchmark, $date: batch 8" \
    --markdown "$out/gpu-b8-$date.md" --json "$out/gpu-b8-$date.json" ${GPU_BENCH_ARGS:-}
}

run() {
  local out=${1:-docs} date
  date=$(date +%F)
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  echo "== runtime and infer-run, without MLIR"
  build_runtime
  echo "== the split engines, rebuilt from regenerated models"
  python3 scripts/gpu_models.py --restore "$CARRY/models" || true
  echo "== the real models through a second executor (CuPy), for comparison"
  python3 scripts/cuda_plan_exec.py --manifest "$CARRY/models/manifest.json" --profile \
    --profile-dir "$out/profiles" || true
  echo "== conformance on the GPU"
  tar -C "$CARRY" -xJf "$CARRY/conformance.tar.xz"
  PYTHONUNBUFFERED=1 python3 scripts/conformance.py --target cuda --prebuilt "$CARRY/conformance" \
    --infer-run build-gpu/bin/infer-run --device cuda --jobs 8 \
    --json "$out/cuda.json" --markdown "$out/cuda.md" | tail -n 30
  echo "== benchmark"
  # GPU_BENCH_ARGS: more scripts/bench/gpu.py flags (--torch-from, --iterations, ...).
  PYTHONUNBUFFERED=1 python3 scripts/bench/gpu.py --dir "$CARRY/models" \
    --infer-run build-gpu/bin/infer-run --markdown "$out/gpu-$date.md" --json "$out/gpu-$date.json" \
    ${GPU_BENCH_ARGS:-}
  echo "== the --cuda-stage-tiles engines: outputs, profile and benchmark"
  python3 scripts/gpu_models.py --restore "$CARRY/models-staged" --onnx-dir "$CARRY/models/onnx" || true
  python3 scripts/cuda_plan_exec.py --manifest "$CARRY/models-staged/manifest.json" --profile \
    --profile-dir "$out/profiles-staged" || true
  PYTHONUNBUFFERED=1 python3 scripts/bench/gpu.py --dir "$CARRY/models-staged" --no-torch \
    --infer-run build-gpu/bin/infer-run --title "GPU benchmark, $date: --cuda-stage-tiles" \
    --markdown "$out/gpu-staged-$date.md" --json "$out/gpu-staged-$date.json"
}

case $mode in
  prepare) prepare ;;
  run) shift; run "$@" ;;
  batch) shift; batch "$@" ;;
  *) echo "usage: scripts/gpu-check.sh prepare | run [OUTDIR] | batch [OUTDIR]" >&2; exit 2 ;;
esac
