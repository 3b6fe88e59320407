//===- InferOps.cpp - op definitions, verifiers and shared helpers -------===//
//
// Result type inference lives in InferShapeInference.cpp and folders in
// InferFolds.cpp; this file holds what is left: verifiers of invariants that
// do not affect result types, and the helpers all three share.
//
//===----------------------------------------------------------------------===//

#include "Infer/InferOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::infer;

#define GET_OP_CLASSES
#include "InferOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>> mlir::infer::getConstantIntValues(Value value) {
  // A tensor with no elements has known (no) values whatever produces it:
  // an empty `axes` graph input, say.
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : RankedTensorType();
  if (type && type.hasStaticShape() && type.getNumElements() == 0)
    return SmallVector<int64_t>();
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  values.reserve(attr.getNumElements());
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                : v.getSExtValue());
  return values;
}

std::optional<SmallVector<int64_t>> mlir::infer::getPartialIntValues(Value value) {
  if (auto values = getConstantIntValues(value))
    return values;
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : RankedTensorType();
  if (!type || type.getRank() > 1 || !type.hasStaticShape() || !type.getElementType().isInteger())
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto shape = dyn_cast<ShapeOp>(def)) {
    ArrayRef<int64_t> dims = shape.getInput().getType().getShape();
    return SmallVector<int64_t>(dims.slice(shape.getStart(), shape.getEnd() - shape.getStart()));
  }
  if (auto cast = dyn_cast<CastOp>(def)) {
    if (!cast.getInput().getType().getElementType().isInteger())
      return std::nullopt;
    return getPartialIntValues(cast.getInput());
  }
  if (isa<UnsqueezeOp, ReshapeOp, SqueezeOp>(def))
    return getPartialIntValues(def->getOperand(0)); // Same elements, new shape.
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    SmallVector<int64_t> result;
    for (Value input : concat.getInputs()) {
      auto part = getPartialIntValues(input);
      if (!part)
        return std::nullopt;
      llvm::append_range(result, *part);
    }
    return result;
  }
  if (auto gather = dyn_cast<GatherOp>(def)) {
    auto data = getPartialIntValues(gather.getData());
    auto indices = getConstantIntValues(gather.getIndices());
    if (!data || !indices)
      return std::nullopt;
    SmallVector<int64_t> result;
    int64_t n = data->size();
    for (int64_t i : *indices) {
      if (i < 0)
        i += n;
      if (i < 0 || i >= n)
        return std::nullopt;
      result.push_back((*data)[i]);
    }
    return result;
  }
  if (auto slice = dyn_cast<SliceOp>(def)) {
    auto data = getPartialIntValues(slice.getInput());
    auto starts = getConstantIntValues(slice.getStarts());
    auto ends = getConstantIntValues(slice.getEnds());
    auto steps = getConstantIntValues(slice.getSteps());
    if (!data || !starts || !ends || !steps || starts->size() != 1 || ends->size() != 1 ||
        steps->size() != 1 || (*steps)[0] != 1)
      return std::nullopt;
    int64_t n = data->size();
    int64_t begin = (*starts)[0] < 0 ? (*starts)[0] + n : (*starts)[0];
    int64_t end = (*ends)[0] < 0 ? (*ends)[0] + n : (*ends)[0];
    begin = std::clamp<int64_t>(begin, 0, n);
    end = std::clamp<int64_t>(end, begin, n);
    return SmallVector<int64_t>(ArrayRef(*data).slice(begin, end - begin));
  }
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>> mlir::infer::broadcastShapes(ArrayRef<int64_t> lhs,
                                                             ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align trailing dims; missing leading dims act as 1.
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a == 1) {
      result[i] = b;
    } else if (b == 1) {
      result[i] = a;
    } else if (ShapedType::isDynamic(a)) {
      result[i] = b; // b is static > 1 (the only legal value) or dynamic.
    } else if (ShapedType::isDynamic(b) || a == b) {
      result[i] = a;
    } else {
      return failure();
    }
  }
  return result;
}

bool mlir::infer::areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = dyn_cast<RankedTensorType>(l);
    auto rt = dyn_cast<RankedTensorType>(r);
    if (!lt || !rt) {
      if (l != r)
        return false;
      continue;
    }
    if (lt.getElementType() != rt.getElementType() || failed(verifyCompatibleShape(lt, rt)))
      return false;
  }
  return true;
}

