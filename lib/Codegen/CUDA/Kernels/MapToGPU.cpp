//===- MapToGPU.cpp - outlined kernels to gpu.funcs and a launch plan -----===//
//
// infer-cuda-map-to-gpu runs on memrefs after infer-outline-kernels with
// root arguments: the entry function is a list of calls whose arguments are
// the entry's own (inputs, weights, outputs, arena). For each call:
//
//   1. The kernel's linalg op is generalized, its parallel dims put first
//      (interchange), and lowered to an scf.parallel over the output whose
//      body holds the reduction loops.
//   2. The kernel becomes a gpu.func in one gpu.module: one thread per
//      point of the parallel loop, threads numbered linearly over all its
//      dims with the innermost dim fastest (so neighbouring threads touch
//      neighbouring elements: coalesced), blocks of a size the launch
//      configuration picks, and a bounds check for the last block.
//      A point group of infer-cuda-fuse-epilogues (a short reduction with
//      its prologue and epilogue) is lowered so too, each thread running
//      the prologue and epilogue on its own element around its reduction
//      loops. A kernel without a parallel loop runs on one thread. A reduction
//      with few outputs and a long reduction gets a block per output
//      instead (BlockReductions.cpp), its block group's prologue and
//      epilogue run by each block's thread 0; a float32 contraction that fits the
//      tensor cores, a WMMA kernel (TensorCores.cpp; with stage-tiles, one
//      that stages its tiles in shared memory, StagedTiles.cpp); an elementwise op
//      whose innermost dim is a multiple of 4, 4 elements a thread with
//      16-byte vector accesses where legal (VectorAccesses.cpp).
//   3. The call becomes a launch record (#plan.launch: grid, block,
//      argument indices, the kernel's strategy and plan) on the module
//      (`plan.launches`); the host functions are erased, since the runtime
//      executes the plan itself.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"
#include "Kernels/BlockReductions.h"
#include "Kernels/Delinearize.h"
#include "Kernels/ParallelLoops.h"
#include "Kernels/RowKernels.h"
#include "Kernels/StagedTiles.h"
#include "Kernels/TensorCoreFusion.h"
#include "Kernels/TensorCores.h"
#include "Kernels/VectorAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_MAPTOGPUPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// The launch configuration of a kernel: data, so that a tuner can replace
/// the heuristic later.
struct LaunchConfig {
  int64_t blockSize = 1;
  int64_t gridSize = 1;
  KernelConfig kernel;
};

/// The attribute that says how a gpu.func maps its op (for tests and
/// readers of kernels.mlir).
constexpr StringLiteral kStrategyAttr = "plan.strategy";

/// Records the block size `config` launches `func` with (known to the
/// lowering) and the kernel's strategy on it; returns `config`.
LaunchConfig finishKernel(gpu::GPUFuncOp func, LaunchConfig config) {
  Builder b(func.getContext());
  func->setAttr(kStrategyAttr,
                plan::KernelStrategyAttr::get(func.getContext(), config.kernel.strategy));
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({static_cast<int32_t>(config.blockSize), 1, 1}));
  return config;
}

/// A launch configuration of `strategy` with no plan of its own.
LaunchConfig launchOf(KernelStrategy strategy, int64_t blockSize, int64_t gridSize) {
  LaunchConfig config{blockSize, gridSize, {}};
  config.kernel.strategy = strategy;
  return config;
}

/// Heuristic: 256 threads a block (8 warps: enough to hide latency and
/// small enough for many blocks per multiprocessor), fewer, in whole
/// warps, for small loops.
LaunchConfig chooseLaunchConfig(int64_t iterations) {
  constexpr int64_t kWarp = 32, kBlock = 256;
  LaunchConfig config;
  config.blockSize = std::min(kBlock, (iterations + kWarp - 1) / kWarp * kWarp);
  config.gridSize = (iterations + config.blockSize - 1) / config.blockSize;
  return config;
}

LogicalResult lowerToParallelLoops(RewriterBase &rewriter, linalg::GenericOp op) {
  rewriter.setInsertionPoint(op);
  if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
    return op->emitError("internal: cannot lower to parallel loops");
  rewriter.eraseOp(op);
  return success();
}

