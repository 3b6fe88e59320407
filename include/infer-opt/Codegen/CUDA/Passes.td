//===- Passes.td - passes of the CUDA back end ---------------*- tablegen -*-===//
//
// In pipeline order: rewrites of linalg on tensors (the kernels' shapes and
// what they fuse), then on memrefs the grouping of fused kernels, then the
// mapping onto the GPU, then clean-ups of the gpu.funcs.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CUDA_PASSES_TD
#define INFER_OPT_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// On tensors
//===----------------------------------------------------------------------===//

def AddsIntoInitPass : Pass<"infer-cuda-adds-into-init", "ModuleOp"> {
  let summary = "Add a contraction's bias (and residual) into its initial value instead of after it";
  let description = [{
    `c = contract(a, b, fill(0)); d = c + bias` => `d = contract(a, b,
    broadcast(bias))`: the kernel starts its sums from the bias.
  }];
}

def AlignContractionsPass : Pass<"infer-cuda-align-contractions", "ModuleOp"> {
  let summary = "Give float32 contractions tensor-core-ready layouts";
  let description = [{
    Several m or n loops collapsed into one; an odd product of several k
    dims zero-padded; m and n short of whole 16-tiles grown to them (at most
    `max-growth-percent` more work); odd 2-D constants stored transposed;
    other operands with odd rows moved into padded buffers.
  }];
  let options = [
    Option<"maxGrowthPercent", "max-growth-percent", "int64_t", /*default=*/"100",
           "Grow an m or n loop to whole tiles only if that adds at most this percentage to its "
           "range (0: never grow)">
  ];
}

def FoldTransposesPass : Pass<"infer-cuda-fold-transposes", "ModuleOp"> {
  let summary = "Let float32 contractions read their operands through transposes";
  let description = [{
    `t = transpose(x); c = contract(t, w)` => `c = contract(x, w)` with
    `x`'s indexing map permuted; a transposed result is written transposed.
  }];
}

