//===- WeightsAndArena.cpp - weights as arguments, buffers in one arena ---===//
//
// Two passes that fix the entry function's calling convention:
//
//   infer-hoist-weights  (tensors, before bufferization) large dense
//       constants become read-only arguments after the inputs. Their bytes go
//       to the engine's weights section instead of into LLVM IR, which is
//       what made big models compile for minutes.
//   infer-plan-arena     (memrefs, after bufferization and out-params, before
//       deallocation) every statically shaped top-level allocation becomes a
//       view into one arena argument, at an offset chosen from liveness
//       (ArenaPlanner.h). The runtime allocates the arena once per context.
//
// Final argument order of the entry: inputs, weights, outputs, arena. The
// passes record what they did on the module (`infer.weights`,
// `infer.arena`); lowerToLLVMDialect reads and removes those attributes.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/Common/ArenaPlanner.h"
#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/Common/FusionMarkers.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_HOISTWEIGHTSPASS
#define GEN_PASS_DEF_PLANARENAPASS
#include "infer-opt/Codegen/Common/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

func::FuncOp mlir::infer::lookupEntryFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>("inferrt_main"))
    return f;
  return module.lookupSymbol<func::FuncOp>("main");
}

namespace {

/// Only whole bytes per element travel as raw little-endian data; i1
/// constants (packed by MLIR) and small ones stay in the code.
bool isHoistable(arith::ConstantOp op, int64_t minBytes) {
  auto type = dyn_cast<RankedTensorType>(op.getType());
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(op.getValue());
  if (!type || !dense || dense.isSplat() || !type.hasStaticShape())
    return false;
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  return type.getNumElements() * (element.getIntOrFloatBitWidth() / 8) >= minBytes;
}

struct HoistWeightsPass : public infer::impl::HoistWeightsPassBase<HoistWeightsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp func = lookupEntryFunction(module);
    if (!func || func.isExternal())
      return;
    SmallVector<arith::ConstantOp> constants;
    func.walk([&](arith::ConstantOp op) {
      if (isHoistable(op, minBytes))
        constants.push_back(op);
    });
    MLIRContext *ctx = &getContext();
    auto readOnly = DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, bufferization::BufferizationDialect::kWritableAttrName),
                             BoolAttr::get(ctx, false))});
    // Equal constants share one argument (attributes are uniqued).
    llvm::DenseMap<Attribute, BlockArgument> arguments;
    SmallVector<Attribute> weights;
    for (arith::ConstantOp op : constants) {
      auto [it, inserted] = arguments.try_emplace(op.getValue(), BlockArgument());
      if (inserted) {
        unsigned index = func.getNumArguments();
        if (failed(func.insertArgument(index, op.getType(), readOnly, op.getLoc())))
          return signalPassFailure();
        it->second = func.getArgument(index);
        weights.push_back(op.getValue());
      }
      op.getResult().replaceAllUsesWith(it->second);
      op.erase();
    }
    module->setAttr("infer.weights", ArrayAttr::get(ctx, weights));
  }
};

/// Calls `visit` on each user of `buffer` or of anything derived from it,
/// until `visit` returns false. Conservatively, any memref an op returns
/// may alias its operands (views, casts, reshapes, loops carrying the
/// buffer). Whether it stopped early.
bool visitAliasUsers(Value buffer, llvm::function_ref<bool(Operation *)> visit) {
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  for (size_t i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers()) {
      if (!visit(user))
        return true;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          aliases.insert(result);
    }
  return false;
}

/// The first top-level op after `producer` (a linalg op marked
/// `infer.operand_producer`) that uses its output, through any view of it:
/// the contraction whose kernel may run the producer's work.
Operation *firstReaderOfOutput(Operation *producer,
                               const llvm::DenseMap<Operation *, int64_t> &positions) {
  auto op = dyn_cast<linalg::LinalgOp>(producer);
  if (!op || op.getNumDpsInits() != 1)
    return nullptr;
  // The buffer the output is a view of, then every view of that.
  Value root = op.getDpsInits()[0];
  while (Operation *def = root.getDefiningOp()) {
    auto source = llvm::find_if(def->getOperands(),
                                [](Value v) { return isa<BaseMemRefType>(v.getType()); });
    if (source == def->operand_end())
      break;
    root = *source;
  }
  Block *block = producer->getBlock();
  Operation *first = nullptr;
  visitAliasUsers(root, [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && ancestor != producer && isa<linalg::LinalgOp>(ancestor) &&
        positions.lookup(ancestor) > positions.lookup(producer) &&
        (!first || positions.lookup(ancestor) < positions.lookup(first)))
      first = ancestor;
    return true;
  });
  return first;
}

