//===- InferElementwiseOps.td - elementwise math and logic -----*- tablegen -*-===//

#ifndef INFER_ELEMENTWISE_OPS_TD
#define INFER_ELEMENTWISE_OPS_TD

include "InferBase.td"

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

def Infer_AbsOp : Infer_FoldableUnaryOp<"abs", "absolute value">;
def Infer_CeilOp : Infer_FoldableUnaryOp<"ceil", "rounding up">;
def Infer_CosOp : Infer_UnaryOp<"cos", "cosine">;
def Infer_ErfOp : Infer_UnaryOp<"erf", "the Gauss error function">;
def Infer_ExpOp : Infer_FoldableUnaryOp<"exp", "the exponential">;
def Infer_FloorOp : Infer_FoldableUnaryOp<"floor", "rounding down">;
def Infer_LogOp : Infer_FoldableUnaryOp<"log", "the natural logarithm">;
def Infer_NegOp : Infer_FoldableUnaryOp<"neg", "negation">;
def Infer_NotOp : Infer_FoldableUnaryOp<"not", "logical not">;
def Infer_ReciprocalOp : Infer_FoldableUnaryOp<"reciprocal", "1 / x">;
def Infer_ReluOp : Infer_FoldableUnaryOp<"relu", "max(x, 0)">;
def Infer_RoundOp : Infer_UnaryOp<"round", "rounding half to even">;
def Infer_SigmoidOp : Infer_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Infer_SignOp : Infer_FoldableUnaryOp<"sign", "the sign (-1, 0 or 1)">;
def Infer_SinOp : Infer_UnaryOp<"sin", "sine">;
def Infer_SoftplusOp : Infer_UnaryOp<"softplus", "log(1 + exp(x))">;
def Infer_SqrtOp : Infer_FoldableUnaryOp<"sqrt", "the square root">;
def Infer_TanhOp : Infer_UnaryOp<"tanh", "hyperbolic tangent">;
def Infer_HardSwishOp : Infer_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))">;
def Infer_AcosOp : Infer_UnaryOp<"acos", "arc cosine">;
def Infer_AcoshOp : Infer_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def Infer_AsinOp : Infer_UnaryOp<"asin", "arc sine">;
def Infer_AsinhOp : Infer_UnaryOp<"asinh", "inverse hyperbolic sine">;
def Infer_AtanOp : Infer_UnaryOp<"atan", "arc tangent">;
def Infer_AtanhOp : Infer_UnaryOp<"atanh", "inverse hyperbolic tangent">;
def Infer_BitwiseNotOp : Infer_UnaryOp<"bitwise_not", "bitwise not">;
def Infer_CoshOp : Infer_UnaryOp<"cosh", "hyperbolic cosine">;
def Infer_MishOp : Infer_UnaryOp<"mish", "x * tanh(softplus(x))">;
def Infer_SinhOp : Infer_UnaryOp<"sinh", "hyperbolic sine">;
def Infer_SoftsignOp : Infer_UnaryOp<"softsign", "x / (1 + |x|)">;
def Infer_TanOp : Infer_UnaryOp<"tan", "tangent">;

def Infer_IsInfOp : Infer_Op<"is_inf", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "elementwise test for infinity";
  let description = [{
    `true` where the input is +inf (if `detect_positive`) or -inf (if
    `detect_negative`).

    ```mlir
    %m = infer.is_inf %x {detect_negative = true, detect_positive = true} : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, BoolAttr:$detect_negative, BoolAttr:$detect_positive);
  let results = (outs Infer_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_IsNaNOp : Infer_Op<"is_nan", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "elementwise test for NaN";
  let description = [{
    `true` where the input is NaN.

    ```mlir
    %m = infer.is_nan %x : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input);
  let results = (outs Infer_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

// Unary ops with scalar parameters (alpha, beta, ...): same shape as the input.
class Infer_ParamUnaryOp<string mnemonic, string what, dag params>
    : Infer_UnaryOp<mnemonic, what> {
  let arguments = !con((ins Infer_Tensor:$input), params);
}

def Infer_EluOp : Infer_ParamUnaryOp<"elu", "x if x >= 0 else alpha * (exp(x) - 1)",
    (ins F32Attr:$alpha)>;
def Infer_GeluOp : Infer_ParamUnaryOp<"gelu", "the Gaussian error linear unit",
    (ins BoolAttr:$tanh_approximation)>;
def Infer_HardSigmoidOp : Infer_ParamUnaryOp<"hard_sigmoid", "max(0, min(1, alpha * x + beta))",
    (ins F32Attr:$alpha, F32Attr:$beta)>;
def Infer_LeakyReluOp : Infer_ParamUnaryOp<"leaky_relu", "x if x >= 0 else alpha * x",
    (ins F32Attr:$alpha)>;
def Infer_CeluOp : Infer_ParamUnaryOp<"celu", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))",
    (ins F32Attr:$alpha)>;
