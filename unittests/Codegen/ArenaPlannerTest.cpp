//===- ArenaPlannerTest.cpp - liveness-based arena offsets ----------------===//

#include "infer-opt/Codegen/Common/ArenaPlanner.h"

#include <gtest/gtest.h>

using namespace mlir::infer;

namespace {

/// No two buffers live at the same time may share a byte.
void expectNoOverlap(const std::vector<ArenaBuffer> &buffers, const ArenaPlan &plan,
                     uint64_t alignment) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % alignment, 0u);
    EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.peakBytes);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      bool liveTogether = buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
      bool disjoint = plan.offsets[i] + buffers[i].bytes <= plan.offsets[j] ||
                      plan.offsets[j] + buffers[j].bytes <= plan.offsets[i];
      EXPECT_TRUE(!liveTogether || disjoint) << "buffers " << i << " and " << j;
    }
  }
}

TEST(ArenaPlanner, ChainReusesDeadBuffers) {
  // a -> b -> c -> d: only neighbours are live together.
  std::vector<ArenaBuffer> buffers = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}, {1000, 3, 4}};
  ArenaPlan plan = planArena(buffers, 64);
  expectNoOverlap(buffers, plan, 64);
  EXPECT_EQ(plan.noReuseBytes, 4u * 1024);
  EXPECT_EQ(plan.lowerBoundBytes, 2u * 1024);
  EXPECT_EQ(plan.peakBytes, 2u * 1024);
}

TEST(ArenaPlanner, AllLiveMeansNoReuse) {
  std::vector<ArenaBuffer> buffers = {{100, 0, 9}, {200, 1, 9}, {300, 2, 9}};
  ArenaPlan plan = planArena(buffers, 64);
  expectNoOverlap(buffers, plan, 64);
  EXPECT_EQ(plan.peakBytes, plan.noReuseBytes);
  EXPECT_EQ(plan.peakBytes, plan.lowerBoundBytes);
}

TEST(ArenaPlanner, EmptyAndZeroSized) {
  ArenaPlan empty = planArena({}, 64);
  EXPECT_EQ(empty.peakBytes, 0u);
  std::vector<ArenaBuffer> buffers = {{0, 0, 0}};
  ArenaPlan plan = planArena(buffers, 64);
  EXPECT_EQ(plan.peakBytes, 64u); // Every buffer gets an address of its own.
}

TEST(ArenaPlanner, RandomPlansAreValidAndBounded) {
  uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull, seed >> 33; };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ArenaBuffer> buffers;
    int n = 1 + next() % 40;
    for (int i = 0; i < n; ++i) {
      int64_t first = next() % 50;
      buffers.push_back({1 + next() % 5000, first, first + static_cast<int64_t>(next() % 10)});
    }
    ArenaPlan plan = planArena(buffers, 64);
    expectNoOverlap(buffers, plan, 64);
    EXPECT_GE(plan.peakBytes, plan.lowerBoundBytes);
    EXPECT_LE(plan.peakBytes, plan.noReuseBytes);
  }
}

} // namespace
