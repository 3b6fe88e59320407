//===- infer-run.cpp - run an engine: inputs, outputs, timings, accuracy --===//
//
// The runtime's command line (think trtexec's inference half):
//   infer-run model.engine [--input name=file.npy]... [--output-dir DIR]
//       [--warmup N] [--iterations N] [--threads N] [--json report.json]
//       [--compare name=ref.npy]... [--rtol R] [--atol A] [--seed S]
//       [--device cpu|cuda|cuda:N] [--no-cuda-graph]
// Inputs not given are filled with seeded random values (never all zeros).
// Exit codes: 0 success, 1 bad input (engine, files, shapes, mismatch).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "inferrt/inferrt.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

using namespace inferrun;

namespace {

constexpr int kExitOk = 0, kExitBadInput = 1;

int fail(inferrt_status status) {
  std::fprintf(stderr, "infer-run: error: %s\n", inferrt_status_message(status));
  inferrt_status_free(status);
  return kExitBadInput;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "infer-run: error: %s\n", message.c_str());
  return kExitBadInput;
}

bool splitAssignment(const std::string &text, std::string &name, std::string &path) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return false;
  name = text.substr(0, eq);
  path = text.substr(eq + 1);
  return true;
}

/// Seeded values for a tensor: uniform in [-1, 1) for floats, 0/1 for
/// integers and bools (valid for ids, masks and indices alike).
std::string randomTensor(const inferrt_tensor_info &info, std::mt19937_64 &rng) {
  std::string data(info.bytes, '\0');
  std::string dtype = info.dtype;
  size_t count = 1;
  for (int i = 0; i < info.rank; ++i)
    count *= static_cast<size_t>(info.dims[i]);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> bit(0, 1);
  for (size_t i = 0; i < count; ++i) {
    if (dtype == "float32") {
      float v = real(rng);
      std::memcpy(data.data() + 4 * i, &v, 4);
    } else if (dtype == "float64") {
      double v = real(rng);
      std::memcpy(data.data() + 8 * i, &v, 8);
    } else if (dtype == "int64") {
      int64_t v = bit(rng);
      std::memcpy(data.data() + 8 * i, &v, 8);
    } else if (dtype == "int32") {
      int32_t v = bit(rng);
      std::memcpy(data.data() + 4 * i, &v, 4);
    } else if (dtype == "bfloat16" || dtype == "float16") {
      float v = real(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      uint16_t half;
      if (dtype == "bfloat16") {
        half = static_cast<uint16_t>(bits >> 16);
      } else { // |v| < 1: normal or zero halves, truncated mantissa.
        uint32_t sign = (bits >> 16) & 0x8000, exponent = (bits >> 23) & 0xff;
        int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
        half = e <= 0 ? static_cast<uint16_t>(sign)
                      : static_cast<uint16_t>(sign | (e << 10) | ((bits >> 13) & 0x3ff));
      }
      std::memcpy(data.data() + 2 * i, &half, 2);
    } else {
      data[i * (info.bytes / std::max<size_t>(count, 1))] = static_cast<char>(bit(rng));
    }
  }
  return data;
}

std::vector<int64_t> dimsOf(const inferrt_tensor_info &info) {
  return std::vector<int64_t>(info.dims, info.dims + info.rank);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

double percentile(std::vector<double> sorted, double p) {
  if (sorted.empty())
    return 0;
  size_t index = static_cast<size_t>(std::ceil(p / 100.0 * sorted.size())) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

/// Compares float32 output data with a reference; fills max errors.
bool compareFloat(const std::string &got, const std::string &want, double rtol, double atol,
                  double &maxAbs, double &maxRel, size_t &bad) {
  size_t n = got.size() / 4;
  maxAbs = maxRel = 0;
  bad = 0;
  for (size_t i = 0; i < n; ++i) {
    float g, w;
    std::memcpy(&g, got.data() + 4 * i, 4);
    std::memcpy(&w, want.data() + 4 * i, 4);
    double diff = std::fabs(double(g) - double(w));
    maxAbs = std::max(maxAbs, diff);
    if (w != 0)
      maxRel = std::max(maxRel, diff / std::fabs(double(w)));
    if (!(diff <= atol + rtol * std::fabs(double(w))))
      ++bad;
  }
  return bad == 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string enginePath, outputDir, jsonPath;
  std::vector<std::string> inputFlags, compareFlags;
  int warmup = 10, iterations = 100, threads = 0;
  double rtol = 1e-3, atol = 1e-4;
  uint64_t seed = 20261122;
  std::string device;
  bool noCudaGraph = false;
  CLI::App app{"infer-run: run an infer-opt engine and report latency, throughput and "
               "accuracy.\n\nExit codes: 0 success, 1 bad input or an accuracy mismatch.",
               "infer-run"};
  app.add_option("engine", enginePath, "Engine file written by infer-opt --emit=engine")->required();
  app.add_option("--input", inputFlags, "NAME=FILE.npy for an input (repeatable); others are "
                                        "seeded random (floats in [-1,1), integers 0/1)")
      ->allow_extra_args(false);
  app.add_option("--output-dir", outputDir, "Write every output as DIR/NAME.npy");
  app.add_option("--warmup", warmup, "Untimed runs before timing")->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--iterations", iterations, "Timed runs")->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--threads", threads,
                 "Threads the kernels use; 0: the OpenMP default (OMP_NUM_THREADS, else every "
                 "core)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--json", jsonPath, "Write a JSON report (timings, accuracy) to this file");
  app.add_option("--compare", compareFlags, "NAME=REF.npy: compare an output with a reference "
                                            "(repeatable); a mismatch exits 1")
      ->allow_extra_args(false);
  app.add_option("--rtol", rtol, "Relative tolerance of --compare")->capture_default_str();
  app.add_option("--atol", atol, "Absolute tolerance of --compare")->capture_default_str();
  app.add_option("--seed", seed, "Seed of the random inputs (printed)")->capture_default_str();
  app.add_option("--device", device,
                 "Where to run: cpu, cuda (device 0) or cuda:N; default: the engine's own "
                 "target (cpu for CPU engines, cuda for CUDA engines)");
  app.add_flag("--no-cuda-graph", noCudaGraph,
               "CUDA: launch the kernels one by one instead of replaying one CUDA graph "
               "(for debugging and profiling)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  inferrt_engine *engine = nullptr;
  if (inferrt_status s = inferrt_engine_load(enginePath.c_str(), &engine))
    return fail(s);
  std::unique_ptr<inferrt_engine, void (*)(inferrt_engine *)> engineOwner(engine, inferrt_engine_free);
  inferrt_context *context = nullptr;
  if (inferrt_status s =
          inferrt_context_create_on(engine, device.empty() ? nullptr : device.c_str(), &context))
    return fail(s);
  std::unique_ptr<inferrt_context, void (*)(inferrt_context *)> contextOwner(context, inferrt_context_free);
  if (inferrt_status s = inferrt_context_set_threads(context, threads))
    return fail(s);
  // The context is on the engine's own kind of device (else creation failed).
  bool onGpu = std::string(inferrt_engine_target(engine)) == "cuda";
  if (noCudaGraph)
    if (inferrt_status s = inferrt_context_set_cuda_graph(context, 0))
      return fail(s);

  // Inputs: from .npy files by name, else seeded random.
  std::map<std::string, std::string> inputFiles, compareFiles;
  for (const std::string &flag : inputFlags) {
    std::string name, path;
    if (!splitAssignment(flag, name, path))
      return fail("--input '" + flag + "' is malformed; expected NAME=FILE.npy");
    inputFiles[name] = path;
  }
  for (const std::string &flag : compareFlags) {
    std::string name, path;
    if (!splitAssignment(flag, name, path))
      return fail("--compare '" + flag + "' is malformed; expected NAME=REF.npy");
    compareFiles[name] = path;
  }
  std::mt19937_64 rng(seed);
  bool anyRandom = false;
  size_t numInputs = inferrt_engine_num_inputs(engine);
  for (size_t i = 0; i < numInputs; ++i) {
    inferrt_tensor_info info;
    if (inferrt_status s = inferrt_engine_input_info(engine, i, &info))
      return fail(s);
    std::string data;
    auto file = inputFiles.find(info.name);
    if (file != inputFiles.end()) {
      NpyArray array;
      std::string error;
      if (!readNpy(file->second, array, error))
        return fail(error);
      if (array.dtype != info.dtype)
        return fail("input '" + std::string(info.name) + "' is " + info.dtype + ", but '" +
                    file->second + "' holds " + array.dtype);
      if (array.shape != dimsOf(info))
        return fail("input '" + std::string(info.name) + "' has shape " + shapeText(dimsOf(info)) +
                    ", but '" + file->second + "' holds " + shapeText(array.shape));
      data = std::move(array.data);
      inputFiles.erase(file);
    } else {
      data = randomTensor(info, rng);
      anyRandom = true;
    }
    if (inferrt_status s = inferrt_context_set_input(context, i, data.data(), data.size()))
      return fail(s);
  }
  if (!inputFiles.empty()) {
    std::string names;
    for (size_t i = 0; i < numInputs; ++i) {
      inferrt_tensor_info info;
      inferrt_status_free(inferrt_engine_input_info(engine, i, &info));
      names += (i ? ", " : "") + std::string(info.name);
    }
    return fail("--input names '" + inputFiles.begin()->first +
                "', which is not an input of the engine (inputs: " + names + ")");
  }
  if (anyRandom)
    std::printf("random inputs: seed %llu\n", static_cast<unsigned long long>(seed));

  // Timing.
  for (int i = 0; i < warmup; ++i)
    if (inferrt_status s = inferrt_context_run(context))
      return fail(s);
  std::vector<double> latencies, gpuTimes;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (inferrt_status s = inferrt_context_run(context))
      return fail(s);
    latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    double gpu = 0;
    if (onGpu) {
      if (inferrt_status s = inferrt_context_last_gpu_time_ms(context, &gpu))
        return fail(s);
      gpuTimes.push_back(gpu);
    }
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double l : latencies)
    mean += l / latencies.size();
  std::printf("latency (ms%s): mean %.3f  min %.3f  p50 %.3f  p90 %.3f  p99 %.3f\n",
              onGpu ? ", end to end" : "", mean, sorted.front(), percentile(sorted, 50),
              percentile(sorted, 90), percentile(sorted, 99));
  std::printf("throughput: %.1f inferences/s (%d iterations)\n", iterations / total, iterations);

  nlohmann::json report = {
      {"engine", enginePath}, {"iterations", iterations}, {"warmup", warmup}, {"threads", threads},
      {"device", device.empty() ? (onGpu ? "cuda:0" : "cpu") : device},
      {"latency_ms", {{"mean", mean}, {"min", sorted.front()}, {"p50", percentile(sorted, 50)},
                      {"p90", percentile(sorted, 90)}, {"p99", percentile(sorted, 99)}}},
      {"throughput_per_s", iterations / total}};
  if (!gpuTimes.empty()) {
    // The kernels alone (CUDA events); the latency above is end to end:
    // input and output copies, synchronization and the host included.
    std::sort(gpuTimes.begin(), gpuTimes.end());
    double gpuMean = 0;
    for (double g : gpuTimes)
      gpuMean += g / gpuTimes.size();
    std::printf("GPU time (ms, kernels): mean %.3f  min %.3f  p50 %.3f  p90 %.3f  p99 %.3f\n",
                gpuMean, gpuTimes.front(), percentile(gpuTimes, 50), percentile(gpuTimes, 90),
                percentile(gpuTimes, 99));
    report["gpu_ms"] = {{"mean", gpuMean}, {"min", gpuTimes.front()},
                        {"p50", percentile(gpuTimes, 50)}, {"p90", percentile(gpuTimes, 90)},
                        {"p99", percentile(gpuTimes, 99)}};
    report["cuda_graph"] = !noCudaGraph;
  }

  // Outputs: write, compare.
  bool allMatch = true;
  size_t numOutputs = inferrt_engine_num_outputs(engine);
  if (!outputDir.empty())
    std::filesystem::create_directories(outputDir);
  for (size_t i = 0; i < numOutputs; ++i) {
    inferrt_tensor_info info;
    if (inferrt_status s = inferrt_engine_output_info(engine, i, &info))
      return fail(s);
    const void *data;
    size_t bytes;
    if (inferrt_status s = inferrt_context_get_output(context, i, &data, &bytes))
      return fail(s);
    NpyArray array{info.dtype, dimsOf(info), std::string(static_cast<const char *>(data), bytes)};
    std::printf("output '%s': %s %s\n", info.name, info.dtype, shapeText(array.shape).c_str());
    std::string error;
    // Tensor names may hold '/' (exporters' scopes): keep files in the directory.
    std::string fileName = info.name;
    std::replace(fileName.begin(), fileName.end(), '/', '_');
    if (!outputDir.empty() && !writeNpy(outputDir + "/" + fileName + ".npy", array, error))
      return fail(error);
    auto ref = compareFiles.find(info.name);
    if (ref == compareFiles.end())
      continue;
    NpyArray want;
    if (!readNpy(ref->second, want, error))
      return fail(error);
    if (want.dtype != array.dtype || want.shape != array.shape)
      return fail("reference '" + ref->second + "' is " + want.dtype + " " + shapeText(want.shape) +
                  ", output '" + info.name + "' is " + array.dtype + " " + shapeText(array.shape));
    double maxAbs = 0, maxRel = 0;
    size_t bad = 0;
    bool match;
    if (array.dtype == "float32")
      match = compareFloat(array.data, want.data, rtol, atol, maxAbs, maxRel, bad);
    else
      match = array.data == want.data;
    std::printf("compare '%s': %s (max abs %.3g, max rel %.3g, %zu outside rtol %g atol %g)\n",
                info.name, match ? "match" : "MISMATCH", maxAbs, maxRel, bad, rtol, atol);
    report["compare"][info.name] = {{"match", match}, {"max_abs", maxAbs}, {"max_rel", maxRel},
                                    {"mismatched", bad}};
    allMatch &= match;
    compareFiles.erase(ref);
  }
  if (!compareFiles.empty())
    return fail("--compare names '" + compareFiles.begin()->first + "', which is not an output of the engine");
  if (!jsonPath.empty()) {
    std::ofstream out(jsonPath);
    out << report.dump(2) << "\n";
    if (!out)
      return fail("cannot write '" + jsonPath + "'");
  }
  return allMatch ? kExitOk : kExitBadInput;
}
