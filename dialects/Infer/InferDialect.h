//===- InferDialect.h - the `infer` dialect ---------------------*- C++ -*-===//

#ifndef INFER_DIALECT_INFERDIALECT_H
#define INFER_DIALECT_INFERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "InferDialect.h.inc"

#endif // INFER_DIALECT_INFERDIALECT_H
