//===- EngineWriter.cpp - serialize an engine file ------------------------===//

#include "infer-opt/Target/Engine/EngineWriter.h"

#include "inferrt/engine_format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <nlohmann/json.hpp>

#include <cstring>

using namespace mlir;
using namespace mlir::infer;

std::string mlir::infer::dtypeName(Type type) {
  if (type.isF32()) return "float32";
  if (type.isF16()) return "float16";
  if (type.isBF16()) return "bfloat16";
  if (type.isF64()) return "float64";
  if (type.isInteger(1)) return "bool";
  if (auto it = dyn_cast<IntegerType>(type)) {
    std::string prefix = it.isUnsigned() ? "uint" : "int";
    return prefix + std::to_string(it.getWidth());
  }
  return "";
}

static LogicalResult describe(func::FuncOp func, Type type, DictionaryAttr attrs, StringRef what,
                              unsigned index, std::vector<EngineTensor> &out) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return func.emitError() << what << " " << index << " has dynamic dims (" << type
                            << "); pass --input-shape to make it static";
  EngineTensor t;
  auto name = attrs ? attrs.getAs<StringAttr>("infer.name") : StringAttr();
  t.name = name ? name.str() : (what + std::to_string(index)).str();
  t.dtype = dtypeName(tensor.getElementType());
  if (t.dtype.empty())
    return func.emitError() << what << " '" << t.name << "' has element type "
                            << tensor.getElementType() << ", which the runtime does not support";
  t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  out.push_back(std::move(t));
  return success();
}

LogicalResult mlir::infer::describeSignature(ModuleOp module, EngineDescription &description) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError("the module has no @main function");
  FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (failed(describe(func, type.getInput(i), func.getArgAttrDict(i), "input", i,
                        description.inputs)))
      return failure();
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    if (failed(describe(func, type.getResult(i), func.getResultAttrDict(i), "output", i,
                        description.outputs)))
      return failure();
  return success();
}

static nlohmann::json tensorsToJson(const std::vector<EngineTensor> &tensors) {
  nlohmann::json list = nlohmann::json::array();
  for (const EngineTensor &t : tensors)
    list.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  return list;
}

static uint64_t alignUp(uint64_t v, uint64_t alignment = INFERRT_SECTION_ALIGNMENT) {
  return (v + alignment - 1) / alignment * alignment;
}

/// The weights section (each weight 256-byte aligned, zero padding between)
/// and its table for the plan.
static std::pair<std::string, nlohmann::json> layoutWeights(const std::vector<EngineWeight> &weights) {
  nlohmann::json table = nlohmann::json::array();
  uint64_t size = 0;
  for (const EngineWeight &w : weights)
    size = alignUp(size, kWeightAlignment) + w.bytes.size();
  std::string section(size, '\0');
  uint64_t offset = 0;
  for (const EngineWeight &w : weights) {
    offset = alignUp(offset, kWeightAlignment);
    std::memcpy(section.data() + offset, w.bytes.data(), w.bytes.size());
    table.push_back({{"offset", offset}, {"bytes", w.bytes.size()}, {"dtype", w.dtype},
                     {"shape", w.shape}});
    offset += w.bytes.size();
  }
  return {std::move(section), std::move(table)};
}

/// CPU: one kernel, the whole model as `inferrt_entry`, called with the
/// inputs, the weights, the outputs and the arena, in that order.
static nlohmann::json cpuPlan(const EngineDescription &d) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto &[kernel, nodes] : d.kernelNodes)
    calls.push_back({{"kernel", kernel}, {"nodes", nodes}});
  return {{"kernels", {{{"symbol", "inferrt_entry"}, {"nodes", d.nodes}, {"calls", calls}}}}};
}