/// The position until which the operands of the top-level op `user` must
/// live: its own, or, for a contraction marked `infer.read_once` or a short
/// reduction marked `infer.point_reduction` (by infer-cuda-prepare-epilogues:
/// its next op may run in its kernel, as an epilogue), that of the next
/// linalg op, lest the planner put the epilogue's output where a still-read
/// input was.
int64_t operandsLiveUntil(Operation *user, const llvm::DenseMap<Operation *, int64_t> &positions) {
  int64_t position = positions.lookup(user);
  if (user->hasAttr(kOperandProducerAttr))
    if (Operation *reader = firstReaderOfOutput(user, positions))
      return operandsLiveUntil(reader, positions);
  if (!user->hasAttr(kReadOnceAttr) && !user->hasAttr(kPointReductionAttr))
    return position;
  for (Operation *next = user->getNextNode(); next; next = next->getNextNode())
    if (isa<linalg::LinalgOp>(next))
      return positions.lookup(next);
  return position;
}

/// The last top-level position at which the buffer `alloc` or anything
/// derived from it is used; nullopt if it escapes through the terminator
/// (then it cannot live in the arena).
std::optional<int64_t> lastUse(memref::AllocOp alloc, Block &block,
                               const llvm::DenseMap<Operation *, int64_t> &positions) {
  int64_t last = positions.lookup(alloc);
  bool escapes = visitAliasUsers(alloc.getResult(), [&](Operation *user) {
    if (user == block.getTerminator())
      return false;
    Operation *ancestor = block.findAncestorOpInBlock(*user);
    last = std::max(last, ancestor ? operandsLiveUntil(ancestor, positions) : -1);
    return true;
  });
  if (escapes)
    return std::nullopt;
  return last;
}

struct PlanArenaPass : public infer::impl::PlanArenaPassBase<PlanArenaPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp func = lookupEntryFunction(module);
    if (!func || func.isExternal())
      return;
    Block &block = func.getBody().front();
    llvm::DenseMap<Operation *, int64_t> positions;
    int64_t position = 0;
    for (Operation &op : block)
      positions[&op] = position++;

    SmallVector<memref::AllocOp> allocs;
    std::vector<ArenaBuffer> buffers;
    for (Operation &op : block) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !type.getElementType().isIntOrIndexOrFloat() || type.getElementType().isIndex())
        continue;
      std::optional<int64_t> last = lastUse(alloc, block, positions);
      if (!last)
        continue;
      uint64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
      allocs.push_back(alloc);
      buffers.push_back({static_cast<uint64_t>(type.getNumElements()) * elementBytes,
                         positions[alloc], *last});
    }
    ArenaPlan plan = planArena(buffers);

    MLIRContext *ctx = &getContext();
    uint64_t arenaBytes = std::max<uint64_t>(plan.peakBytes, 64);
    auto arenaType = MemRefType::get({static_cast<int64_t>(arenaBytes)}, IntegerType::get(ctx, 8));
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, arenaType, DictionaryAttr::get(ctx), func.getLoc())))
      return signalPassFailure();
    Value arena = func.getArgument(index);
    OpBuilder b(ctx);
    for (auto [alloc, offset] : llvm::zip(allocs, plan.offsets)) {
      b.setInsertionPoint(alloc);
      Value byteShift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(), arena, byteShift,
                                          ValueRange{});
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
    auto i64 = [&](uint64_t v) { return IntegerAttr::get(IntegerType::get(ctx, 64), v); };
    module->setAttr("infer.arena",
                    DictionaryAttr::get(ctx, {
                        NamedAttribute(StringAttr::get(ctx, "bytes"), i64(arenaBytes)),
                        NamedAttribute(StringAttr::get(ctx, "buffers"), i64(buffers.size())),
                        NamedAttribute(StringAttr::get(ctx, "lower_bound"), i64(plan.lowerBoundBytes)),
                        NamedAttribute(StringAttr::get(ctx, "no_reuse"), i64(plan.noReuseBytes)),
                    }));
  }
};

} // namespace

