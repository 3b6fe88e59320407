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
#       (scripts/gpu_models.py). Other sets of the same engines, each
#       compiled with one more flag (GPU_CHECK_VARIANTS, below), go in
#       build-carry/models-VARIANT: the synthetic models split (their
#       outputs are checked), PP-OCR's as timing-only engines (they would
#       not fit). There are `wmma` (--cuda-tile-plan=mma=wmma: the staged
#       kernels multiply with WMMA, as they did by default until
#       2026-11-27, when an H100 timed mma.sync faster) and `direct`
#       (--no-cuda-stage-tiles: the warp-a-tile kernels, the default until
#       2026-11-26); none is built by default. PP-OCR det also goes
#       compiled with --no-tf32 (ppocr-det-fp32): its TF32 outputs were 7e-2
#       off ONNX Runtime's in relative L2, and full float32 tells whether
#       that is TF32's rounding. The models with PyTorch twins go at batch 8
#       too, as timing-only engines (build-carry/models-b8).
#   scripts/gpu-check.sh prepare-sweep   on the build machine: the batch-8
#       engines again and, for each --cuda-tile-plan of GPU_SWEEP_PLANS, the
#       models of GPU_SWEEP_MODELS at batch 8 compiled with it, into
#       build-sweep/ (GPU_CHECK_CARRY), for the sweep phase in a second call.
#   scripts/gpu-check.sh run OUTDIR   on the GPU machine (CUDA driver, CMake,
#       Python with onnx and PyTorch; no MLIR, no network), in one call of the
#       device tool (its device time is 15 minutes, starts included, and a
#       command's 10). Phases, most wanted first, each given only the time
#       left before a deadline (GPU_CHECK_SECONDS, default 540 s from the
#       start), so that a slow phase cannot take the others' results with it:
#         runtime    the runtime and infer-run without MLIR
#                    (-DINFER_RUNTIME_ONLY=ON)
#         restore    the engines split off for the transfer rebuilt from
#                    regenerated models
#         bench      each real model's latency and accuracy against ONNX
#                    Runtime (scripts/bench/gpu.py --no-torch)
#         profiles   every launch timed alone, the outputs checked by a second
#                    executor (scripts/cuda_plan_exec.py --profile)
#         torch      the benchmark again, with PyTorch eager and torch.compile
#                    twins side by side (replaces bench's tables)
#         conformance  the ONNX backend node tests on the GPU
#         wmma, direct  a variant's engines (models-VARIANT): outputs,
#                    profiles, timings (gpu-VARIANT-DATE.md); not run
#                    unless named
#         batch8     throughput at batch 8 against the PyTorch twins at batch 8,
#                    and every launch timed alone (profiles-b8/)
#         sweep      the tile-plan sweep: the batch-8 models compiled with
#                    --cuda-tile-plan PLAN for each of GPU_SWEEP_PLANS, timed
#                    and profiled, against the heuristic's (gpu-sweep-DATE.md,
#                    scripts/bench/sweep.py), and the plans that beat it per
#                    contraction (tuned-plans-DATE.json, for infer-opt
#                    --cuda-tile-plans)
#       GPU_CHECK_PHASES="runtime conformance ..." runs only those, in that
#       order (a second call for what the first left undone).
#       What comes back from the device tool is at most 8 files, so OUTDIR gets
#       gpu-check.log (everything printed, and each phase's outcome and
#       seconds), the tables (gpu-DATE.md, gpu-VARIANT-DATE.md, gpu-b8-DATE.md,
#       gpu-sweep-DATE.md, cuda.md) and results.tar.gz (those and their JSON,
#       cuda.json and every launch's time in profiles*/), rewritten after
#       each phase. Copy the tables to docs/benchmarks/ and
#       docs/conformance/ and unpack the JSON beside them.
#
# With the device tool: `prepare` here, then one call of
#   bash scripts/gpu-check.sh run $OUT
# with carry ["build-carry"] and timeout_s 600, then give the machine back.
# The tile-plan sweep's engines would not fit in that transfer, so they have
# a carry of their own: `scripts/gpu-check.sh prepare-sweep` here (build-sweep:
# the batch-8 engines and each plan's), then a second call of
#   GPU_CHECK_CARRY=build-sweep GPU_CHECK_PHASES="runtime sweep" \
#     bash scripts/gpu-check.sh run $OUT
# with carry ["build-sweep"] (about 4 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
# What `prepare` fills and `run` reads (GPU_CHECK_CARRY=build-sweep for the
# sweep's carry).
CARRY=${GPU_CHECK_CARRY:-build-carry}
# The sweep's plans (infer-opt --cuda-tile-plan; no spaces within one) and
# models. On 2026-11-27 (an H100) mma.sync beat WMMA, and warps of 4 x 2
# fragments in steps of 16 beat 2 x 2 in steps of 32 where k was long (the
# heuristic's now): 2 x 4, 4 x 4, and 2 x 2 in the same steps and stages
# as 4 x 2 tell which of the two made the difference; WMMA again for
# comparison.
SWEEP_PLANS=${GPU_SWEEP_PLANS:-warp=2x4 warp=4x4 warp=2x2,step=16,stages=3 mma=wmma}
# The variants `prepare` compiles the real models as, and their flags.
VARIANTS=${GPU_CHECK_VARIANTS:-}
variant_flag() {
  case $1 in
    wmma) echo --cuda-tile-plan=mma=wmma ;;
    direct) echo --no-cuda-stage-tiles ;;
    *) echo "gpu-check: no variant '$1' (wmma, direct)" >&2; return 1 ;;
  esac
}
SWEEP_MODELS=${GPU_SWEEP_MODELS:-bert-base,vit-b16,resnet50}

