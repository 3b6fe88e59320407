//===- CPUPipeline.cpp - bufferize and lower linalg to the LLVM dialect ---===//
//
// The shared front half (Common), tiling and vectorization
// (TileAndVectorize.cpp), then upstream's lowerings to the LLVM dialect in
// the order the stock mlir-opt pipeline uses them; the model's function
// becomes @inferrt_main behind the runtime's entry (EntryPoints.cpp).
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CPU/CPUCodegen.h"
#include "infer-opt/Codegen/CPU/Passes.h"
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

using namespace mlir;
using namespace mlir::infer;

void mlir::infer::buildCPUCodegenPipeline(OpPassManager &pm, const CPUCodegenOptions &options) {
  pm.addPass(createPrepareEntryPass());
  if (options.fuse)
    pm.addPass(createFuseElementwisePass());
  if (options.vectorize) {
    pm.addPass(createVectorizePass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  addBufferizationPasses(pm);
  if (options.vectorize) {
    pm.addPass(createLowerVectorsPass()); // Subviews folded into the transfers first.
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(createOutlineKernelsPass());
  // Parallel tiles (scf.forall) run on the OpenMP runtime's threads.
  pm.addPass(createForallToParallelLoopPass());
  if (options.threads)
    pm.addPass(createConvertSCFToOpenMPPass()); // Else scf-to-cf makes them sequential loops.
  // The lowering wraps each loop body in memref.alloca_scope; without
  // allocas inside, canonicalization inlines it (scf-to-cf could not
  // lower a loop inside the single-block scope).
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Integer powers become generated functions, and bf16 conversions integer
  // arithmetic: no libgcc/compiler-rt helpers (__truncsfbf2) in the kernels.
  pm.addPass(createConvertMathToFuncs());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // Fully unrolled: the default lowering of n-D transfers goes through a
  // stack buffer, allocated where the transfer is, inside the kernel's
  // loops, so the stack would grow with every iteration until it overflows.
  pm.addPass(createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Math first: libm calls for what LLVM has no intrinsic for (erf) are
  // made per lane with vector ops, which the vector conversion then lowers.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass()); // ub.poison from vector padding values
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass()); // Subview offsets come out as affine.apply.
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createAddRuntimeEntryPass());
}

LogicalResult mlir::infer::lowerToLLVMDialect(ModuleOp module, const CPUCodegenOptions &options,
                                              CodegenArtifacts *artifacts) {
  PassManager pm(module.getContext());
  if (options.printIRAfterAll) {
    module.getContext()->disableMultithreading(); // IR printing needs it.
    auto never = [](Pass *, Operation *) { return false; };
    auto always = [](Pass *, Operation *) { return true; };
    pm.enableIRPrinting(never, always, /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/true,
                        /*printAfterOnlyOnFailure=*/false, llvm::errs(),
                        OpPrintingFlags().elideLargeElementsAttrs(16));
  }
  buildCPUCodegenPipeline(pm, options);
  if (failed(pm.run(module)))
    return failure();
  collectArtifacts(module, artifacts);
  return success();
}
