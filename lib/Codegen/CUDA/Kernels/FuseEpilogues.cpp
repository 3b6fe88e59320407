//===- FuseEpilogues.cpp - a tensor-core kernel's prologue and epilogue ----===//
//
// infer-cuda-fuse-epilogues, on memrefs after the arena is planned and
// before infer-outline-kernels. A float32 contraction bound for the tensor
// cores usually comes with two more kernels around it: before it, the
// fill of C with zeros (or infer-cuda-adds-into-init's generic that writes
// bias + residual into C), and after it, the elementwise op that reads C
// (bias and GELU, a scale). Each is a launch and a round trip of C through
// global memory. This pass puts such a producer, the contraction and such
// a consumer into one scf.execute_region, which the outliner makes one
// kernel and infer-cuda-map-to-gpu one WMMA kernel with a prologue and an
// epilogue (TensorCoreFusion.cpp): the sums start from the fill's value or
// the producer's, and the consumer gets them from registers by way of
// shared memory; C itself is then never read, and with a consumer never
// written.
//
// When that is safe, on memrefs:
//   - the producer is the last kernel before the contraction that touched
//     C, the consumer the first after it that touches C, and the kernels
//     in between touch none of the operands of the ops that move (the
//     producer down to the contraction, both down to the consumer), so
//     moving the three together reorders nothing that matters;
//   - the contraction takes the tensor-core path as it is (whole tiles,
//     WMMA's layout rules) and the producer and consumer address C element
//     for element (canFuseIntoTensorCores);
//   - with a consumer, C is not needed after it: the consumer was its one
//     user on tensors (infer-cuda-prepare-epilogues marks that; on memrefs
//     the arena gives every layer's C one buffer), or the consumer writes
//     over all of C in place;
//   - what the kernel writes (the consumer's outputs, else C) overlaps
//     nothing it reads (A, B, the producer's and consumer's inputs), since
//     other warps still read those: an arena buffer that the planner
//     reused for the consumer's output while A died at the contraction
//     would otherwise be overwritten under them. The one exception is a
//     consumer reading and writing one buffer through one map (in place):
//     each element is read before it is written, by the same lane.
//
// A tensor-core contraction may also take the generic that makes one of
// its inputs (an im2col copy, a scale before a 1x1 convolution; marked
// kOperandProducerAttr, its one reader): the kernel computes that input's
// elements where it would load them (OperandProducers.cpp). It must be
// the last kernel before the contraction that touched the input, able to
// move down past the kernels in between (by every memref it uses, those
// its payload loads included), and what the kernel writes must overlap
// nothing the generic reads.
//
// A reduction that runs a thread per output (a depthwise convolution, a
// pool: isPointReduction, BlockReductions.h) gets the same kind of
// producer and consumer, as a point group (kPointGroupAttr): each thread
// runs them on its own element around its reduction loops. So does a
// reduction that runs a block per output (a matrix-vector product, a
// global pool: planBlockReduction), as a block group (kBlockGroupAttr):
// the block's thread 0 runs them around the store of its result. They must
// cover all of C, and C need not be read once (the reduction stores it
// anyway).
//
//===----------------------------------------------------------------------===//

#include "Kernels/BlockReductions.h"
#include "Kernels/OperandProducers.h"
#include "Kernels/ParallelLoops.h"
#include "Kernels/TensorCoreFusion.h"
#include "Kernels/TensorCores.h"

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <limits>

