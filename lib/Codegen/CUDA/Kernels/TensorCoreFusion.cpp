//===- TensorCoreFusion.cpp - a contraction's producer and consumer in its kernel ===//
//
// A tensor-core kernel holds a 16x16 tile of C in a warp's WMMA fragment,
// whose layout across the lanes PTX leaves unspecified. To run an
// elementwise op on the tile, the warp stores the fragment to shared memory
// (16x16 floats a warp), synchronizes, and each lane then takes 8 of the
// 256 elements, reading and writing the op's other operands in global
// memory at that element's position; a prologue goes the other way (lanes
// write, the fragment is loaded). The position: the element's offset in
// C's contiguous storage, C's loops to its row and column, taken apart
// again by the op's own strides over its loops. That is why the op must walk
// a box of C's contiguous elements: then any reshape between the views
// works. The box may leave out C's padding (a contraction grown to whole
// tiles writes a padded home whose leading rows are the op's); those
// elements pass between the tile and C unchanged.
//
//===----------------------------------------------------------------------===//

#include "Kernels/TensorCoreFusion.h"
#include "Kernels/IndexMath.h"
#include "Analysis/LoopStrides.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::infer;

Value mlir::infer::storageRoot(Value memref) {
  // Any op that makes a memref of a memref is taken for a view of it (not
  // all views implement ViewLikeOpInterface: memref.transpose does not).
  while (Operation *def = memref.getDefiningOp()) {
    if (isa<memref::ViewOp>(def))
      break;
    auto source = llvm::find_if(def->getOperands(),
                                [](Value v) { return isa<MemRefType>(v.getType()); });
    if (source == def->operand_end())
      break;
    memref = *source;
  }
  return memref;
}

namespace {

/// How an elementwise op's operand walks C: a box of C's elements
/// anchored at its first one, either all of C or, for a padded home that
/// infer-cuda-align-contractions' growth made (an odd number of rows
/// grown to whole tiles), its leading rows or columns; the rest of C is
/// then the padding.
/// Its loop dims with their strides and ranges, the largest stride first,
/// nest: each stride at least the next one's stride times range (then it
/// exceeds the offset of every element inside it), the innermost 1. The
/// element at offset L from C's first has digits (L mod the outer stride)
/// / stride (the outermost: L / stride), which give L back, and is in the
/// box exactly when each digit is below its range. (A 14 x 14 map in rows
/// of 208, grown from 196, nests: 208 >= 14 x 14.)
struct Box {
  struct Dim {
    unsigned loop;
    int64_t stride, range;
    bool operator==(const Dim &) const = default;
  };
  SmallVector<Dim> dims;
  bool whole = false;
};

/// The box of C that `value` (indexed by `map` over loops of `ranges`)
/// walks, if it walks one (one element for each loop point: no loop of
/// more than one step along which it stays still).
std::optional<Box> boxOfC(Value value, AffineMap map, ArrayRef<int64_t> ranges,
                          const DenseWalk &c) {
  auto strides = loopStrides(value, map);
  if (!strides || strides->second != c.offset)
    return std::nullopt;
  Box box;
  int64_t count = 1, last = 0;
  for (auto [dim, stride] : llvm::enumerate(strides->first)) {
    if (ranges[dim] == 1)
      continue;
    if (stride <= 0)
      return std::nullopt;
    box.dims.push_back({static_cast<unsigned>(dim), stride, ranges[dim]});
    count *= ranges[dim];
    last += stride * (ranges[dim] - 1);
  }
  if (box.dims.empty() || last >= c.size)
    return std::nullopt;
  llvm::stable_sort(box.dims, [](const Box::Dim &x, const Box::Dim &y) {
    return x.stride > y.stride;
  });
  if (box.dims.back().stride != 1)
    return std::nullopt;
  for (size_t j = 1; j < box.dims.size(); ++j) {
    const Box::Dim &outer = box.dims[j - 1], &inner = box.dims[j];
    if (outer.stride < inner.stride * inner.range)
      return std::nullopt;
  }
  box.whole = count == c.size; // Distinct elements, all in C: all of C.
  return box;
}

/// The walk of the producer's output (C) over its loops of `ranges`.
std::optional<DenseWalk> outputWalk(linalg::LinalgOp producer, ArrayRef<int64_t> ranges) {
  OpOperand &init = producer.getDpsInitsMutable()[0];
  return denseWalk(init.get(), producer.getMatchingIndexingMap(&init), ranges);
}

/// Whether `operand` of `op` is C: the same storage as the contraction's
/// output.
bool isContractionOutput(OpOperand &operand, linalg::LinalgOp contraction) {
  return isa<MemRefType>(operand.get().getType()) &&
         storageRoot(operand.get()) == storageRoot(contraction.getDpsInits()[0]);
}

/// An operand `op` reads at its loop point through `map`: each index a
/// loop dim or a constant.
bool indexableAtPoint(AffineMap map) {
  return llvm::all_of(map.getResults(),
                      [](AffineExpr e) { return isa<AffineDimExpr, AffineConstantExpr>(e); });
}

/// An elementwise generic that writes (a prologue) or reads (an epilogue)
/// C element for element, and that can run a tile at a time:
///   - every operand indexed by loop dims and constants;
///   - every operand that is C's storage walks one box of C (all of it,
///     or the leading rows or columns of a padded home), and all of them
///     the same way: at each loop point they are one element, the one the
///     lane owns. So a prologue may also read C (in place: bias + residual
///     written over the residual, each element read before the kernel
///     stores it), and an epilogue may write over C (never stored);
///   - a prologue writes C alone, without reading its old value; an
///     epilogue reads C, never through its outputs (C is not stored).
bool isFusableElementwise(linalg::GenericOp op, linalg::LinalgOp contraction,
                          const DenseWalk &output, bool isPrologue, bool allowPadding) {
  if (op.getNumParallelLoops() != op.getNumLoops() || !op.hasPureBufferSemantics())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  if (isPrologue && op.getNumDpsInits() != 1)
    return false;
  std::optional<Box> cBox;
  bool readsC = false, writesC = false;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!indexableAtPoint(map))
      return false;
    bool isInit = op.isDpsInit(&operand);
    if (!isContractionOutput(operand, contraction)) {
      if (isPrologue && isInit)
        return false;
      continue;
    }
    if (isInit && !op.getMatchingBlockArgument(&operand).use_empty())
      return false; // C's old value: neither the prologue's nor in memory.
    std::optional<Box> box = boxOfC(operand.get(), map, ranges, output);
    if (!box || (!box->whole && !allowPadding) || (cBox && box->dims != cBox->dims))
      return false;
    cBox = box;
    (isInit ? writesC : readsC) = true;
  }
  return isPrologue ? writesC : readsC;
}

} // namespace

