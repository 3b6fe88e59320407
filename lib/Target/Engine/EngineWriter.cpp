//===- EngineWriter.cpp - serialize an engine file ------------------------===//

#include "infer-opt/Target/Engine/EngineWriter.h"

#include "inferrt/engine_format.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstring>
#include <map>

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

static LogicalResult describeTensor(func::FuncOp func, Type type, DictionaryAttr attrs, StringRef what,
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
    if (failed(describeTensor(func, type.getInput(i), func.getArgAttrDict(i), "input", i,
                        description.inputs)))
      return failure();
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    if (failed(describeTensor(func, type.getResult(i), func.getResultAttrDict(i), "output", i,
                        description.outputs)))
      return failure();
  return success();
}

static llvm::json::Array tensorsToJson(const std::vector<EngineTensor> &tensors) {
  llvm::json::Array list;
  for (const EngineTensor &t : tensors)
    list.push_back(llvm::json::Object{{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  return list;
}

static uint64_t alignUp(uint64_t v, uint64_t alignment = INFERRT_SECTION_ALIGNMENT) {
  return (v + alignment - 1) / alignment * alignment;
}

/// The weights section (each weight 256-byte aligned, zero padding between)
/// and its table for the plan.
static std::pair<std::string, llvm::json::Array>
layoutWeights(const std::vector<EngineWeight> &weights) {
  llvm::json::Array table;
  uint64_t size = 0;
  for (const EngineWeight &w : weights)
    size = alignUp(size, kWeightAlignment) + w.bytes.size();
  std::string section(size, '\0');
  uint64_t offset = 0;
  for (const EngineWeight &w : weights) {
    offset = alignUp(offset, kWeightAlignment);
    std::memcpy(section.data() + offset, w.bytes.data(), w.bytes.size());
    table.push_back(llvm::json::Object{
        {"offset", offset}, {"bytes", w.bytes.size()}, {"dtype", w.dtype}, {"shape", w.shape}});
    offset += w.bytes.size();
  }
  return {std::move(section), std::move(table)};
}

/// CPU: one kernel, the whole model as `inferrt_entry`, called with the
/// inputs, the weights, the outputs and the arena, in that order.
static llvm::json::Object cpuPlan(const EngineDescription &d) {
  llvm::json::Array calls;
  for (const auto &[kernel, nodes] : d.kernelNodes)
    calls.push_back(llvm::json::Object{{"kernel", kernel}, {"nodes", nodes}});
  llvm::json::Object entry{{"symbol", "inferrt_entry"}, {"nodes", d.nodes}, {"calls", std::move(calls)}};
  return llvm::json::Object{{"kernels", llvm::json::Array{std::move(entry)}}};
}

/// A launch argument: which of the entry's arguments (inputs, weights,
/// outputs, arena) `index` is, and its index among them.
static llvm::json::Object argumentOf(const EngineDescription &d, unsigned index) {
  size_t inputs = d.inputs.size(), weights = d.weights.size(), outputs = d.outputs.size();
  if (index < inputs)
    return llvm::json::Object{{"kind", "input"}, {"index", index}};
  if (index < inputs + weights)
    return llvm::json::Object{{"kind", "weight"}, {"index", index - inputs}};
  if (index < inputs + weights + outputs)
    return llvm::json::Object{{"kind", "output"}, {"index", index - inputs - weights}};
  return llvm::json::Object{{"kind", "arena"}};
}

/// CUDA: the module images, packed into `kernels` (each 256-byte aligned),
/// and the launches the runtime makes in order.
static llvm::json::Object cudaPlan(const EngineDescription &d, std::string &kernels) {
  llvm::json::Array modules;
  kernels.clear();
  for (const EngineModule &m : d.modules) {
    kernels.resize(alignUp(kernels.size()), '\0');
    modules.push_back(llvm::json::Object{{"format", m.format},
                                         {"arch", m.arch},
                                         {"offset", kernels.size()},
                                         {"bytes", m.bytes.size()}});
    kernels += m.bytes;
  }
  std::map<std::string, std::vector<std::string>> nodes(d.kernelNodes.begin(),
                                                        d.kernelNodes.end());
  llvm::json::Array launches;
  for (const KernelLaunch &l : d.launches) {
    llvm::json::Array args;
    for (unsigned arg : l.args)
      args.push_back(argumentOf(d, arg));
    llvm::json::Object launch{{"kernel", l.kernel},
                              {"nodes", nodes[l.kernel]},
                              {"grid", llvm::json::Array{l.grid, 1, 1}},
                              {"block", llvm::json::Array{l.block, 1, 1}},
                              {"shared_bytes", 0},
                              {"args", std::move(args)}};
    addConfigFields(l.config, launch);
    launches.push_back(std::move(launch));
  }
  return llvm::json::Object{{"modules", std::move(modules)}, {"launches", std::move(launches)}};
}

/// `value` as text: sorted keys, two-space indentation.
static std::string printJSON(llvm::json::Value value) {
  return llvm::formatv("{0:2}", value).str();
}

std::string mlir::infer::serializeEngine(const EngineDescription &d) {
  llvm::json::Object metadata{
      {"inputs", tensorsToJson(d.inputs)},
      {"outputs", tensorsToJson(d.outputs)},
      {"compiler",
       llvm::json::Object{{"name", "infer-opt"}, {"version", d.compilerVersion}, {"flags", d.flags}}},
      {"target", d.target},
  };
  if (!d.modelSha256.empty())
    metadata["model"] = llvm::json::Object{{"sha256", d.modelSha256}};
  auto [weights, weightTable] = layoutWeights(d.weights);
  std::string kernels = d.kernels;
  llvm::json::Object plan = d.target == "cuda" ? cudaPlan(d, kernels) : cpuPlan(d);
  plan["arguments"] = llvm::json::Array{"inputs", "weights", "outputs", "arena"};
  plan["weights"] = std::move(weightTable);
  plan["arena"] = llvm::json::Object{{"bytes", d.arena.bytes},
                                     {"lower_bound", d.arena.lowerBound},
                                     {"no_reuse", d.arena.noReuse},
                                     {"buffers", d.arena.buffers}};
  if (d.target == "cuda")
    metadata["cuda"] = llvm::json::Object{{"archs", d.cudaArchs}, {"tf32", d.tf32}};
  std::vector<std::pair<uint32_t, std::string>> sections = {
      {INFERRT_SECTION_METADATA, printJSON(std::move(metadata))},
      {INFERRT_SECTION_PLAN, printJSON(std::move(plan))},
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
