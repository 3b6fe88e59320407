//===- Passes.h - passes of lib/Codegen/CPU (Passes.td) ---*- C++ -*-===//

#ifndef INFER_OPT_CODEGEN_CPU_PASSES_H
#define INFER_OPT_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::infer {

#define GEN_PASS_DECL
#include "infer-opt/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "infer-opt/Codegen/CPU/Passes.h.inc"

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CPU_PASSES_H
