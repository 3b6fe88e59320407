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

/// How an operand's loops walk a contiguous run of memory: its first
/// element's offset (in elements, from the storage root's base pointer),
/// the number of elements, and its loop dims with their strides, the
/// largest stride first. Unit loops are left out, and so are loops that do
/// not move the operand (a contraction's k) unless `eachOnce` asks for
/// every element to be walked once: then such a loop means no walk.
struct DenseWalk {
  int64_t offset = 0, size = 1;
  SmallVector<std::pair<unsigned, int64_t>> dims;
};

/// The walk of `value` (indexed by `map` over loops of `ranges`), if it is
/// dense: each stride the product of the ranges inside it.
inline std::optional<DenseWalk> denseWalk(Value value, AffineMap map, ArrayRef<int64_t> ranges,
                                          bool eachOnce = false) {
  auto strides = loopStrides(value, map);
  if (!strides)
    return std::nullopt;
  DenseWalk walk;
  walk.offset = strides->second;
  for (auto [dim, stride] : llvm::enumerate(strides->first)) {
    if (ranges[dim] == 1)
      continue;
    if (stride < 0 || (stride == 0 && eachOnce))
      return std::nullopt;
    if (stride == 0)
      continue;
    walk.dims.push_back({static_cast<unsigned>(dim), stride});
  }
  llvm::stable_sort(walk.dims, [](auto x, auto y) { return x.second > y.second; });
  for (auto it = walk.dims.rbegin(); it != walk.dims.rend(); ++it) {
    if (it->second != walk.size)
      return std::nullopt;
    walk.size *= ranges[it->first];
  }
  return walk;
}

} // namespace mlir::infer

#endif // INFER_OPT_LIB_CODEGEN_CUDA_LOOPSTRIDES_H