bool mlir::infer::canFuseElementwise(linalg::LinalgOp producer, ArrayRef<int64_t> ranges,
                                     linalg::LinalgOp prologue, linalg::GenericOp epilogue,
                                     bool allowPadding) {
  std::optional<DenseWalk> output = outputWalk(producer, ranges);
  if (!output || !producer.hasPureBufferSemantics())
    return false;
  if (auto fill = dyn_cast_if_present<linalg::FillOp>(prologue ? prologue.getOperation()
                                                                : nullptr)) {
    OpOperand &init = fill.getDpsInitsMutable()[0];
    std::optional<Box> box = boxOfC(init.get(), fill.getMatchingIndexingMap(&init),
                                    fill.getStaticLoopRanges(), *output);
    if (!isContractionOutput(init, producer) || !box || !box->whole ||
        fill.value().getType() != getElementTypeOrSelf(init.get().getType()))
      return false;
  } else if (prologue) {
    auto generic = dyn_cast<linalg::GenericOp>(prologue.getOperation());
    if (!generic ||
        !isFusableElementwise(generic, producer, *output, /*isPrologue=*/true, allowPadding))
      return false;
  }
  return !epilogue ||
         isFusableElementwise(epilogue, producer, *output, /*isPrologue=*/false, allowPadding);
}

bool mlir::infer::canFuseIntoTensorCores(linalg::LinalgOp contraction,
                                         const ContractionShape &shape, linalg::LinalgOp prologue,
                                         linalg::GenericOp epilogue) {
  return canFuseElementwise(contraction, shape.ranges, prologue, epilogue,
                            /*allowPadding=*/true);
}

