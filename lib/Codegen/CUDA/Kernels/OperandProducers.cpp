//===- OperandProducers.cpp - a contraction's input computed in its kernel ===//
//
// An im2col convolution is two kernels: the copy that writes each input
// window as a column (channels x kh x kw rows, a column per output
// position) and the tensor-core contraction of the weights with it. The
// copy is the input's size times kh x kw (a 3x3 convolution over 96
// channels at 160 x 160: 22 M floats, 88 MB), written once and read back.
// Likewise a scale or a residual add just before a 1x1
// convolution is a launch and a trip through memory. When the contraction
// is the producer's one reader (infer-cuda-prepare-epilogues marks such a
// generic kOperandProducerAttr) and few tiles read each element
// (kMaxOperandRecomputes), the tensor-core kernel computes that operand's
// elements itself where it would load them: each lane runs the producer's
// payload at an element's position, reading the producer's own inputs,
// and the warp loads its fragment from shared memory (TensorCores.cpp).
// The producer never runs, and its output is never written.
//
// The position. The contraction reads the operand through a view of the
// producer's output (the copy's [c, kh, kw, oh, ow] collapsed to
// [c, kh, kw, oh*ow]). The element at the contraction's loop point lies at
// offset sum(c_i * t_i) (t_i: the operand's stride along loop i) in the
// producer's dense output, whose loop j (stride s_j, range r_j) has there
// the digit (offset / s_j) mod r_j. Computed so, every element would cost
// a division per producer loop. Instead each digit keeps only the terms
// that reach it: a stride that is a multiple of s_j * r_j adds whole turns
// and goes, and terms below s_j whose largest sum stays below s_j never
// carry into it. What is left is usually one loop (the channel, kh, kw) or
// one division of a collapsed loop (oh = p / OW, ow = p mod OW), which
// depends on the lane's column alone and so stays out of the k loop.
//
//===----------------------------------------------------------------------===//

#include "Kernels/OperandProducers.h"
#include "Kernels/IndexMath.h"
#include "Analysis/LoopStrides.h"
#include "Kernels/TensorCoreFusion.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

/// A loop of the producer as a digit of its output's offset.
struct Digit {
  unsigned loop;
  int64_t stride, range;
};

/// The producer's output, if its loops walk it densely, each element once.
std::optional<DenseWalk> denseOutput(linalg::GenericOp producer) {
  OpOperand &init = producer.getDpsInitsMutable()[0];
  return denseWalk(init.get(), producer.getMatchingIndexingMap(&init),
                   producer.getStaticLoopRanges(), /*eachOnce=*/true);
}

/// The operand's strides along the contraction's loops, if it reads only
/// elements of `output` (the same first element, non-negative strides).
std::optional<SmallVector<int64_t>> operandStrides(linalg::LinalgOp contraction,
                                                    unsigned operand, ArrayRef<int64_t> ranges,
                                                    const DenseWalk &output) {
  auto strides = loopStrides(contraction.getDpsInputs()[operand],
                             contraction.getIndexingMapsArray()[operand]);
  if (!strides || strides->second != output.offset)
    return std::nullopt;
  int64_t reach = 0;
  for (auto [stride, range] : llvm::zip(strides->first, ranges)) {
    if (stride < 0)
      return std::nullopt;
    reach += stride * (range - 1);
  }
  if (reach >= output.size)
    return std::nullopt;
  return strides->first;
}

