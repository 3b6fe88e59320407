//===- TensorCoreFusion.h - a contraction's producer and consumer in its kernel -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA; TensorCoreFusion.cpp says how it works.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_TENSORCOREFUSION_H
#define INFER_OPT_LIB_CODEGEN_CUDA_TENSORCOREFUSION_H

#include "Kernels/TensorCores.h"

namespace mlir::infer {

/// Marks an scf.execute_region of infer-cuda-fuse-epilogues whose
/// producer is a reduction run a thread per output (a depthwise
/// convolution), not a tensor-core contraction.
inline constexpr llvm::StringLiteral kPointGroupAttr = "infer.point_group";

/// On the stores of a point group's output inside its kernel, when the
/// epilogue is that output's one reader (the reduction was marked
/// kReadOnceAttr): once infer-cuda-promote-accumulators has handed the
/// sum to the epilogue in a register, nothing reads the stored value.
inline constexpr llvm::StringLiteral kUnneededAfterKernelAttr = "infer.unneeded_after_kernel";

/// Marks one whose producer is a reduction run a block per output
/// (BlockReductions.h): thread 0 runs the prologue and epilogue.
inline constexpr llvm::StringLiteral kBlockGroupAttr = "infer.block_group";

/// An op on memrefs that a tensor-core kernel runs with its contraction,
/// a 16x16 tile at a time (infer-cuda-fuse-epilogues groups them):
///   prologue: a linalg.fill of C, or an elementwise generic that writes
///       all of C without reading it (the bias and residual that
///       infer-cuda-adds-into-init made C's initial value); the kernel
///       starts its sum from the prologue's values instead of loading C;
///   epilogue: an elementwise generic that reads C (bias, GELU, scaling);
///       the kernel applies it to its sums and writes the generic's outputs
///       instead of storing C, which no one else reads.
/// Both must address C's elements one to one: their loops walk the same
/// contiguous elements as the contraction's output (through other views:
/// a collapsed or expanded shape), or the leading rows or columns of them
/// when C is a padded home (its padding then passes between the tile and
/// C as it is: loaded for a prologue, stored after an epilogue).
/// And an operand producer (OperandProducers.h): a generic marked
/// kOperandProducerAttr that makes the contraction's input
/// `producedOperand` (an im2col copy, a scale before a 1x1 convolution);
/// the kernel computes each element of that operand where it would load
/// it, and the generic never runs.
struct TensorCoreFusion {
  linalg::LinalgOp prologue;
  linalg::GenericOp epilogue;
  linalg::GenericOp operandProducer;
  unsigned producedOperand = 0;
  bool empty() const { return !prologue && !epilogue && !operandProducer; }
  /// Whether the kernel needs a 16x16 tile of shared memory a warp for
  /// it: a generic's values pass through there (a fill does not).
  bool needsScratch() const {
    return epilogue || operandProducer || (prologue && !isa<linalg::FillOp>(*prologue));
  }
};

/// Whether `prologue` (`epilogue`, either may be null) can run element by
/// element with `producer` (any linalg op on memrefs whose output, C, its
/// loops of `ranges` walk densely): the element-wise conditions below, and
/// with `allowPadding` a box of C's leading rows or columns instead of all
/// of C; aliasing and order are the caller's.
bool canFuseElementwise(linalg::LinalgOp producer, ArrayRef<int64_t> ranges,
                        linalg::LinalgOp prologue, linalg::GenericOp epilogue,
                        bool allowPadding);

/// Whether `prologue` (`epilogue`, either may be null) can run in the
/// tensor-core kernel of `contraction` of shape `shape`: the element-wise
/// conditions above; aliasing and order are the caller's.
bool canFuseIntoTensorCores(linalg::LinalgOp contraction, const ContractionShape &shape,
                            linalg::LinalgOp prologue, linalg::GenericOp epilogue);

/// The value a memref view is taken of, through every view that keeps its
/// base pointer (reshapes, subviews, casts): a function argument (input,
/// weight, output, the arena), one buffer of the arena (memref.view
/// moves the pointer, so it is a root) or an allocation.
Value storageRoot(Value memref);

/// Emits, for the 16x16 output tile whose top-left loop point of
/// `contraction` is `tileLoop` (its m and n loop dims `dimM`, `dimN`: the
/// tile's rows and columns), each lane's 8 of its 256 elements:
///   prologue (`isPrologue`: `op` writes C): the prologue's value, stored to the tile
///       `scratch[slot]` (shared memory, 16x16 floats a warp);
///   epilogue (`op` reads C): the value in `scratch[slot]` fed to the
///       epilogue, whose results are stored to its outputs.
/// The caller synchronizes the warp around it.
void emitTileOfElementwise(OpBuilder &b, Location loc, linalg::LinalgOp contraction,
                           const ContractionShape &shape, linalg::GenericOp op, bool isPrologue,
                           ArrayRef<Value> tileLoop, unsigned dimM, unsigned dimN, Value scratch,
                           Value slot);

/// Emits, where a thread computes the element of C at the loop point
/// `point` of `producer` (its parallel dims; the others are not read),
/// `op`'s work on that element: a prologue (a fill or an elementwise
/// generic writing C) before the producer, an epilogue after it. Each
/// operand is read and written in memory, C too (the thread's own
/// element). canFuseElementwise must have accepted `op` without padding.
void emitElementwiseAtPoint(OpBuilder &b, Location loc, linalg::LinalgOp producer,
                            linalg::LinalgOp op, bool isPrologue, ArrayRef<Value> point);

/// Emits `op`'s payload at its loop point `at`: each operand the payload
/// uses comes from `load` (given the operand and its indices there, which
/// may be any affine function of the loops that isAffineAtPoint accepts),
/// and each result goes to `store`.
void emitPayloadAt(OpBuilder &b, Location loc, linalg::GenericOp op, ArrayRef<Value> at,
                   function_ref<Value(OpOperand &, ArrayRef<Value>)> load,
                   function_ref<void(OpOperand &, Value, ArrayRef<Value>)> store);

/// Whether emitPayloadAt can index through `map`: sums of loop dims and
/// constants, products by constants, and floordiv and mod by positive
/// constants.
bool isAffineAtPoint(AffineMap map);

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_TENSORCOREFUSION_H
