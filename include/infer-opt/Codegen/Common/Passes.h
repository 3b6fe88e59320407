//===- Passes.h - passes of lib/Codegen/Common (Passes.td) ---*- C++ -*-===//

#ifndef INFER_OPT_CODEGEN_COMMON_PASSES_H
#define INFER_OPT_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::infer {

#define GEN_PASS_DECL
#include "infer-opt/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "infer-opt/Codegen/Common/Passes.h.inc"

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_COMMON_PASSES_H
