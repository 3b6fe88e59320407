//===- InferTensorShapeInference.cpp - result types of tensor ops ---------===//
//
// Result type inference of the shape, data movement and reduction ops; the
// rest is in InferShapeInference.cpp. Shape operands are read through
// getPartialIntValues so that partly known shape vectors still give static
// dims.
//
//===----------------------------------------------------------------------===//

#include "InferShapeUtils.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::shape_utils;

//===----------------------------------------------------------------------===//
// Shape queries and generators
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  int64_t rank = rankedType(adaptor.getInput()).getRank();
  int64_t start = static_cast<int64_t>(adaptor.getStart());
  int64_t end = static_cast<int64_t>(adaptor.getEnd());
  if (start < 0 || end < start || end > rank)
    return emitOptionalError(loc, "bad dim range [", start, ", ", end, ") for rank ", rank);
  return pushTensor(inferred, {end - start}, IntegerType::get(ctx, 64));
}

LogicalResult SizeOp::inferReturnTypes(MLIRContext *ctx, OptLoc, Adaptor, Types &inferred) {
  return pushTensor(inferred, {}, IntegerType::get(ctx, 64));
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                  Types &inferred) {
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  ElementsAttr value = adaptor.getValue();
  if (!value || value.getNumElements() != 1)
    return emitOptionalError(loc, "value must hold exactly one element");
  SmallVector<int64_t> shape(*length, kDynamic);
  if (auto values = getPartialIntValues(adaptor.getShape())) {
    for (auto [i, d] : llvm::enumerate(*values)) {
      if (ShapedType::isDynamic(d))
        continue;
      if (d < 0)
        return emitOptionalError(loc, "shape has a negative dim ", d);
      shape[i] = d;
    }
  }
  return pushTensor(inferred, shape, value.getElementType());
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  Type elementType = rankedType(adaptor.getStart()).getElementType();
  for (Value v : {adaptor.getStart(), adaptor.getLimit(), adaptor.getDelta()}) {
    RankedTensorType t = rankedType(v);
    if (t.getNumElements() != 1 || t.getRank() > 1 || t.getElementType() != elementType)
      return emitOptionalError(loc, "start, limit and delta must be scalars of one type");
  }
  int64_t count = kDynamic;
  DenseElementsAttr start, limit, delta;
  if (matchPattern(adaptor.getStart(), m_Constant(&start)) &&
      matchPattern(adaptor.getLimit(), m_Constant(&limit)) &&
      matchPattern(adaptor.getDelta(), m_Constant(&delta))) {
    auto asDouble = [](DenseElementsAttr a) {
      if (a.getElementType().isIntOrIndex())
        return static_cast<double>((*a.getValues<APInt>().begin()).getSExtValue());
      return (*a.getValues<APFloat>().begin()).convertToDouble();
    };
    double s = asDouble(start), l = asDouble(limit), d = asDouble(delta);
    if (d == 0)
      return emitOptionalError(loc, "delta must not be zero");
    double n = std::ceil((l - s) / d);
    if (!std::isfinite(n) || n > 9.0e18)
      return emitOptionalError(loc, "range from ", s, " to ", l, " by ", d,
                               " has too many elements");
    count = std::max<int64_t>(0, static_cast<int64_t>(n));
  }
  return pushTensor(inferred, {count}, elementType);
}

