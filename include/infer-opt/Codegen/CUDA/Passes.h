//===- Passes.h - passes of lib/Codegen/CUDA (Passes.td) ---*- C++ -*-===//

#ifndef INFER_OPT_CODEGEN_CUDA_PASSES_H
#define INFER_OPT_CODEGEN_CUDA_PASSES_H

#include "infer-opt/Plan/KernelPlan.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {

#define GEN_PASS_DECL
#include "infer-opt/Codegen/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "infer-opt/Codegen/CUDA/Passes.h.inc"

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CUDA_PASSES_H