namespace {

/// The operand through which `op` sees C: a prologue's one output, or an
/// epilogue's first input that is C.
OpOperand &cOperandOf(linalg::GenericOp op, linalg::LinalgOp producer, bool isPrologue) {
  if (isPrologue)
    return op.getDpsInitsMutable()[0];
  return **llvm::find_if(op.getDpsInputOperands(), [&](OpOperand *operand) {
    return isContractionOutput(*operand, producer);
  });
}

/// The box of C that `op` walks (canFuseElementwise checked there is one).
Box boxOf(linalg::GenericOp op, linalg::LinalgOp producer, const DenseWalk &output,
          bool isPrologue) {
  OpOperand &c = cOperandOf(op, producer, isPrologue);
  return *boxOfC(c.get(), op.getMatchingIndexingMap(&c), op.getStaticLoopRanges(), output);
}

/// The indices into C of its element at the producer's loop point `point`.
SmallVector<Value> cIndicesAt(linalg::LinalgOp producer, ArrayRef<Value> point) {
  OpOperand &c = producer.getDpsInitsMutable()[0];
  SmallVector<Value> indices;
  for (AffineExpr expr : producer.getMatchingIndexingMap(&c).getResults())
    indices.push_back(point[cast<AffineDimExpr>(expr).getPosition()]);
  return indices;
}

/// The loop point of `op` at the element of C that the producer computes
/// at `point`, when `op` reaches C (`c`) through the producer's own memref
/// and a permutation of its loops over C's whole shape: C's indices,
/// reordered. Then the op indexes C with the producer's own index values
/// (CSE shares them, and a load of the element after the producer's store
/// is seen to be the same element), where the general way
/// (pointInBox) goes through C's linear offset by divisions. Empty if not.
SmallVector<Value> sameViewPoint(linalg::GenericOp op, OpOperand &c, linalg::LinalgOp producer,
                                 ArrayRef<Value> point) {
  AffineMap map = op.getMatchingIndexingMap(&c);
  auto type = dyn_cast<MemRefType>(c.get().getType());
  if (c.get() != producer.getDpsInits()[0] || !map.isPermutation() || !type)
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Value> cIndices = cIndicesAt(producer, point);
  SmallVector<Value> at(map.getNumDims());
  for (unsigned k = 0; k < map.getNumResults(); ++k) {
    unsigned loop = map.getDimPosition(k);
    if (ranges[loop] != type.getDimSize(k))
      return {};
    at[loop] = cIndices[k];
  }
  return at;
}

/// C's element at the producer's loop point `point`, as an offset from
/// C's first element.
Value offsetInC(IndexMath &e, const DenseWalk &output, ArrayRef<Value> point) {
  Value linear = e.cst(0);
  for (auto [dim, stride] : output.dims)
    linear = e.add(linear, e.mul(point[dim], stride));
  return linear;
}

/// The loop point of an op walking `box` at C's element `linear` (`loops`
/// loops), and whether the element is in the box (null when the box is
/// all of C).
std::pair<SmallVector<Value>, Value> pointInBox(IndexMath &e, const Box &box, Value linear,
                                                unsigned loops) {
  SmallVector<Value> at(loops, e.cst(0));
  Value rest = linear, inBox;
  for (const Box::Dim &dim : box.dims) {
    at[dim.loop] = e.div(rest, dim.stride);
    rest = e.rem(rest, dim.stride);
    if (!box.whole)
      inBox = inBox ? e.both(inBox, e.below(at[dim.loop], dim.range))
                    : e.below(at[dim.loop], dim.range);
  }
  return {at, inBox};
}

Value loadAt(OpBuilder &b, Location loc, OpOperand &operand, ArrayRef<Value> indices) {
  return memref::LoadOp::create(b, loc, operand.get(), indices);
}

void storeAt(OpBuilder &b, Location loc, OpOperand &operand, Value value,
             ArrayRef<Value> indices) {
  memref::StoreOp::create(b, loc, value, operand.get(), indices);
}

} // namespace

namespace {

/// `expr` at the loop point `at` (isAffineAtPoint accepted it).
Value evaluateAt(IndexMath &e, AffineExpr expr, ArrayRef<Value> at) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return at[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return e.cst(constant.getValue());
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = evaluateAt(e, binary.getLHS(), at);
  int64_t rhs = 0;
  if (auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS()))
    rhs = constant.getValue();
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return e.add(lhs, evaluateAt(e, binary.getRHS(), at));
  case AffineExprKind::Mul:
    return e.mul(lhs, rhs);
  case AffineExprKind::FloorDiv:
    return e.div(lhs, rhs); // Indices are not negative.
  case AffineExprKind::Mod:
    return e.rem(lhs, rhs);
  default:
    llvm_unreachable("isAffineAtPoint refuses other expressions");
  }
}

bool isAffineAtPoint(AffineExpr expr) {
  if (isa<AffineDimExpr, AffineConstantExpr>(expr))
    return !isa<AffineConstantExpr>(expr) || cast<AffineConstantExpr>(expr).getValue() >= 0;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary || !isAffineAtPoint(binary.getLHS()))
    return false;
  if (expr.getKind() == AffineExprKind::Add)
    return isAffineAtPoint(binary.getRHS());
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  return constant && constant.getValue() > 0 &&
         llvm::is_contained({AffineExprKind::Mul, AffineExprKind::FloorDiv, AffineExprKind::Mod},
                            expr.getKind());
}

} // namespace

bool mlir::infer::isAffineAtPoint(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) { return ::isAffineAtPoint(e); });
}

