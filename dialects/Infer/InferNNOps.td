//===- InferNNOps.td - contractions, convolutions, pooling, norms -*- tablegen -*-===//

#ifndef INFER_NN_OPS_TD
#define INFER_NN_OPS_TD

include "InferBase.td"

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Infer_MatMulOp : Infer_InferredOp<"matmul"> {
  let summary = "matrix product with numpy semantics";
  let description = [{
    1-D operands are promoted to matrices and the added dim removed again;
    leading (batch) dims broadcast.

    ```mlir
    %c = infer.matmul %a, %b : tensor<?x16x64xf32>, tensor<64x32xf32> -> tensor<?x16x32xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$lhs, Infer_Tensor:$rhs);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

def Infer_GemmOp : Infer_InferredOp<"gemm"> {
  let summary = "alpha * op(A) * op(B) + beta * C";
  let description = [{
    2-D general matrix multiply; `c` is optional and broadcasts to [M, N].

    ```mlir
    %y = infer.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
        : (tensor<1x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$a, Infer_Tensor:$b, Optional<Infer_Tensor>:$c,
                   F32Attr:$alpha, F32Attr:$beta, BoolAttr:$trans_a, BoolAttr:$trans_b);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
}

def Infer_EinsumOp : Infer_InferredOp<"einsum"> {
  let summary = "Einstein summation";
  let description = [{
    `equation` is the ONNX equation with its implicit output made explicit
    by the importer (`ij,jk->ik`).

    ```mlir
    %c = infer.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Infer_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling (NCHW, any number of spatial dims)
//===----------------------------------------------------------------------===//

def Infer_ConvOp : Infer_InferredOp<"conv"> {
  let summary = "N-d convolution (cross-correlation), NC... layout";
  let description = [{
    `pads` lists the begin pads of every spatial dim, then the end pads; the
    importer resolves `auto_pad` into it. Weight layout is [M, C/group, k...].

    ```mlir
    %y = infer.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>,
        dilations = array<i64: 1, 1>, group = 1 : i64}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$weight, Optional<Infer_Tensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
}

def Infer_ConvTransposeOp : Infer_InferredOp<"conv_transpose"> {
  let summary = "N-d transposed convolution, NC... layout";
  let description = [{
    Weight layout is [C, M/group, k...]. `pads` and `output_padding` are
    explicit (the importer resolves `output_shape` and `auto_pad`).

    ```mlir
    %y = infer.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
        : (tensor<1x8x4x4xf32>, tensor<8x4x2x2xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$weight, Optional<Infer_Tensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$output_padding,
                   I64Attr:$group);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
}

class Infer_PoolOp<string mnemonic, string what, dag extra>
    : Infer_InferredOp<mnemonic> {
  let summary = what # " pooling over windows";
  let description = [{
    Windows of `kernel_shape` every `strides`; `pads` as for `infer.conv`.

    ```mlir
    %y = infer.}] # mnemonic # [{ %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>,
        pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, ...}
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = !con((ins Infer_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode), extra);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_MaxPoolOp : Infer_PoolOp<"max_pool", "max", (ins)>;
def Infer_AveragePoolOp : Infer_PoolOp<"average_pool", "average",
    (ins BoolAttr:$count_include_pad)>;

class Infer_GlobalPoolOp<string mnemonic, string what> : Infer_InferredOp<mnemonic> {
  let summary = what # " over all spatial dims";
  let description = [{
    Reduces every dim after the first two to 1.

    ```mlir
    %y = infer.}] # mnemonic # [{ %x : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}
def Infer_GlobalAveragePoolOp : Infer_GlobalPoolOp<"global_average_pool", "average">;
def Infer_GlobalMaxPoolOp : Infer_GlobalPoolOp<"global_max_pool", "maximum">;

def Infer_ResizeOp : Infer_InferredOp<"resize", [AttrSizedOperandSegments]> {
  let summary = "resizes (interpolates) a tensor";
  let description = [{
    Exactly one of `scales` (f32, one per dim) and `sizes` (i64, one per dim)
    is present. The string attributes carry ONNX's `mode`,
    `coordinate_transformation_mode` and `nearest_mode`.

    ```mlir
    %y = infer.resize %x scales(%s) {mode = "nearest", coordinate_transformation_mode = "asymmetric",
        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32, exclude_outside = false}
        : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Optional<RankedTensorOf<[F32]>>:$scales,
                   Optional<Infer_IndexTensor>:$sizes, StrAttr:$mode,
                   StrAttr:$coordinate_transformation_mode, StrAttr:$nearest_mode,
                   F32Attr:$cubic_coeff_a, BoolAttr:$exclude_outside);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = [{
    $input (`scales` `(` $scales^ `)`)? (`sizes` `(` $sizes^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization and activation over an axis
//===----------------------------------------------------------------------===//

def Infer_BatchNormOp : Infer_InferredOp<"batch_norm"> {
  let summary = "batch normalization with running statistics (inference)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` along dim 1.

    ```mlir
    %y = infer.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Infer_Tensor:$bias,
                   Infer_Tensor:$mean, Infer_Tensor:$variance, F32Attr:$epsilon);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_InstanceNormOp : Infer_InferredOp<"instance_norm"> {
  let summary = "instance normalization";
  let description = [{
    Normalizes every (n, c) slice over the spatial dims, then applies the
    per-channel `scale` and `bias`.

    ```mlir
    %y = infer.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Infer_Tensor:$bias,
                   F32Attr:$epsilon);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_LayerNormOp : Infer_InferredOp<"layer_norm"> {
  let summary = "layer normalization over the dims from `axis` on";
  let description = [{
    ```mlir
    %y = infer.layer_norm %x, %gamma, %beta {axis = 2 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<1x16x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x16x768xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Optional<Infer_Tensor>:$bias,
                   I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

class Infer_AxisOp<string mnemonic, string what> : Infer_InferredOp<mnemonic> {
  let summary = what # " along one axis";
  let description = [{
    `axis` is non-negative (the importer normalizes it).

    ```mlir
    %y = infer.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}
def Infer_SoftmaxOp : Infer_AxisOp<"softmax", "softmax">;
def Infer_HardmaxOp : Infer_AxisOp<"hardmax", "one-hot of the first maximum">;

def Infer_LpNormOp : Infer_InferredOp<"lp_norm"> {
  let summary = "normalizes by the L1 or L2 norm along `axis`";
  let description = [{
    ```mlir
    %y = infer.lp_norm %x {axis = 1 : i64, p = 2 : i64} : tensor<2x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis, I64Attr:$p);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_GroupNormOp : Infer_InferredOp<"group_norm"> {
  let summary = "group normalization";
  let description = [{
    Normalizes each of `num_groups` channel groups of every sample, then
    applies the per-channel `scale` and `bias`.

    ```mlir
    %y = infer.group_norm %x, %s, %b {num_groups = 2 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Infer_Tensor:$bias,
                   I64Attr:$num_groups, F32Attr:$epsilon);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_LRNOp : Infer_InferredOp<"lrn"> {
  let summary = "local response normalization across channels";
  let description = [{
    ```mlir
    %y = infer.lrn %x {size = 5 : i64, alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32}
        : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$size, F32Attr:$alpha, F32Attr:$beta,
                   F32Attr:$bias);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}
def Infer_LogSoftmaxOp : Infer_AxisOp<"log_softmax", "log of softmax">;

//===----------------------------------------------------------------------===//
// Quantization (import only for now)
//===----------------------------------------------------------------------===//

def Infer_QuantizeLinearOp : Infer_InferredOp<"quantize_linear"> {
  let summary = "y = saturate(round(x / scale) + zero_point)";
  let description = [{
    Per-tensor (`scale` rank 0) or per-axis quantization; the result's
    element type is `zero_point`'s.

    ```mlir
    %q = infer.quantize_linear %x, %s, %zp {axis = 1 : i64, saturate = true}
        : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Infer_Tensor:$zero_point,
                   I64Attr:$axis, BoolAttr:$saturate);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_DequantizeLinearOp : Infer_InferredOp<"dequantize_linear"> {
  let summary = "y = (x - zero_point) * scale";
  let description = [{
    The result's element type is `scale`'s.

    ```mlir
    %x = infer.dequantize_linear %q, %s, %zp {axis = 1 : i64}
        : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$scale, Infer_Tensor:$zero_point,
                   I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // INFER_NN_OPS_TD
