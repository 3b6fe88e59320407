//===- Bufferization.cpp - tensors to buffers, for both back ends ---------===//
//
// Large constants become weight arguments, results out-parameters, and
// intermediate buffers views into one arena; what the passes record on the
// module (weights, arena, kernels) is collected for the engine.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"


namespace mlir::infer {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#include "infer-opt/Codegen/Common/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

void mlir::infer::registerCodegenDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect, bufferization::BufferizationDialect,
                  cf::ControlFlowDialect, func::FuncDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect, omp::OpenMPDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry); // Accumulator hoisting.
  // Tiling computes tile bounds through these.
  linalg::registerTilingInterfaceExternalModels(registry);
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

namespace {
/// memref.copy -> linalg.copy, so that copies of strided views become loops
/// instead of calls to MLIR's `memrefCopy` runtime helper, which generated
/// code must not depend on.
struct CopyToLinalg : public OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::CopyOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(), op.getTarget());
    return success();
  }
};

struct MemRefCopyToLinalgPass : public infer::impl::MemRefCopyToLinalgPassBase<MemRefCopyToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::infer::addBufferizationPasses(OpPassManager &pm) {
  pm.addPass(createHoistWeightsPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results become caller-provided buffers: the caller owns all memory it sees.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true; // @main is public: it is the entry point.
  outParams.hoistStaticAllocs = true;     // Write results straight into the caller's buffers.
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createOutputsInPlacePass()); // What it could not hoist (reshaped results).
  pm.addPass(createPlanArenaPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createMemRefCopyToLinalgPass());
}

/// Moves what the passes recorded on the module into `artifacts`.
void mlir::infer::collectArtifacts(ModuleOp module, CodegenArtifacts *artifacts) {
  auto weights = module->getAttrOfType<ArrayAttr>("infer.weights");
  auto arena = module->getAttrOfType<DictionaryAttr>("infer.arena");
  auto kernels = module->getAttrOfType<ArrayAttr>("infer.kernels");
  module->removeAttr("infer.weights");
  module->removeAttr("infer.arena");
  module->removeAttr("infer.kernels");
  if (!artifacts)
    return;
  if (kernels)
    for (Attribute attr : kernels) {
      auto entry = cast<DictionaryAttr>(attr);
      std::vector<std::string> nodes;
      for (Attribute node : entry.getAs<ArrayAttr>("nodes"))
        nodes.push_back(cast<StringAttr>(node).str());
      artifacts->kernelNodes.push_back({entry.getAs<StringAttr>("kernel").str(), nodes});
    }
  if (weights)
    for (Attribute attr : weights) {
      auto dense = cast<DenseIntOrFPElementsAttr>(attr);
      auto type = cast<RankedTensorType>(dense.getType());
      artifacts->weights.push_back({type.getElementType(),
                                    std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
                                    dense.getRawData()});
    }
  if (arena) {
    auto get = [&](StringRef key) {
      auto value = arena.getAs<IntegerAttr>(key);
      return value ? value.getValue().getZExtValue() : 0;
    };
    artifacts->arenaBytes = get("bytes");
    artifacts->arenaLowerBound = get("lower_bound");
    artifacts->arenaNoReuse = get("no_reuse");
    artifacts->arenaBuffers = get("buffers");
  }
}

