//===- EntryPoints.cpp - the kernels' entry points for the runtime --------===//
//
// The CPU engine's shared object exports one function the runtime calls for
// any model, `void inferrt_entry(void **descriptors)`: an array of memref
// descriptor pointers (inputs, weights, outputs, arena) forwarded to the C
// wrapper of the model's function. Its name is never `main`, which the
// program that loads the library has.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CPU/CPUCodegen.h"
#include "infer-opt/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::infer {
#define GEN_PASS_DEF_ADDRUNTIMEENTRYPASS
#define GEN_PASS_DEF_PREPAREENTRYPASS
#include "infer-opt/Codegen/CPU/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct PrepareEntryPass : public infer::impl::PrepareEntryPassBase<PrepareEntryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    if (auto main = module.lookupSymbol<func::FuncOp>("main")) {
      auto name = StringAttr::get(ctx, "inferrt_main");
      if (failed(SymbolTable::replaceAllSymbolUses(main, name, module)))
        return signalPassFailure();
      main.setName(name);
    }
    module.walk([&](func::FuncOp func) {
      // C wrappers give every function a stable ABI: pointers to memref
      // descriptors, which the runtime (and tests through ctypes) build.
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
      // The `infer.*` names mean nothing to LLVM (it warns about them).
      func.setAllArgAttrs(SmallVector<DictionaryAttr>(func.getNumArguments(), DictionaryAttr::get(ctx)));
      func.setAllResultAttrs(SmallVector<DictionaryAttr>(func.getNumResults(), DictionaryAttr::get(ctx)));
    });
  }
};

LogicalResult addRuntimeEntry(ModuleOp module) {
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

struct AddRuntimeEntryPass : public infer::impl::AddRuntimeEntryPassBase<AddRuntimeEntryPass> {
  void runOnOperation() override {
    if (failed(addRuntimeEntry(getOperation())))
      signalPassFailure();
  }
};

} // namespace
