//===- Passes.td - passes both back ends share ---------------*- tablegen -*-===//
//
// The front half of code generation, on the CPU and CUDA targets alike:
// elementwise fusion on tensors, large constants as weight arguments,
// results as out-parameters, buffers in one arena, and each kernel outlined.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_COMMON_PASSES_TD
#define INFER_OPT_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseElementwisePass : Pass<"infer-fuse-elementwise", "ModuleOp"> {
  let summary = "Fuse elementwise linalg.generic producers into their only consumer";
  let description = [{
    On tensors, before tiling: `b = generic(a) {f}; c = generic(b) {g}` =>
    `c = generic(a) {g(f)}` where `b` has no other user, so that a chain of
    elementwise ops is one loop nest (one kernel).
  }];
}

def HoistWeightsPass : Pass<"infer-hoist-weights", "ModuleOp"> {
  let summary = "Turn large dense constants of the entry function into read-only arguments";
  let description = [{
    `arith.constant dense<...> : tensor<..>` of at least `min-bytes` =>
    a new argument of the entry after its inputs, recorded with its bytes in
    `infer.weights` for the engine's weights section.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"256",
           "Constants of at least this many bytes are hoisted">
  ];
}

def MemRefCopyToLinalgPass : Pass<"infer-memref-copy-to-linalg", "ModuleOp"> {
  let summary = "Turn memref.copy into linalg.copy";
  let description = [{
    `memref.copy %a, %b` => `linalg.copy ins(%a) outs(%b)`: copies of
    strided views become loops, not calls to MLIR's `memrefCopy` runtime
    helper, which generated code must not depend on.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OutlineKernelsPass : Pass<"infer-outline-kernels", "ModuleOp"> {
  let summary = "Outline each top-level loop nest or linalg op of the entry function into a kernel";
  let description = [{
    Each top-level loop nest or linalg op of the entry => a call of a
    never-inlined function `kernel_N` taking what it reads and writes;
    the ONNX nodes of each kernel are recorded in `infer.kernels`. With
    `root-arguments`, kernels take only the entry's own arguments and the
    views between are cloned into them (the CUDA back end's calling
    convention: every argument is a whole buffer).
  }];
  let options = [
    Option<"rootArguments", "root-arguments", "bool", /*default=*/"false",
           "Kernels take only the entry's arguments; views between are cloned into them (CUDA)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def OutputsInPlacePass : Pass<"infer-outputs-in-place", "ModuleOp"> {
  let summary = "Compute results that reach the output arguments through a copy in the output arguments themselves";
  let description = [{
    `%t = alloc; ... writes %t ...; copy(reshape(%t), %out)` => the writes
    go to a view of `%out`, and the copy is gone.
  }];
}

def PlanArenaPass : Pass<"infer-plan-arena", "ModuleOp"> {
  let summary = "Place the entry function's static top-level allocations in one arena argument";
  let description = [{
    Each `memref.alloc` of the entry => `memref.view` of a new last argument
    (the arena) at an offset that a liveness-based planner chose
    (ArenaPlanner.h); the arena's size and bounds go to `infer.arena`.
  }];
}

#endif // INFER_OPT_CODEGEN_COMMON_PASSES_TD
