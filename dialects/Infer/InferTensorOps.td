//===- InferTensorOps.td - constants, shape and data movement -*- tablegen -*-===//

#ifndef INFER_TENSOR_OPS_TD
#define INFER_TENSOR_OPS_TD

include "InferBase.td"

def Infer_ConstantOp : Infer_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant tensor (weights, shape vectors, scalars)";
  let description = [{
    ```mlir
    %w = infer.constant dense<[1, 3, 224, 224]> : tensor<4xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape queries and generators
//===----------------------------------------------------------------------===//

def Infer_ShapeOp : Infer_InferredOp<"shape"> {
  let summary = "the dims [start, end) of a tensor as a 1-D i64 tensor";
  let description = [{
    Folds to a constant once those dims are static.

    ```mlir
    %s = infer.shape %x {start = 0 : i64, end = 2 : i64} : tensor<?x16x768xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs Infer_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Infer_SizeOp : Infer_InferredOp<"size"> {
  let summary = "the number of elements of a tensor, as a rank-0 i64 tensor";
  let description = [{
    ```mlir
    %n = infer.size %x : tensor<2x3xf32> -> tensor<i64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input);
  let results = (outs Infer_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Infer_ConstantOfShapeOp : Infer_InferredOp<"constant_of_shape"> {
  let summary = "a tensor of the given shape filled with one value";
  let description = [{
    ```mlir
    %z = infer.constant_of_shape %s {value = dense<0.0> : tensor<1xf32>} : tensor<2xi64> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Infer_IndexTensor:$shape, ElementsAttr:$value);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$shape attr-dict `:` type($shape) `->` type($result)";
  let hasFolder = 1;
}

def Infer_RangeOp : Infer_InferredOp<"range"> {
  let summary = "start, start + delta, ... up to (excluding) limit";
  let description = [{
    ```mlir
    %r = infer.range %start, %limit, %delta : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$start, Infer_Tensor:$limit, Infer_Tensor:$delta);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` type($start) `,` type($limit) `,` type($delta) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reshaping and data movement
//===----------------------------------------------------------------------===//

def Infer_ReshapeOp : Infer_InferredOp<"reshape"> {
  let summary = "reshape to a shape given as a 1-D i64 tensor";
  let description = [{
    ONNX semantics: a `0` copies the input dim (unless `allow_zero`), one
    `-1` is inferred from the element count.

    ```mlir
    %y = infer.reshape %x, %s {allow_zero = false} : (tensor<1x16x768xf32>, tensor<4xi64>) -> tensor<1x16x12x64xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$shape, BoolAttr:$allow_zero);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Infer_TransposeOp : Infer_InferredOp<"transpose"> {
  let summary = "permutes dims: result dim i is input dim perm[i]";
  let description = [{
    ```mlir
    %y = infer.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x12x64xf32> -> tensor<1x12x16x64xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Infer_SqueezeOp : Infer_InferredOp<"squeeze"> {
  let summary = "removes dims of size 1";
  let description = [{
    `axes` are non-negative and sorted; the importer resolves an absent
    `axes` to every static dim of size 1.

    ```mlir
    %y = infer.squeeze %x {axes = array<i64: 0>} : tensor<1x4xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Infer_UnsqueezeOp : Infer_InferredOp<"unsqueeze"> {
  let summary = "inserts dims of size 1";
  let description = [{
    `axes` index the result's dims, non-negative and sorted.

    ```mlir
    %y = infer.unsqueeze %x {axes = array<i64: 0, 2>} : tensor<4xf32> -> tensor<1x4x1xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Infer_FlattenOp : Infer_InferredOp<"flatten"> {
  let summary = "collapses to 2-D: dims before `axis`, dims from `axis` on";
  let description = [{
    ```mlir
    %y = infer.flatten %x {axis = 1 : i64} : tensor<?x2048x1x1xf32> -> tensor<?x2048xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_ConcatOp : Infer_InferredOp<"concat"> {
  let summary = "concatenation along `axis`";
  let description = [{
    ```mlir
    %y = infer.concat %a, %b {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<Infer_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Infer_SplitOp : Infer_InferredOp<"split"> {
  let summary = "splits along `axis` into pieces of the given sizes";
  let description = [{
    ```mlir
    %q, %k, %v = infer.split %x {axis = 2 : i64, sizes = array<i64: 768, 768, 768>}
        : tensor<1x16x2304xf32> -> (tensor<1x16x768xf32>, tensor<1x16x768xf32>, tensor<1x16x768xf32>)
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Infer_Tensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($results)";
}

def Infer_SliceOp : Infer_InferredOp<"slice"> {
  let summary = "strided slice with ONNX clamping rules";
  let description = [{
    `starts`, `ends`, `axes` and `steps` are 1-D i64 tensors of one length
    (the importer materializes absent `axes` and `steps`). Out-of-range
    starts and ends are clamped, negative ones count from the end.

    ```mlir
    %y = infer.slice %x, %starts, %ends, %axes, %steps
        : (tensor<1x16x768xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x1x768xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$starts, Infer_IndexTensor:$ends,
                   Infer_IndexTensor:$axes, Infer_IndexTensor:$steps);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Infer_GatherOp : Infer_InferredOp<"gather"> {
  let summary = "gathers slices along `axis` at the given indices";
  let description = [{
    The result shape is data.shape[:axis] + indices.shape +
    data.shape[axis+1:]; negative indices count from the end.

    ```mlir
    %e = infer.gather %table, %ids {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<1x16xi64>) -> tensor<1x16x768xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$data, Infer_Tensor:$indices, I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Infer_GatherElementsOp : Infer_InferredOp<"gather_elements"> {
  let summary = "gathers single elements along `axis`";
  let description = [{
    ```mlir
    %y = infer.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$data, Infer_Tensor:$indices, I64Attr:$axis);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Infer_ExpandOp : Infer_InferredOp<"expand"> {
  let summary = "broadcasts to a shape given as a 1-D i64 tensor";
  let description = [{
    ```mlir
    %y = infer.expand %x, %s : (tensor<1x1x768xf32>, tensor<3xi64>) -> tensor<4x1x768xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$shape);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
}

def Infer_TileOp : Infer_InferredOp<"tile"> {
  let summary = "repeats the tensor along every dim";
  let description = [{
    ```mlir
    %y = infer.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$repeats);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` functional-type(operands, results)";
}

def Infer_PadOp : Infer_InferredOp<"pad"> {
  let summary = "pads every dim (constant, reflect, edge or wrap)";
  let description = [{
    `pads` is a 1-D i64 tensor of 2 * rank values (all begins, then all
    ends; negative values crop); `value` is a rank-0 tensor used in
    constant mode. The importer resolves the opset's attribute or `axes`
    forms into this one.

    ```mlir
    %y = infer.pad %x, %p, %v {mode = "constant"} : (tensor<1x3x4x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x6x6xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$pads, Infer_Tensor:$value,
                   StrAttr:$mode);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Infer_TriluOp : Infer_InferredOp<"trilu"> {
  let summary = "keeps the upper or lower triangle of the last two dims";
  let description = [{
    `k` is a rank-0 i64 tensor (diagonal offset).

    ```mlir
    %y = infer.trilu %x, %k {upper = false} : (tensor<4x4xf32>, tensor<i64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, Infer_IndexTensor:$k, BoolAttr:$upper);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_DepthToSpaceOp : Infer_InferredOp<"depth_to_space"> {
  let summary = "moves channel blocks into spatial blocks (NCHW)";
  let description = [{
    `mode` is "DCR" or "CRD" as in ONNX.

    ```mlir
    %y = infer.depth_to_space %x {block_size = 2 : i64, mode = "DCR"} : tensor<1x8x2x3xf32> -> tensor<1x2x4x6xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$block_size, StrAttr:$mode);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_SpaceToDepthOp : Infer_InferredOp<"space_to_depth"> {
  let summary = "moves spatial blocks into channels (NCHW)";
  let description = [{
    ```mlir
    %y = infer.space_to_depth %x {block_size = 2 : i64} : tensor<1x2x4x6xf32> -> tensor<1x8x2x3xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$block_size);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Infer_GatherNDOp : Infer_InferredOp<"gather_nd"> {
  let summary = "gathers slices at index tuples (ONNX GatherND)";
  let description = [{
    ```mlir
    %y = infer.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$data, Infer_Tensor:$indices, I64Attr:$batch_dims);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Infer_ScatterNDOp : Infer_InferredOp<"scatter_nd"> {
  let summary = "writes updates at index tuples (ONNX ScatterND)";
  let description = [{
    `reduction` is "none", "add", "mul", "max" or "min".

    ```mlir
    %y = infer.scatter_nd %x, %i, %u {reduction = "none"}
        : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$data, Infer_Tensor:$indices, Infer_Tensor:$updates,
                   StrAttr:$reduction);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Infer_ScatterElementsOp : Infer_InferredOp<"scatter_elements"> {
  let summary = "writes single elements along `axis` (ONNX ScatterElements)";
  let description = [{
    ```mlir
    %y = infer.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"}
        : (tensor<2x4xf32>, tensor<2x1xi64>, tensor<2x1xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$data, Infer_Tensor:$indices, Infer_Tensor:$updates,
                   I64Attr:$axis, StrAttr:$reduction);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Reductions, scans, selection
//===----------------------------------------------------------------------===//

class Infer_ReduceOp<string mnemonic, string what> : Infer_InferredOp<mnemonic> {
  let summary = "reduces by " # what # " over `axes`";
  let description = [{
    `axes` are non-negative and sorted; the importer resolves an empty ONNX
    `axes` (reduce all dims, or nothing with `noop_with_empty_axes`).

    ```mlir
    %y = infer.}] # mnemonic # [{ %x {axes = array<i64: 2>, keep_dims = true} : tensor<1x16x768xf32> -> tensor<1x16x1xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, DenseI64ArrayAttr:$axes, BoolAttr:$keep_dims);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}
def Infer_ReduceL1Op : Infer_ReduceOp<"reduce_l1", "the sum of absolute values">;
def Infer_ReduceL2Op : Infer_ReduceOp<"reduce_l2", "the Euclidean norm">;
def Infer_ReduceLogSumExpOp : Infer_ReduceOp<"reduce_log_sum_exp", "log(sum(exp(x)))">;
def Infer_ReduceMaxOp : Infer_ReduceOp<"reduce_max", "the maximum">;
def Infer_ReduceMeanOp : Infer_ReduceOp<"reduce_mean", "the mean">;
def Infer_ReduceMinOp : Infer_ReduceOp<"reduce_min", "the minimum">;
def Infer_ReduceProdOp : Infer_ReduceOp<"reduce_prod", "the product">;
def Infer_ReduceSumOp : Infer_ReduceOp<"reduce_sum", "the sum">;
def Infer_ReduceSumSquareOp : Infer_ReduceOp<"reduce_sum_square", "the sum of squares">;

class Infer_ArgOp<string mnemonic, string what> : Infer_InferredOp<mnemonic> {
  let summary = "the index of the " # what # " along `axis`";
  let description = [{
    ```mlir
    %i = infer.}] # mnemonic # [{ %x {axis = 1 : i64, keep_dims = false, select_last_index = false}
        : tensor<2x10xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis, BoolAttr:$keep_dims,
                   BoolAttr:$select_last_index);
  let results = (outs Infer_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}
def Infer_ArgMaxOp : Infer_ArgOp<"arg_max", "largest element">;
def Infer_ArgMinOp : Infer_ArgOp<"arg_min", "smallest element">;

def Infer_TopKOp : Infer_InferredOp<"top_k"> {
  let summary = "the k largest (or smallest) elements along `axis` and their indices";
  let description = [{
    ```mlir
    %v, %i = infer.top_k %x {k = 5 : i64, axis = 1 : i64, largest = true, sorted = true}
        : tensor<1x1000xf32> -> tensor<1x5xf32>, tensor<1x5xi64>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$k, I64Attr:$axis, BoolAttr:$largest,
                   BoolAttr:$sorted);
  let results = (outs Infer_Tensor:$values, Infer_IndexTensor:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
}

def Infer_CumSumOp : Infer_InferredOp<"cum_sum"> {
  let summary = "cumulative sum along `axis`";
  let description = [{
    ```mlir
    %y = infer.cum_sum %x {axis = 0 : i64, exclusive = false, reverse = false} : tensor<5xf32> -> tensor<5xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input, I64Attr:$axis, BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

#endif // INFER_TENSOR_OPS_TD
