//===- onnx_importer_fuzzer.cpp - libFuzzer target: the ONNX importer -----===//
//
// Built by scripts/fuzz.sh with clang -fsanitize=fuzzer,address,undefined,
// the importer's sources instrumented and compiled in (the dialect and MLIR
// come from the normal build, uninstrumented). Each input is a model file:
// binary protobuf, or ONNX text when built with INFER_FUZZ_TEXT (the
// onnx-proto target adds model_proto_mutator.cpp's structured mutations to
// the binary form). It is imported with a 64 MiB tensor cap, and an
// imported module is verified and simplified (canonicalize + CSE: the
// folders are part of the surface), as `infer-opt model.onnx` does. A crash, a sanitizer report, or a module
// that fails to verify after a successful import is a finding; rejections
// with diagnostics are the expected outcome for most inputs.
//
//===----------------------------------------------------------------------===//

#include "Infer/InferDialect.h"
#include "infer-opt/Import/ONNX/ONNXImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#ifdef INFER_FUZZ_TEXT
  const char *extension = ".onnxtext";
#else
  const char *extension = ".onnx";
#endif
  static const std::string path =
      "/dev/shm/infer-import-fuzz-" + std::to_string(getpid()) + extension;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  std::fwrite(data, 1, size, f);
  std::fclose(f);

  // A context per input: uniqued constants would otherwise pile up.
  DialectRegistry registry;
  registry.insert<infer::InferDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  context.disableMultithreading();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  infer::ONNXImportOptions options;
  options.maxTensorBytes = int64_t(64) << 20;
  infer::ONNXImportResult result = infer::importONNXModel(context, path, options);
  if (result.internalError)
    std::abort(); // The importer built a module that does not verify.
  if (!result.module)
    return 0;
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*result.module)) || failed(verify(*result.module)))
    std::abort();
  return 0;
}
