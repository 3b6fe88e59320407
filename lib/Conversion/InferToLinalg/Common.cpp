//===- Common.cpp - helpers shared by the infer-to-linalg patterns --------===//

#include "Common.h"

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::lowering;

RankedTensorType lowering::staticType(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

bool lowering::hasStaticShapes(Operation *op) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto type = dyn_cast<RankedTensorType>(t);
    if (!type || !type.hasStaticShape())
      return false;
  }
  return true;
}

Value lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

Value lowering::scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, static_cast<int64_t>(value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value lowering::filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  return linalg::FillOp::create(b, loc, value, emptyTensor(b, loc, type)).getResult(0);
}

AffineMap lowering::broadcastMap(RankedTensorType input, RankedTensorType result) {
  MLIRContext *ctx = input.getContext();
  int64_t offset = result.getRank() - input.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < input.getRank(); ++i) {
    bool stretched = input.getDimSize(i) == 1 && result.getDimSize(i + offset) != 1;
    exprs.push_back(stretched ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(result.getRank(), 0, exprs, ctx);
}

Value lowering::buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                                 ValueRange inputs, ScalarFn body) {
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(cast<RankedTensorType>(input.getType()), resultType));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{emptyTensor(b, loc, resultType)}, maps,
      iterators, [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value lowering::buildIndexed(OpBuilder &b, Location loc, RankedTensorType resultType,
                            IndexedFn body) {
  int64_t rank = resultType.getRank();
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{}, ValueRange{emptyTensor(b, loc, resultType)},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               SmallVector<Value> indices;
               for (int64_t i = 0; i < rank; ++i)
                 indices.push_back(linalg::IndexOp::create(nb, l, i));
               linalg::YieldOp::create(nb, l, ValueRange{body(nb, l, indices)});
             })
      .getResult(0);
}

Value lowering::wrappedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value fromEnd = arith::AddIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, size));
  i = arith::SelectOp::create(b, loc, negative, fromEnd, i);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, i, arith::ConstantIndexOp::create(b, loc, size - 1));
}

std::optional<SmallVector<int64_t>> lowering::constantInts(Value v) {
  return getConstantIntValues(v);
}
