//===- OperandProducers.h - a contraction's input computed in its kernel -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; OperandProducers.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_OPERANDPRODUCERS_H
#define INFER_OPT_LIB_CODEGEN_CUDA_OPERANDPRODUCERS_H

#include "Kernels/TensorCores.h"

namespace mlir::infer {

/// The most output tiles that read each element of a produced operand (the
/// tiles along the other operand's free dim): each computes the element
/// again, where the kernels apart would store it once and load it that
/// many times.
inline constexpr int64_t kMaxOperandRecomputes = 2;

/// Whether the tensor-core kernel of `contraction` (on memrefs, of
/// `shape` and `layout`) can compute its input `operand` itself by running
/// `producer` (a generic marked kOperandProducerAttr) at each element it
/// would load: the producer writes every element of the operand's storage
/// once (a dense box of it) without reading it, indexes its inputs by
/// affine maps that isAffineAtPoint accepts, and its payload only computes
/// and loads; and no more than kMaxOperandRecomputes tiles read each
/// element. Order and aliasing are the caller's.
bool canProduceOperand(linalg::LinalgOp contraction, const ContractionShape &shape,
                       const TensorCoreOperands &layout, unsigned operand,
                       linalg::GenericOp producer);

/// Emits the value of the contraction's input `operand` at the
/// contraction's loop point `point`, computed by `producer`
/// (canProduceOperand accepted them): its loop point there, then its
/// payload, its inputs loaded from memory.
Value emitProducedElement(OpBuilder &b, Location loc, linalg::LinalgOp contraction,
                          const ContractionShape &shape, unsigned operand,
                          linalg::GenericOp producer, ArrayRef<Value> point);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_OPERANDPRODUCERS_H