namespace mlir::infer {
#define GEN_PASS_DEF_FUSEEPILOGUESPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// The bytes a memref may touch: its storage root's base (a function
/// argument, an allocation), and a byte range of it. An arena buffer
/// (memref.view at a constant offset) is its range of the arena; anything
/// else may be all of its base.
struct Bytes {
  Value base;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
};

Bytes bytesOf(Value memref) {
  Value root = storageRoot(memref);
  Bytes bytes{root};
  auto view = root.getDefiningOp<memref::ViewOp>();
  if (!view)
    return bytes;
  auto type = cast<MemRefType>(view.getType());
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  if (!shift || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return bytes;
  bytes.base = view.getSource();
  bytes.begin = *shift;
  bytes.end = *shift + type.getNumElements() * type.getElementTypeBitWidth() / 8;
  return bytes;
}

bool mayOverlap(Value x, Value y) {
  Bytes a = bytesOf(x), b = bytesOf(y);
  return a.base == b.base && a.begin < b.end && b.begin < a.end;
}

/// Whether `kernel` (an op of the entry, with any regions) may touch the
/// bytes of `memref`.
bool touches(Operation *kernel, Value memref) {
  WalkResult result = kernel->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && mayOverlap(operand, memref))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// The memref operands of `op` and of the ops nested in it (a guarded
/// read's input is loaded in a payload).
SmallVector<OpOperand *> memrefOperandsOf(Operation *op) {
  SmallVector<OpOperand *> memrefs;
  op->walk([&](Operation *inner) {
    for (OpOperand &operand : inner->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()))
        memrefs.push_back(&operand);
  });
  return memrefs;
}

/// Whether the ops `moved` can move down past the kernels `between`: none
/// of those touches any of their memrefs.
bool canMovePast(ArrayRef<Operation *> moved, ArrayRef<Operation *> between) {
  for (Operation *op : moved)
    for (OpOperand *memref : memrefOperandsOf(op))
      if (llvm::any_of(between,
                       [&](Operation *kernel) { return touches(kernel, memref->get()); }))
        return false;
  return true;
}

/// The kernel before `kernels[i]` (a contraction) that last touched its
/// output, if it is a linalg op that no earlier group took in and that can
/// move down to the contraction. (A fill, then a weight copied into its
/// home, then the contraction.)
linalg::LinalgOp prologueCandidate(ArrayRef<Operation *> kernels, size_t i) {
  Value c = cast<linalg::LinalgOp>(kernels[i]).getDpsInits()[0];
  for (size_t j = i; j-- > 0;) {
    if (!touches(kernels[j], c))
      continue;
    auto candidate = dyn_cast<linalg::LinalgOp>(kernels[j]);
    if (!candidate || candidate->getParentOp() != kernels[i]->getParentOp() ||
        !canMovePast({candidate}, kernels.slice(j + 1, i - j - 1)))
      return {};
    return candidate;
  }
  return {};
}

/// The generic that the tensor-core kernel of `kernels[i]` (a contraction
/// of `shape`) can run in place of loading one of its inputs
/// (canProduceOperand): the kernel before it that last touched the input,
/// if no earlier group took it in and it can move down to the contraction.
/// (An im2col copy, then the fill of C, then the contraction.)
linalg::GenericOp operandProducerCandidate(ArrayRef<Operation *> kernels, size_t i,
                                           const ContractionShape &shape) {
  auto contraction = cast<linalg::LinalgOp>(kernels[i]);
  std::optional<TensorCoreOperands> layout = checkTensorCoreLayout(contraction, shape);
  for (unsigned operand = 0; operand < 2 && layout; ++operand) {
    Value input = contraction.getDpsInputs()[operand];
    for (size_t j = i; j-- > 0;) {
      if (!touches(kernels[j], input))
        continue;
      auto producer = dyn_cast<linalg::GenericOp>(kernels[j]);
      if (producer && producer->getParentOp() == contraction->getParentOp() &&
          canProduceOperand(contraction, shape, *layout, operand, producer) &&
          canMovePast({producer}, kernels.slice(j + 1, i - j - 1)))
        return producer;
      break;
    }
  }
  return {};
}

/// The index of the kernel after `kernels[i]` (a contraction) that first
/// touches its output, if it is a generic or a copy that no earlier group
/// took in, and the contraction and `prologue` (and `operandProducer`) can
/// move down to it. (The fill of a padded tensor whose interior the
/// epilogue writes, between the contraction and the epilogue.)
std::optional<size_t> epilogueCandidate(ArrayRef<Operation *> kernels, size_t i,
                                        linalg::LinalgOp prologue,
                                        linalg::GenericOp operandProducer) {
  Value c = cast<linalg::LinalgOp>(kernels[i]).getDpsInits()[0];
  SmallVector<Operation *> moved = {kernels[i]};
  if (prologue)
    moved.push_back(prologue);
  if (operandProducer)
    moved.push_back(operandProducer);
  for (size_t j = i + 1; j < kernels.size(); ++j) {
    if (!touches(kernels[j], c))
      continue;
    if (kernels[j]->getParentOp() != kernels[i]->getParentOp() ||
        !canMovePast(moved, kernels.slice(i + 1, j - i - 1)) ||
        !isa<linalg::GenericOp, linalg::CopyOp>(kernels[j]))
      return std::nullopt;
    return j;
  }
  return std::nullopt;
}

/// `op` as a generic: itself, or a copy (a padded home's leading slice
/// copied to a model output) made one beside it.
linalg::GenericOp asGeneric(Operation *op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return generic;
  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPoint(op);
  Operation *clone = rewriter.clone(*op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, cast<linalg::LinalgOp>(clone));
  if (failed(generic)) {
    rewriter.eraseOp(clone);
    return {};
  }
  return *generic;
}

/// Whether `kernel` is a reduction that infer-cuda-map-to-gpu runs a
/// thread per output (isPointReduction), such as a depthwise convolution:
/// a prologue and an epilogue then run in the same thread, on its element,
/// before and after its loops.
bool isPointKernel(Operation *kernel) {
  auto op = dyn_cast<linalg::LinalgOp>(kernel);
  return op && op.hasPureBufferSemantics() && isPointReduction(op);
}

/// Whether `kernel` is a reduction that infer-cuda-map-to-gpu runs a block
/// per output (planBlockReduction of its generic form, parallel loops
/// first, as there), such as a matrix-vector product or a global pool: a
/// prologue and an epilogue then run in the block's thread 0, on its
/// element, around the store of its result.
bool isBlockKernel(Operation *kernel) {
  auto op = dyn_cast<linalg::LinalgOp>(kernel);
  if (!op || !op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0)
    return false;
  // Asked of a clone, which goes again: whatever op stands where it was.
  Operation *before = op->getPrevNode();
  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPoint(op);
  auto clone = cast<linalg::LinalgOp>(rewriter.clone(*op));
  FailureOr<linalg::GenericOp> generic = parallelFirst(rewriter, clone);
  bool block = succeeded(generic) && planBlockReduction(*generic).has_value();
  if (Operation *temporary = op->getPrevNode(); temporary && temporary != before)
    rewriter.eraseOp(temporary);
  return block;
}

/// Whether the kernel need not store C when it has `epilogue`: C is read
/// by the epilogue alone (infer-cuda-prepare-epilogues marked it), or the
/// epilogue writes over all of C (in place) and leaves it as it would.
bool resultUnneeded(linalg::LinalgOp contraction, linalg::GenericOp epilogue) {
  Value root = storageRoot(contraction.getDpsInits()[0]);
  return contraction->hasAttr(kReadOnceAttr) ||
         llvm::any_of(epilogue.getDpsInits(),
                      [&](Value init) { return storageRoot(init) == root; });
}

/// The memrefs `op` reads: its inputs, and its outputs whose old value
/// its payload uses.
SmallVector<OpOperand *> readOperands(linalg::LinalgOp op) {
  SmallVector<OpOperand *> reads;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (op.isDpsInput(&operand) || op.payloadUsesValueFromOperand(&operand))
      reads.push_back(&operand);
  }
  return reads;
}