/// Replaces `loop` by one thread per iteration: linear id = block id x
/// block size + thread id, delinearized over the loop's dims (innermost
/// fastest) under a bounds check.
void distributeOverThreads(OpBuilder &b, scf::ParallelOp loop, ArrayRef<int64_t> counts,
                           int64_t blockSize, int64_t total) {
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, cst(blockSize)), thread);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear, cst(total));
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  cloneIteration(b, loop, linear, counts);
  loop.erase();
}

struct MapToGPUPass : public infer::impl::MapToGPUPassBase<MapToGPUPass> {
  using Base::Base;
  /// Sets the workgroup buffer `index` of `func` to 32-byte alignment (WMMA's).
  static void alignForWMMA(gpu::GPUFuncOp func, unsigned index) {
    func.setWorkgroupAttributionAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                                     Builder(func.getContext()).getI64IntegerAttr(32));
  }

  /// A gpu.func named like `kernel`, with `kernel`'s body cloned in (and
  /// the globals and functions it uses copied into the GPU module); the
  /// clones of `kernel`'s side-effecting ops go to `work`.
  gpu::GPUFuncOp cloneIntoGPU(func::FuncOp kernel, gpu::GPUModuleOp gpuModule, ModuleOp module,
                              SmallVector<Operation *> &work, TypeRange workgroup = {}) {
    OpBuilder b(gpuModule.getBodyRegion());
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getName(),
                                       kernel.getFunctionType(), workgroup);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    IRMapping map;
    for (auto [from, to] : llvm::zip(kernel.getArguments(), func.getArguments()))
      map.map(from, to);
    b.setInsertionPointToStart(&func.getBody().front());
    for (Operation &op : kernel.getBody().front().without_terminator()) {
      Operation *clone = b.clone(op, map);
      if (!isPure(clone))
        work.push_back(clone);
    }
    gpu::ReturnOp::create(b, kernel.getLoc());
    // What the body refers to by name: bufferized small constants and
    // generated helpers (integer powers) need their copy in the GPU module.
    OpBuilder gb(gpuModule.getBodyRegion());
    gb.setInsertionPointToStart(gpuModule.getBody());
    func.walk([&](Operation *op) {
      StringRef name;
      if (auto get = dyn_cast<memref::GetGlobalOp>(op))
        name = get.getName();
      else if (auto call = dyn_cast<func::CallOp>(op))
        name = call.getCallee();
      else
        return;
      if (gpuModule.lookupSymbol(name))
        return;
      if (Operation *symbol = module.lookupSymbol(name))
        gb.clone(*symbol);
    });
    return func;
  }

  /// The shared-memory tensor-core kernel for `kernel`, whose work is the
  /// contraction `op` with `fusion`; nothing (and no gpu.func) if its
  /// layout or shape does not suit it.
  std::optional<LaunchConfig> buildStagedTiles(func::FuncOp kernel, gpu::GPUModuleOp gpuModule,
                                               ModuleOp module, linalg::LinalgOp op,
                                               const TensorCoreFusion &fusion) {
    std::optional<ContractionShape> shape = tensorCoreShape(op);
    if (!shape || !fitsTensorCoreTiles(*shape))
      return std::nullopt;
    std::optional<TensorCoreOperands> layout = checkTensorCoreLayout(op, *shape);
    if (!layout)
      return std::nullopt;
    ContractionKey contraction = contractionKey(*shape, *layout);
    auto tuned = tunedPlans.plans.find(contraction);
    std::optional<TilePlan> plan = planStagedTiles(
        *shape, *layout, tuned != tunedPlans.plans.end() ? tuned->second : tilePlan);
    if (!plan)
      return std::nullopt;
    SmallVector<Operation *> work;
    SmallVector<Type> workgroup = {
        stagedTilesScratchType(kernel.getContext(), *plan, *layout, fusion)};
    gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work, workgroup);
    Operation *root = work.size() == 1 ? work.front() : nullptr;
    std::optional<std::pair<linalg::LinalgOp, TensorCoreFusion>> clones = clonesOf(root);
    // A produced operand (OperandProducers.h) is the warp-a-tile kernel's alone.
    if (!clones || !clones->first || clones->second.operandProducer) {
      func.erase();
      return std::nullopt;
    }
    alignForWMMA(func, 0);
    // Without it, ptxas for sm_90 caps these kernels at 80 registers and
    // spills a few bytes (it does not for sm_80); one block an SM is all
    // that is promised, so it may take what it needs.
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  Builder(func.getContext()).getI32IntegerAttr(1));
    OpBuilder b(root);
    auto [grid, block] = buildStagedTileKernel(b, clones->first, *shape, *layout, *plan,
                                               func.getWorkgroupAttributions()[0], clones->second);
    root->erase();
    LaunchConfig config = launchOf(KernelStrategy::StagedTiles, block, grid);
    config.kernel.tile = *plan;
    config.kernel.contraction = contraction;
    return finishKernel(func, config);
  }

  /// The contraction and its prologue and epilogue, if `kernel`'s work is
  /// a group that infer-cuda-fuse-epilogues made (an scf.execute_region).
  static std::optional<std::pair<linalg::LinalgOp, TensorCoreFusion>> groupOf(Operation *kernel) {
    scf::ExecuteRegionOp group;
    kernel->walk([&](scf::ExecuteRegionOp op) { group = op; });
    if (!group)
      return std::nullopt;
    std::pair<linalg::LinalgOp, TensorCoreFusion> result;
    TensorCoreFusion &fusion = result.second;
    for (Operation &op : group.getRegion().front().without_terminator()) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp) // infer-cuda-fuse-epilogues groups linalg ops only.
        return std::make_pair(linalg::LinalgOp(), TensorCoreFusion());
      if (!result.first && tensorCoreShape(linalgOp))
        result.first = linalgOp;
      else if (!result.first && linalgOp->hasAttr(kOperandProducerAttr))
        fusion.operandProducer = dyn_cast<linalg::GenericOp>(op);
      else if (!result.first)
        fusion.prologue = linalgOp;
      else
        fusion.epilogue = dyn_cast<linalg::GenericOp>(op);
    }
    if (result.first && fusion.operandProducer) { // The input it writes.
      Value written = storageRoot(fusion.operandProducer.getDpsInits()[0]);
      auto inputs = result.first.getDpsInputs();
      auto produced = llvm::find_if(inputs, [&](Value v) { return storageRoot(v) == written; });
      if (produced == inputs.end()) // Never: canProduceOperand saw the same storage.
        return std::make_pair(linalg::LinalgOp(), TensorCoreFusion());
      fusion.producedOperand = produced - inputs.begin();
    }
    return result; // Without a contraction: not a group this pass can build.
  }

  /// The contraction and its prologue and epilogue in `root`, a kernel's
  /// one piece of work cloned into its gpu.func: a group, or the op alone.
  static std::optional<std::pair<linalg::LinalgOp, TensorCoreFusion>> clonesOf(Operation *root) {
    if (root && isa<scf::ExecuteRegionOp>(root))
      return groupOf(root);
    if (auto op = dyn_cast_if_present<linalg::LinalgOp>(root))
      return std::make_pair(op, TensorCoreFusion());
    return std::nullopt;
  }

  /// A point or block group's ops: the prologue (or null), the reduction
  /// (null if there is none) and the epilogue (or null).
  struct GroupParts {
    linalg::LinalgOp prologue, producer, epilogue;
  };
  static GroupParts partsOf(scf::ExecuteRegionOp region) {
    SmallVector<linalg::LinalgOp> ops;
    for (Operation &op : region.getRegion().front().without_terminator())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        ops.push_back(linalgOp);
    auto producer = llvm::find_if(ops, [](linalg::LinalgOp op) {
      return op.getNumReductionLoops() > 0;
    });
    if (producer == ops.end())
      return {};
    return {producer != ops.begin() ? ops.front() : linalg::LinalgOp(), *producer,
            producer + 1 != ops.end() ? ops.back() : linalg::LinalgOp()};
  }

  /// Lowers a point group (infer-cuda-fuse-epilogues: a reduction run a
  /// thread per output, with its prologue and epilogue) to one parallel
  /// loop where `region` was: the reduction's loops, with the prologue's
  /// work on the thread's element before its reduction loops and the
  /// epilogue's after them.
  static LogicalResult lowerPointGroup(scf::ExecuteRegionOp region) {
    auto [prologue, producer, epilogue] = partsOf(region);
    if (!producer)
      return failure();
    IRRewriter rewriter(region.getContext());
    FailureOr<linalg::GenericOp> generic = parallelFirst(rewriter, producer);
    if (failed(generic))
      return failure();
    // Its loop nest: one scf.parallel over the parallel dims (first now),
    // with the reduction loops inside.
    rewriter.setInsertionPoint(*generic);
    if (failed(linalg::linalgOpToParallelLoops(rewriter, *generic)))
      return failure();
    auto loops = region.getRegion().front().getOps<scf::ParallelOp>();
    if (!llvm::hasSingleElement(loops))
      return failure();
    scf::ParallelOp loop = *loops.begin();
    // The epilogue the one reader of the output (and writing elsewhere):
    // its stores need not reach memory once the epilogue gets the sum in
    // a register (infer-cuda-promote-accumulators).
    Value output = generic->getDpsInits()[0];
    if (epilogue && producer->hasAttr(kReadOnceAttr) &&
        llvm::none_of(epilogue.getDpsInits(),
                      [&](Value init) { return storageRoot(init) == storageRoot(output); }))
      loop.walk([&](memref::StoreOp store) {
        if (store.getMemRef() == output)
          store->setAttr(kUnneededAfterKernelAttr, rewriter.getUnitAttr());
      });
    SmallVector<Value> point(loop.getInductionVars());
    point.resize(generic->getNumLoops(), point.front()); // The reduction dims are not read.
    OpBuilder b(loop.getBody(), loop.getBody()->begin());
    if (prologue)
      emitElementwiseAtPoint(b, prologue.getLoc(), *generic, prologue, /*isPrologue=*/true,
                             point);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    if (epilogue)
      emitElementwiseAtPoint(b, epilogue.getLoc(), *generic, epilogue, /*isPrologue=*/false,
                             point);
    rewriter.eraseOp(*generic);
    for (linalg::LinalgOp op : {prologue, epilogue})
      if (op)
        rewriter.eraseOp(op);
    // The loop (and the constants it uses) where the region was.
    Block &body = region.getRegion().front();
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      op.moveBefore(region);
    rewriter.eraseOp(region);
    return success();
  }

  /// The shared scratch of a block reduction of `op`.
  static MemRefType blockReductionScratchType(linalg::GenericOp op,
                                              const BlockReductionPlan &plan) {
    Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    return MemRefType::get(
        {plan.scratchSize}, element, AffineMap(),
        gpu::AddressSpaceAttr::get(op.getContext(), gpu::AddressSpace::Workgroup));
  }

  /// The block-reduction kernel for `kernel`, whose work is the block group
  /// `region` (infer-cuda-fuse-epilogues): thread 0 of each block runs the
  /// prologue and epilogue on its element. Nothing (and no gpu.func) if its
  /// reduction is no block reduction after all.
  std::optional<LaunchConfig> buildBlockGroup(func::FuncOp kernel, gpu::GPUModuleOp gpuModule,
                                              ModuleOp module, scf::ExecuteRegionOp region) {
    GroupParts parts = partsOf(region);
    if (!parts.producer)
      return std::nullopt;
    IRRewriter rewriter(kernel.getContext());
    FailureOr<linalg::GenericOp> generic = parallelFirst(rewriter, parts.producer);
    std::optional<BlockReductionPlan> plan =
        succeeded(generic) ? planBlockReduction(*generic) : std::nullopt;
    if (!plan)
      return std::nullopt;
    SmallVector<Operation *> work;
    gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work,
                                       blockReductionScratchType(*generic, *plan));
    auto clone = work.size() == 1 ? dyn_cast<scf::ExecuteRegionOp>(work.front())
                                  : scf::ExecuteRegionOp();
    GroupParts clones = clone ? partsOf(clone) : GroupParts();
    auto producer = dyn_cast_if_present<linalg::GenericOp>(clones.producer.getOperation());
    OpBuilder b(clone ? clone.getOperation() : func.getOperation());
    if (!producer || failed(buildBlockReductionKernel(b, producer, *plan,
                                                      func.getWorkgroupAttributions()[0], {},
                                                      clones.prologue, clones.epilogue))) {
      func.erase();
      return std::nullopt;
    }
    clone->erase();
    return finishKernel(func, launchOf(KernelStrategy::BlockReduction, plan->blockSize,
                                       plan->gridSize));
  }

  /// The WMMA kernel for `kernel`, whose work is `contraction` with
  /// `fusion`; failure (and no gpu.func) if its layout does not suit WMMA.
  FailureOr<LaunchConfig> buildTensorCores(func::FuncOp kernel, gpu::GPUModuleOp gpuModule,
                                           ModuleOp module, linalg::LinalgOp contraction,
                                           const TensorCoreFusion &fusion) {
    ContractionShape shape = *tensorCoreShape(contraction);
    TensorCorePlan plan = planTensorCoreKernel(shape);
    MemRefType scratchType = tensorCoreScratchType(kernel.getContext(), shape, plan, fusion);
    SmallVector<Type> workgroup;
    if (scratchType)
      workgroup.push_back(scratchType);
    SmallVector<Operation *> work;
    gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work, workgroup);
    Value scratch;
    if (scratchType) {
      scratch = func.getWorkgroupAttributions()[0];
      alignForWMMA(func, 0);
    }
    // The clones of the contraction and of its prologue and epilogue.
    Operation *root = work.size() == 1 ? work.front() : nullptr;
    std::optional<std::pair<linalg::LinalgOp, TensorCoreFusion>> clones = clonesOf(root);
    OpBuilder b(root ? root : func.getOperation());
    FailureOr<std::pair<int64_t, int64_t>> launch =
        clones && clones->first
            ? buildTensorCoreKernel(b, clones->first, shape, plan, scratch, clones->second)
            : FailureOr<std::pair<int64_t, int64_t>>(failure());
    if (failed(launch)) {
      func.erase();
      return failure();
    }
    root->erase();
    return finishKernel(func,
                        launchOf(KernelStrategy::TensorCores, launch->second, launch->first));
  }

  /// The gpu.func for `kernel`, and its launch configuration.
  FailureOr<LaunchConfig> buildKernel(func::FuncOp kernel, gpu::GPUModuleOp gpuModule,
                                      ModuleOp module) {
    if (std::optional<RowKernelPlan> plan = planRowKernel(kernel)) {
      SmallVector<Operation *> work;
      gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work, plan->workgroup);
      auto forall = work.size() == 1 ? dyn_cast<scf::ForallOp>(work.front()) : scf::ForallOp();
      OpBuilder b(func.getBody());
      if (!forall || failed(buildRowKernel(b, forall, *plan, func.getWorkgroupAttributions())))
        return kernel.emitError("internal: cannot build the row kernel");
      return finishKernel(func, launchOf(KernelStrategy::Rows, plan->blockSize, plan->gridSize));
    }
    scf::ExecuteRegionOp reductionGroup; // A point or block group.
    kernel.walk([&](scf::ExecuteRegionOp region) {
      if (region->hasAttr(kPointGroupAttr) || region->hasAttr(kBlockGroupAttr))
        reductionGroup = region;
    });
    if (reductionGroup && reductionGroup->hasAttr(kBlockGroupAttr))
      if (std::optional<LaunchConfig> config =
              buildBlockGroup(kernel, gpuModule, module, reductionGroup))
        return *config; // Else a thread per output, as a point group.
    if (reductionGroup) {
      if (failed(lowerPointGroup(reductionGroup)))
        return kernel.emitError("internal: cannot build the fused kernel of a reduction");
      return buildSimt(kernel, gpuModule, module);
    }
    if (auto group = groupOf(kernel)) {
      if (!group->first)
        return kernel.emitError("internal: a fused group that is not a tensor-core contraction "
                                "with a prologue and an epilogue");
      if (stageTiles)
        if (std::optional<LaunchConfig> config =
                buildStagedTiles(kernel, gpuModule, module, group->first, group->second))
          return *config;
      FailureOr<LaunchConfig> config =
          buildTensorCores(kernel, gpuModule, module, group->first, group->second);
      if (failed(config))
        return kernel.emitError("internal: cannot build the fused tensor-core kernel");
      return config;
    }
    SmallVector<linalg::LinalgOp> linalgOps;
    kernel.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    if (allowTF32 && linalgOps.size() == 1) {
      std::optional<ContractionShape> shape = tensorCoreShape(linalgOps.front());
      if (stageTiles)
        if (std::optional<LaunchConfig> config =
                buildStagedTiles(kernel, gpuModule, module, linalgOps.front(), {}))
          return *config;
      if (shape && fitsTensorCoreTiles(*shape)) {
        FailureOr<LaunchConfig> config =
            buildTensorCores(kernel, gpuModule, module, linalgOps.front(), {});
        if (succeeded(config))
          return config; // Else the layout does not suit WMMA: the SIMT path below.
      }
    }

    IRRewriter rewriter(kernel.getContext());
    SmallVector<linalg::GenericOp> generics;
    for (linalg::LinalgOp op : linalgOps) {
      FailureOr<linalg::GenericOp> generic = parallelFirst(rewriter, op);
      if (failed(generic))
        return failure();
      generics.push_back(*generic);
    }
    if (generics.size() == 1)
      if (std::optional<BlockReductionPlan> plan = planBlockReduction(generics.front())) {
        SmallVector<Operation *> work;
        gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work,
                                           blockReductionScratchType(generics.front(), *plan));
        auto op = work.size() == 1 ? dyn_cast<linalg::GenericOp>(work.front()) : linalg::GenericOp();
        OpBuilder b(op ? op.getOperation() : func.getOperation());
        if (op && succeeded(buildBlockReductionKernel(b, op, *plan,
                                                      func.getWorkgroupAttributions()[0]))) {
          op->erase();
          return finishKernel(func, launchOf(KernelStrategy::BlockReduction, plan->blockSize,
                                             plan->gridSize));
        }
        func.erase(); // Not a reduction it handles after all: the SIMT path.
      }
    if (generics.size() == 1)
      if (std::optional<VectorAccessPlan> plan = planVectorAccesses(generics.front())) {
        SmallVector<Operation *> work;
        gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work);
        auto op = work.size() == 1 ? dyn_cast<linalg::GenericOp>(work.front()) : linalg::GenericOp();
        if (op) {
          LaunchConfig config = chooseLaunchConfig(plan->threads);
          config.kernel.strategy = KernelStrategy::Vector;
          OpBuilder b(op);
          buildVectorAccessKernel(b, op, *plan, config.blockSize);
          op->erase();
          return finishKernel(func, config);
        }
        func.erase();
      }
    for (linalg::GenericOp op : generics)
      if (failed(lowerToParallelLoops(rewriter, op)))
        return failure();
    return buildSimt(kernel, gpuModule, module);
  }

  /// The gpu.func for `kernel` whose work is parallel loops now: one
  /// thread an iteration (or a single thread).
  FailureOr<LaunchConfig> buildSimt(func::FuncOp kernel, gpu::GPUModuleOp gpuModule,
                                    ModuleOp module) {
    SmallVector<Operation *> work;
    gpu::GPUFuncOp func = cloneIntoGPU(kernel, gpuModule, module, work);
    OpBuilder b(func.getBody());

    LaunchConfig config;
    auto loop = work.size() == 1 ? dyn_cast<scf::ParallelOp>(work.front()) : scf::ParallelOp();
    std::optional<SmallVector<int64_t>> counts;
    if (loop)
      counts = tripCounts(loop);
    if (counts) {
      int64_t total = 1;
      for (int64_t c : *counts)
        total *= c;
      if (total == 0) {
        loop.erase(); // Nothing to compute: an empty launch still runs one thread.
      } else {
        config = chooseLaunchConfig(total);
        distributeOverThreads(b, loop, *counts, config.blockSize, total);
      }
    } else {
      // Sequential on one thread (scf-to-cf makes any parallel loop
      // inside sequential): correct but slow; marked for --dump-kernels.
      config.kernel.strategy = KernelStrategy::SingleThread;
    }
    return finishKernel(func, config);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = lookupEntryFunction(module);
    if (!entry || entry.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "kernels");

    SmallVector<Attribute> launches;
    for (Operation &op : entry.getBody().front()) {
      if (isa<func::ReturnOp>(op) || isPure(&op))
        continue; // Views: the kernels recompute what they need.
      auto call = dyn_cast<func::CallOp>(op);
      if (!call) {
        op.emitError("internal: the CUDA back end cannot run '")
            << op.getName() << "' outside a kernel";
        return signalPassFailure();
      }
      auto kernel = module.lookupSymbol<func::FuncOp>(call.getCallee());
      KernelLaunch launch;
      launch.kernel = call.getCallee().str();
      for (Value arg : call.getOperands()) {
        auto root = dyn_cast<BlockArgument>(arg);
        if (!root || root.getOwner() != &entry.getBody().front()) {
          call.emitError("internal: a kernel argument is not a whole input, weight, output or "
                         "the arena");
          return signalPassFailure();
        }
        launch.args.push_back(root.getArgNumber());
      }
      FailureOr<LaunchConfig> config = buildKernel(kernel, gpuModule, module);
      if (failed(config))
        return signalPassFailure();
      launch.grid = config->gridSize;
      launch.block = config->blockSize;
      launch.config = config->kernel;
      launches.push_back(toAttr(ctx, launch));
    }
    module->setAttr(plan::kLaunchesAttr, b.getArrayAttr(launches));
    // The host side is the plan now; the runtime executes it.
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      func.erase();
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      global.erase();
  }
};

} // namespace
