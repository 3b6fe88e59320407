//===- Passes.h - conversion passes of infer-opt ---------------*- C++ -*-===//

#ifndef INFER_OPT_CONVERSION_PASSES_H
#define INFER_OPT_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace infer {

#define GEN_PASS_DECL
#include "infer-opt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "infer-opt/Conversion/Passes.h.inc"

} // namespace infer
} // namespace mlir

#endif // INFER_OPT_CONVERSION_PASSES_H
