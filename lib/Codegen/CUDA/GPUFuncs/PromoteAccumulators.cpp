//===- PromoteAccumulators.cpp - reduction accumulators in registers ------===//
//
// infer-cuda-promote-accumulators runs on the gpu.funcs that
// infer-cuda-map-to-gpu made. A thread that computes one output of a
// reduction (a SIMT kernel, a point group: a depthwise convolution, a
// pool, a ConvTranspose window) walks the reduction loops that linalg's
// lowering wrote with the accumulator in memory:
//
//   scf.for %kh { scf.for %kw {
//     %acc = memref.load %out[%i, %j]
//     %x = memref.load %in[...]
//     memref.store (%acc + %x * %w), %out[%i, %j]
//   } }
//
// The output and the inputs are views of one arena, so LLVM cannot tell
// that the store does not change what the next load reads: it keeps every
// store, and no input load moves above one (a 3x3 depthwise convolution:
// 9 stores, and 9 loads each waiting for the last). Here the accumulator
// is carried through the loops instead,
//
//   %acc0 = memref.load %out[%i, %j]
//   %r = scf.for %kh iter_args(%a = %acc0) { scf.for %kw iter_args(%b = %a) {
//     %x = memref.load %in[...]
//     scf.yield (%b + %x * %w)
//   } }
//   memref.store %r, %out[%i, %j]
//
// A value stored to the element just before the loops (a point group's
// bias) becomes %acc0 directly, that store dead; loads of the element after
// the final store (the epilogue's) take %r.
//
// A final store marked kUnneededAfterKernelAttr (a point group's output,
// read by its epilogue alone) goes too once no access to the output's
// storage is left in the kernel: its epilogue's loads took the sum.
//
// This is the same computation as long as nothing in the loops writes
// memory (checked: the rewrite applies only then) and no load in them reads
// the accumulated element (an output overlapping its own reduction's inputs
// would already race between the threads that share those inputs, so the
// kernels never have one).
//
//===----------------------------------------------------------------------===//

#include "Kernels/TensorCoreFusion.h"

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_PROMOTEACCUMULATORSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// An accumulator in memory: a load and a store of one element in the
/// innermost loop of `loops` (outermost first).
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
  SmallVector<scf::ForOp> loops;
};

/// Whether `op` may write memory (conservatively: any unknown effect), the
/// ops nested in it included.
bool mayWrite(Operation *op) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects && effects.hasEffect<MemoryEffects::Write>())
      return true;
    for (Region &region : op->getRegions())
      for (Operation &inner : region.getOps())
        if (mayWrite(&inner))
          return true;
    return false;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  return effects.hasEffect<MemoryEffects::Write>() || effects.hasEffect<MemoryEffects::Free>() ||
         effects.hasEffect<MemoryEffects::Allocate>();
}

/// The accumulator that `store` ends, if it is one: a load of the same
/// memref and indices precedes it in its block, and the loops are the
/// scf.for ops around them up to the outermost that leaves the memref and
/// the indices invariant.
std::optional<Accumulator> accumulatorOf(memref::StoreOp store) {
  Accumulator acc;
  acc.store = store;
  for (Operation *op = store->getPrevNode(); op && !acc.load; op = op->getPrevNode()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && load.getMemRef() == store.getMemRef() && load.getIndices() == store.getIndices())
      acc.load = load;
  }
  if (!acc.load)
    return std::nullopt;
  auto definedIn = [](Operation *loop, Value v) {
    return loop->isAncestor(v.getParentBlock()->getParentOp());
  };
  for (auto loop = dyn_cast<scf::ForOp>(store->getParentOp()); loop;
       loop = dyn_cast<scf::ForOp>(loop->getParentOp())) {
    if (definedIn(loop, store.getMemRef()) ||
        llvm::any_of(store.getIndices(), [&](Value i) { return definedIn(loop, i); }))
      break;
    acc.loops.insert(acc.loops.begin(), loop);
  }
  if (acc.loops.empty())
    return std::nullopt;
  // Nothing in the loops may write memory but this store, or use the
  // accumulator's memref other than through its load.
  WalkResult walk = acc.loops.front()->walk([&](Operation *op) {
    if (op == store || op == acc.load || isa<scf::ForOp, scf::YieldOp>(op))
      return WalkResult::advance();
    if (mayWrite(op) || llvm::is_contained(op->getOperands(), store.getMemRef()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return acc;
}

/// The store of `memref`'s element at `indices` right before `op`, with
/// only ops that neither read nor write memory between.
memref::StoreOp storeBefore(Operation *op, Value memref, ValueRange indices) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto store = dyn_cast<memref::StoreOp>(prev))
      return store.getMemRef() == memref && store.getIndices() == indices ? store
                                                                          : memref::StoreOp();
    if (!isMemoryEffectFree(prev))
      return {};
  }
  return {};
}

