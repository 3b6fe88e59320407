//===- PlanAttrs.td - attributes of the `plan` dialect -------*- tablegen -*-===//

#ifndef PLAN_ATTRS_TD
#define PLAN_ATTRS_TD

include "Plan/PlanDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Plan_KernelStrategy : I32EnumAttr<"KernelStrategy",
    "how a kernel maps its op onto the GPU's threads", [
  I32EnumAttrCase<"Simt", 0, "simt">,                     // One output a thread.
  I32EnumAttrCase<"SingleThread", 1, "single_thread">,    // No parallel loop.
  I32EnumAttrCase<"Vector", 2, "vector">,                 // 4 elements a thread.
  I32EnumAttrCase<"Rows", 3, "rows">,                     // A block a row.
  I32EnumAttrCase<"BlockReduction", 4, "block_reduction">,// A block an output.
  I32EnumAttrCase<"TensorCores", 5, "tensor_cores">,      // A warp a 16x16 tile.
  I32EnumAttrCase<"StagedTiles", 6, "staged_tiles">       // Tiles in shared memory.
]> {
  let cppNamespace = "::mlir::infer::plan";
  let genSpecializedAttr = 0;
}

def Plan_MmaKind : I32EnumAttr<"MmaKind",
    "how a warp multiplies its fragments on the tensor cores", [
  I32EnumAttrCase<"Wmma", 0, "wmma">, // wmma.load and wmma.mma (16x16x8 for TF32).
  I32EnumAttrCase<"Sync", 1, "sync">  // mma.sync on ldmatrix fragments.
]> {
  let cppNamespace = "::mlir::infer::plan";
  let genSpecializedAttr = 0;
}

def Plan_OperandOrder : I32EnumAttr<"OperandOrder",
    "how an operand of a contraction lies in memory", [
  I32EnumAttrCase<"Row", 0, "row">, // A: k contiguous; B: n contiguous.
  I32EnumAttrCase<"Col", 1, "col">  // A: m contiguous; B: k contiguous.
]> {
  let cppNamespace = "::mlir::infer::plan";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Plan_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Plan_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Plan_KernelStrategyAttr : EnumAttr<Plan_Dialect, Plan_KernelStrategy, "strategy"> {
  let summary = "How a kernel maps its op onto threads";
  let assemblyFormat = "`<` $value `>`";
}

def Plan_TilePlanAttr : Plan_Attr<"TilePlan", "tile"> {
  let summary = "How a staged-tiles kernel spreads one contraction";
  let description = [{
    A group of 4 warps (2 x 2) computes a tile of C; each warp `warp_m` x
    `warp_n` fragments of 16 x 16. Each round stages `step` of k in shared
    memory, in `stages` buffers; a block has `groups` groups, each summing a
    slice of k. `mma` is how a warp multiplies.

    ```mlir
    #plan.tile<warp_m = 2, warp_n = 2, step = 32, stages = 3, groups = 1, mma = sync>
    ```
  }];
  let parameters = (ins "int64_t":$warp_m, "int64_t":$warp_n, "int64_t":$step,
                        "int64_t":$stages, "int64_t":$groups,
                        EnumParameter<Plan_MmaKind>:$mma);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plan_ContractionAttr : Plan_Attr<"Contraction", "contraction"> {
  let summary = "A contraction as the tensor cores see it: the tuning key";
  let description = [{
    C[batch, m, n] += A[batch, m, k] x B[batch, k, n], with the order each
    of A and B is stored in. Tuned plans are filed under it.

    ```mlir
    #plan.contraction<batch = 1, m = 128, n = 768, k = 768, a = row, b = col>
    ```
  }];
  let parameters = (ins "int64_t":$batch, "int64_t":$m, "int64_t":$n, "int64_t":$k,
                        EnumParameter<Plan_OperandOrder>:$a,
                        EnumParameter<Plan_OperandOrder>:$b);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Plan_LaunchAttr : Plan_Attr<"Launch", "launch"> {
  let summary = "One kernel launch of the plan the runtime executes";
  let description = [{
    `kernel` is the gpu.func launched on a 1-D grid of `grid` blocks of
    `block` threads; `args` are indices into the entry's arguments (inputs,
    weights, outputs, arena), each passed as its base address. `strategy`
    says how the kernel maps its op; a staged-tiles kernel has its `tile`
    plan and the `contraction` it was planned for.

    ```mlir
    #plan.launch<kernel = "main_kernel_0", grid = 96, block = 128,
                 args = array<i64: 0, 3, 5>, strategy = staged_tiles,
                 tile = #plan.tile<...>, contraction = #plan.contraction<...>>
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$kernel, "int64_t":$grid, "int64_t":$block,
                        "::mlir::DenseI64ArrayAttr":$args,
                        EnumParameter<Plan_KernelStrategy>:$strategy,
                        OptionalParameter<"::mlir::infer::plan::TilePlanAttr">:$tile,
                        OptionalParameter<"::mlir::infer::plan::ContractionAttr">:$contraction);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // PLAN_ATTRS_TD
