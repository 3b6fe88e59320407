//===- WarpMma.cpp - one warp's tensor-core products, whatever the kind ---===//
//
// The WMMA implementation of WarpMma: each fragment one
// gpu.mma_matrix of 16x16 (C), 16 x k (A) or k x 16 (B), which ptxas makes
// into HMMA instructions. WMMA's TF32 fragment loads are rounded to TF32
// after LLVM's PTX is made (Binary/RoundTF32.cpp).
//
//===----------------------------------------------------------------------===//

#include "Kernels/WarpMma.h"
#include "Kernels/MmaSync.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

class WmmaFragments : public WarpMma {
public:
  WmmaFragments(const MmaShape &shape, OpBuilder &b, Location loc, bool transposeA,
                bool transposeB)
      : b(b), loc(loc), transA(transposeA ? b.getUnitAttr() : UnitAttr()),
        transB(transposeB ? b.getUnitAttr() : UnitAttr()),
        typeA(gpu::MMAMatrixType::get({shape.m, shape.k}, shape.operand, "AOp")),
        typeB(gpu::MMAMatrixType::get({shape.k, shape.n}, shape.operand, "BOp")),
        typeC(gpu::MMAMatrixType::get({shape.m, shape.n}, shape.accumulator, "COp")) {}

  SmallVector<Type> fragmentTypes() const override { return {typeC}; }

  Fragment load(Value memref, ValueRange at, int64_t lead) override {
    return {gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeC, memref, at,
                                                 b.getIndexAttr(lead), UnitAttr())};
  }

  void store(const Fragment &tile, Value memref, ValueRange at, int64_t lead) override {
    gpu::SubgroupMmaStoreMatrixOp::create(b, loc, tile[0], memref, at, b.getIndexAttr(lead),
                                          UnitAttr());
  }

  Fragment splat(Value scalar) override {
    return {gpu::SubgroupMmaConstantMatrixOp::create(b, loc, typeC, scalar)};
  }

  Fragment add(const Fragment &x, const Fragment &y) override {
    return {gpu::SubgroupMmaElementwiseOp::create(b, loc, typeC, ValueRange{x[0], y[0]},
                                                  gpu::MMAElementwiseOp::ADDF)};
  }

  // The layouts were fixed when the fragments were made (transA, transB).
  Operand loadA(Value tiles, Value at, int64_t ld, bool) override {
    return {gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeA, tiles, ValueRange{at},
                                                 b.getIndexAttr(ld), transA)};
  }

  Operand loadB(Value tiles, Value at, int64_t ld, bool) override {
    return {gpu::SubgroupMmaLoadMatrixOp::create(b, loc, typeB, tiles, ValueRange{at},
                                                 b.getIndexAttr(ld), transB)};
  }

  Fragment multiply(const Operand &a, const Operand &x, const Fragment &acc) override {
    return {gpu::SubgroupMmaComputeOp::create(b, loc, typeC, a[0], x[0], acc[0], transA, transB)};
  }

private:
  OpBuilder &b;
  Location loc;
  UnitAttr transA, transB;
  gpu::MMAMatrixType typeA, typeB, typeC;
};

} // namespace

std::unique_ptr<WarpMma> WarpMma::create(MmaKind kind, const MmaShape &shape, IndexMath &e,
                                         Value thread, bool transposeA, bool transposeB) {
  if (kind == MmaKind::Sync)
    return std::make_unique<MmaSyncFragments>(shape, e, e.rem(thread, 32),
                                              /*pairedColumns=*/!transposeB);
  return std::make_unique<WmmaFragments>(shape, e.b, e.loc, transposeA, transposeB);
}
