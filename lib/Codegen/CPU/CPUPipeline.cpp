//===- CPUPipeline.cpp - bufferize and lower linalg to the LLVM dialect ---===//
//
// Upstream passes only, in the order the stock mlir-opt pipeline uses them.
// Loops are scalar for now: tiling and vectorization come with the CPU
// performance work.
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
  // loops, so the stack grew with every iteration (ViT-B/16 overflowed 8 MiB).
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
}

/// Adds `void inferrt_entry(void **descriptors)`: one fixed signature the
/// runtime can call for any model, forwarding the array of memref
/// descriptor pointers to `_mlir_ciface_main`.
static LogicalResult addRuntimeEntry(ModuleOp module) {
  auto ciface = module.lookupSymbol<LLVM::LLVMFuncOp>("_mlir_ciface_inferrt_main");
  if (!ciface)
    return module.emitError("internal: the module has no @main to call");
  MLIRContext *ctx = module.getContext();
  Location loc = ciface.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr});
  auto entry = LLVM::LLVMFuncOp::create(b, loc, "inferrt_entry", type);
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  SmallVector<Value> args;
  for (unsigned i = 0, e = ciface.getNumArguments(); i < e; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, block->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
  }
  LLVM::CallOp::create(b, loc, ciface, args);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

LogicalResult mlir::infer::lowerToLLVMDialect(ModuleOp module, const CPUCodegenOptions &options,
                                              CodegenArtifacts *artifacts) {
  // C wrappers give every function a stable ABI: pointers to memref
  // descriptors, which the runtime (and tests through ctypes) build.
  // Never export a symbol named `main`: the program that loads the kernels
  // has one, and the library's calls would bind to it.
  if (auto main = module.lookupSymbol<func::FuncOp>("main")) {
    auto name = StringAttr::get(module.getContext(), "inferrt_main");
    if (failed(SymbolTable::replaceAllSymbolUses(main, name, module)))
      return failure();
    main.setName(name);
  }
  module.walk([](func::FuncOp func) {
    func->setAttr("llvm.emit_c_interface", UnitAttr::get(func.getContext()));
    // The `infer.*` argument and result names mean nothing to LLVM (it warns
    // about them); the engine metadata carries them instead.
    func.setAllArgAttrs(SmallVector<DictionaryAttr>(func.getNumArguments(), DictionaryAttr::get(func.getContext())));
    func.setAllResultAttrs(SmallVector<DictionaryAttr>(func.getNumResults(), DictionaryAttr::get(func.getContext())));
  });
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
  return addRuntimeEntry(module);
}
