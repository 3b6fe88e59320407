//===- OpRegistryTest.cpp - handler lookup by (op_type, since_version) ----===//

#include "OpRegistry.h"

#include <gtest/gtest.h>

using namespace mlir::infer::onnx_import;

namespace {
TEST(OpRegistry, KnowsTheFoundationOperators) {
  const OpRegistry &registry = OpRegistry::get();
  for (const char *op : {"Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization",
                         "MaxPool", "AveragePool", "GlobalAveragePool", "Resize", "Add", "Equal",
                         "And", "Where", "Cast", "ReduceMean", "Softmax", "LogSoftmax",
                         "LayerNormalization", "Gelu", "Erf", "Concat", "Split", "Slice",
                         "Gather", "Transpose", "Reshape", "Expand", "Tile", "Pad", "Shape",
                         "Size", "Range", "ConstantOfShape", "Einsum", "TopK", "ArgMax",
                         "CumSum", "QuantizeLinear", "DequantizeLinear"})
    EXPECT_NE(registry.lookup(op), nullptr) << op;
  EXPECT_EQ(registry.lookup("If"), nullptr);
  EXPECT_EQ(registry.lookup("FrobnicateTensor"), nullptr);
}

TEST(OpRegistry, ResolvesTheDefinitionInForce) {
  OpRegistration reg{{1, 11, 13, 18}, nullptr};
  EXPECT_EQ(OpRegistry::resolveVersion(reg, 7), 1);
  EXPECT_EQ(OpRegistry::resolveVersion(reg, 12), 11);
  EXPECT_EQ(OpRegistry::resolveVersion(reg, 13), 13);
  EXPECT_EQ(OpRegistry::resolveVersion(reg, 24), 18);
}

TEST(OpRegistry, YoungerOperatorsResolveToZero) {
  const OpRegistration *gelu = OpRegistry::get().lookup("Gelu");
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(OpRegistry::resolveVersion(*gelu, 17), 0);
  EXPECT_EQ(OpRegistry::resolveVersion(*gelu, 20), 20);
}
} // namespace
