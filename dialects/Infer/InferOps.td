//===- InferOps.td - all ops of the `infer` dialect ------------*- tablegen -*-===//
//
// One file per op family; this one only gathers them for mlir-tblgen.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPS_TD
#define INFER_OPS_TD

include "InferBase.td"
include "InferElementwiseOps.td"
include "InferNNOps.td"
include "InferTensorOps.td"

#endif // INFER_OPS_TD
