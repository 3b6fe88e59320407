//===- InferShapeUtils.h - helpers of result type inference -----*- C++ -*-===//
//
// Shared by InferShapeInference.cpp and InferTensorShapeInference.cpp only.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_DIALECT_INFERSHAPEUTILS_H
#define INFER_DIALECT_INFERSHAPEUTILS_H

#include "Infer/InferOps.h"

#include "llvm/ADT/SmallSet.h"

namespace mlir::infer::shape_utils {
inline constexpr int64_t kDynamic = ShapedType::kDynamic;

using Types = SmallVectorImpl<Type>;
using OptLoc = std::optional<Location>;

/// Dim arithmetic is done in 128 bits so that attributes of a malformed
/// model (pads of 2^63 - 1, say) cannot overflow; fitsDim says whether the
/// exact result is a valid (non-negative int64) dim.
using WideDim = __int128;
inline bool fitsDim(WideDim v) { return v >= 0 && v <= INT64_MAX; }

inline RankedTensorType rankedType(Value v) {
  return v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
}

inline LogicalResult pushTensor(Types &inferred, ArrayRef<int64_t> shape, Type elementType) {
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

/// Multiplies dims; dynamic if any is dynamic or the product overflows
/// (a malicious model can declare such dims; the importer's size limit
/// reports them).
inline int64_t productOfDims(ArrayRef<int64_t> dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d) || __builtin_mul_overflow(product, d, &product))
      return kDynamic;
  }
  return product;
}

/// Validates a list of axes against `rank`: in range, no repeats.
inline LogicalResult checkAxes(OptLoc loc, ArrayRef<int64_t> axes, int64_t rank, StringRef what) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, what, " axis ", axis, " is out of range for rank ", rank);
    if (!seen.insert(axis).second)
      return emitOptionalError(loc, what, " axis ", axis, " is repeated");
  }
  return success();
}

inline LogicalResult checkAxis(OptLoc loc, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", rank);
  return success();
}

/// A shape operand (Reshape, Expand, ConstantOfShape, ...) must be a 1-D
/// tensor of static length: its length is the result's rank.
inline FailureOr<int64_t> shapeOperandLength(OptLoc loc, Value shape, StringRef name) {
  RankedTensorType type = rankedType(shape);
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return emitOptionalError(loc, name, " must be a 1-D tensor of static length, got ",
                             shape.getType());
  return type.getDimSize(0);
}

} // namespace mlir::infer::shape_utils

#endif // INFER_DIALECT_INFERSHAPEUTILS_H
