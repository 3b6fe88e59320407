//===- InferDialect.cpp - the `infer` dialect -----------------------------===//

#include "Infer/InferDialect.h"
#include "Infer/InferOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::infer;

#include "InferDialect.cpp.inc"

void InferDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "InferOps.cpp.inc"
      >();
}

Operation *InferDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
