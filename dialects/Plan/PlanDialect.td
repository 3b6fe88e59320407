//===- PlanDialect.td - the `plan` dialect -------------------*- tablegen -*-===//
//
// The `plan` dialect carries the back end's decisions about kernels as typed
// attributes: how each kernel maps its work onto the GPU (a strategy), the
// parameters of that mapping (a tile plan), the key a tuner files them under
// (a contraction), and the launches the runtime makes. They are formed once,
// where the decision is made, and read by everything after it.
//
//===----------------------------------------------------------------------===//

#ifndef PLAN_DIALECT_TD
#define PLAN_DIALECT_TD

include "mlir/IR/DialectBase.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::mlir::infer::plan";
  let summary = "Typed kernel plans: strategies, tile plans, tuning keys and launches";
  let description = [{
    Attributes only. `infer-cuda-map-to-gpu` forms them: each kernel's
    launch record (`#plan.launch`) names the kernel, its grid and block, its
    arguments (indices into the entry's inputs, weights, outputs and arena)
    and its configuration: a `#plan.strategy`, and for a tensor-core kernel
    that stages its tiles, a `#plan.tile` and the `#plan.contraction` it was
    planned for. The launch records sit on the module under
    `plan.launches`; the engine writer, `--dump-kernels` and the kernel
    emulator read them from there.
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // PLAN_DIALECT_TD