/// Whether anything in `store`'s kernel but `store` reads or writes the
/// storage it writes, through any view of it.
bool accessedElsewhere(memref::StoreOp store) {
  Value root = storageRoot(store.getMemRef());
  auto kernel = store->getParentOfType<gpu::GPUFuncOp>();
  WalkResult walk = kernel.walk([&](Operation *op) {
    bool isView = op->getNumResults() == 1 && isa<MemRefType>(op->getResult(0).getType());
    if (op == store || isView)
      return WalkResult::advance();
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && storageRoot(operand) == root)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Carries `acc` through its loops: a load before them, an iter_arg in each
/// and a store after them.
void promote(RewriterBase &rewriter, Accumulator &acc) {
  Location loc = acc.load.getLoc();
  Value memref = acc.store.getMemRef();
  SmallVector<Value> indices(acc.store.getIndices());
  Value stored = acc.store.getValueToStore();
  bool unneeded = acc.store->hasAttr(kUnneededAfterKernelAttr);
  rewriter.setInsertionPoint(acc.loops.front());
  // The value stored just before the loops (a point group's bias, its
  // initial value) is the init itself, and that store is dead: the loops
  // read the element only through the accumulator, and the store after
  // them overwrites it.
  Value init;
  if (memref::StoreOp before = storeBefore(acc.loops.front(), memref, indices)) {
    init = before.getValueToStore();
    rewriter.eraseOp(before);
  } else {
    init = memref::LoadOp::create(rewriter, loc, memref, indices);
  }
  // Outermost first: each loop's new iter_arg is its inner loop's init; its
  // yield is set to the inner loop's new result once that exists.
  auto setLastYield = [&](scf::ForOp loop, Value value) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    rewriter.modifyOpInPlace(yield, [&] {
      yield.getResultsMutable()[yield.getNumOperands() - 1].set(value);
    });
  };
  SmallVector<scf::ForOp> loops;
  for (scf::ForOp loop : acc.loops) {
    auto grown = cast<scf::ForOp>(
        *loop.replaceWithAdditionalYields(rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
                                          [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
                                            return SmallVector<Value>{args.front()};
                                          }));
    if (!loops.empty())
      setLastYield(loops.back(), grown.getResults().back());
    init = grown.getRegionIterArgs().back();
    loops.push_back(grown);
  }
  // The innermost loop yields what was stored, computed from its iter_arg
  // where the load was.
  rewriter.replaceAllUsesWith(acc.load.getResult(), init);
  setLastYield(loops.back(), stored);
  rewriter.eraseOp(acc.store);
  rewriter.eraseOp(acc.load);
  rewriter.setInsertionPointAfter(loops.front());
  Value result = loops.front().getResults().back();
  auto after = memref::StoreOp::create(rewriter, loc, result, memref, indices);
  // Loads of the element after the store (a point group's epilogue) take
  // the sum, up to the first op that may write memory.
  SmallVector<memref::LoadOp> forwarded;
  for (Operation *op = after->getNextNode(); op && !mayWrite(op); op = op->getNextNode()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (load && load.getMemRef() == memref && load.getIndices() == ValueRange(indices))
      forwarded.push_back(load);
  }
  for (memref::LoadOp load : forwarded) {
    rewriter.replaceAllUsesWith(load.getResult(), result);
    rewriter.eraseOp(load);
  }
  if (unneeded && !accessedElsewhere(after))
    rewriter.eraseOp(after);
}

struct PromoteAccumulatorsPass : public infer::impl::PromoteAccumulatorsPassBase<PromoteAccumulatorsPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::GPUFuncOp func) {
      // Innermost stores first; each rewrite leaves the others' loops whole.
      SmallVector<memref::StoreOp> stores;
      func.walk([&](memref::StoreOp store) { stores.push_back(store); });
      for (memref::StoreOp store : stores)
        if (std::optional<Accumulator> acc = accumulatorOf(store))
          promote(rewriter, *acc);
    });
  }
};

} // namespace

