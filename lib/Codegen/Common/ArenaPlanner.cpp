//===- ArenaPlanner.cpp - liveness-based offsets in one arena -------------===//

#include "infer-opt/Codegen/Common/ArenaPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir::infer;

static uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

static bool overlapInTime(const ArenaBuffer &a, const ArenaBuffer &b) {
  return a.first <= b.last && b.first <= a.last;
}

ArenaPlan mlir::infer::planArena(const std::vector<ArenaBuffer> &buffers, uint64_t alignment) {
  ArenaPlan plan;
  size_t n = buffers.size();
  plan.offsets.assign(n, 0);
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    sizes[i] = alignTo(std::max<uint64_t>(buffers[i].bytes, 1), alignment);
    plan.noReuseBytes += sizes[i];
  }

  // Lower bound: sweep the interval end points (a buffer is live on [first, last]).
  std::map<int64_t, int64_t> delta;
  for (size_t i = 0; i < n; ++i) {
    delta[buffers[i].first] += static_cast<int64_t>(sizes[i]);
    delta[buffers[i].last + 1] -= static_cast<int64_t>(sizes[i]);
  }
  int64_t live = 0;
  for (const auto &[position, change] : delta) {
    live += change;
    plan.lowerBoundBytes = std::max<uint64_t>(plan.lowerBoundBytes, static_cast<uint64_t>(live));
  }

  // Largest first; ties in program order, so the plan is deterministic.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b])
      return sizes[a] > sizes[b];
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    // Busy ranges of the placed buffers live at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed)
      if (overlapInTime(buffers[i], buffers[j]))
        busy.push_back({plan.offsets[j], plan.offsets[j] + sizes[j]});
    std::sort(busy.begin(), busy.end());
    // The lowest gap that fits; smallest fitting gap would fragment less but
    // lowest-offset is simpler and what the references do.
    uint64_t offset = 0;
    for (const auto &[begin, end] : busy) {
      if (begin >= offset + sizes[i])
        break;
      offset = std::max(offset, end);
    }
    plan.offsets[i] = offset;
    plan.peakBytes = std::max(plan.peakBytes, offset + sizes[i]);
    placed.push_back(i);
  }
  return plan;
}
