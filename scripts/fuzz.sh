#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan + UBSan) and runs it.
#   scripts/fuzz.sh TARGET SECONDS
# Targets:
#   engine-loader   raw bytes -> inferrt_engine_load (checksums resealed, so
#                   mutations reach the layout, metadata, plan and weights
#                   checks, CUDA plans included; stops before dlopen). Seeds:
#                   engines of the example, CPU and CUDA.
#   onnx-binary     raw bytes as a binary .onnx -> the importer, then verify,
#                   canonicalize and CSE. Seeds: the ONNX backend node test
#                   models (the venv's onnx package generates them; up to
#                   16 KiB each).
#   onnx-text       the same with the bytes as ONNX text (.onnxtext). Seeds:
#                   examples/ and the importer's lit inputs.
#   onnx-proto      onnx-binary with structured mutations: inputs are parsed
#                   as ModelProto, fields changed through protobuf reflection
#                   and reserialized (test/fuzz/model_proto_mutator.cpp), so
#                   they get past the parser. Seeds: as onnx-binary.
# The importer targets compile lib/Import/ONNX instrumented and link the
# normal build's dialect and MLIR (build/, made by scripts/setup.sh).
# The corpus grows in build-fuzz/corpus/TARGET (kept between runs); crashes go
# to build-fuzz/artifacts/TARGET/. Ends with libFuzzer's final statistics
# (executions, coverage) and exits non-zero on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-}
seconds=${2:-}
if [ -z "$target" ] || [ -z "$seconds" ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS   (targets: engine-loader, onnx-binary, onnx-text, onnx-proto)" >&2
  exit 2
fi
CXX=${FUZZ_CXX:-clang++}
command -v "$CXX" >/dev/null || { echo "fuzz: $CXX not found (apt-get install clang)" >&2; exit 1; }
out=build-fuzz
mkdir -p "$out/corpus/$target" "$out/artifacts/$target"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude)

case "$target" in
  engine-loader)
    # CUDA plans are parsed too (Cuda/Plan.cpp); contexts are never made,
    # so the stand-in backend without a driver (Cuda/Unsupported.cpp) links.
    "$CXX" "${flags[@]}" -DINFERRT_FUZZ_NO_KERNELS -Ilib/Runtime lib/Runtime/Engine.cpp \
      lib/Runtime/Context.cpp lib/Runtime/Status.cpp lib/Runtime/Json.cpp lib/Runtime/Cuda/Plan.cpp \
      lib/Target/Engine/EngineReader.cpp \
      lib/Runtime/Cuda/Unsupported.cpp test/fuzz/engine_loader_fuzzer.cpp -ldl -o "$out/$target"
    # Seeds: the example at a few shapes (compiled by the normal build).
    [ -x build/bin/infer-opt ] || scripts/setup.sh
    for shape in 1x3x32x32 3x3x32x32; do
      seed="$out/corpus/$target/seed-$shape.engine"
      [ -f "$seed" ] || build/bin/infer-opt examples/tiny_cnn.onnxtext --input-shape "image:$shape" \
        --emit=engine -o "$seed"
    done
    # A CUDA engine too (its plan's modules and launches), where ptxas is.
    seed="$out/corpus/$target/seed-cuda.engine"
    [ -f "$seed" ] || build/bin/infer-opt examples/tiny_cnn.onnxtext --input-shape image:1x3x32x32 \
      --target=cuda:sm_90 --emit=engine -o "$seed" || true
    max_len=65536
    ;;
  onnx-binary|onnx-text|onnx-proto)
    [ -f build/lib/libInferDialect.so ] || scripts/setup.sh
    objects="$out/importer-objects"
    mkdir -p "$objects"
    defines=(-DONNX_ML=1 -DONNX_NAMESPACE=onnx -Idialects -I. -Ibuild/include -Ibuild
             -Ibuild/dialects/Infer -isystem /usr/lib/llvm-22/include -D__STDC_CONSTANT_MACROS
             -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS)
    sources=(lib/Import/ONNX/*.cpp lib/Import/ONNX/ops/*.cpp)
    for src in "${sources[@]}"; do
      obj="$objects/$(basename "$src" .cpp).o"
      [ "$obj" -nt "$src" ] || "$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
        -fno-sanitize-recover=undefined -Iinclude "${defines[@]}" -c "$src" -o "$obj"
    done
    extra=()
    [ "$target" = onnx-text ] && extra=(-DINFER_FUZZ_TEXT)
    [ "$target" = onnx-proto ] && extra=(test/fuzz/model_proto_mutator.cpp)
    "$CXX" "${flags[@]}" "${defines[@]}" "${extra[@]}" test/fuzz/onnx_importer_fuzzer.cpp \
      "$objects"/*.o -Lbuild/lib -lInferDialect -L/usr/lib/llvm-22/lib -lMLIR -lLLVM -lonnx \
      -lonnx_proto -lprotobuf -Wl,-rpath,"$PWD/build/lib:/usr/lib/llvm-22/lib" -o "$out/$target"
    if [ "$target" != onnx-text ]; then
      # The backend node tests' models, made by the onnx package's generators.
      .venv/bin/python - "$out/corpus/$target" <<'PY'
import sys, warnings
from pathlib import Path
warnings.simplefilter("ignore")
from onnx.backend.test.case.node import collect_testcases
out = Path(sys.argv[1])
for case in collect_testcases():
    data = case.model.SerializeToString()
    if len(data) <= 16384 and not (out / f"{case.name}.onnx").exists():
        (out / f"{case.name}.onnx").write_bytes(data)
PY
      max_len=16384
    else
      cp -n examples/*.onnxtext "$out/corpus/$target/" 2>/dev/null || true
      find test/Import -name '*.onnxtext' -size -8k -exec cp -n {} "$out/corpus/$target/" \;
      max_len=8192
    fi
    ;;
  *)
    echo "fuzz: unknown target '$target' (targets: engine-loader, onnx-binary, onnx-text, onnx-proto)" >&2
    exit 2
    ;;
esac

"$out/$target" "$out/corpus/$target" -max_total_time="$seconds" -max_len="$max_len" \
  -artifact_prefix="$out/artifacts/$target/" -print_final_stats=1 -print_pcs=0 2>&1 |
  grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)|# Uses: |recommended dictionary|NEW_FUNC' | tail -20
