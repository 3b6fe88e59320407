//===- TilePlanTest.cpp - tile plans: text, JSON, and the heuristic -------===//

#include "Kernels/StagedTiles.h"
#include "infer-opt/Plan/KernelPlan.h"

#include <gtest/gtest.h>

using namespace mlir::infer;

namespace {

/// C[m, n] += A[m, k] x B[k, n], both row-major.
ContractionShape matmul(int64_t m, int64_t n, int64_t k) {
  ContractionShape s;
  s.m = 0;
  s.n = 1;
  s.k = 2;
  s.ks = {2};
  s.ranges = {m, n, k};
  return s;
}

TensorCoreOperands rowMajor(int64_t m, int64_t n, int64_t k) {
  TensorCoreOperands t;
  t.m = 0;
  t.n = 1;
  t.a = {k, 0, 1};
  t.b = {0, 1, n};
  t.c = {n, 1, 0};
  return t;
}

TilePlan plan(int64_t warpM, int64_t warpN, int64_t step, int64_t stages, int64_t groups,
              MmaKind mma) {
  return {warpM, warpN, step, stages, groups, mma};
}

TEST(TilePlanText, RoundTripsThroughTheFlagsForm) {
  TilePlanChoice choice;
  ASSERT_EQ(parseTilePlanChoice(" warp=4x2, step=16,mma=wmma ", choice), "");
  EXPECT_EQ(choice.warpM, 4);
  EXPECT_EQ(choice.warpN, 2);
  EXPECT_EQ(choice.stepK, 16);
  EXPECT_FALSE(choice.stages);
  EXPECT_EQ(choice.mma, MmaKind::Wmma);
  EXPECT_EQ(describe(choice), "warp=4x2,step=16,mma=wmma");
  EXPECT_EQ(describe(plan(2, 2, 32, 3, 1, MmaKind::Sync)),
            "warp=2x2,step=32,stages=3,groups=1,mma=sync");
}

TEST(TilePlanText, SaysWhatIsWrong) {
  TilePlanChoice choice;
  EXPECT_NE(parseTilePlanChoice("warp=3x2", choice).find("each 1, 2 or 4"), std::string::npos);
  EXPECT_NE(parseTilePlanChoice("step=12", choice).find("one of 8, 16, 32"), std::string::npos);
  EXPECT_NE(parseTilePlanChoice("groups=2,groups=4", choice).find("given twice"),
            std::string::npos);
  EXPECT_NE(parseTilePlanChoice("", choice).find("an empty plan"), std::string::npos);
}

TEST(TilePlanJSON, RoundTrips) {
  TilePlan whole = plan(4, 2, 16, 3, 1, MmaKind::Sync);
  TilePlanChoice back;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(whole), back, root));
  EXPECT_EQ(back, TilePlanChoice::of(whole));

  ContractionKey key{8, 1024, 768, 768, OperandOrder::Row, OperandOrder::Col};
  ContractionKey keyBack;
  ASSERT_TRUE(fromJSON(toJSON(key), keyBack, root));
  EXPECT_EQ(keyBack, key);
  EXPECT_EQ(describe(key), "batch=8,m=1024,n=768,k=768,a=row,b=col");
}

TEST(TilePlanJSON, RefusesWhatIsNoPlan) {
  TilePlanChoice choice;
  for (const char *text : {R"({"warp": [3, 2]})", R"({"step": 12})", R"({"mma": "fast"})",
                           R"({"blocks": 2})", R"([1, 2])"}) {
    llvm::json::Path::Root root;
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
    ASSERT_TRUE(bool(value)) << text;
    EXPECT_FALSE(fromJSON(*value, choice, root)) << text;
    llvm::consumeError(root.getError());
  }
}

// The heuristic (planStagedTiles) as the pure function it is.
TEST(StagedTilePlanner, LongKProjectionsGetWideWarpsWithMmaSync) {
  // 384 blocks of 128 x 64 fill the GPU and k is long: 4 x 2 fragments.
  std::optional<TilePlan> p = planStagedTiles(matmul(1024, 3072, 768), rowMajor(1024, 3072, 768));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(4, 2, 16, 3, 1, MmaKind::Sync));
  // Short k keeps blocks of 64 x 64.
  p = planStagedTiles(matmul(1024, 3072, 256), rowMajor(1024, 3072, 256));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(2, 2, 32, 2, 1, MmaKind::Sync));
  // With WMMA the long k keeps blocks of 64 x 64 too.
  TilePlanChoice wmma;
  wmma.mma = MmaKind::Wmma;
  p = planStagedTiles(matmul(1024, 3072, 768), rowMajor(1024, 3072, 768), wmma);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(2, 2, 32, 2, 1, MmaKind::Wmma));
}

TEST(StagedTilePlanner, FewBlocksSplitK) {
  // No 2 x 2 warp blocks fill the GPU: the smallest, k split among 4 groups.
  std::optional<TilePlan> p = planStagedTiles(matmul(512, 256, 512), rowMajor(512, 256, 512));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(1, 1, 16, 2, 4, MmaKind::Sync));
}

TEST(StagedTilePlanner, AChoiceThatDoesNotSuitFallsBackButKeepsItsMma) {
  TilePlanChoice choice;
  ASSERT_EQ(parseTilePlanChoice("warp=4x4,step=32,stages=4,mma=wmma", choice), "");
  std::optional<TilePlan> p = planStagedTiles(matmul(512, 256, 512), rowMajor(512, 256, 512),
                                              choice);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(1, 1, 16, 2, 4, MmaKind::Wmma));
  // One that suits is taken.
  ASSERT_EQ(parseTilePlanChoice("warp=4x4,step=16,mma=wmma", choice), "");
  p = planStagedTiles(matmul(512, 256, 512), rowMajor(512, 256, 512), choice);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, plan(4, 4, 16, 2, 1, MmaKind::Wmma));
}

TEST(StagedTilePlanner, BlocksThatWasteTooMuchAreRefused) {
  // 16 rows: a 32-row block would waste half its work.
  EXPECT_FALSE(planStagedTiles(matmul(16, 256, 64), rowMajor(16, 256, 64)));
}

} // namespace