/// The digit `d` of the offset sum(point[i] * strides[i]), the loops of
/// `ranges`, with the terms that cannot reach it left out (file comment).
Value digitAt(IndexMath &e, const Digit &d, ArrayRef<int64_t> strides, ArrayRef<int64_t> ranges,
              ArrayRef<Value> point) {
  struct Term {
    unsigned loop;
    int64_t stride;
  };
  const int64_t turn = d.stride * d.range;
  SmallVector<Term> upper, lower, all;
  int64_t lowerMax = 0;
  for (auto [loop, stride] : llvm::enumerate(strides)) {
    int64_t reduced = stride % turn;
    if (reduced == 0 || ranges[loop] == 1)
      continue;
    Term term{static_cast<unsigned>(loop), reduced};
    all.push_back(term);
    if (reduced >= d.stride) {
      upper.push_back(term);
    } else {
      lower.push_back(term);
      lowerMax += reduced * (ranges[loop] - 1);
    }
  }
  // The value, reduced mod the range unless it stays below it.
  auto wrap = [&](Value value, int64_t largest) {
    if (largest < d.range)
      return value;
    return largest < (int64_t{1} << 32) ? e.remBelow32Bits(value, d.range)
                                        : e.rem(value, d.range);
  };
  auto divide = [&](Value value, int64_t largest, int64_t divisor) {
    return largest < (int64_t{1} << 32) ? e.divBelow32Bits(value, divisor)
                                        : e.div(value, divisor);
  };
  // No carry from below, and whole multiples above: a sum of loops.
  if (lowerMax < d.stride &&
      llvm::all_of(upper, [&](const Term &t) { return t.stride % d.stride == 0; })) {
    Value sum;
    int64_t largest = 0;
    for (const Term &t : upper) {
      int64_t factor = t.stride / d.stride;
      Value part = factor == 1 ? point[t.loop] : e.mul(point[t.loop], factor);
      sum = sum ? e.add(sum, part) : part;
      largest += factor * (ranges[t.loop] - 1);
    }
    return sum ? wrap(sum, largest) : e.cst(0);
  }
  // One loop below, dividing the digit's stride: a collapsed loop's outer part.
  if (upper.empty() && lower.size() == 1 && d.stride % lower.front().stride == 0) {
    const Term &t = lower.front();
    int64_t divisor = d.stride / t.stride;
    int64_t largest = ranges[t.loop] - 1;
    return wrap(divide(point[t.loop], largest, divisor), largest / divisor);
  }
  // In general: the offset's digit.
  Value sum;
  int64_t largest = 0;
  for (const Term &t : all) {
    Value part = e.mul(point[t.loop], t.stride);
    sum = sum ? e.add(sum, part) : part;
    largest += t.stride * (ranges[t.loop] - 1);
  }
  Value digit = d.stride == 1 ? sum : divide(sum, largest, d.stride);
  return wrap(digit, largest / d.stride);
}

/// Whether `producer`'s payload only computes and loads: it runs once per
/// element of the operand, inside the contraction's k loop.
bool onlyComputesAndLoads(linalg::GenericOp producer) {
  for (Operation &op : producer.getRegion().front().without_terminator())
    if (op.getNumRegions() || !(isPure(&op) || isa<memref::LoadOp>(op)))
      return false;
  return true;
}

} // namespace

bool mlir::infer::canProduceOperand(linalg::LinalgOp contraction, const ContractionShape &shape,
                                    const TensorCoreOperands &layout, unsigned operand,
                                    linalg::GenericOp producer) {
  if (!producer || !producer->hasAttr(kOperandProducerAttr) ||
      !producer.hasPureBufferSemantics() || producer.getNumDpsInits() != 1 ||
      producer.getNumParallelLoops() != producer.getNumLoops() || producer->getNumResults())
    return false;
  if (llvm::any_of(producer.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  OpOperand &init = producer.getDpsInitsMutable()[0];
  if (!producer.getMatchingBlockArgument(&init).use_empty() ||
      !getElementTypeOrSelf(init.get().getType()).isF32() ||
      storageRoot(init.get()) != storageRoot(contraction.getDpsInputs()[operand]))
    return false;
  for (OpOperand *input : producer.getDpsInputOperands())
    if (!isAffineAtPoint(producer.getMatchingIndexingMap(input)))
      return false;
  if (!onlyComputesAndLoads(producer))
    return false;
  std::optional<DenseWalk> output = denseOutput(producer);
  std::optional<SmallVector<int64_t>> strides =
      output ? operandStrides(contraction, operand, shape.ranges, *output) : std::nullopt;
  if (!strides)
    return false;
  // Each element is computed by every output tile that reads it: those
  // along the other operand's free dim, and any batch the operand skips.
  unsigned other = operand == layout.aIndex ? layout.n : layout.m;
  int64_t recomputes = 1;
  for (auto [loop, stride] : llvm::enumerate(*strides))
    if (stride == 0)
      recomputes *= loop == other ? shape.ranges[loop] / kTileM : shape.ranges[loop];
  return recomputes <= kMaxOperandRecomputes;
}

Value mlir::infer::emitProducedElement(OpBuilder &b, Location loc, linalg::LinalgOp contraction,
                                       const ContractionShape &shape, unsigned operand,
                                       linalg::GenericOp producer, ArrayRef<Value> point) {
  IndexMath e{b, loc};
  DenseWalk output = *denseOutput(producer);
  SmallVector<int64_t> strides = *operandStrides(contraction, operand, shape.ranges, output);
  SmallVector<int64_t> producerRanges = producer.getStaticLoopRanges();
  SmallVector<Value> at(producer.getNumLoops(), e.cst(0));
  for (auto [loop, stride] : output.dims)
    at[loop] = digitAt(e, {loop, stride, producerRanges[loop]}, strides, shape.ranges, point);
  Value result;
  emitPayloadAt(
      b, loc, producer, at,
      [&](OpOperand &input, ArrayRef<Value> indices) -> Value {
        return memref::LoadOp::create(b, loc, input.get(), indices);
      },
      [&](OpOperand &, Value value, ArrayRef<Value>) { result = value; });
  return result;
}
