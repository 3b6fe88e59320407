#!/usr/bin/env bash
# Sets up if needed, builds, runs the test suites of one tier and ends with
# one line "N passed, N failed" (N counted over the individual tests of all
# suites). README.md ("Tests") records each tier's time.
#
#   scripts/test.sh             the default tier: what CI runs (.ci/run) and
#                               everything that guards behaviour: unit, lit,
#                               the must-pass conformance lists (CPU, CUDA
#                               emulated), the real models' imports, the CUDA
#                               kernel checks of the real models (every model
#                               by default; a subset for each other variant),
#                               pytest (real-model numerics, emulated CUDA
#                               engines and kernels); it needs about 5 GB of
#                               free disk (models, engines)
#   scripts/test.sh --quick     the edit-compile loop: unit, lit, the must-pass
#                               lists, pytest --quick (no real model, nothing
#                               marked slow); the real models are not needed
#   scripts/test.sh --extended  before resolving an issue: the default tier,
#                               pytest --extended, the kernel checks of every
#                               model in every variant, the whole ONNX
#                               conformance suites (CPU and CUDA emulated)
#                               against their committed reports, more seeds of
#                               scripts/fuzz_models.py, each libFuzzer target
#                               of scripts/fuzz.sh for a while, and the quick
#                               tier on the sanitizer build (--sanitize)
#   scripts/test.sh --sanitize  the quick tier, but pytest's default one (the
#                               real models' numerics where they are fetched),
#                               on an AddressSanitizer + UBSan build in
#                               build-asan (a first build takes long): any
#                               report fails its test. The Python tests
#                               load the instrumented runtime with libasan
#                               preloaded (leak checks off for the Python
#                               process; the instrumented tools keep theirs);
#                               the fault-injection test, which replaces malloc
#                               itself, is left out. The conformance engines
#                               run on one OpenMP thread: LeakSanitizer's
#                               exit-time scan crashes on libomp's worker
#                               threads ("Tracer caught signal 11").
#   scripts/test.sh --help      this text
#
# Environment: INFER_TEST_JOBS, the processes of each suite (default: the
# cores, at most 8); INFER_FUZZ_SECONDS, each libFuzzer target's run in the
# extended tier (default 120); INFER_FUZZ_SEEDS, the seeds of each family of
# fuzz_models.py there (default 0-24).
set -uo pipefail
cd "$(dirname "$0")/.."
tier=default sanitize=0
for arg in "$@"; do
  case "$arg" in
    --quick) tier=quick ;;
    --extended) tier=extended ;;
    --sanitize) sanitize=1 ;;
    --help|-h) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: scripts/test.sh [--quick | --extended | --sanitize] (--help says more)" >&2
       exit 2 ;;
  esac
done
if [ "$sanitize" -eq 1 ]; then
  [ "$tier" = default ] || { echo "--sanitize runs the quick tier; it takes no other" >&2; exit 2; }
  tier=quick
fi
cores=$(nproc 2>/dev/null || echo 2)
jobs=${INFER_TEST_JOBS:-$((cores < 8 ? cores : 8))}
started=$(date +%s)

B=build
if [ "$sanitize" -eq 1 ]; then
  B=build-asan
  export BUILD_DIR=$B CMAKE_ARGS="-DINFER_ENABLE_SANITIZERS=ON ${CMAKE_ARGS:-}"
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  # LLVM's inline allocators poison and unpoison their slabs where they are
  # compiled with ASan (our dialects' attribute storage), but not inside the
  # uninstrumented libMLIR that shares those slabs: its allocations would read
  # as use-after-poison. Manual poisoning is off; ASan's own checks stay.
  export ASAN_OPTIONS=allow_user_poisoning=0
fi
conformance_env=()
[ "$sanitize" -eq 1 ] && conformance_env=(OMP_NUM_THREADS=1)
scripts/setup.sh || { echo "setup or build failed"; echo "0 passed, 1 failed"; exit 1; }

