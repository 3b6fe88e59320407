//===- BroadcastTest.cpp - ONNX broadcasting of static/dynamic shapes -----===//

#include "Infer/InferOps.h"

#include <gtest/gtest.h>

using namespace mlir;
using mlir::infer::broadcastShapes;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

TEST(BroadcastShapes, AlignsTrailingDims) {
  auto r = broadcastShapes({2, 1, 4}, {3, 1});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (SmallVector<int64_t>{2, 3, 4}));
}

TEST(BroadcastShapes, ScalarBroadcastsToAnything) {
  auto r = broadcastShapes({}, {5, 6});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (SmallVector<int64_t>{5, 6}));
}

TEST(BroadcastShapes, DynamicMeetsStatic) {
  auto r = broadcastShapes({kDyn, 4}, {3, 1});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (SmallVector<int64_t>{3, 4}));
  auto both = broadcastShapes({kDyn}, {kDyn});
  ASSERT_TRUE(succeeded(both));
  EXPECT_EQ((*both)[0], kDyn);
}

TEST(BroadcastShapes, RejectsMismatch) {
  EXPECT_TRUE(failed(broadcastShapes({2, 3}, {4, 3})));
}
} // namespace
