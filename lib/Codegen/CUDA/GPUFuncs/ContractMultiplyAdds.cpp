//===- ContractMultiplyAdds.cpp - a * b + c may be one fma in the kernels -===//
//
// infer-cuda-contract-multiply-adds marks the float multiplications,
// additions and subtractions of the gpu.funcs `contract`, so that LLVM's
// NVPTX back end may fuse a product and the sum it feeds into one fma
// (`fma.rn.f32`, FFMA in SASS). Without the flag it writes `mul.rn` and
// `add.rn` apart on purpose, which ptxas may not fuse: every step of a SIMT
// reduction (a convolution's window, a pool, a small contraction) was two
// instructions and two roundings. nvcc contracts by default (`--fmad=true`),
// and so do cuDNN's and cuBLAS's kernels; a fused product is rounded once,
// so results move by an ulp or so, toward the exact value. The tensor-core
// kernels are not affected (their products are the hardware's).
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"
#include "infer-opt/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::infer {
#define GEN_PASS_DEF_CONTRACTMULTIPLYADDSPASS
#include "infer-opt/Codegen/CUDA/Passes.h.inc"
} // namespace mlir::infer

using namespace mlir;
using namespace mlir::infer;

namespace {

struct ContractMultiplyAddsPass : public infer::impl::ContractMultiplyAddsPassBase<ContractMultiplyAddsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp func) {
      func.walk([](Operation *op) {
        if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
          return;
        auto math = cast<arith::ArithFastMathInterface>(op);
        arith::FastMathFlags flags = math.getFastMathFlagsAttr().getValue();
        op->setAttr(math.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(),
                                                  flags | arith::FastMathFlags::contract));
      });
    });
  }
};

} // namespace

