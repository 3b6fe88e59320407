#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan + UBSan) and runs it.
#   scripts/fuzz.sh TARGET SECONDS
# Targets:
#   engine-loader   raw bytes -> inferrt_engine_load (checksums resealed, so
#                   mutations reach the layout, metadata, plan and weights
#                   checks; stops before dlopen). Seeds: engines of the example.
# The corpus grows in build-fuzz/corpus/TARGET (kept between runs); crashes go
# to build-fuzz/artifacts/TARGET/. Ends with libFuzzer's final statistics
# (executions, coverage) and exits non-zero on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-}
seconds=${2:-}
if [ -z "$target" ] || [ -z "$seconds" ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS   (targets: engine-loader)" >&2
  exit 2
fi
CXX=${FUZZ_CXX:-clang++}
command -v "$CXX" >/dev/null || { echo "fuzz: $CXX not found (apt-get install clang)" >&2; exit 1; }
out=build-fuzz
mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude)

case "$target" in
  engine-loader)
    "$CXX" "${flags[@]}" -DINFERRT_FUZZ_NO_KERNELS lib/Runtime/Engine.cpp lib/Runtime/Context.cpp \
      lib/Runtime/Status.cpp lib/Runtime/Json.cpp test/fuzz/engine_loader_fuzzer.cpp -ldl \
      -o "$out/$target"
    # Seeds: the example at a few shapes (compiled by the normal build).
    [ -x build/bin/infer-opt ] || scripts/setup.sh
    for shape in 1x3x32x32 3x3x32x32; do
      seed="$out/corpus/$target/seed-$shape.engine"
      [ -f "$seed" ] || build/bin/infer-opt examples/tiny_cnn.onnxtext --input-shape "image:$shape" \
        --emit=engine -o "$seed"
    done
    max_len=65536
    ;;
  *)
    echo "fuzz: unknown target '$target' (targets: engine-loader)" >&2
    exit 2
    ;;
esac

"$out/$target" "$out/corpus/$target" -max_total_time="$seconds" -max_len="$max_len" \
  -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 -print_pcs=0 2>&1 |
  grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)|# Uses: |recommended dictionary' | tail -20