//===----------------------------------------------------------------------===//
// Reshaping and data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  SmallVector<int64_t> shape(*length, kDynamic);
  auto values = getPartialIntValues(adaptor.getShape());
  if (!values)
    return pushTensor(inferred, shape, x.getElementType());
  bool allowZero = adaptor.getAllowZero();
  int64_t inferredDim = -1;
  SmallVector<bool> copied(*length, false);
  for (auto [i, d] : llvm::enumerate(*values)) {
    if (ShapedType::isDynamic(d))
      continue; // Unknown element: the dim stays dynamic.
    if (d == -1) {
      if (inferredDim >= 0)
        return emitOptionalError(loc, "shape has more than one -1");
      inferredDim = i;
    } else if (d < -1) {
      return emitOptionalError(loc, "shape has an invalid dim ", d);
    } else if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= x.getRank())
        return emitOptionalError(loc, "shape copies dim ", i, " of a rank-", x.getRank(),
                                 " input");
      shape[i] = x.getDimSize(i);
      copied[i] = true;
    } else {
      shape[i] = d;
    }
  }
  if (inferredDim >= 0) {
    // Dims copied from the input at the same position cancel out, dynamic
    // or not: Reshape(?x4x6, [0, -1]) is ?x24.
    SmallVector<int64_t> inRest, outRest;
    for (int64_t i = 0; i < x.getRank(); ++i)
      if (i >= *length || !copied[i])
        inRest.push_back(x.getDimSize(i));
    for (int64_t i = 0; i < *length; ++i)
      if (i != inferredDim && !copied[i])
        outRest.push_back(shape[i]);
    int64_t total = productOfDims(inRest), rest = productOfDims(outRest);
    if (!ShapedType::isDynamic(total) && !ShapedType::isDynamic(rest)) {
      if (rest == 0 || total % rest != 0)
        return emitOptionalError(loc, "cannot reshape ", x, " into a shape with ", rest,
                                 " elements per -1");
      shape[inferredDim] = total / rest;
    }
  } else {
    int64_t total = productOfDims(x.getShape()), count = productOfDims(shape);
    if (!ShapedType::isDynamic(total) && !ShapedType::isDynamic(count) && total != count)
      return emitOptionalError(loc, "cannot reshape ", x, " (", total, " elements) into ",
                               count, " elements");
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != x.getRank())
    return emitOptionalError(loc, "perm has ", perm.size(), " entries for rank ", x.getRank());
  if (failed(checkAxes(loc, perm, x.getRank(), "perm")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.getDimSize(p));
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (failed(checkAxes(loc, axes, x.getRank(), "squeeze")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!llvm::is_contained(axes, i)) {
      shape.push_back(x.getDimSize(i));
      continue;
    }
    if (!x.isDynamicDim(i) && x.getDimSize(i) != 1)
      return emitOptionalError(loc, "cannot squeeze dim ", i, " of size ", x.getDimSize(i));
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = x.getRank() + static_cast<int64_t>(axes.size());
  if (failed(checkAxes(loc, axes, rank, "unsqueeze")))
    return failure();
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(llvm::is_contained(axes, i) ? 1 : x.getDimSize(next++));
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                          Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis > x.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ", x.getRank());
  return pushTensor(inferred,
                    {productOfDims(x.getShape().take_front(axis)),
                     productOfDims(x.getShape().drop_front(axis))},
                    x.getElementType());
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expects at least one input");
  RankedTensorType first = rankedType(adaptor.getInputs().front());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Value input : adaptor.getInputs().drop_front()) {
    RankedTensorType t = rankedType(input);
    if (t.getRank() != first.getRank() || t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "inputs differ in rank or element type: ", first, " vs ", t);
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t d = t.getDimSize(i);
      if (i == axis) {
        shape[i] = ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(d) ? kDynamic
                                                                              : shape[i] + d;
      } else if (ShapedType::isDynamic(shape[i])) {
        shape[i] = d;
      } else if (!ShapedType::isDynamic(d) && d != shape[i]) {
        return emitOptionalError(loc, "inputs differ in dim ", i, ": ", shape[i], " vs ", d);
      }
    }
  }
  return pushTensor(inferred, shape, first.getElementType());
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, x.getRank())))
    return failure();
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (sizes.empty() || llvm::any_of(sizes, [](int64_t s) { return s < 0; }))
    return emitOptionalError(loc, "split sizes must be non-negative and non-empty");
  WideDim total = 0;
  for (int64_t s : sizes)
    total += s;
  if (!fitsDim(total))
    return emitOptionalError(loc, "split sizes overflow int64");
  if (!x.isDynamicDim(axis) && total != x.getDimSize(axis))
    return emitOptionalError(loc, "split sizes add up to ", static_cast<int64_t>(total), ", dim ",
                             axis, " is ",
                             x.getDimSize(axis));
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(x.getShape());
    shape[axis] = s;
    inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  }
  return success();
}

