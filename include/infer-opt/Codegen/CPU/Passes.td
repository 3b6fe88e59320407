//===- Passes.td - passes of the CPU back end ----------------*- tablegen -*-===//

#ifndef INFER_OPT_CODEGEN_CPU_PASSES_TD
#define INFER_OPT_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def AddRuntimeEntryPass : Pass<"infer-cpu-add-runtime-entry", "ModuleOp"> {
  let summary = "Add `void inferrt_entry(void **descriptors)`, the one signature the runtime calls";
  let description = [{
    On the LLVM dialect, after the C wrappers exist: a new `inferrt_entry`
    that loads each memref descriptor pointer from its argument array and
    calls `_mlir_ciface_inferrt_main` with them, so that the runtime can
    call any model the same way.
  }];
}

def LowerVectorsPass : Pass<"infer-cpu-lower-vectors", "ModuleOp"> {
  let summary = "Hoist loop-invariant vector transfers and lower vector ops for the LLVM conversion";
  let description = [{
    After bufferization: transfers that do not change across a loop are
    hoisted out of it, accumulators carried in registers, and
    `vector.contract`/multi-dimensional vectors lowered to 1-D ops and FMAs.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect"
  ];
}

def PrepareEntryPass : Pass<"infer-cpu-prepare-entry", "ModuleOp"> {
  let summary = "Rename @main to @inferrt_main and give every function a C interface";
  let description = [{
    `func.func @main(...)` => `func.func @inferrt_main(...) attributes
    {llvm.emit_c_interface}` (a library must not export `main`: the
    program that loads it has one), every function with C wrappers taking
    memref descriptors, and the `infer.*` argument and result attributes
    dropped (the engine's metadata carries the names).
  }];
}

def VectorizePass : Pass<"infer-cpu-vectorize", "ModuleOp"> {
  let summary = "Tile static linalg ops on tensors to register tiles and vectorize them";
  let description = [{
    `linalg.generic` on static tensors => an scf.forall over tiles (spread
    over threads with OpenMP when large) of `vector.transfer_read`,
    vector arithmetic and `vector.transfer_write`; ungrouped convolutions
    through an im2col copy. Ops it cannot vectorize stay loops.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // INFER_OPT_CODEGEN_CPU_PASSES_TD