def Infer_ShrinkOp : Infer_ParamUnaryOp<"shrink", "x - bias if x > lambd, x + bias if x < -lambd, else 0",
    (ins F32Attr:$bias, F32Attr:$lambd)>;
def Infer_ThresholdedReluOp : Infer_ParamUnaryOp<"thresholded_relu", "x if x > alpha else 0",
    (ins F32Attr:$alpha)>;
def Infer_SeluOp : Infer_ParamUnaryOp<"selu", "gamma * (x if x > 0 else alpha * (exp(x) - 1))",
    (ins F32Attr:$alpha, F32Attr:$gamma)>;

//===----------------------------------------------------------------------===//
// Binary math, comparison and logic
//===----------------------------------------------------------------------===//

def Infer_AddOp : Infer_BinaryOp<"add", "the sum", [Commutative]>;
def Infer_SubOp : Infer_BinaryOp<"sub", "the difference">;
def Infer_MulOp : Infer_BinaryOp<"mul", "the product", [Commutative]>;
def Infer_DivOp : Infer_BinaryOp<"div", "the quotient (truncating for integers)">;
def Infer_PowOp : Infer_BinaryOp<"pow", "lhs raised to the power rhs">;
def Infer_MaxOp : Infer_BinaryOp<"max", "the maximum", [Commutative]>;
def Infer_MinOp : Infer_BinaryOp<"min", "the minimum", [Commutative]>;
def Infer_ModOp : Infer_BinaryOp<"mod", "the remainder (sign of the divisor; C fmod when `fmod` is set)"> {
  let arguments = (ins Infer_Tensor:$lhs, Infer_Tensor:$rhs, BoolAttr:$fmod);
}
def Infer_AndOp : Infer_BinaryOp<"and", "logical and", [Commutative]>;
def Infer_OrOp : Infer_BinaryOp<"or", "logical or", [Commutative]>;
def Infer_XorOp : Infer_BinaryOp<"xor", "logical exclusive or", [Commutative]>;
def Infer_BitwiseAndOp : Infer_BinaryOp<"bitwise_and", "bitwise and", [Commutative]>;
def Infer_BitwiseOrOp : Infer_BinaryOp<"bitwise_or", "bitwise or", [Commutative]>;
def Infer_BitwiseXorOp : Infer_BinaryOp<"bitwise_xor", "bitwise exclusive or", [Commutative]>;
def Infer_PReluOp : Infer_BinaryOp<"prelu", "x if x >= 0 else slope * x (lhs is x, rhs the slope)">;
def Infer_BitShiftOp : Infer_BinaryOp<"bit_shift", "a bit shift of lhs by rhs"> {
  let arguments = (ins Infer_Tensor:$lhs, Infer_Tensor:$rhs, BoolAttr:$left);
}

// Comparisons produce i1 tensors of the broadcast shape.
def Infer_EqualOp : Infer_BinaryOp<"equal", "lhs == rhs", [Commutative]>;
def Infer_GreaterOp : Infer_BinaryOp<"greater", "lhs > rhs">;
def Infer_GreaterOrEqualOp : Infer_BinaryOp<"greater_or_equal", "lhs >= rhs">;
def Infer_LessOp : Infer_BinaryOp<"less", "lhs < rhs">;
def Infer_LessOrEqualOp : Infer_BinaryOp<"less_or_equal", "lhs <= rhs">;

def Infer_WhereOp : Infer_InferredOp<"where"> {
  let summary = "elementwise select with broadcasting";
  let description = [{
    `condition ? lhs : rhs`, all three broadcast to a common shape.

    ```mlir
    %r = infer.where %c, %a, %b : tensor<1x4xi1>, tensor<4xf32>, tensor<f32> -> tensor<1x4xf32>
    ```
  }];
  let arguments = (ins Infer_BoolTensor:$condition, Infer_Tensor:$lhs, Infer_Tensor:$rhs);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasFolder = 1;
}

def Infer_ClipOp : Infer_InferredOp<"clip"> {
  let summary = "clamps values to [min, max]";
  let description = [{
    `min` and `max` are rank-0 tensors of the input's element type (the
    importer materializes the type's lowest and highest values when a bound
    is absent, whatever the opset's form).

    ```mlir
    %r = infer.clip %x, %lo, %hi : tensor<8xf32>, tensor<f32>, tensor<f32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_Tensor:$min, Infer_Tensor:$max);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $min `,` $max attr-dict `:` type($input) `,` type($min) `,` type($max) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Infer_CastOp : Infer_InferredOp<"cast"> {
  let summary = "converts elements to another type";
  let description = [{
    Converts every element to `to` (ONNX Cast semantics: float to int
    truncates toward zero, `saturate` clamps float8 conversions).

    ```mlir
    %r = infer.cast %x {to = i64, saturate = true} : tensor<4xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, TypeAttr:$to, BoolAttr:$saturate);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

#endif // INFER_ELEMENTWISE_OPS_TD
