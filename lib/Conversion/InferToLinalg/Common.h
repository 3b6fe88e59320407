//===- Common.h - helpers shared by the infer-to-linalg patterns -*- C++ -*-===//

#ifndef INFER_OPT_LIB_CONVERSION_INFERTOLINALG_COMMON_H
#define INFER_OPT_LIB_CONVERSION_INFERTOLINALG_COMMON_H

#include "Infer/InferOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::infer::lowering {

/// The body of an elementwise linalg.generic: scalar operands in, result out.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// `v`'s type when it is a ranked tensor with static shape, else null.
RankedTensorType staticType(Value v);
/// True when every operand and result of `op` has a static shape.
bool hasStaticShapes(Operation *op);

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);
/// An arith.constant scalar of `type` (int, index or float) holding `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
/// A tensor of `type` filled with the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value);

/// The indexing map that reads `input` broadcast (ONNX rules) to `result`:
/// trailing dims align, size-1 dims read index 0.
AffineMap broadcastMap(RankedTensorType input, RankedTensorType result);

/// A linalg.generic computing `body` elementwise over `inputs` broadcast to
/// `resultType`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarFn body);

/// The body of a generic that computes each output element from its
/// indices (reading what it needs with tensor.extract): the `linalg.index`
/// of every output dim in, the element out.
using IndexedFn = function_ref<Value(OpBuilder &, Location, ArrayRef<Value> indices)>;

/// A linalg.generic without inputs that fills `resultType` with `body`
/// (gathers, pads of the other modes, resizes, depth-to-space and the like).
Value buildIndexed(OpBuilder &b, Location loc, RankedTensorType resultType, IndexedFn body);

/// A gather's index (any integer type) into a dim of `size`: negative ones
/// count from the end, and out-of-range ones are clamped rather than read
/// out of bounds (ONNX leaves them undefined; there are no run-time checks).
Value wrappedIndex(OpBuilder &b, Location loc, Value index, int64_t size);

/// Reads a constant operand's integer values (shape vectors, pads, ...).
std::optional<SmallVector<int64_t>> constantInts(Value v);

} // namespace mlir::infer::lowering

#endif // INFER_OPT_LIB_CONVERSION_INFERTOLINALG_COMMON_H