/// The number of elements ONNX Slice takes from a dim of static size `dim`.
static int64_t sliceCount(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start + step - 1) / step : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return start > end ? (start - end - step - 1) / -step : 0;
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                        Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t rank = x.getRank();
  SmallVector<int64_t> shape(x.getShape());
  auto axes = getConstantIntValues(adaptor.getAxes());
  if (!axes) {
    // Any dim may be sliced.
    return pushTensor(inferred, SmallVector<int64_t>(rank, kDynamic), x.getElementType());
  }
  auto starts = getConstantIntValues(adaptor.getStarts());
  auto ends = getConstantIntValues(adaptor.getEnds());
  auto steps = getConstantIntValues(adaptor.getSteps());
  size_t n = axes->size();
  if ((starts && starts->size() != n) || (ends && ends->size() != n) ||
      (steps && steps->size() != n))
    return emitOptionalError(loc, "starts, ends, axes and steps differ in length");
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, "slice axis ", (*axes)[i], " is out of range for rank ", rank);
    if (steps && (*steps)[i] == 0)
      return emitOptionalError(loc, "slice step must not be zero");
    if (!starts || !ends || !steps || x.isDynamicDim(axis)) {
      shape[axis] = kDynamic;
      continue;
    }
    shape[axis] = sliceCount(x.getDimSize(axis), (*starts)[i], (*ends)[i], (*steps)[i]);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType data = rankedType(adaptor.getData()), indices = rankedType(adaptor.getIndices());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (failed(checkAxis(loc, axis, data.getRank())))
    return failure();
  if (!indices.getElementType().isInteger())
    return emitOptionalError(loc, "indices must be integers, got ", indices.getElementType());
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  return pushTensor(inferred, shape, data.getElementType());
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                 Types &inferred) {
  RankedTensorType data = rankedType(adaptor.getData()), indices = rankedType(adaptor.getIndices());
  if (data.getRank() != indices.getRank())
    return emitOptionalError(loc, "data and indices must have the same rank");
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), data.getRank())))
    return failure();
  return pushTensor(inferred, indices.getShape(), data.getElementType());
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getShape(), "shape");
  if (failed(length))
    return failure();
  auto values = getPartialIntValues(adaptor.getShape());
  if (!values) {
    int64_t rank = std::max<int64_t>(*length, x.getRank());
    return pushTensor(inferred, SmallVector<int64_t>(rank, kDynamic), x.getElementType());
  }
  auto merged = broadcastShapes(x.getShape(), *values);
  if (failed(merged))
    return emitOptionalError(loc, "cannot expand ", x, " to the requested shape");
  return pushTensor(inferred, *merged, x.getElementType());
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getRepeats(), "repeats");
  if (failed(length))
    return failure();
  if (*length != x.getRank())
    return emitOptionalError(loc, "expects ", x.getRank(), " repeats, got ", *length);
  SmallVector<int64_t> shape(x.getRank(), kDynamic);
  if (auto repeats = getPartialIntValues(adaptor.getRepeats())) {
    for (int64_t i = 0; i < x.getRank(); ++i) {
      int64_t r = (*repeats)[i];
      if (ShapedType::isDynamic(r))
        continue;
      if (r < 0)
        return emitOptionalError(loc, "repeats must be non-negative");
      if (x.isDynamicDim(i))
        continue;
      WideDim dim = WideDim(x.getDimSize(i)) * r;
      if (!fitsDim(dim))
        return emitOptionalError(loc, "tiling dim ", i, " by ", r, " overflows int64");
      shape[i] = static_cast<int64_t>(dim);
    }
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                      Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  auto length = shapeOperandLength(loc, adaptor.getPads(), "pads");
  if (failed(length))
    return failure();
  int64_t rank = x.getRank();
  if (*length != 2 * rank)
    return emitOptionalError(loc, "expects ", 2 * rank, " pads, got ", *length);
  SmallVector<int64_t> shape(rank, kDynamic);
  if (auto pads = getConstantIntValues(adaptor.getPads())) {
    for (int64_t i = 0; i < rank; ++i) {
      if (x.isDynamicDim(i))
        continue;
      WideDim dim = WideDim(x.getDimSize(i)) + (*pads)[i] + (*pads)[i + rank];
      if (dim < 0)
        return emitOptionalError(loc, "pads crop dim ", i, " below zero");
      if (!fitsDim(dim))
        return emitOptionalError(loc, "padding dim ", i, " overflows int64");
      shape[i] = static_cast<int64_t>(dim);
    }
  }
  return pushTensor(inferred, shape, x.getElementType());
}

//===----------------------------------------------------------------------===//
// Reductions and selection
//===----------------------------------------------------------------------===//

static LogicalResult inferReduce(OptLoc loc, Value input, ArrayRef<int64_t> axes, bool keepDims,
                                 Type elementType, Types &inferred) {
  RankedTensorType x = rankedType(input);
  if (failed(checkAxes(loc, axes, x.getRank(), "reduction")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!llvm::is_contained(axes, i))
      shape.push_back(x.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  return pushTensor(inferred, shape, elementType ? elementType : x.getElementType());
}

#define INFER_REDUCE(OP)                                                       \
  LogicalResult OP::inferReturnTypes(MLIRContext *, OptLoc loc,                \
                                     Adaptor adaptor, Types &inferred) {       \
    return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),             \
                       adaptor.getKeepDims(), Type(), inferred);               \
  }
