//===- CudaPlanTest.cpp - a CUDA plan's checks and its module choice ------===//
//
// The loader's half of the CUDA backend needs no driver: these run on any
// machine. The context's half is tested against a fake driver
// (test/python/test_runtime_cuda.py).
//
//===----------------------------------------------------------------------===//

#include "Cuda/Plan.h"
#include "Internal.h"
#include "Json.h"

#include <gtest/gtest.h>

#include <string>

using namespace inferrt;

namespace {

/// The message of `status` (freed), "" for success.
std::string message(inferrt_status status) {
  std::string text = status ? inferrt_status_message(status) : "";
  inferrt_status_free(status);
  return text;
}

std::string parse(const std::string &text, std::string_view kernels, CudaPlan &plan) {
  json::Value value;
  if (!json::parse(text, value))
    return "bad JSON";
  return message(parseCudaPlan(value, kernels, /*inputs=*/1, /*weights=*/2, /*outputs=*/1, "m.engine", plan));
}

/// A plan with these modules ("cubin:sm_80,ptx:sm_80") and one launch.
CudaPlan planWith(const std::string &modules) {
  std::string list, kernels;
  for (size_t begin = 0; begin < modules.size();) {
    size_t end = modules.find(',', begin);
    if (end == std::string::npos)
      end = modules.size();
    std::string module = modules.substr(begin, end - begin);
    size_t colon = module.find(':');
    list += std::string(list.empty() ? "" : ",") + R"({"format": ")" + module.substr(0, colon) +
            R"(", "arch": ")" + module.substr(colon + 1) + R"(", "offset": )" +
            std::to_string(kernels.size()) + R"(, "bytes": 8})";
    kernels += "12345678";
    begin = end + 1;
  }
  CudaPlan plan;
  EXPECT_EQ(parse(R"({"modules": [)" + list + R"(], "launches": []})", kernels, plan), "");
  return plan;
}

/// "cubin sm_80" for the module chosen on sm_XY, or "none".
std::string chosen(const CudaPlan &plan, int major, int minor) {
  const CudaModule *m = selectCudaModule(plan, major, minor);
  if (!m)
    return "none";
  return std::string(m->format == CudaModule::Cubin ? "cubin " : "ptx ") + m->arch;
}

TEST(CudaPlan, ReadsModulesAndLaunches) {
  CudaPlan plan;
  std::string kernels = "CUBIN80.PTX80..";
  ASSERT_EQ(parse(R"({"modules": [{"format": "cubin", "arch": "sm_80", "offset": 0, "bytes": 7},
                                   {"format": "ptx", "arch": "sm_121", "offset": 8, "bytes": 5}],
                      "launches": [{"kernel": "kernel_0", "grid": [120, 2, 1], "block": [256, 1, 1],
                                    "shared_bytes": 65536, "nodes": ["Conv_0"],
                                    "args": [{"kind": "input", "index": 0}, {"kind": "weight", "index": 1},
                                             {"kind": "arena"}, {"kind": "output", "index": 0}]}]})",
                  kernels, plan),
            "");
  ASSERT_EQ(plan.modules.size(), 2u);
  EXPECT_EQ(plan.modules[0].image, "CUBIN80");
  EXPECT_EQ(plan.modules[1].image, "PTX80");
  EXPECT_EQ(plan.modules[1].format, CudaModule::Ptx);
  EXPECT_EQ(plan.modules[1].major, 12);
  EXPECT_EQ(plan.modules[1].minor, 1);
  ASSERT_EQ(plan.launches.size(), 1u);
  const CudaLaunch &l = plan.launches[0];
  EXPECT_EQ(l.kernel, "kernel_0");
  EXPECT_EQ(l.grid[0], 120u);
  EXPECT_EQ(l.grid[1], 2u);
  EXPECT_EQ(l.block[0], 256u);
  EXPECT_EQ(l.sharedBytes, 65536u);
  ASSERT_EQ(l.args.size(), 4u);
  EXPECT_EQ(l.args[1].kind, CudaArg::Weight);
  EXPECT_EQ(l.args[1].index, 1u);
  EXPECT_EQ(l.args[2].kind, CudaArg::Arena);
  EXPECT_EQ(l.args[3].kind, CudaArg::Output);
  EXPECT_EQ(cudaArchList(plan), "sm_80, sm_121");
}