/// Whether the kernel of `contraction` with `prologue`, `epilogue` and
/// `operandProducer` writes nothing that it also reads (see the file
/// comment).
bool writesApartFromReads(linalg::LinalgOp contraction, linalg::LinalgOp prologue,
                          linalg::GenericOp epilogue, linalg::GenericOp operandProducer) {
  Value c = contraction.getDpsInits()[0];
  // C too with an epilogue: its padding, which the epilogue's box may
  // leave out, is stored.
  SmallVector<OpOperand *> writes = {&contraction.getDpsInitsMutable()[0]};
  if (epilogue)
    for (OpOperand &init : epilogue.getDpsInitsMutable())
      writes.push_back(&init);
  SmallVector<OpOperand *> reads;
  for (OpOperand *input : contraction.getDpsInputOperands())
    reads.push_back(input);
  // And what its payload reads itself (a guarded read of an unpadded input).
  for (OpOperand *operand : memrefOperandsOf(contraction))
    if (operand->getOwner() != contraction.getOperation())
      reads.push_back(operand);
  if (prologue) // Its inputs but C in place (canFuseIntoTensorCores checked that).
    for (OpOperand *input : readOperands(prologue))
      if (prologue.isDpsInput(input) && storageRoot(input->get()) != storageRoot(c))
        reads.push_back(input);
  if (epilogue)
    for (OpOperand *read : readOperands(epilogue))
      if (storageRoot(read->get()) != storageRoot(c)) // C comes from registers.
        reads.push_back(read);
  // All the producer reads, in its payload too (its output is never written).
  if (operandProducer)
    for (OpOperand *operand : memrefOperandsOf(operandProducer))
      if (operand->getOwner() != operandProducer.getOperation() ||
          !operandProducer.isDpsInit(operand))
        reads.push_back(operand);
  for (OpOperand *write : writes)
    for (OpOperand *read : reads) {
      if (!mayOverlap(write->get(), read->get()))
        continue;
      bool inPlace = epilogue && write->getOwner() == epilogue && read->getOwner() == epilogue &&
                     write->get() == read->get() &&
                     epilogue.getMatchingIndexingMap(write) == epilogue.getMatchingIndexingMap(read);
      if (!inPlace)
        return false;
    }
  return true;
}

