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
/// digit is what is left, without a remainder.
inline SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<int64_t> ranges) {
  SmallVector<Value> digits(ranges.size());
  for (size_t i = ranges.size(); i-- > 1;) {
    Value range = arith::ConstantIndexOp::create(b, loc, ranges[i]);
    digits[i] = arith::RemUIOp::create(b, loc, linear, range);
    linear = arith::DivUIOp::create(b, loc, linear, range);
  }
  if (!ranges.empty())
    digits[0] = linear;
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
