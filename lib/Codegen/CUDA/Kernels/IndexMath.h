//===- IndexMath.h - index arithmetic for the kernel builders -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: the tensor-core kernel builders compute
// thread, tile and element positions with constants; these build the ops.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_INDEXMATH_H
#define INFER_OPT_LIB_CODEGEN_CUDA_INDEXMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::infer {

/// Index ops at `b`'s insertion point; divisions and comparisons unsigned.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t v) { return v ? add(x, cst(v)) : x; }
  Value mul(Value x, int64_t v) { return arith::MulIOp::create(b, loc, x, cst(v)); }
  Value div(Value x, int64_t v) { return arith::DivUIOp::create(b, loc, x, cst(v)); }
  Value rem(Value x, int64_t v) { return arith::RemUIOp::create(b, loc, x, cst(v)); }
  Value min(Value x, int64_t v) { return arith::MinUIOp::create(b, loc, x, cst(v)); }
  Value below(Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, cst(v));
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  /// x / v and x mod v for an x known to be below 2^32, in 32 bits: a
  /// 64-bit division by a constant is some 10 instructions on the GPU, a
  /// 32-bit one 2 (Delinearize.h).
  Value divBelow32Bits(Value x, int64_t v) {
    return widen(arith::DivUIOp::create(b, loc, narrow(x), cst32(v)));
  }
  Value remBelow32Bits(Value x, int64_t v) {
    return widen(arith::RemUIOp::create(b, loc, narrow(x), cst32(v)));
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }

private:
  Value cst32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value narrow(Value x) { return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x); }
  Value widen(Value x) { return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x); }
};

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_INDEXMATH_H
