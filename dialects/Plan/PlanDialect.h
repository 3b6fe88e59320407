//===- PlanDialect.h - the `plan` dialect -----------------------*- C++ -*-===//
//
// Typed kernel plans (PlanDialect.td). The structs the planners compute and
// their JSON and text forms are in include/infer-opt/Plan/KernelPlan.h.
//
//===----------------------------------------------------------------------===//

#ifndef PLAN_DIALECT_PLANDIALECT_H
#define PLAN_DIALECT_PLANDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "Plan/PlanEnums.h.inc"

#include "Plan/PlanDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Plan/PlanAttrs.h.inc"

namespace mlir::infer::plan {

/// The module attribute that holds the launch records, in launch order.
inline constexpr llvm::StringLiteral kLaunchesAttr = "plan.launches";

/// Whether kernels of this strategy run on the tensor cores.
inline bool usesTensorCores(KernelStrategy strategy) {
  return strategy == KernelStrategy::TensorCores || strategy == KernelStrategy::StagedTiles;
}

} // namespace mlir::infer::plan

#endif // PLAN_DIALECT_PLANDIALECT_H
