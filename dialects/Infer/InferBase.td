//===- InferBase.td - the `infer` dialect and its op classes ---*- tablegen -*-===//
//
// The `infer` dialect holds ONNX semantics on tensors: one op per supported
// operator, with opset differences normalized away by the importer (axes,
// pads, scales, ... are always in one canonical form).
//
//===----------------------------------------------------------------------===//

#ifndef INFER_BASE_TD
#define INFER_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Infer_Dialect : Dialect {
  let name = "infer";
  let cppNamespace = "::mlir::infer";
  let summary = "ONNX operator semantics on tensors, the input of infer-opt's optimizer";
  let description = [{
    Ops of the `infer` dialect take and produce ranked tensors whose dims may
    be static or dynamic (`?`). Graph inputs keep the names of symbolic ONNX
    dims in the `infer.dims` argument attribute. Every op infers its result
    type from its operands and attributes, and constant operands (shape
    tensors) are read during inference, so once input shapes are known the
    whole graph becomes static.
  }];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Largest number of elements a folder may materialize as a non-splat
    /// constant. Keeps a tiny model from exhausting memory through folding.
    int64_t getMaxFoldElements() const { return maxFoldElements; }
    void setMaxFoldElements(int64_t limit) { maxFoldElements = limit; }

  private:
    int64_t maxFoldElements = 1 << 22;
  public:
  }];
}

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

class Infer_Op<string mnemonic, list<Trait> traits = []>
    : Op<Infer_Dialect, mnemonic, traits>;

// An op whose result types are computed in C++ (InferShapeInference.cpp) from
// its operands, its attributes and the values of constant operands. Inferred
// types may be more static than the written ones and vice versa.
class Infer_InferredOp<string mnemonic, list<Trait> traits = []>
    : Infer_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptorWithIsCompatible])>;

def Infer_Tensor : RankedTensorOf<[AnyType]>;
def Infer_IndexTensor : RankedTensorOf<[I64]>;
def Infer_BoolTensor : RankedTensorOf<[I1]>;

// x -> f(x), element by element; the result has the input's type.
class Infer_UnaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Infer_Op<mnemonic, !listconcat(traits,
        [Pure, SameOperandsAndResultType, InferTypeOpInterface])> {
  let summary = "elementwise " # what;
  let description = "\n    Applies " # what # [{ to every element.

    ```mlir
    %y = infer.}] # mnemonic # [{ %x : tensor<2x?xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$input);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// A unary op that folds over constant operands (shape arithmetic such as
// ConstantOfShape(Neg(c)), or scalar math exporters leave behind).
class Infer_FoldableUnaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Infer_UnaryOp<mnemonic, what, traits> {
  let hasFolder = 1;
}

// (a, b) -> f(a, b) with numpy (multidirectional) broadcasting.
class Infer_BinaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Infer_InferredOp<mnemonic, traits> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = "\n    Computes " # what # [{ of `lhs` and `rhs` element by
    element after broadcasting both to a common shape (ONNX multidirectional
    broadcasting: trailing dims align, a dim of 1 stretches).

    ```mlir
    %z = infer.}] # mnemonic # [{ %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Infer_Tensor:$lhs, Infer_Tensor:$rhs);
  let results = (outs Infer_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  // Constant operands fold: shape arithmetic (Shape -> Gather -> Mul -> Concat)
  // must become constants for the graph to become static.
  let hasFolder = 1;
}

#endif // INFER_BASE_TD
