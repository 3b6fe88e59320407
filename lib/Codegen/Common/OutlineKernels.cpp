//===- OutlineKernels.cpp - one function per loop nest of the entry -------===//
//
// infer-outline-kernels, on memrefs after bufferization and vector
// lowering: every top-level loop nest or linalg op of the entry function
// becomes a private, never-inlined function (a kernel) that the entry
// calls. Two reasons:
//   - LLVM's optimizer is superlinear in function size: a large model as
//     one function takes minutes at -O3; a thousand small kernels take
//     seconds.
//   - Each kernel knows its ONNX nodes (from the op's location: several
//     when elementwise ops were fused); the module records the mapping
//     (`infer.kernels`) for the engine's plan.
//
// With `rootArguments` (the CUDA back end), a kernel's arguments are only
// the entry's own arguments (inputs, weights, outputs, arena): the views
// the kernel reads through (arena offsets, reshapes, slices) are cloned
// into it. Then a launch's arguments are whole buffers the runtime knows,
// and the engine's plan needs no host code.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/Common/CommonCodegen.h"
#include "infer-opt/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::infer {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "infer-opt/Codegen/Common/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

/// The ONNX nodes an op came from: the NameLocs in its location, in order,
/// without repeats. Names nested inside a NameLoc (a node's own sub-
/// locations) are not separate nodes.
SmallVector<Attribute> nodeNames(Operation *op) {
  llvm::SetVector<Attribute> names;
  op->getLoc()->walk([&](Location loc) {
    if (auto named = dyn_cast<NameLoc>(loc)) {
      names.insert(named.getName());
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return SmallVector<Attribute>(names.begin(), names.end());
}

bool isKernel(Operation &op) {
  return op.getNumResults() == 0 && (op.getNumRegions() > 0 || isa<linalg::LinalgOp>(op));
}

bool isScalarConstant(Operation *def) {
  return def && def->hasTrait<OpTrait::ConstantLike>() && def->getNumOperands() == 0 &&
         !isa<ShapedType>(def->getResult(0).getType());
}

/// Sorts `v` into what the kernel clones (scalar constants; with
/// `throughViews`, also the views and index arithmetic between `v` and the
/// entry's arguments, operands first) and what it takes as arguments.
void classifyCaptured(Value v, bool throughViews, llvm::SetVector<Operation *> &cloned,
                      llvm::SetVector<Value> &arguments) {
  Operation *def = v.getDefiningOp();
  if (isScalarConstant(def)) {
    cloned.insert(def);
    return;
  }
  bool clonable = def && throughViews && def->getNumRegions() == 0 &&
                  (isa<ViewLikeOpInterface>(def) || isa<memref::GetGlobalOp>(def) || isPure(def));
  if (!clonable) {
    arguments.insert(v);
    return;
  }
  for (Value operand : def->getOperands())
    classifyCaptured(operand, throughViews, cloned, arguments);
  cloned.insert(def);
}

struct OutlineKernelsPass : public infer::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = lookupEntryFunction(module);
    if (!entry || entry.isExternal())
      return;
    MLIRContext *ctx = &getContext();
    SmallVector<Operation *> kernels;
    for (Operation &op : entry.getBody().front())
      if (isKernel(op))
        kernels.push_back(&op);

    OpBuilder b(ctx);
    SmallVector<Attribute> mapping;
    auto noInline = b.getArrayAttr({b.getStringAttr("noinline")});
    for (auto [index, op] : llvm::enumerate(kernels)) {
      // What the kernel reads from the entry: its operands and the values
      // its regions use. Scalar constants are cloned instead of passed.
      llvm::SetVector<Value> captured(op->getOperands().begin(), op->getOperands().end());
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      llvm::SetVector<Value> argumentSet;
      llvm::SetVector<Operation *> clonedSet;
      for (Value v : captured)
        classifyCaptured(v, rootArguments, clonedSet, argumentSet);
      SmallVector<Value> arguments(argumentSet.begin(), argumentSet.end());
      // In the entry's order, so that every clone follows its operands.
      SmallVector<Operation *> constants(clonedSet.begin(), clonedSet.end());
      llvm::sort(constants, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      std::string name = "kernel_" + std::to_string(index);
      SmallVector<Attribute> nodes = nodeNames(op);
      b.setInsertionPointToEnd(module.getBody());
      auto type = b.getFunctionType(ValueRange(arguments).getTypes(), {});
      auto func = func::FuncOp::create(b, op->getLoc(), name, type);
      func.setPrivate();
      func->setAttr("passthrough", noInline);
      // Internal to the library: only inferrt_entry is its interface.
      func->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
      Block *body = func.addEntryBlock();
      b.setInsertionPointToStart(body);
      IRMapping map;
      for (auto [value, arg] : llvm::zip(arguments, body->getArguments()))
        map.map(value, arg);
      for (Operation *constant : constants)
        b.clone(*constant, map);
      b.clone(*op, map);
      func::ReturnOp::create(b, op->getLoc());

      b.setInsertionPoint(op);
      func::CallOp::create(b, op->getLoc(), func, arguments);
      op->erase();
      mapping.push_back(b.getDictionaryAttr({b.getNamedAttr("kernel", b.getStringAttr(name)),
                                             b.getNamedAttr("nodes", b.getArrayAttr(nodes))}));
    }
    module->setAttr("infer.kernels", b.getArrayAttr(mapping));
  }
};

} // namespace

