//===- PtxasTest.cpp - reassembling the kernels that ptxas spilled -------===//

#include "infer-opt/Codegen/CUDA/Binary.h"

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

TEST(Ptxas, TF32FragmentsAreRoundedInPlaceAfterTheirLoads) {
  const char *ptx = "\twmma.load.a.sync.aligned.row.m16n16k8.global.tf32 \t{%r1, %r2, %r3, %r4}, "
                    "[%rd1], %r9;\n"
                    "\t@%p2 wmma.load.b.sync.aligned.col.m16n16k8.shared.tf32 \t{%r5, %r6, %r7, "
                    "%r8}, [%rd2], %r9;\n"
                    "\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 \t{%f1, %f2, %f3, %f4, "
                    "%f5, %f6, %f7, %f8}, [%rd3], %r9;\n"
                    "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 \t{%r10}, [%rd4], %r9;\n"
                    "\tret;\n";
  std::string rounded = withTF32Rounding(ptx);
  // A's four registers after A's load; B's, under B's predicate, after B's.
  EXPECT_NE(rounded.find("[%rd1], %r9;\n\tcvt.rna.tf32.f32 \t%r1, %r1;\n"
                         "\tcvt.rna.tf32.f32 \t%r2, %r2;\n\tcvt.rna.tf32.f32 \t%r3, %r3;\n"
                         "\tcvt.rna.tf32.f32 \t%r4, %r4;\n\t@%p2 wmma.load.b"),
            std::string::npos)
      << rounded;
  EXPECT_NE(rounded.find("[%rd2], %r9;\n\t@%p2 cvt.rna.tf32.f32 \t%r5, %r5;\n"), std::string::npos)
      << rounded;
  // Eight conversions in all: none for the accumulator or float16 loads.
  size_t count = 0;
  for (size_t at = rounded.find("cvt.rna"); at != std::string::npos;
       at = rounded.find("cvt.rna", at + 1))
    ++count;
  EXPECT_EQ(count, 8u);
  EXPECT_TRUE(llvm::StringRef(rounded).ends_with("[%rd4], %r9;\n\tret;\n"));
  EXPECT_EQ(withTF32Rounding("\tret;\n"), "\tret;\n");
}

} // namespace

TEST(Ptxas, FromSm90TheTF32ConversionsRoundToNearestEvenInOneInstruction) {
  const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                    "\tcvt.rna.tf32.f32 \t%r1, %r1;\n"
                    "\t@%p2 cvt.rna.tf32.f32 \t%r5, %r5;\n"
                    "\tcvt.rn.f32.f16 \t%f1, %h1;\n";
  // The cubins for sm_90 and newer: cvt.rn, and a .target that allows it
  // (sm_90: PTX 8.0 knows no sm_100).
  const char *even = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     "\tcvt.rn.tf32.f32 \t%r1, %r1;\n"
                     "\t@%p2 cvt.rn.tf32.f32 \t%r5, %r5;\n"
                     "\tcvt.rn.f32.f16 \t%f1, %h1;\n";
  for (const char *arch : {"sm_90", "sm_100", "sm_90a"})
    EXPECT_EQ(ptxForArchitecture(ptx, arch), even) << arch;
  // A .target of sm_90 or newer stays.
  std::string newer = std::string(ptx).replace(13, 13, ".target sm_100");
  EXPECT_NE(ptxForArchitecture(newer, "sm_120").find(".target sm_100\n"), std::string::npos);
  // Older architectures, names that are no sm_NN, and a PTX without TF32
  // conversions get the PTX as it is.
  for (const char *arch : {"sm_80", "sm_86", "sm_89", "compute_90", "sm_"})
    EXPECT_EQ(ptxForArchitecture(ptx, arch), ptx) << arch;
  const char *noTF32 = ".version 8.0\n.target sm_75\n\tret;\n";
  EXPECT_EQ(ptxForArchitecture(noTF32, "sm_100"), noTF32);
}
