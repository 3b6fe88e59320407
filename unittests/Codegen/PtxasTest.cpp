//===- PtxasTest.cpp - reassembling the kernels that ptxas spilled -------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include <gtest/gtest.h>

using namespace mlir::infer;

namespace {

constexpr const char *kTwoKernels = R"(.version 8.0
.target sm_80
.visible .entry kernel_1(
	.param .u64 .ptr .align 1 kernel_1_param_0
)
.maxntid 128, 1, 1
{
	ret;
}
.visible .entry kernel_13(
	.param .u64 .ptr .align 1 kernel_13_param_0
)
.maxntid 128, 1, 1
{
	ret;
}
)";

TEST(Ptxas, SpillingKernelsAreReadFromTheReport) {
  const char *log =
      "ptxas info    : Compiling entry function 'kernel_1' for 'sm_80'\n"
      "ptxas warning : Registers are spilled to local memory in function 'kernel_13', 8 bytes "
      "spill stores, 8 bytes spill loads\n"
      "ptxas warning : Registers are spilled to local memory in function 'kernel_2', 4 bytes "
      "spill stores, 4 bytes spill loads\n";
  EXPECT_EQ(spillingKernels(log), (llvm::SmallVector<std::string>{"kernel_13", "kernel_2"}));
  EXPECT_TRUE(spillingKernels("ptxas info    : Used 40 registers").empty());
}

TEST(Ptxas, OnlyTheNamedEntryGetsTheHint) {
  std::string hinted = withOneBlockPerSM(kTwoKernels, {"kernel_13"});
  // kernel_1's directives are unchanged; kernel_13 (whose name kernel_1's
  // is a prefix of) gets the hint before its body.
  EXPECT_NE(hinted.find(".entry kernel_1(\n\t.param .u64 .ptr .align 1 kernel_1_param_0\n)\n"
                        ".maxntid 128, 1, 1\n{"),
            std::string::npos);
  EXPECT_NE(hinted.find("kernel_13_param_0\n)\n.maxntid 128, 1, 1\n.minnctapersm 1\n{"),
            std::string::npos);
  EXPECT_EQ(hinted.size(),
            std::string(kTwoKernels).size() + std::string(".minnctapersm 1\n").size());
}

TEST(Ptxas, AHintIsNotRepeatedAndUnknownKernelsAreSkipped) {
  std::string once = withOneBlockPerSM(kTwoKernels, {"kernel_1"});
  EXPECT_EQ(withOneBlockPerSM(once, {"kernel_1"}), once);
  EXPECT_EQ(withOneBlockPerSM(kTwoKernels, {"kernel_7"}), kTwoKernels);
}

} // namespace