# The default tier needs about 5 GB of free disk (measured 2026-11-25: ~3 GB
# of real models in models/, ~1.5 GB of engines and kernels under $TMPDIR at
# its peak). Say so up front: short of space, later suites fail with "No
# space left on device" far from the cause.
need_gb=5
[ "$tier" = quick ] && need_gb=2
for dir in . "${TMPDIR:-/tmp}"; do
  free_gb=$(df -P -BG "$dir" | awk 'NR == 2 { sub("G", "", $4); print $4 }')
  if [ -n "$free_gb" ] && [ "$free_gb" -lt "$need_gb" ]; then
    echo "warning: only ${free_gb} GB free on the disk of $dir; this suite needs about" \
      "${need_gb} GB (expect 'No space left on device' failures)"
  fi
done

passed=0 failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

count() { # suite-name passed failed
  echo "== $1: $2 passed, $3 failed ($(( $(date +%s) - suite_started )) s)"
  passed=$((passed + $2)); failed=$((failed + $3))
}
suite() { # title
  echo "== $1"
  suite_started=$(date +%s)
}

# A script that prints one "ok ..." or "FAIL ..." line per case: its other
# lines (at most N), then its counts; a non-zero exit is a failure.
ok_lines() { # suite-name log exit-status N
  local pass fail
  grep -v '^ok' "$2" | head -"$4"
  pass=$(grep -c '^ok' "$2" || true)
  fail=$(grep -c '^FAIL' "$2" || true)
  [ "$3" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
  count "$1" "$pass" "$fail"
}

# A script whose last "PREFIX: N passed, M failed" line counts its cases.
summary_line() { # suite-name log exit-status prefix
  local line pass fail
  grep -vE "^$4: " "$2" | tail -20
  line=$(grep -E "^$4: [0-9]+ passed, [0-9]+ failed" "$2" | tail -1)
  echo "$line"
  pass=$(echo "$line" | grep -oP ': \K[0-9]+(?= passed)' || echo 0)
  fail=$(echo "$line" | grep -oP '[0-9]+(?= failed)' || echo 0)
  pass=${pass:-0} fail=${fail:-0}
  [ "$3" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
  count "$1" "$pass" "$fail"
}

suite "unit tests (GoogleTest)"
$B/bin/infer-unittests --gtest_brief=1 >"$log/unit" 2>&1
unit_rc=$?
tail -3 "$log/unit"
u_pass=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log/unit" || echo 0)
u_fail=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log/unit" || echo 0)
[ "$unit_rc" -ne 0 ] && [ "$u_fail" -eq 0 ] && u_fail=1
count "unit" "${u_pass:-0}" "${u_fail:-0}"

suite "lit (IR and importer tests)"
/usr/lib/llvm-22/bin/lit -s -j "$jobs" $B/test >"$log/lit" 2>&1
lit_rc=$?
grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT)' "$log/lit" | head -20
l_pass=$(grep -oP '^\s*(Passed|Expectedly Failed|Unsupported)\s*:\s*\K[0-9]+' "$log/lit" | paste -sd+ | bc)
l_fail=$(grep -oP '^\s*(Failed|Unexpectedly Passed|Unresolved|Timed Out)\s*:\s*\K[0-9]+' "$log/lit" | paste -sd+ | bc)
[ -z "$l_pass" ] && l_pass=$(grep -c '^PASS' "$log/lit" || true)
l_fail=${l_fail:-0}
[ "$lit_rc" -ne 0 ] && [ "$l_fail" -eq 0 ] && l_fail=1
count "lit" "${l_pass:-0}" "$l_fail"

# The must-pass list: on the CPU target, and on the CUDA target with its
# kernels run by the emulator (scripts/infer_tools/gpu_emulator/; no GPU needed).
must_pass() { # suite-name log-name conformance.py-flags...
  local name=$1 out="$log/$2"; shift 2
  suite "ONNX conformance must-pass list ($name)"
  env "${conformance_env[@]}" .venv/bin/python scripts/conformance.py "$@" --jobs "$jobs" \
    --infer-opt $B/bin/infer-opt --must-pass test/conformance/cpu-must-pass.txt >"$out" 2>&1
  local rc=$?
  grep -vE '^(total=|must-pass: )' "$out" | head -20
  grep -E '^must-pass: ' "$out"
  c_pass=$(grep -oP '^must-pass: \K[0-9]+(?= passed)' "$out" || echo 0)
  c_fail=$(grep -oP '^must-pass: [0-9]+ passed, \K[0-9]+(?= failed)' "$out" || echo 0)
  [ "$rc" -ne 0 ] && [ "$c_fail" -eq 0 ] && c_fail=1
  count "conformance ($name)" "$c_pass" "$c_fail"
}
must_pass cpu conformance --target cpu --infer-run $B/bin/infer-run
must_pass "cuda, emulated" conformance-cuda --target cuda --emulate

if [ "$tier" != quick ]; then
  suite "real models: import with static shapes"
  scripts/import_real_models.sh >"$log/models" 2>&1
  ok_lines "real models" "$log/models" $? 30

  # The default kernels (tiles staged in shared memory) on every model (the
  # opset-18 copies, which import to their opset-17 IR, in the extended
  # tier); the warp-a-tile tensor-core kernels (--no-cuda-stage-tiles) on one
  # opset of each (by default on PP-OCR det, a CNN with 3x3 convolutions and
  # an upsampling head, rec, convolutions and attention, and ViT-B/16,
  # attention over grown tokens); the sweep's widest plan (blocks of
  # 128 x 128, which the heuristic does not pick) on three CNNs, where fused
  # epilogues press on registers most; and that plan multiplied with WMMA
  # instead of mma.sync (the default) on those and, in the extended tier,
  # BERT-base.
  all_17=det,rec,cls,layout,orientation,resnet50-opset17,mobilenetv2-opset17,bert-base-opset17,vit-b16-opset17,gpt2-opset17
  cnns=cls,orientation,mobilenetv2-opset17
  if [ "$tier" = extended ]; then
    default_models="" warp_models=$all_17 wmma_models=$cnns,bert-base-opset17
  else
    default_models=$all_17 warp_models=det,rec,vit-b16-opset17 wmma_models=$cnns
  fi
  for variant in default warp-tiles wide-tiles wmma-tiles; do
    case $variant in
      default) suite "CUDA kernels of the real models (ptxas for sm_80 and sm_90, SASS checks)"
               extra=(${default_models:+--models "$default_models"}) ;;
      warp-tiles) suite "CUDA kernels with --no-cuda-stage-tiles"
                  extra=(--flag=--no-cuda-stage-tiles --models "$warp_models") ;;
      wide-tiles) suite "CUDA kernels with --cuda-tile-plan warp=4x4"
                  extra=(--flag=--cuda-tile-plan=warp=4x4 --models "$cnns") ;;
      wmma-tiles) suite "CUDA kernels with --cuda-tile-plan warp=4x4,mma=wmma"
                  extra=(--flag=--cuda-tile-plan=warp=4x4,mma=wmma --models "$wmma_models") ;;
    esac
    .venv/bin/python scripts/cuda_kernel_check.py --infer-opt $B/bin/infer-opt --jobs "$jobs" \
      "${extra[@]}" >"$log/cuda-$variant" 2>&1
    ok_lines "CUDA kernels ($variant)" "$log/cuda-$variant" $? 20
  done
