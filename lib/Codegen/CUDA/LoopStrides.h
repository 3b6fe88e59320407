//===- LoopStrides.h - an operand's memory strides per loop dim -*- C++ -*-===//
//
// Internal to lib/Codegen/CUDA: the kernel builders choose their strategy
// from how an operand of a linalg op walks memory along each loop dim.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_LIB_CODEGEN_CUDA_LOOPSTRIDES_H
#define INFER_OPT_LIB_CODEGEN_CUDA_LOOPSTRIDES_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <utility>

namespace mlir::infer {

/// The strides, in elements, of `value` (a memref with a static strided
/// layout) along each loop dim of `map` (a projected permutation), and its
/// offset; nothing for another type, layout or map.
inline std::optional<std::pair<SmallVector<int64_t>, int64_t>> loopStrides(Value value,
                                                                           AffineMap map) {
  auto type = dyn_cast<MemRefType>(value.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) || ShapedType::isDynamic(offset))
    return std::nullopt;
  SmallVector<int64_t> perLoop(map.getNumDims(), 0);
  for (auto [result, stride] : llvm::zip(map.getResults(), strides)) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return std::nullopt;
    perLoop[dim.getPosition()] += stride;
  }
  return std::make_pair(perLoop, offset);
}

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_LOOPSTRIDES_H