struct FuseEpiloguesPass : public infer::impl::FuseEpiloguesPassBase<FuseEpiloguesPass> {
  using Base::Base;
  /// The contraction if `op` runs on the tensor cores as it is.
  static std::optional<ContractionShape> tensorCoreContraction(Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics())
      return std::nullopt;
    std::optional<ContractionShape> shape = tensorCoreShape(linalgOp);
    if (!shape || !fitsTensorCoreTiles(*shape) || !checkTensorCoreLayout(linalgOp, *shape))
      return std::nullopt;
    return shape;
  }

  void runOnOperation() override {
    func::FuncOp entry = lookupEntryFunction(getOperation());
    if (!entry || entry.isExternal())
      return;
    // The entry's kernels, in order (views and constants are pure).
    SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().front().without_terminator())
      if (!isPure(&op))
        kernels.push_back(&op);
    for (size_t i = 0; i < kernels.size(); ++i) {
      // A tensor-core contraction, or a reduction that runs a thread per
      // output (a point group).
      std::optional<ContractionShape> shape = tensorCoreContraction(kernels[i]);
      bool points = !shape && isPointKernel(kernels[i]);
      bool blocks = !shape && !points && isBlockKernel(kernels[i]);
      if (!shape && !points && !blocks)
        continue;
      auto producer = cast<linalg::LinalgOp>(kernels[i]);
      auto canFuse = [&](linalg::LinalgOp prologue, linalg::GenericOp epilogue) {
        return shape ? canFuseIntoTensorCores(producer, *shape, prologue, epilogue)
                     : canFuseElementwise(producer, producer.getStaticLoopRanges(), prologue,
                                          epilogue, /*allowPadding=*/false);
      };
      linalg::LinalgOp prologue = prologueCandidate(kernels, i);
      if (prologue && !canFuse(prologue, {}))
        prologue = {};
      linalg::GenericOp operandProducer;
      if (shape)
        operandProducer = operandProducerCandidate(kernels, i, *shape);
      std::optional<size_t> next = epilogueCandidate(kernels, i, prologue, operandProducer);
      linalg::GenericOp epilogue = next ? asGeneric(kernels[*next]) : nullptr;
      linalg::GenericOp made = next && epilogue != kernels[*next] ? epilogue : nullptr;
      // A point or block group's producer stores C as it is; a tensor-core
      // kernel with an epilogue does not.
      if (epilogue && (!canFuse(prologue, epilogue) ||
                       (shape && !resultUnneeded(producer, epilogue))))
        epilogue = {};
      bool apart = writesApartFromReads(producer, prologue, epilogue, operandProducer);
      if (!apart && epilogue) {
        epilogue = {};
        apart = writesApartFromReads(producer, prologue, epilogue, operandProducer);
      }
      if (!apart && operandProducer) {
        operandProducer = {};
        apart = writesApartFromReads(producer, prologue, epilogue, operandProducer);
      }
      bool fused = apart && (prologue || epilogue || operandProducer);
      // The generic made of a copy replaces it in the kernel, or goes.
      if (made && made == epilogue && fused) {
        kernels[*next]->erase();
        kernels[*next] = made;
      } else if (made) {
        made->erase();
      }
      if (!fused)
        continue;
      SmallVector<Operation *> group;
      if (operandProducer)
        group.push_back(operandProducer);
      if (prologue)
        group.push_back(prologue);
      group.push_back(producer);
      if (epilogue)
        group.push_back(epilogue);
      // An epilogue moved in is no longer the next one's prologue candidate.
      wrap(group, points ? StringRef(kPointGroupAttr)
                         : blocks ? StringRef(kBlockGroupAttr) : StringRef());
    }
  }

  /// One scf.execute_region (no results, not to be inlined) holding
  /// `group`, where its last op was; marked `kind` (if not empty).
  static void wrap(ArrayRef<Operation *> group, StringRef kind) {
    Operation *last = group.back();
    OpBuilder b(last);
    SmallVector<Location> locations;
    for (Operation *op : group)
      locations.push_back(op->getLoc());
    Location loc = b.getFusedLoc(locations);
    auto region = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
    region.setNoInline(true);
    if (!kind.empty())
      region->setAttr(kind, b.getUnitAttr());
    Block *body = b.createBlock(&region.getRegion());
    b.setInsertionPointToStart(body);
    auto yield = scf::YieldOp::create(b, loc);
    for (Operation *op : group)
      op->moveBefore(yield);
  }
};

} // namespace