fi

# Under --sanitize, pytest's default tier: the real models' numerics (where
# fetched) through the instrumented runtime too.
pytest_tier=$tier
[ "$sanitize" -eq 1 ] && pytest_tier=default
suite "Python numerics against ONNX Runtime (pytest, $pytest_tier tier)"
pytest_args=(-q -n "$jobs" --dist worksteal -p no:cacheprovider --durations=10)
[ "$pytest_tier" = default ] || pytest_args+=("--$pytest_tier")
if [ "$sanitize" -eq 1 ]; then
  INFER_OPT=$PWD/$B/bin/infer-opt LIBINFERRT=$PWD/$B/lib/libinferrt.so \
    LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
    ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
    .venv/bin/python -m pytest "${pytest_args[@]}" test/python -k "not every_allocation" \
    >"$log/pytest" 2>&1
else
  .venv/bin/python -m pytest "${pytest_args[@]}" test/python >"$log/pytest" 2>&1
fi
py_rc=$?
grep -E '^(FAILED|ERROR) ' "$log/pytest" | head -20
echo "the slowest tests (keep the tiers within their times: README 'Tests'):"
grep -E '^[0-9.]+s (call|setup|teardown) ' "$log/pytest" | head -10
tail -1 "$log/pytest"
p_pass=$(tail -1 "$log/pytest" | grep -oP '[0-9]+(?= passed)')
p_fail=$(tail -1 "$log/pytest" | grep -oP '[0-9]+(?= (failed|errors?))' | paste -sd+ | bc)
p_pass=${p_pass:-0}
p_fail=${p_fail:-0}
[ "$py_rc" -ne 0 ] && [ "$p_fail" -eq 0 ] && p_fail=1
count "pytest" "$p_pass" "$p_fail"