/// CUDA: the module images, packed into `kernels` (each 256-byte aligned),
/// and the launches the runtime makes in order.
static nlohmann::json cudaPlan(const EngineDescription &d, std::string &kernels) {
  nlohmann::json modules = nlohmann::json::array();
  kernels.clear();
  for (const EngineModule &m : d.modules) {
    kernels.resize(alignUp(kernels.size()), '\0');
    modules.push_back({{"format", m.format}, {"arch", m.arch}, {"offset", kernels.size()},
                       {"bytes", m.bytes.size()}});
    kernels += m.bytes;
  }
  nlohmann::json launches = nlohmann::json::array();
  for (const EngineLaunch &l : d.launches) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto &[kind, index] : l.args) {
      nlohmann::json arg = {{"kind", kind}};
      if (index >= 0)
        arg["index"] = index;
      args.push_back(arg);
    }
    nlohmann::json launch = {{"kernel", l.kernel},         {"nodes", l.nodes},
                             {"grid", l.grid},             {"block", l.block},
                             {"shared_bytes", l.sharedBytes}, {"tensor_cores", l.tensorCores()},
                             {"strategy", l.strategy},     {"args", args}};
    if (!l.config.empty())
      launch["config"] = l.config;
    if (!l.contraction.empty())
      launch["contraction"] = l.contraction;
    launches.push_back(std::move(launch));
  }
  return {{"modules", modules}, {"launches", launches}};
}

std::string mlir::infer::serializeEngine(const EngineDescription &d) {
  nlohmann::json metadata = {
      {"inputs", tensorsToJson(d.inputs)},
      {"outputs", tensorsToJson(d.outputs)},
      {"compiler", {{"name", "infer-opt"}, {"version", d.compilerVersion}, {"flags", d.flags}}},
      {"target", d.target},
  };
  auto [weights, weightTable] = layoutWeights(d.weights);
  std::string kernels = d.kernels;
  nlohmann::json plan = d.target == "cuda" ? cudaPlan(d, kernels) : cpuPlan(d);
  plan["arguments"] = {"inputs", "weights", "outputs", "arena"};
  plan["weights"] = weightTable;
  plan["arena"] = {{"bytes", d.arena.bytes},
                   {"lower_bound", d.arena.lowerBound},
                   {"no_reuse", d.arena.noReuse},
                   {"buffers", d.arena.buffers}};
  if (d.target == "cuda")
    metadata["cuda"] = {{"archs", d.cudaArchs}, {"tf32", d.tf32}};
  std::vector<std::pair<uint32_t, std::string>> sections = {
      {INFERRT_SECTION_METADATA, metadata.dump(2)},
      {INFERRT_SECTION_PLAN, plan.dump(2)},
      {INFERRT_SECTION_KERNELS, std::move(kernels)},
      {INFERRT_SECTION_WEIGHTS, std::move(weights)},
  };

  inferrt_engine_header header;
  std::memset(&header, 0, sizeof(header));
  std::memcpy(header.magic, INFERRT_ENGINE_MAGIC, 8);
  header.formatMajor = INFERRT_FORMAT_MAJOR;
  header.formatMinor = INFERRT_FORMAT_MINOR;
  header.headerSize = sizeof(header);
  header.sectionCount = sections.size();
  std::strncpy(header.target, d.target.c_str(), sizeof(header.target) - 1);

  std::vector<inferrt_section_entry> table(sections.size());
  uint64_t offset = alignUp(sizeof(header) + sizeof(inferrt_section_entry) * sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const std::string &bytes = sections[i].second;
    table[i] = {sections[i].first, inferrt_crc32(0, bytes.data(), bytes.size()), offset,
                bytes.size()};
    offset = alignUp(offset + bytes.size());
  }
  header.fileSize = offset;
  uint32_t crc = inferrt_crc32(0, &header, sizeof(header));
  header.headerCrc = inferrt_crc32(crc, table.data(), table.size() * sizeof(table[0]));

  std::string out(offset, '\0');
  std::memcpy(out.data(), &header, sizeof(header));
  std::memcpy(out.data() + sizeof(header), table.data(), table.size() * sizeof(table[0]));
  for (size_t i = 0; i < sections.size(); ++i)
    std::memcpy(out.data() + table[i].offset, sections[i].second.data(), sections[i].second.size());
  return out;
}