def FuseRowsPass : Pass<"infer-cuda-fuse-rows", "ModuleOp"> {
  let summary = "Fuse a row's reductions and elementwise ops (softmax, layer norm) into one loop over the rows";
  let description = [{
    `m = max(x); e = exp(x - m); s = sum(e); y = e / s` over the last dim =>
    one `scf.forall` over the rows whose body holds the row's ops, for a
    kernel with a block a row.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def GuardedPadReadsPass : Pass<"infer-cuda-guarded-pad-reads", "ModuleOp"> {
  let summary = "Let short reductions and im2col copies read padded inputs through bounds checks";
  let description = [{
    `p = pad(x); r = reduce(p)` (a depthwise convolution, a pool, an
    im2col copy) => `r` reads `x` with a bounds check per element and the
    pad value outside: no padded copy.
  }];
}

def MergeProjectionsPass : Pass<"infer-cuda-merge-projections", "ModuleOp"> {
  let summary = "Merge contractions that project one activation by constant weights into one";
  let description = [{
    `q = x Wq; k = x Wk; v = x Wv` => `qkv = x [Wq Wk Wv]`, with `q`, `k`
    and `v` read through slices of `qkv`.
  }];
}

def PadsInPlacePass : Pass<"infer-cuda-pads-in-place", "ModuleOp"> {
  let summary = "Let the producer of a tensor.pad's source write into the padded tensor's interior";
  let description = [{
    `y = f(x); p = pad(y)` => `p = insert_slice(f(x), fill(pad value))` with
    `f` writing its slice of `p` in place.
  }];
}

def PrepareEpiloguesPass : Pass<"infer-cuda-prepare-epilogues", "ModuleOp"> {
  let summary = "Give each tensor-core candidate its own fill and mark the results read once";
  let description = [{
    A fill shared by several contractions is cloned for each; a
    contraction whose result one op alone reads gets `infer.read_once`, a
    thread-per-output reduction `infer.point_reduction`, an op that makes
    one contraction operand `infer.operand_producer`, for
    infer-cuda-fuse-epilogues and the arena planner.
  }];
}

def ReshapesAsViewsPass : Pass<"infer-cuda-reshapes-as-views", "ModuleOp"> {
  let summary = "Turn a static tensor.reshape that only splits or merges dims into expand/collapse";
  let description = [{
    `tensor.reshape %x(%shape)` with a constant shape that splits (merges)
    dims => `tensor.expand_shape` (`tensor.collapse_shape`): a view.
  }];
}

def SplitContractionsPass : Pass<"infer-cuda-split-contractions", "ModuleOp"> {
  let summary = "Split float32 contractions at whole tensor-core tiles (16 m, 16 n)";
  let description = [{
    A contraction whose m (n) is not whole 16-tiles => the part that is, for
    the tensor cores, and the rest, for the SIMT kernels.
  }];
}

//===----------------------------------------------------------------------===//
// On memrefs
//===----------------------------------------------------------------------===//

def FuseEpiloguesPass : Pass<"infer-cuda-fuse-epilogues", "ModuleOp"> {
  let summary = "Group a contraction or reduction with its initial-value op and its elementwise consumer";
  let description = [{
    `fill(c); contract(a, b, c); y = relu(c)` => one `scf.execute_region`
    holding the three, which infer-outline-kernels makes one kernel and
    infer-cuda-map-to-gpu one gpu.func (the sums start from the fill's
    values; the epilogue gets them instead of `c`). Also for reductions run
    a thread or a block per output.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def MapToGPUPass : Pass<"infer-cuda-map-to-gpu", "ModuleOp"> {
  let summary = "Turn the entry's outlined kernels into gpu.funcs and its calls into launch records";
  let description = [{
    Each `call @kernel_N(args)` of the entry => a `gpu.func` in one
    `gpu.module` (its work spread over blocks and threads by a strategy
    chosen here: tensor cores, staged tiles, rows, block reductions, vector
    accesses or a thread an output) and a `#plan.launch` in the module's
    `plan.launches`. The host functions are erased: the runtime executes
    the launch records.
  }];
  let options = [
    Option<"allowTF32", "allow-tf32", "bool", /*default=*/"true",
           "Float32 contractions on TF32 tensor cores">,
    Option<"stageTiles", "stage-tiles", "bool", /*default=*/"false",
           "Tensor-core kernels stage their tiles in shared memory">,
    Option<"tilePlan", "tile-plan", "::mlir::infer::TilePlanChoice", /*default=*/"",
           "With stage-tiles: parts of the staged kernels' plans fixed by hand "
           "(warp=MxN,step=K,stages=S,groups=G,mma=wmma|sync)">,
    Option<"tunedPlans", "tuned-plans", "::mlir::infer::TunedTilePlans", /*default=*/"",
           "With stage-tiles: a file of plans for particular contractions, taken before "
           "tile-plan">
  ];
  let dependentDialects = [
    "::mlir::infer::plan::PlanDialect", "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect", "::mlir::vector::VectorDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect", "::mlir::nvgpu::NVGPUDialect"
  ];
}

def StaticReshapesPass : Pass<"infer-static-reshapes", "ModuleOp"> {
  let summary = "Turn memref.reshape to a static shape into memref.reinterpret_cast";
  let description = [{
    `memref.reshape %buf(%shape)` of a contiguous buffer to a static shape
    => `memref.reinterpret_cast`: a view, which kernels can recompute,
    unlike a reshape that reads its shape from memory.
  }];
}

//===----------------------------------------------------------------------===//
// On the gpu.funcs
//===----------------------------------------------------------------------===//

def ContractMultiplyAddsPass : Pass<"infer-cuda-contract-multiply-adds", "ModuleOp"> {
  let summary = "Let the kernels' float products and sums fuse into fma";
  let description = [{
    `arith.mulf`, `arith.addf` and `arith.subf` in gpu.funcs => the same
    with `fastmath<contract>`.
  }];
}

def PromoteAccumulatorsPass : Pass<"infer-cuda-promote-accumulators", "ModuleOp"> {
  let summary = "Carry a kernel's reduction accumulators through their loops in registers";
  let description = [{
    `for { a = load c; store f(a), c }` => `c = for iter_args(a) { yield f(a) }`.
  }];
}

#endif // INFER_OPT_CODEGEN_CUDA_PASSES_TD
