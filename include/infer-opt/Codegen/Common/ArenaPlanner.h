//===- ArenaPlanner.h - liveness-based offsets in one arena -----*- C++ -*-===//
//
// The planning arithmetic, free of MLIR so that it is unit-tested directly:
// buffers with live ranges [first, last] (positions in program order) get
// byte offsets in one arena so that buffers live at the same time never
// overlap. Greedy by size (largest first, lowest fitting offset), which is
// what TFLite's and ONNX Runtime's planners do; the report compares the peak
// with the lower bound (the largest sum of simultaneously live buffers) and
// with no reuse at all (every buffer its own memory).
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_CODEGEN_CPU_ARENAPLANNER_H
#define INFER_OPT_CODEGEN_CPU_ARENAPLANNER_H

#include <cstdint>
#include <vector>

namespace mlir::infer {

struct ArenaBuffer {
  uint64_t bytes = 0;
  int64_t first = 0; // Position of the definition.
  int64_t last = 0;  // Position of the last use (inclusive).
};

struct ArenaPlan {
  std::vector<uint64_t> offsets; // One per buffer, multiples of the alignment.
  uint64_t peakBytes = 0;        // The arena's size.
  uint64_t lowerBoundBytes = 0;  // Largest sum of simultaneously live (aligned) buffers.
  uint64_t noReuseBytes = 0;     // Sum of all (aligned) buffers.
};

/// Offsets for `buffers`, each aligned to `alignment` (a power of two).
ArenaPlan planArena(const std::vector<ArenaBuffer> &buffers, uint64_t alignment = 64);

} // namespace mlir::infer

#endif // INFER_OPT_CODEGEN_CPU_ARENAPLANNER_H