INFER_REDUCE(ReduceL1Op)
INFER_REDUCE(ReduceL2Op)
INFER_REDUCE(ReduceLogSumExpOp)
INFER_REDUCE(ReduceMaxOp)
INFER_REDUCE(ReduceMeanOp)
INFER_REDUCE(ReduceMinOp)
INFER_REDUCE(ReduceProdOp)
INFER_REDUCE(ReduceSumOp)
INFER_REDUCE(ReduceSumSquareOp)
#undef INFER_REDUCE

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  return inferReduce(loc, adaptor.getInput(), {axis}, adaptor.getKeepDims(),
                     IntegerType::get(ctx, 64), inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                         Types &inferred) {
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  return inferReduce(loc, adaptor.getInput(), {axis}, adaptor.getKeepDims(),
                     IntegerType::get(ctx, 64), inferred);
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *ctx, OptLoc loc, Adaptor adaptor,
                                       Types &inferred) {
  RankedTensorType x = rankedType(adaptor.getInput());
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (failed(checkAxis(loc, axis, x.getRank())))
    return failure();
  if (k < 0 || (!x.isDynamicDim(axis) && k > x.getDimSize(axis)))
    return emitOptionalError(loc, "k = ", k, " is out of range for dim of size ",
                             x.getDimSize(axis));
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  (void)pushTensor(inferred, shape, x.getElementType());
  return pushTensor(inferred, shape, IntegerType::get(ctx, 64));
}

//===----------------------------------------------------------------------===//
// Block rearrangement, scatter and N-d gather
//===----------------------------------------------------------------------===//

static LogicalResult inferBlockMove(OptLoc loc, Value input, int64_t block, bool toSpace,
                                    Types &inferred) {
  RankedTensorType x = rankedType(input);
  if (x.getRank() != 4 || block < 1)
    return emitOptionalError(loc, "expects a 4-D NCHW input and a positive block size");
  SmallVector<int64_t> shape(x.getShape());
  auto scale = [&](int64_t d, bool up) {
    if (ShapedType::isDynamic(d))
      return kDynamic;
    return up ? d * block : d / block;
  };
  int64_t area = block * block;
  if (toSpace) {
    if (!x.isDynamicDim(1) && x.getDimSize(1) % area != 0)
      return emitOptionalError(loc, "channels ", x.getDimSize(1), " not divisible by ", area);
    shape[1] = ShapedType::isDynamic(shape[1]) ? kDynamic : shape[1] / area;
    shape[2] = scale(shape[2], true);
    shape[3] = scale(shape[3], true);
  } else {
    for (int64_t i : {2, 3})
      if (!x.isDynamicDim(i) && x.getDimSize(i) % block != 0)
        return emitOptionalError(loc, "spatial dim ", i, " not divisible by ", block);
    shape[1] = ShapedType::isDynamic(shape[1]) ? kDynamic : shape[1] * area;
    shape[2] = scale(shape[2], false);
    shape[3] = scale(shape[3], false);
  }
  return pushTensor(inferred, shape, x.getElementType());
}

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                               Types &inferred) {
  StringRef mode = adaptor.getMode();
  if (mode != "DCR" && mode != "CRD")
    return emitOptionalError(loc, "mode must be DCR or CRD, got '", mode, "'");
  return inferBlockMove(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getBlockSize()),
                        true, inferred);
}

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                               Types &inferred) {
  return inferBlockMove(loc, adaptor.getInput(), static_cast<int64_t>(adaptor.getBlockSize()),
                        false, inferred);
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                           Types &inferred) {
  RankedTensorType data = rankedType(adaptor.getData()), indices = rankedType(adaptor.getIndices());
  int64_t batch = static_cast<int64_t>(adaptor.getBatchDims());
  if (indices.getRank() < 1 || batch < 0 || batch >= std::min(data.getRank(), indices.getRank()))
    return emitOptionalError(loc, "batch_dims ", batch, " is out of range");
  int64_t depth = indices.getShape().back();
  if (ShapedType::isDynamic(depth))
    return emitOptionalError(loc, "the last dim of indices must be static");
  if (depth < 1 || batch + depth > data.getRank())
    return emitOptionalError(loc, "index tuples of length ", depth, " do not fit ", data);
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(batch + depth));
  return pushTensor(inferred, shape, data.getElementType());
}

static LogicalResult checkReduction(OptLoc loc, StringRef reduction) {
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" &&
      reduction != "min")
    return emitOptionalError(loc, "unknown reduction '", reduction, "'");
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                            Types &inferred) {
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  RankedTensorType data = rankedType(adaptor.getData());
  if (rankedType(adaptor.getUpdates()).getElementType() != data.getElementType())
    return emitOptionalError(loc, "updates must have the data's element type");
  inferred.push_back(data);
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(MLIRContext *, OptLoc loc, Adaptor adaptor,
                                                  Types &inferred) {
  if (failed(checkReduction(loc, adaptor.getReduction())))
    return failure();
  RankedTensorType data = rankedType(adaptor.getData());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getAxis()), data.getRank())))
    return failure();
  if (rankedType(adaptor.getIndices()).getRank() != data.getRank())
    return emitOptionalError(loc, "indices must have the data's rank");
  inferred.push_back(data);
  return success();
}