if [ "$tier" = extended ]; then
  # The whole ONNX backend node suites: every test that passed in the
  # committed report (docs/conformance/) must pass again.
  for target in cpu cuda-emulated; do
    suite "ONNX conformance, every test ($target), against docs/conformance/$target.json"
    flags=(--target cpu --infer-run $B/bin/infer-run)
    [ $target = cuda-emulated ] && flags=(--target cuda --emulate)
    .venv/bin/python scripts/conformance.py "${flags[@]}" --jobs "$jobs" --infer-opt $B/bin/infer-opt \
      --json "$log/$target.json" --markdown "$log/$target.md" \
      --expect docs/conformance/$target.json >"$log/conformance-$target" 2>&1
    summary_line "conformance, every test ($target)" "$log/conformance-$target" $? expect
  done

  # Random models of each family through both back ends (test_fuzz_models.py
  # runs two seeds of each).
  # A seed counts as passed or failed; unsupported and ill-conditioned ones
  # as neither. The families run side by side, a process each.
  suite "random models (scripts/fuzz_models.py, seeds ${INFER_FUZZ_SEEDS:-0-24} of each family)"
  families=(cnn transformer tensor contractions)
  pids=()
  for family in "${families[@]}"; do
    .venv/bin/python scripts/fuzz_models.py --family $family --seeds "${INFER_FUZZ_SEEDS:-0-24}" \
      --out "$log/fuzz-$family" >"$log/fuzz-models-$family" 2>&1 &
    pids+=($!)
  done
  f_rc=0
  for pid in "${pids[@]}"; do wait "$pid" || f_rc=1; done
  for family in "${families[@]}"; do
    echo "$family: $(tail -1 "$log/fuzz-models-$family")"
    grep -A3 -E '^seed [0-9]+: FAIL' "$log/fuzz-models-$family" | head -12
  done
  f_pass=$(cat "$log"/fuzz-models-* | grep -cE '^seed [0-9]+: ok' || true)
  f_fail=$(cat "$log"/fuzz-models-* | grep -cE '^seed [0-9]+: FAIL' || true)
  [ "$f_rc" -ne 0 ] && [ "$f_fail" -eq 0 ] && f_fail=1
  count "random models" "$f_pass" "$f_fail"

  # The libFuzzer targets (clang, ASan + UBSan), each for a while; a finding
  # fails (its input is kept in build-fuzz/artifacts/).
  suite "libFuzzer targets (scripts/fuzz.sh, ${INFER_FUZZ_SECONDS:-120} s each)"
  if ! command -v "${FUZZ_CXX:-clang++}" >/dev/null; then
    echo "installing clang for the fuzzers"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang \
      >/dev/null
  fi
  z_pass=0 z_fail=0
  for target in engine-loader onnx-binary onnx-text onnx-proto; do
    scripts/fuzz.sh $target "${INFER_FUZZ_SECONDS:-120}" >"$log/fuzz-$target" 2>&1
    rc=$?
    echo "$target: $(grep -E '^(Done|stat::number_of_executed_units)' "$log/fuzz-$target" | \
      tail -1)"
    if [ "$rc" -eq 0 ]; then z_pass=$((z_pass + 1)); else z_fail=$((z_fail + 1)); tail -5 "$log/fuzz-$target"; fi
  done
  count "libFuzzer targets" "$z_pass" "$z_fail"

  # The quick tier on the sanitizer build, counted here test by test.
  suite "the quick tier on the ASan + UBSan build (scripts/test.sh --sanitize)"
  scripts/test.sh --sanitize >"$log/sanitize" 2>&1
  grep -E '^== .*(passed|failed)' "$log/sanitize"
  s_line=$(tail -1 "$log/sanitize")
  s_pass=$(echo "$s_line" | grep -oP '^[0-9]+(?= passed)' || echo 0)
  s_fail=$(echo "$s_line" | grep -oP '[0-9]+(?= failed)' || echo 1)
  count "sanitizers" "${s_pass:-0}" "${s_fail:-1}"
fi

echo "== $tier tier: $(( $(date +%s) - started )) s on $cores cores ($jobs processes a suite)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