// Every op with InferTypeOpAdaptorWithIsCompatible accepts declared result
// types that are more or less static than the inferred ones.
#define INFER_COMPATIBLE_RETURN_TYPES(OP)                                      \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return areCompatibleTensorTypes(l, r);                                     \
  }
INFER_COMPATIBLE_RETURN_TYPES(AddOp)
INFER_COMPATIBLE_RETURN_TYPES(AndOp)
INFER_COMPATIBLE_RETURN_TYPES(ArgMaxOp)
INFER_COMPATIBLE_RETURN_TYPES(ArgMinOp)
INFER_COMPATIBLE_RETURN_TYPES(AveragePoolOp)
INFER_COMPATIBLE_RETURN_TYPES(BatchNormOp)
INFER_COMPATIBLE_RETURN_TYPES(BitShiftOp)
INFER_COMPATIBLE_RETURN_TYPES(CastOp)
INFER_COMPATIBLE_RETURN_TYPES(ClipOp)
INFER_COMPATIBLE_RETURN_TYPES(ConcatOp)
INFER_COMPATIBLE_RETURN_TYPES(ConstantOfShapeOp)
INFER_COMPATIBLE_RETURN_TYPES(ConvOp)
INFER_COMPATIBLE_RETURN_TYPES(ConvTransposeOp)
INFER_COMPATIBLE_RETURN_TYPES(CumSumOp)
INFER_COMPATIBLE_RETURN_TYPES(DequantizeLinearOp)
INFER_COMPATIBLE_RETURN_TYPES(DivOp)
INFER_COMPATIBLE_RETURN_TYPES(EinsumOp)
INFER_COMPATIBLE_RETURN_TYPES(EqualOp)
INFER_COMPATIBLE_RETURN_TYPES(ExpandOp)
INFER_COMPATIBLE_RETURN_TYPES(FlattenOp)
INFER_COMPATIBLE_RETURN_TYPES(GatherElementsOp)
INFER_COMPATIBLE_RETURN_TYPES(GatherOp)
INFER_COMPATIBLE_RETURN_TYPES(GemmOp)
INFER_COMPATIBLE_RETURN_TYPES(GlobalAveragePoolOp)
INFER_COMPATIBLE_RETURN_TYPES(GlobalMaxPoolOp)
INFER_COMPATIBLE_RETURN_TYPES(GreaterOp)
INFER_COMPATIBLE_RETURN_TYPES(GreaterOrEqualOp)
INFER_COMPATIBLE_RETURN_TYPES(InstanceNormOp)
INFER_COMPATIBLE_RETURN_TYPES(IsNaNOp)
INFER_COMPATIBLE_RETURN_TYPES(LayerNormOp)
INFER_COMPATIBLE_RETURN_TYPES(LessOp)
INFER_COMPATIBLE_RETURN_TYPES(LessOrEqualOp)
INFER_COMPATIBLE_RETURN_TYPES(LogSoftmaxOp)
INFER_COMPATIBLE_RETURN_TYPES(MatMulOp)
INFER_COMPATIBLE_RETURN_TYPES(MaxOp)
INFER_COMPATIBLE_RETURN_TYPES(MaxPoolOp)
INFER_COMPATIBLE_RETURN_TYPES(MinOp)
INFER_COMPATIBLE_RETURN_TYPES(ModOp)
INFER_COMPATIBLE_RETURN_TYPES(MulOp)
INFER_COMPATIBLE_RETURN_TYPES(OrOp)
INFER_COMPATIBLE_RETURN_TYPES(PadOp)
INFER_COMPATIBLE_RETURN_TYPES(PowOp)
INFER_COMPATIBLE_RETURN_TYPES(QuantizeLinearOp)
INFER_COMPATIBLE_RETURN_TYPES(RangeOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceL1Op)
INFER_COMPATIBLE_RETURN_TYPES(ReduceL2Op)
INFER_COMPATIBLE_RETURN_TYPES(ReduceLogSumExpOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceMaxOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceMeanOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceMinOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceProdOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceSumOp)
INFER_COMPATIBLE_RETURN_TYPES(ReduceSumSquareOp)
INFER_COMPATIBLE_RETURN_TYPES(ReshapeOp)
INFER_COMPATIBLE_RETURN_TYPES(ResizeOp)
INFER_COMPATIBLE_RETURN_TYPES(ShapeOp)
INFER_COMPATIBLE_RETURN_TYPES(SizeOp)
INFER_COMPATIBLE_RETURN_TYPES(SliceOp)
INFER_COMPATIBLE_RETURN_TYPES(SoftmaxOp)
INFER_COMPATIBLE_RETURN_TYPES(SplitOp)
INFER_COMPATIBLE_RETURN_TYPES(SqueezeOp)
INFER_COMPATIBLE_RETURN_TYPES(SubOp)
INFER_COMPATIBLE_RETURN_TYPES(TileOp)
INFER_COMPATIBLE_RETURN_TYPES(TopKOp)
INFER_COMPATIBLE_RETURN_TYPES(TransposeOp)
INFER_COMPATIBLE_RETURN_TYPES(TriluOp)
INFER_COMPATIBLE_RETURN_TYPES(UnsqueezeOp)
INFER_COMPATIBLE_RETURN_TYPES(WhereOp)
INFER_COMPATIBLE_RETURN_TYPES(XorOp)
INFER_COMPATIBLE_RETURN_TYPES(BitwiseAndOp)
INFER_COMPATIBLE_RETURN_TYPES(BitwiseOrOp)
INFER_COMPATIBLE_RETURN_TYPES(BitwiseXorOp)
INFER_COMPATIBLE_RETURN_TYPES(PReluOp)
INFER_COMPATIBLE_RETURN_TYPES(IsInfOp)
INFER_COMPATIBLE_RETURN_TYPES(HardmaxOp)
INFER_COMPATIBLE_RETURN_TYPES(LpNormOp)
INFER_COMPATIBLE_RETURN_TYPES(GroupNormOp)
INFER_COMPATIBLE_RETURN_TYPES(LRNOp)
INFER_COMPATIBLE_RETURN_TYPES(DepthToSpaceOp)
INFER_COMPATIBLE_RETURN_TYPES(SpaceToDepthOp)
INFER_COMPATIBLE_RETURN_TYPES(GatherNDOp)
INFER_COMPATIBLE_RETURN_TYPES(ScatterNDOp)
INFER_COMPATIBLE_RETURN_TYPES(ScatterElementsOp)
#undef INFER_COMPATIBLE_RETURN_TYPES

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                           ValueRange, DictionaryAttr attributes,
                                           OpaqueProperties properties, RegionRange,
                                           SmallVectorImpl<Type> &inferred) {
  Attribute value = properties ? properties.as<Properties *>()->value
                               : attributes.get("value");
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  if (!elements)
    return failure();
  inferred.push_back(elements.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static bool isScalarOf(Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  return type.getRank() == 0 && type.getElementType() == elementType;
}

LogicalResult ClipOp::verify() {
  Type elementType = getInput().getType().getElementType();
  if (!isScalarOf(getMin(), elementType) || !isScalarOf(getMax(), elementType))
    return emitOpError("expects rank-0 min and max of the input's element type ")
           << elementType;
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  return success();
}

LogicalResult PadOp::verify() {
  StringRef mode = getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return emitOpError("unknown mode '") << mode
           << "' (expected constant, reflect, edge or wrap)";
  if (!isScalarOf(getValue(), getInput().getType().getElementType()))
    return emitOpError("expects a rank-0 padding value of the input's element type");
  return success();
}

LogicalResult ResizeOp::verify() {
  if (!getScales() == !getSizes())
    return emitOpError("expects exactly one of scales and sizes");
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError("unknown mode '") << mode << "'";
  StringRef ctm = getCoordinateTransformationMode();
  if (ctm != "half_pixel" && ctm != "half_pixel_symmetric" && ctm != "pytorch_half_pixel" &&
      ctm != "align_corners" && ctm != "asymmetric")
    return emitOpError("unsupported coordinate_transformation_mode '") << ctm << "'";
  StringRef nearest = getNearestMode();
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" &&
      nearest != "floor" && nearest != "ceil")
    return emitOpError("unknown nearest_mode '") << nearest << "'";
  return success();
}
