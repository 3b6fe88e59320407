//===- InputShapeFlagTest.cpp - parsing of --input-shape NAME:DIMS --------===//

#include "infer-opt/Import/ONNX/ONNXImporter.h"

#include <gtest/gtest.h>

using mlir::infer::parseInputShapeFlag;

namespace {
TEST(InputShapeFlag, ParsesNameAndDims) {
  std::string name;
  std::vector<int64_t> dims;
  ASSERT_TRUE(parseInputShapeFlag("x:1x3x224x224", name, dims));
  EXPECT_EQ(name, "x");
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 3, 224, 224}));
}

TEST(InputShapeFlag, NameMayContainColons) {
  std::string name;
  std::vector<int64_t> dims;
  ASSERT_TRUE(parseInputShapeFlag("input:0:2x5", name, dims));
  EXPECT_EQ(name, "input:0");
  EXPECT_EQ(dims, (std::vector<int64_t>{2, 5}));
}

TEST(InputShapeFlag, EmptyDimsMeanScalar) {
  std::string name;
  std::vector<int64_t> dims = {7};
  ASSERT_TRUE(parseInputShapeFlag("s:", name, dims));
  EXPECT_TRUE(dims.empty());
}

TEST(InputShapeFlag, RejectsMalformed) {
  std::string name;
  std::vector<int64_t> dims;
  EXPECT_FALSE(parseInputShapeFlag("nocolon", name, dims));
  EXPECT_FALSE(parseInputShapeFlag(":1x2", name, dims));
  EXPECT_FALSE(parseInputShapeFlag("x:1x-2", name, dims));
  EXPECT_FALSE(parseInputShapeFlag("x:1xabc", name, dims));
  EXPECT_FALSE(parseInputShapeFlag("x:1xx2", name, dims));
}
} // namespace
