//===- VectorAccesses.cpp - elementwise kernels, 4 elements a thread ------===//
//
// An elementwise kernel with one thread per element reads and writes 4
// bytes per thread and instruction; the GPU moves memory best in 16-byte
// accesses (ld.global.v4.f32). Here each thread takes kLanes (4)
// consecutive elements of the innermost loop dim, and each operand is
// accessed by how its indexing map uses that dim:
//
//   - Vector: the dim is the map's last result, used nowhere else, and the
//     memref's innermost stride is 1 and its other strides multiples of
//     kLanes: the lanes are contiguous and, when the operand's start is
//     aligned, one vector.load/store of kLanes elements (16 bytes for f32);
//   - Uniform: the map does not use the dim (a broadcast bias, a fill's
//     scalar): one load, or none, serves every lane;
//   - Scattered: any other map (a transposed or strided read): one scalar
//     access per lane.
//
// The payload is cloned once per lane (scalar code, as on the SIMT path).
// Whether the vector operands start at addresses aligned to a whole
// vector depends on pointers only known at run time (the arena, the
// weights, the caller's buffers), so the kernel checks it once, uniformly
// for all threads, and otherwise takes the same code with scalar accesses.
//
//===----------------------------------------------------------------------===//

#include "Kernels/VectorAccesses.h"
#include "Kernels/Delinearize.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::infer;

using Access = VectorAccessPlan::Access;
static constexpr int64_t kLanes = VectorAccessPlan::kLanes;

/// Bytes of one element, if a vector of them is a plain memory access.
static std::optional<int64_t> elementBytes(Type type) {
  if (!type.isIntOrFloat())
    return std::nullopt;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return std::nullopt;
  return bits / 8;
}

/// How `operand` of `op`, whose innermost loop dim is `n`, is accessed.
static std::optional<Access> classify(linalg::GenericOp op, OpOperand &operand, unsigned n) {
  Type operandType = operand.get().getType();
  if (operandType.isIntOrIndexOrFloat() && !op.isDpsInit(&operand))
    return Access::Uniform; // A scalar: linalg.fill's value.
  auto type = dyn_cast<MemRefType>(operandType);
  if (!type || !elementBytes(type.getElementType()))
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!map.isFunctionOfDim(n))
    return Access::Uniform;
  unsigned rank = map.getNumResults();
  auto last = dyn_cast<AffineDimExpr>(map.getResult(rank - 1));
  bool onlyLast = last && last.getPosition() == n;
  for (unsigned i = 0; onlyLast && i + 1 < rank; ++i)
    onlyLast = !map.getResult(i).isFunctionOfDim(n);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!onlyLast || failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return Access::Scattered;
  for (unsigned i = 0; i + 1 < rank; ++i)
    if (type.getDimSize(i) != 1 && (ShapedType::isDynamic(strides[i]) || strides[i] % kLanes != 0))
      return Access::Scattered;
  return Access::Vector;
}

std::optional<VectorAccessPlan> mlir::infer::planVectorAccesses(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumReductionLoops() != 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() % kLanes != 0)
    return std::nullopt;
  unsigned n = ranges.size() - 1;
  VectorAccessPlan plan;
  bool anyVector = false;
  for (OpOperand &operand : op->getOpOperands()) {
    std::optional<Access> access = classify(op, operand, n);
    if (!access)
      return std::nullopt;
    // An output that ignores a parallel dim would be written by several
    // lanes; linalg forbids it, but do not rely on that here.
    if (*access == Access::Uniform && op.isDpsInit(&operand))
      return std::nullopt;
    anyVector |= *access == Access::Vector;
    plan.operands.push_back(*access);
  }
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  if (!anyVector || total == 0)
    return std::nullopt;
  plan.threads = total / kLanes;
  return plan;
}

namespace {

/// Emits one thread's work: kLanes elements from the loop point `first`.
struct LaneEmitter {
  OpBuilder &b;
  Location loc;
  linalg::GenericOp op;
  const VectorAccessPlan &plan;
  SmallVector<Value> first; // Loop indices of lane 0.

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Loop indices of lane `lane`.
  SmallVector<Value> laneIndex(int64_t lane) {
    SmallVector<Value> index = first;
    if (lane != 0)
      index.back() = arith::AddIOp::create(b, loc, index.back(), cst(lane));
    return index;
  }

  SmallVector<Value> memrefIndices(OpOperand &operand, ArrayRef<Value> loopIndex) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      indices.push_back(affine::AffineApplyOp::create(b, loc, map.getSubMap({i}), loopIndex));
    return indices;
  }

  VectorType vectorType(OpOperand &operand) {
    return VectorType::get({kLanes}, getElementTypeOrSelf(operand.get().getType()));
  }

  llvm::MaybeAlign vectorAlign(OpOperand &operand) {
    return llvm::Align(kLanes * *elementBytes(getElementTypeOrSelf(operand.get().getType())));
  }

