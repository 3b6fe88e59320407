//===- Delinearize.h - a linear thread, block or tile id as loop indices -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: every kernel builder spreads a loop nest
// over a linear id (a thread, a block, a tile) and needs the id's digits.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_DELINEARIZE_H
#define INFER_OPT_LIB_CODEGEN_CUDA_DELINEARIZE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::infer {

/// The digits of `linear` in the mixed radix `ranges`, the last varying
/// fastest: one index per range, in [0, range). `linear` is below the
/// product of `ranges` wherever the indices are used, so the outermost
/// digit is what is left, without a remainder. When that product fits in
/// 32 bits, so do the digits' divisions: indices are 64-bit on the GPU,
/// where a 64-bit division by a constant is some 10 instructions of
/// multiply-high and shifts, and a 32-bit one 2 (a kernel that computes
/// an operand's elements divides per element, OperandProducers.h). Past
/// the product the digits may differ, but are not used.
inline SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<int64_t> ranges) {
  SmallVector<Value> digits(ranges.size());
  if (ranges.size() < 2) {
    if (!ranges.empty())
      digits[0] = linear;
    return digits;
  }
  int64_t product = 1;
  for (int64_t range : ranges)
    product = range > 0 && product <= (int64_t{1} << 32) / range ? product * range
                                                                  : (int64_t{1} << 33);
  Type type = product <= (int64_t{1} << 32) ? Type(b.getI32Type()) : b.getIndexType();
  auto narrow = [&](Value index) -> Value {
    return type.isIndex() ? index : arith::IndexCastUIOp::create(b, loc, type, index);
  };
  auto widen = [&](Value value) -> Value {
    return type.isIndex() ? value
                          : arith::IndexCastUIOp::create(b, loc, b.getIndexType(), value);
  };
  Value rest = narrow(linear);
  for (size_t i = ranges.size(); i-- > 1;) {
    Value range = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, ranges[i]));
    digits[i] = widen(arith::RemUIOp::create(b, loc, rest, range));
    rest = arith::DivUIOp::create(b, loc, rest, range);
  }
  digits[0] = widen(rest);
  return digits;
}

/// delinearize over the loop dims `dims` (outermost first) of an op whose
/// loop ranges are `ranges`: each digit becomes `loopIndex[dim]`.
inline void spreadOverLoops(OpBuilder &b, Location loc, Value linear, ArrayRef<unsigned> dims,
                            ArrayRef<int64_t> ranges, MutableArrayRef<Value> loopIndex) {
  SmallVector<int64_t> radix;
  for (unsigned d : dims)
    radix.push_back(ranges[d]);
  for (auto [d, digit] : llvm::zip(dims, delinearize(b, loc, linear, radix)))
    loopIndex[d] = digit;
}

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_DELINEARIZE_H
