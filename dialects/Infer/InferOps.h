//===- InferOps.h - ops of the `infer` dialect ------------------*- C++ -*-===//

#ifndef INFER_DIALECT_INFEROPS_H
#define INFER_DIALECT_INFEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Infer/InferDialect.h"

#define GET_OP_CLASSES
#include "InferOps.h.inc"

namespace mlir::infer {

/// Returns the values of `value` as int64 when it is produced by a constant
/// of integer elements (the shape vectors that Reshape, Slice, Expand, ...
/// take as operands).
std::optional<SmallVector<int64_t>> getConstantIntValues(Value value);

/// Like getConstantIntValues, but sees through shape computations: the
/// result of `infer.shape` and the Concat / Gather / Slice / Unsqueeze /
/// Cast ops exporters build shape vectors with. Elements that cannot be
/// known are ShapedType::kDynamic. So `Reshape(y, Shape(x))` keeps the static
/// dims of x even when x has dynamic ones.
std::optional<SmallVector<int64_t>> getPartialIntValues(Value value);

/// Broadcasts two shapes with ONNX multidirectional rules. Fails when two
/// static dims differ and neither is 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// True when two lists of tensor types could describe the same values: same
/// element types and ranks, equal dims wherever both are static.
bool areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs);

} // namespace mlir::infer

#endif // INFER_DIALECT_INFEROPS_H