  /// The lanes' values of `operand`.
  SmallVector<Value> load(OpOperand &operand, bool vectorized) {
    Access access = plan.operands[operand.getOperandNumber()];
    if (!isa<MemRefType>(operand.get().getType()))
      return SmallVector<Value>(kLanes, operand.get());
    if (access == Access::Uniform)
      return SmallVector<Value>(
          kLanes, memref::LoadOp::create(b, loc, operand.get(), memrefIndices(operand, first)));
    SmallVector<Value> values;
    if (access == Access::Vector && vectorized) {
      Value vector = vector::LoadOp::create(b, loc, vectorType(operand), operand.get(),
                                            memrefIndices(operand, first),
                                            /*nontemporal=*/false, vectorAlign(operand));
      for (int64_t lane = 0; lane < kLanes; ++lane)
        values.push_back(vector::ExtractOp::create(b, loc, vector, lane));
      return values;
    }
    for (int64_t lane = 0; lane < kLanes; ++lane)
      values.push_back(
          memref::LoadOp::create(b, loc, operand.get(), memrefIndices(operand, laneIndex(lane))));
    return values;
  }

  void store(OpOperand &operand, ArrayRef<Value> values, bool vectorized) {
    if (plan.operands[operand.getOperandNumber()] == Access::Vector && vectorized) {
      Value vector = vector::FromElementsOp::create(b, loc, vectorType(operand), values);
      vector::StoreOp::create(b, loc, vector, operand.get(), memrefIndices(operand, first),
                              /*nontemporal=*/false, vectorAlign(operand));
      return;
    }
    for (int64_t lane = 0; lane < kLanes; ++lane)
      memref::StoreOp::create(b, loc, values[lane], operand.get(),
                              memrefIndices(operand, laneIndex(lane)));
  }

  /// Loads, the payload once per lane, stores.
  void emit(bool vectorized) {
    Block &body = op.getRegion().front();
    SmallVector<SmallVector<Value>> inputs; // [block argument][lane]
    for (OpOperand &operand : op->getOpOperands()) {
      bool read = !op.isDpsInit(&operand) || !body.getArgument(operand.getOperandNumber()).use_empty();
      inputs.push_back(read ? load(operand, vectorized) : SmallVector<Value>());
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    SmallVector<SmallVector<Value>> results(yield.getNumOperands()); // [init][lane]
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      IRMapping map;
      for (auto [arg, values] : llvm::zip(body.getArguments(), inputs))
        if (!values.empty())
          map.map(arg, values[lane]);
      SmallVector<Value> index = laneIndex(lane);
      for (Operation &payload : body.without_terminator()) {
        if (auto indexOp = dyn_cast<linalg::IndexOp>(payload)) {
          map.map(indexOp.getResult(), index[indexOp.getDim()]);
          continue;
        }
        b.clone(payload, map);
      }
      for (auto [k, value] : llvm::enumerate(yield.getOperands()))
        results[k].push_back(map.lookupOrDefault(value));
    }
    for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable()))
      store(init, results[k], vectorized);
  }
};

} // namespace

void mlir::infer::buildVectorAccessKernel(OpBuilder &b, linalg::GenericOp op,
                                          const VectorAccessPlan &plan, int64_t blockSize) {
  Location loc = op.getLoc();
  SmallVector<int64_t> counts = op.getStaticLoopRanges();
  counts.back() /= kLanes;
  LaneEmitter emitter{b, loc, op, plan, {}};

  // Whether every vector operand starts at a whole vector: the same for
  // all threads, so the branch below does not diverge.
  Value aligned = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (OpOperand &operand : op->getOpOperands()) {
    if (plan.operands[operand.getOperandNumber()] != Access::Vector)
      continue;
    Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.get());
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, operand.get());
    int64_t bytes = *elementBytes(getElementTypeOrSelf(operand.get().getType()));
    Value start = arith::AddIOp::create(
        b, loc, pointer, arith::MulIOp::create(b, loc, metadata.getOffset(), emitter.cst(bytes)));
    Value misalignment = arith::RemUIOp::create(b, loc, start, emitter.cst(kLanes * bytes));
    aligned = arith::AndIOp::create(
        b, loc, aligned,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misalignment, emitter.cst(0)));
  }

  // One thread per kLanes elements, numbered like the SIMT path's threads.
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, emitter.cst(blockSize)), thread);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear,
                                       emitter.cst(plan.threads));
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  emitter.first = delinearize(b, loc, linear, counts);
  emitter.first.back() =
      arith::MulIOp::create(b, loc, emitter.first.back(), emitter.cst(kLanes));

  auto choice = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  b.setInsertionPointToStart(&choice.getThenRegion().front());
  emitter.emit(/*vectorized=*/true);
  b.setInsertionPointToStart(&choice.getElseRegion().front());
  emitter.emit(/*vectorized=*/false);
}
