//===- FusionMarkers.h - what the CUDA fusion passes mark -------*- C++ -*-===//
//
// Attributes infer-cuda-prepare-epilogues sets on linalg ops (on tensors)
// for the passes after bufferization: infer-cuda-fuse-epilogues groups the
// marked ops into one kernel, and the arena planner (infer-plan-arena),
// which both back ends share, keeps the buffers such a kernel reads alive
// until its last op.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_COMMON_FUSIONMARKERS_H
#define INFER_OPT_CODEGEN_COMMON_FUSIONMARKERS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::infer {

/// On a contraction (infer-cuda-prepare-epilogues): its result has one
/// user, which alone reads it.
inline constexpr llvm::StringLiteral kReadOnceAttr = "infer.read_once";

/// On a reduction that runs a thread per output (isPointReduction; set by
/// infer-cuda-prepare-epilogues): the next op may join its kernel (a point
/// group), so the arena planner keeps its operands alive until that op, as
/// for kReadOnceAttr (else the epilogue's output may be placed over the
/// reduction's input, and the two cannot share a kernel).
inline constexpr llvm::StringLiteral kPointReductionAttr = "infer.point_reduction";

/// On a generic that makes one input of a tensor-core candidate and
/// nothing else (an im2col copy, an elementwise op; set by
/// infer-cuda-prepare-epilogues): its result has one user, that
/// contraction, which may compute the operand's elements itself where it
/// would load them (OperandProducers.h). The arena planner then keeps the
/// generic's operands alive as long as the contraction's, since they are
/// read by the contraction's kernel.
inline constexpr llvm::StringLiteral kOperandProducerAttr = "infer.operand_producer";

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_COMMON_FUSIONMARKERS_H