void mlir::infer::emitPayloadAt(OpBuilder &b, Location loc, linalg::GenericOp op,
                                ArrayRef<Value> at,
                                function_ref<Value(OpOperand &, ArrayRef<Value>)> load,
                                function_ref<void(OpOperand &, Value, ArrayRef<Value>)> store) {
  IndexMath e{b, loc};
  auto indicesAt = [&](OpOperand &operand) {
    SmallVector<Value> indices;
    for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
      indices.push_back(evaluateAt(e, expr, at));
    return indices;
  };
  IRMapping map;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    Value value = operand.get();
    map.map(arg, isa<MemRefType>(value.getType()) ? load(operand, indicesAt(operand)) : value);
  }
  Block &body = op.getRegion().front();
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), at[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  for (auto [operand, result] :
       llvm::zip(op.getDpsInitsMutable(), body.getTerminator()->getOperands()))
    store(operand, map.lookupOrDefault(result), indicesAt(operand));
}

void mlir::infer::emitTileOfElementwise(OpBuilder &b, Location loc, linalg::LinalgOp contraction,
                                        const ContractionShape &shape, linalg::GenericOp op,
                                        bool isPrologue, ArrayRef<Value> tileLoop, unsigned dimM,
                                        unsigned dimN, Value scratch, Value slot) {
  IndexMath e{b, loc};
  DenseWalk output = *outputWalk(contraction, shape.ranges);
  Box box = boxOf(op, contraction, output, isPrologue);

  Value lane = e.rem(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), 32);
  constexpr int64_t kPerLane = kTileM * kTileN / 32;
  auto loop = scf::ForOp::create(b, loc, e.cst(0), e.cst(kPerLane), e.cst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  // Lanes 0-15 take a row's 16 columns, lanes 16-31 the next row's.
  Value element = e.add(e.mul(loop.getInductionVar(), 32), lane);
  Value row = e.div(element, kTileN), column = e.rem(element, kTileN);
  SmallVector<Value> point(tileLoop);
  point[dimM] = e.add(point[dimM], row);
  point[dimN] = e.add(point[dimN], column);
  // The element's place in C's storage, then the op's loop point there.
  auto [at, inBox] =
      pointInBox(e, box, offsetInC(e, output, point), op.getStaticLoopRanges().size());
  SmallVector<Value> slotIndices = {slot, row, column};
  // An element of C's padding, outside the op's box, passes as it is:
  // into the tile from C (a prologue), or from the tile to C (an
  // epilogue), as the kernels apart would have left it.
  if (inBox) {
    auto split = scf::IfOp::create(b, loc, inBox, /*withElseRegion=*/true);
    b.setInsertionPointToStart(&split.getElseRegion().front());
    Value c = contraction.getDpsInits()[0];
    SmallVector<Value> cIndices = cIndicesAt(contraction, point);
    if (isPrologue)
      memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, c, cIndices), scratch,
                              slotIndices);
    else
      memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, scratch, slotIndices), c,
                              cIndices);
    b.setInsertionPoint(split.getThenRegion().front().getTerminator());
  }
  // C comes from the tile (an epilogue's input) or goes to it (a prologue's
  // output); the other operands are read and written in global memory.
  emitPayloadAt(
      b, loc, op, at,
      [&](OpOperand &operand, ArrayRef<Value> indices) -> Value {
        if (!isPrologue && op.isDpsInput(&operand) && isContractionOutput(operand, contraction))
          return memref::LoadOp::create(b, loc, scratch, slotIndices);
        return loadAt(b, loc, operand, indices);
      },
      [&](OpOperand &operand, Value value, ArrayRef<Value> indices) {
        if (isPrologue)
          memref::StoreOp::create(b, loc, value, scratch, slotIndices);
        else
          storeAt(b, loc, operand, value, indices);
      });
}

void mlir::infer::emitElementwiseAtPoint(OpBuilder &b, Location loc, linalg::LinalgOp producer,
                                         linalg::LinalgOp op, bool isPrologue,
                                         ArrayRef<Value> point) {
  IndexMath e{b, loc};
  DenseWalk output = *outputWalk(producer, producer.getStaticLoopRanges());
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
    memref::StoreOp::create(b, loc, fill.value(), producer.getDpsInits()[0],
                            cIndicesAt(producer, point));
    return;
  }
  auto generic = cast<linalg::GenericOp>(op.getOperation());
  SmallVector<Value> at = sameViewPoint(generic, cOperandOf(generic, producer, isPrologue),
                                        producer, point);
  if (at.empty()) {
    Box box = boxOf(generic, producer, output, isPrologue);
    at = pointInBox(e, box, offsetInC(e, output, point), generic.getStaticLoopRanges().size())
             .first;
  }
  emitPayloadAt(
      b, loc, generic, at,
      [&](OpOperand &operand, ArrayRef<Value> indices) { return loadAt(b, loc, operand, indices); },
      [&](OpOperand &operand, Value value, ArrayRef<Value> indices) {
        storeAt(b, loc, operand, value, indices);
      });
}