TEST(CudaPlan, RefusesWhatTheDriverWouldMisuse) {
  const std::string module = R"({"format": "cubin", "arch": "sm_90", "offset": 0, "bytes": 4})";
  auto launch = [](const std::string &fields) {
    return R"({"kernel": "k", "grid": [1, 1, 1], "args": [], )" + fields + "}";
  };
  auto refusal = [&](const std::string &modules, const std::string &launches) {
    CudaPlan plan;
    return parse(R"({"modules": [)" + modules + R"(], "launches": [)" + launches + "]}", "ABCD", plan);
  };
  EXPECT_EQ(refusal(module, launch(R"("block": [1, 1, 65])")),
            "'m.engine': launch 0 has a bad block (three positive sizes, at most 1024 threads in all)");
  EXPECT_EQ(refusal(module, launch(R"("block": [64, 4, 5])")),
            "'m.engine': launch 0 has a bad block (three positive sizes, at most 1024 threads in all)");
  EXPECT_EQ(refusal(module, launch(R"("block": [1024, 1, 1])")), "");
  EXPECT_EQ(refusal(module, R"({"kernel": "k", "grid": [1, 65536, 1], "block": [1, 1, 1], "args": []})"),
            "'m.engine': launch 0 has a bad grid (three positive sizes within CUDA's limits)");
  EXPECT_EQ(refusal(R"({"format": "cubin", "arch": "sm_90", "offset": 1, "bytes": 4})", ""),
            "'m.engine': module 0 lies outside the kernels section");
  EXPECT_EQ(refusal(R"({"format": "cubin", "arch": "sm_90a", "offset": 0, "bytes": 4})", ""),
            "'m.engine': module 0 has a bad architecture 'sm_90a' (expected sm_XY)");
  EXPECT_EQ(refusal(module, R"({"kernel": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
                                 "args": [{"kind": "weight", "index": 2}]})"),
            "'m.engine': launch 0 argument 0: weight index is missing or out of range (the engine "
            "has 2 weight(s))");
}

TEST(CudaPlan, ChoosesTheCubinOfTheMajorElseThePtx) {
  CudaPlan plan = planWith("cubin:sm_80,cubin:sm_86,cubin:sm_90,ptx:sm_80");
  EXPECT_EQ(chosen(plan, 7, 5), "none");
  EXPECT_EQ(chosen(plan, 8, 0), "cubin sm_80");
  EXPECT_EQ(chosen(plan, 8, 6), "cubin sm_86");
  EXPECT_EQ(chosen(plan, 8, 9), "cubin sm_86"); // The newest minor that fits.
  EXPECT_EQ(chosen(plan, 9, 0), "cubin sm_90");
  EXPECT_EQ(chosen(plan, 10, 0), "ptx sm_80"); // No sm_10x cubin: JIT.
  EXPECT_EQ(chosen(plan, 12, 1), "ptx sm_80");
}

TEST(CudaPlan, PtxRunsOnItsArchitectureAndNewer) {
  CudaPlan plan = planWith("cubin:sm_90,ptx:sm_90,ptx:sm_100");
  EXPECT_EQ(chosen(plan, 8, 0), "none");  // Older than every module.
  EXPECT_EQ(chosen(plan, 8, 9), "none");
  EXPECT_EQ(chosen(plan, 9, 0), "cubin sm_90");
  EXPECT_EQ(chosen(plan, 10, 0), "ptx sm_100"); // The newest PTX that fits.
  EXPECT_EQ(chosen(plan, 12, 0), "ptx sm_100");
  CudaPlan cubinsOnly = planWith("cubin:sm_80,cubin:sm_90");
  EXPECT_EQ(chosen(cubinsOnly, 10, 0), "none"); // A cubin never runs on another major.
  EXPECT_EQ(chosen(cubinsOnly, 8, 7), "cubin sm_80");
}

} // namespace