PY=.venv/bin/python
INFER_OPT=build/bin/infer-opt

# A fresh carry with the headers infer-run builds with.
new_carry() {
  [[ -x $INFER_OPT ]] || { echo "gpu-check: build infer-opt first (scripts/setup.sh)" >&2; exit 1; }
  rm -rf "$CARRY" && mkdir -p "$CARRY/include"
  cp -r /usr/include/CLI /usr/include/nlohmann "$CARRY/include/"
}

# What travels: the repo's files and the carry, 64 MiB at most.
report_size() {
  local bytes
  bytes=$(( $(du -sb "$CARRY" | cut -f1) + $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) ))
  echo "$CARRY and the repo's files: $((bytes / 1048576)) MiB of the transfer's 64"
  if [ "$bytes" -gt $((60 * 1048576)) ]; then
    echo "gpu-check: warning: within 4 MiB of the 64 MiB transfer; a larger engine will not go" >&2
  fi
}

batch8_engines() {
  echo "== models with PyTorch twins at batch 8 (timing only)"
  $PY scripts/gpu_models.py --infer-opt "$INFER_OPT" --out "$CARRY/models-b8" --batch 8 \
    --models mobilenetv2,resnet50,bert-base,vit-b16,gpt2
}

prepare() {
  new_carry
  mkdir -p "$CARRY/models"
  echo "== conformance engines (sm_90)"
  $PY scripts/conformance.py --target cuda --cuda-archs sm_90 --compile-to "$CARRY/conformance"
  tar -C "$CARRY" -cJf "$CARRY/conformance.tar.xz" conformance && rm -rf "$CARRY/conformance"
  echo "== real models"
  # Models over 12 MB go split: the transfer is 64 MiB with the repo, and
  # MobileNetV2's 15 MB engine would leave under 2 MiB (PP-OCR rec's 10.4 MB
  # ONNX file is the largest that goes whole: it cannot be regenerated).
  $PY scripts/gpu_models.py --infer-opt "$INFER_OPT" --out "$CARRY/models" --max-mb 12 \
    --also-fp32 ppocr-det
  local variant flag
  for variant in $VARIANTS; do
    flag=$(variant_flag "$variant")
    echo "== real models, $flag"
    $PY scripts/gpu_models.py --infer-opt "$INFER_OPT" --out "$CARRY/models-$variant" --max-mb 0 \
      --flag="$flag"
  done
  batch8_engines
  report_size
}

