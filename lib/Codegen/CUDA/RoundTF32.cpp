//===- RoundTF32.cpp - tensor-core inputs rounded to TF32, not truncated ---===//
//
// infer-nvvm-round-tf32 runs on the kernels after their lowering to NVVM.
// The tensor-core kernels load float32 A and B fragments with
// wmma.load.{a,b}...tf32 and multiply them with wmma.mma...tf32, which
// expect TF32 values in those registers: CUDA's WMMA API converts each
// element with __float_to_tf32 (cvt.rna.tf32.f32: round to nearest, ties
// away from zero) first, as CUTLASS does. Raw float32 bits were passed
// before; what the tensor cores make of the 13 low mantissa bits is not
// specified, and dropping them (truncation toward zero) is the usual
// reading. Truncation biases every product low by half a TF32 ulp on
// average, and over a network's depth that bias adds up where rounding
// errors cancel: in the kernel emulator's TF32 modes
// (scripts/gpu_emulator/, tf32="truncate" or "rna"), PP-OCR det is 0.143
// off ONNX Runtime in relative L2 truncated and 0.035 rounded, RapidAI's
// orientation classifier 3.7e-3 and 1.8e-3.
//
// Here every element of every TF32 A or B fragment load is rounded: the
// struct's registers are bitcast to f32, converted by
// nvvm.convert.float.to.tf32 <rna> (sm_80 and newer, as TF32 itself), and
// put back, before any wmma.mma reads them. Accumulator (C) fragments stay
// float32.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

struct RoundTF32Pass : public PassWrapper<RoundTF32Pass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RoundTF32Pass)
  StringRef getArgument() const final { return "infer-nvvm-round-tf32"; }
  StringRef getDescription() const final {
    return "Round the elements of TF32 A and B fragment loads to nearest (cvt.rna.tf32.f32) "
           "instead of letting the tensor cores truncate them";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    getOperation()->walk([](NVVM::WMMALoadOp load) {
      if (load.getEltype() != NVVM::MMATypes::tf32 || load.getFrag() == NVVM::MMAFrag::c)
        return;
      auto fragment = dyn_cast<LLVM::LLVMStructType>(load.getType());
      if (!fragment)
        return;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : load->getUses())
        uses.push_back(&use);
      Location loc = load.getLoc();
      OpBuilder b(load->getContext());
      b.setInsertionPointAfter(load);
      Type f32 = b.getF32Type(), i32 = b.getI32Type();
      Value rounded = load.getResult();
      for (auto [i, type] : llvm::enumerate(fragment.getBody())) {
        Value element = LLVM::ExtractValueOp::create(b, loc, load.getResult(), i);
        Value value = type == f32 ? element : LLVM::BitcastOp::create(b, loc, f32, element);
        Value tf32 = NVVM::ConvertFloatToTF32Op::create(b, loc, i32, value,
                                                       NVVM::FPRoundingMode::RNA,
                                                       NVVM::SaturationMode::NONE, false);
        Value back = type == i32 ? tf32 : LLVM::BitcastOp::create(b, loc, type, tf32);
        rounded = LLVM::InsertValueOp::create(b, loc, rounded, back, i);
      }
      for (OpOperand *use : uses)
        use->set(rounded);
    });
  }
};

} // namespace

std::unique_ptr<Pass> mlir::infer::createRoundTF32Pass() {
  return std::make_unique<RoundTF32Pass>();
}
