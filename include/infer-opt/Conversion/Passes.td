//===- Passes.td - conversion passes of infer-opt ------------*- tablegen -*-===//

#ifndef INFER_OPT_CONVERSION_PASSES_TD
#define INFER_OPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertInferToLinalg : Pass<"convert-infer-to-linalg", "ModuleOp"> {
  let summary = "Lower `infer` ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every `infer` op with static shapes into upstream ops on
    tensors: elementwise ops become `linalg.generic` with broadcasting
    indexing maps (`infer.add(a, b) -> linalg.generic {arith.addf}`),
    contractions and convolutions `linalg.generic` with reduction iterators
    over padded inputs, reductions `linalg.generic`/`linalg.reduce`, shape
    ops `tensor` ops. An op that cannot be lowered yet (dynamic dims, an
    unsupported mode) is reported at its ONNX node and the pass fails.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // INFER_OPT_CONVERSION_PASSES_TD
