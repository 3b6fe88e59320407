//===- PlanDialect.cpp - the `plan` dialect -------------------------------===//

#include "Plan/PlanDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::infer::plan;

#include "Plan/PlanEnums.cpp.inc"

#include "Plan/PlanDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Plan/PlanAttrs.cpp.inc"

void PlanDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Plan/PlanAttrs.cpp.inc"
      >();
}