# The sweep's engines go in a carry of their own (build-sweep), for a
# second call: with them, build-carry would pass the 64 MiB transfer.
prepare_sweep() {
  new_carry
  batch8_engines
  echo "== the tile-plan sweep at batch 8 (timing only): ${SWEEP_PLANS// /, }"
  local plan
  for plan in $SWEEP_PLANS; do
    $PY scripts/gpu_models.py --infer-opt "$INFER_OPT" --out "$CARRY/models-sweep/$plan" \
      --batch 8 --models "$SWEEP_MODELS" --flag=--cuda-tile-plan="$plan"
  done
  report_size
}

# The runtime and infer-run without MLIR (a machine kept warm has them).
build_runtime() {
  cmake -G Ninja -S . -B build-gpu -DINFER_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
    -DINFER_HEADERS_DIR="$PWD/$CARRY/include" >/dev/null
  cmake --build build-gpu | tail -n 1
}

# One phase of `run`, in a process of its own (so that `timeout` can stop
# it), writing into $WORK; $DAY is the date in the tables' names.
phase_runtime() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  build_runtime
}
phase_restore() { python3 scripts/gpu_models.py --restore "$CARRY/models"; }
bench() { # bench DIR NAME [gpu.py flags...]
  local dir=$1 name=$2
  shift 2
  mkdir -p "$(dirname "$WORK/$name")"
  PYTHONUNBUFFERED=1 python3 scripts/bench/gpu.py --dir "$dir" --infer-run build-gpu/bin/infer-run \
    --markdown "$WORK/$name.md" --json "$WORK/$name.json" ${GPU_BENCH_ARGS:-} "$@"
}
phase_bench() { bench "$CARRY/models" "gpu-$DAY" --no-torch; }
phase_profiles() {
  python3 scripts/cuda_plan_exec.py --manifest "$CARRY/models/manifest.json" --profile \
    --profile-dir "$WORK/profiles"
}
phase_torch() { bench "$CARRY/models" "gpu-$DAY"; }
phase_conformance() {
  rm -rf "$CARRY/conformance"
  tar -C "$CARRY" -xJf "$CARRY/conformance.tar.xz"
  PYTHONUNBUFFERED=1 python3 scripts/conformance.py --target cuda --prebuilt "$CARRY/conformance" \
    --infer-run build-gpu/bin/infer-run --device cuda --jobs "$(( $(nproc) < 16 ? $(nproc) : 16 ))" \
    --json "$WORK/cuda.json" --markdown "$WORK/cuda.md" | tail -n 30
}
variant() { # variant NAME: its engines' outputs, profiles and timings
  local name=$1 dir=$CARRY/models-$1
  [[ -d $dir ]] || { echo "gpu-check: no $dir: prepare with GPU_CHECK_VARIANTS=\"$name\"" >&2; return 1; }
  python3 scripts/gpu_models.py --restore "$dir" --onnx-dir "$CARRY/models/onnx" || true
  python3 scripts/cuda_plan_exec.py --manifest "$dir/manifest.json" --profile \
    --profile-dir "$WORK/profiles-$name" || true
  bench "$dir" "gpu-$name-$DAY" --no-torch --title "GPU benchmark, $DAY: $(variant_flag "$name")"
}
phase_wmma() { variant wmma; }
phase_direct() { variant direct; }
phase_batch8() {
  python3 scripts/cuda_plan_exec.py --manifest "$CARRY/models-b8/manifest.json" --profile \
    --profile-dir "$WORK/profiles-b8" || true
  bench "$CARRY/models-b8" "gpu-b8-$DAY" --title "GPU benchmark, $DAY: batch 8"
}
phase_sweep() {
  local dir plan baseline=$WORK/gpu-b8-$DAY.json
  [[ -d $CARRY/models-sweep ]] || { echo "gpu-check: no $CARRY/models-sweep: prepare again" >&2; return 1; }
  # The heuristic's engines, unless batch8 timed and profiled them.
  [[ -d $WORK/profiles-b8 ]] || python3 scripts/cuda_plan_exec.py \
    --manifest "$CARRY/models-b8/manifest.json" --profile --profile-dir "$WORK/profiles-b8" || true
  if [[ ! -f $baseline ]]; then
    baseline=$WORK/sweep/heuristic.json
    bench "$CARRY/models-b8" sweep/heuristic --no-torch
  fi
  local runs=(--run heuristic "$baseline" "$WORK/profiles-b8")
  for dir in "$CARRY"/models-sweep/*/; do
    plan=$(basename "$dir")
    python3 scripts/cuda_plan_exec.py --manifest "$dir/manifest.json" --profile \
      --profile-dir "$WORK/profiles-sweep/$plan" || true
    bench "$dir" "sweep/$plan" --no-torch --title "GPU benchmark, $DAY: batch 8, $plan"
    runs+=(--run "$plan" "$WORK/sweep/$plan.json" "$WORK/profiles-sweep/$plan")
    # After each plan: a cut-off sweep keeps the plans it timed.
    PYTHONPATH=scripts python3 scripts/bench/sweep.py --markdown "$WORK/gpu-sweep-$DAY.md" "${runs[@]}" \
      --tuned-plans "$WORK/tuned-plans-$DAY.json"
  done
}

# What comes back: the log, the tables, and one archive of everything.
pack() {
  local md
  for md in "$WORK"/*.md; do
    [[ -e $md ]] && cp "$md" "$OUT_DIR/"
  done
  tar -C "$WORK" -czf "$WORK.tar.gz" . && mv "$WORK.tar.gz" "$OUT_DIR/results.tar.gz"
}

run() {
  OUT_DIR=${1:-}
  [[ -n $OUT_DIR ]] || { echo "usage: scripts/gpu-check.sh run OUTDIR" >&2; exit 2; }
  [[ -d $CARRY ]] ||
    { echo "gpu-check: $CARRY missing: run 'scripts/gpu-check.sh prepare' (or prepare-sweep) first, and carry $CARRY" >&2; exit 1; }
  mkdir -p "$OUT_DIR"
  OUT_DIR=$(cd "$OUT_DIR" && pwd)
  WORK=$(mktemp -d)
  DAY=$(date +%F)
  export CARRY WORK DAY
  local budget=${GPU_CHECK_SECONDS:-540} log="$OUT_DIR/gpu-check.log"
  local deadline=$((SECONDS + budget)) failed=0 name left start rc
  echo "gpu-check: $budget s for the phases, from $(date -u +%T) UTC" | tee "$log"
  local phases=${GPU_CHECK_PHASES:-runtime restore bench profiles torch conformance batch8 sweep}
  for name in ${phases//,/ }; do
    if ! declare -F "phase_$name" >/dev/null; then
      echo "gpu-check: no phase '$name' in GPU_CHECK_PHASES" >&2
      exit 2
    fi
  done
  for name in ${phases//,/ }; do
    left=$((deadline - SECONDS - 15)) # 15 s kept for packing.
    if ((left <= 0)); then
      echo "phase $name: skipped, no time left" | tee -a "$log"
      failed=1
      continue
    fi
    echo "== $name ($left s left)" | tee -a "$log"
    start=$SECONDS
    rc=0
    timeout --kill-after=5 "$left" bash "$0" _phase "$name" 2>&1 | tee -a "$log" || rc=$?
    if ((rc == 124 || rc == 137)); then
      echo "phase $name: timed out after $((SECONDS - start)) s" | tee -a "$log"
      failed=1
    elif ((rc != 0)); then
      echo "phase $name: failed (exit $rc) after $((SECONDS - start)) s" | tee -a "$log"
      failed=1
    else
      echo "phase $name: done in $((SECONDS - start)) s" | tee -a "$log"
    fi
    pack
    # Without infer-run nothing else can run.
    if [[ $name == runtime && ! -x build-gpu/bin/infer-run ]]; then
      echo "gpu-check: no infer-run was built; stopping" | tee -a "$log"
      break
    fi
  done
  grep '^phase ' "$log" || true
  return $failed
}

case $mode in
  prepare) prepare ;;
  prepare-sweep) CARRY=${GPU_CHECK_CARRY:-build-sweep}; prepare_sweep ;;
  run) shift; run "$@" ;;
  _phase) set -o pipefail; "phase_$2" ;; # run's own: one phase, in its own process.
  *) echo "usage: scripts/gpu-check.sh prepare | prepare-sweep | run OUTDIR" >&2; exit 2 ;;
esac
