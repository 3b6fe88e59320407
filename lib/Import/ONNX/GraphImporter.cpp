//===- GraphImporter.cpp - ONNX graph to func.func of `infer` ops ---------===//
//
// Checks the model's opsets, graph inputs, initializers and the node graph
// (undefined values, duplicate names, cycles) before importing node by node
// in topological order. Each node becomes `infer` ops with a NameLoc holding
// the node's name; shapes are inferred and constants folded as ops are
// built, so with static inputs the whole function comes out static.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "NodeContext.h"
#include "OpRegistry.h"

#include "Infer/InferOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <queue>

using namespace mlir;
using namespace mlir::infer;
using namespace mlir::infer::onnx_import;

static bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

GraphImporter::GraphImporter(MLIRContext &context, const onnx::ModelProto &model,
                             std::string modelPath, const ONNXImportOptions &options)
    : context_(context), model_(model), modelPath_(std::move(modelPath)), options_(options),
      builder_(&context) {
  SmallString<256> dir(modelPath_);
  llvm::sys::path::remove_filename(dir);
  modelDir_ = dir.empty() ? "." : std::string(dir);
}

Location GraphImporter::nodeLoc(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                                         : node.name();
  return NameLoc::get(StringAttr::get(&context_, name));
}

LogicalResult GraphImporter::checkOpsets() {
  Location loc = FileLineColLoc::get(&context_, modelPath_, 0, 0);
  bool found = false;
  for (const auto &opset : model_.opset_import()) {
    if (!isDefaultDomain(opset.domain()))
      continue;
    found = true;
    opset_ = opset.version();
  }
  if (!found)
    return emitError(loc) << "the model imports no opset of the default ONNX domain";
  if (opset_ < kMinOpset || opset_ > kMaxOpset)
    return emitError(loc) << "opset " << opset_ << " of the default domain is not supported "
                          << "(supported: " << kMinOpset << " to " << kMaxOpset << ")";
  return success();
}

LogicalResult GraphImporter::collectInitializers() {
  Location loc = FileLineColLoc::get(&context_, modelPath_, 0, 0);
  for (const auto &tensor : model_.graph().initializer()) {
    if (tensor.name().empty())
      return emitError(loc) << "an initializer has no name";
    if (!initializers_.try_emplace(tensor.name(), &tensor).second)
      return emitError(loc) << "initializer '" << tensor.name() << "' is defined twice";
  }
  if (model_.graph().sparse_initializer_size() > 0)
    return emitError(loc) << "sparse initializers are not supported";
  return success();
}

Value GraphImporter::importInitializer(StringRef name, const onnx::TensorProto &tensor,
                                       StringRef what) {
  // Initializers become constants at first use, at the top of the function
  // so that every later use is dominated.
  OpBuilder::InsertionGuard guard(builder_);
  builder_.setInsertionPointToStart(builder_.getInsertionBlock());
  Location loc = NameLoc::get(StringAttr::get(&context_, name));
  auto attr = readTensor(context_, loc, tensor, modelDir_, what, options_.maxTensorBytes);
  if (failed(attr))
    return {};
  Value value = ConstantOp::create(builder_, loc, *attr);
  values_[name] = value;
  return value;
}

Value GraphImporter::lookup(StringRef name, Location) {
  return lookupInput(name, nullptr, "");
}

Value GraphImporter::lookupInput(StringRef name, const onnx::NodeProto *node, StringRef nodeName) {
  auto it = values_.find(name);
  if (it != values_.end())
    return it->second;
  auto init = initializers_.find(name);
  if (init == initializers_.end())
    return {};
  std::string what = ("initializer '" + name + "'").str();
  if (node)
    what += (" (used by node '" + nodeName + "' (" + node->op_type() + "))").str();
  return importInitializer(name, *init->second, what);
}

int64_t GraphImporter::domainOpset(const std::string &domain) const {
  for (const auto &opset : model_.opset_import())
    if (opset.domain() == domain)
      return opset.version();
  return -1;
}

FailureOr<RankedTensorType> GraphImporter::importInputType(const onnx::ValueInfoProto &input,
                                                           SmallVectorImpl<Attribute> &dimNames) {
  Location loc = NameLoc::get(StringAttr::get(&context_, input.name()));
  std::string what = "graph input '" + input.name() + "'";
  if (!input.type().has_tensor_type())
    return emitError(loc) << what << " is not a tensor (sequences, maps and optionals are not supported)";
  const auto &tensorType = input.type().tensor_type();
  int32_t elemType = tensorType.elem_type();
  if (elemType == onnx::TensorProto::STRING)
    return emitError(loc) << what << ": string tensors are not supported";
  Type elementType = convertElementType(elemType, &context_);
  if (!elementType)
    return emitError(loc) << what << ": element type " << elementTypeName(elemType)
                          << " is not supported";
  auto override = options_.inputShapes.find(input.name());
  if (!tensorType.has_shape() && override == options_.inputShapes.end())
    return emitError(loc) << what << " has no shape (unknown rank); give one with --input-shape "
                          << input.name() << ":D0xD1x...";
  SmallVector<int64_t> dims;
  bool anyNamed = false;
  for (const auto &dim : tensorType.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() == -1) {
      // Not valid ONNX, but some exporters (PaddlePaddle's) write -1 for a
      // dynamic dim, and runtimes accept it.
      dims.push_back(ShapedType::kDynamic);
      dimNames.push_back(StringAttr::get(&context_, ""));
    } else if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return emitError(loc) << what << " has a negative dim " << dim.dim_value();
      dims.push_back(dim.dim_value());
      dimNames.push_back(StringAttr::get(&context_, ""));
    } else {
      dims.push_back(ShapedType::kDynamic);
      // Some exporters write "?" for an unnamed dim: not a symbol to match.
      std::string param = dim.dim_param() == "?" ? "" : dim.dim_param();
      anyNamed |= !param.empty();
      dimNames.push_back(StringAttr::get(&context_, param));
    }
  }
  if (override != options_.inputShapes.end()) {
    const std::vector<int64_t> &given = override->second;
    if (tensorType.has_shape() && given.size() != dims.size())
      return emitError(loc) << "--input-shape gives " << given.size() << " dims for " << what
                            << ", which has rank " << dims.size();
    if (!tensorType.has_shape())
      dims.assign(given.size(), ShapedType::kDynamic);
    for (size_t i = 0; i < given.size(); ++i) {
      if (!ShapedType::isDynamic(dims[i]) && dims[i] != given[i])
        return emitError(loc) << "--input-shape sets dim " << i << " of " << what << " to "
                              << given[i] << ", but the model fixes it to " << dims[i];
      dims[i] = given[i];
    }
    dimNames.assign(given.size(), StringAttr::get(&context_, ""));
    anyNamed = false;
  }
  if (!anyNamed)
    dimNames.clear();
  unsigned bits = elementType.getIntOrFloatBitWidth();
  int64_t bytes = std::max<int64_t>(1, bits / 8);
  bool overflow = false;
  for (int64_t d : dims)
    if (!ShapedType::isDynamic(d))
      overflow |= __builtin_mul_overflow(bytes, d, &bytes);
  if (overflow || bytes > options_.maxTensorBytes)
    return emitError(loc) << what << " would need more than --max-tensor-bytes="
                          << options_.maxTensorBytes << " bytes";
  return RankedTensorType::get(dims, elementType);
}

FailureOr<std::vector<int>> GraphImporter::sortNodes() {
  const auto &graph = model_.graph();
  int n = graph.node_size();
  auto nodeName = [&](int i) {
    const auto &node = graph.node(i);
    return "node '" + (node.name().empty() ? node.op_type() + "_" + std::to_string(i) : node.name()) +
           "' (" + node.op_type() + ")";
  };
  llvm::StringMap<int> producer;
  llvm::StringSet<> graphValues;
  for (const auto &input : graph.input())
    graphValues.insert(input.name());
  for (const auto &entry : initializers_)
    graphValues.insert(entry.getKey());
  for (int i = 0; i < n; ++i) {
    for (const auto &output : graph.node(i).output()) {
      if (output.empty())
        continue;
      auto [it, inserted] = producer.try_emplace(output, i);
      if (!inserted)
        return emitError(nodeLoc(graph.node(i), i))
               << nodeName(i) << ": output '" << output << "' is also produced by "
               << nodeName(it->second) << "; every value must have one producer";
      if (graphValues.contains(output))
        return emitError(nodeLoc(graph.node(i), i))
               << nodeName(i) << ": output '" << output
               << "' has the name of a graph input or initializer";
    }
  }
  // Kahn's algorithm, always taking the ready node that comes first in the
  // file: a graph that is already sorted keeps its order.
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (const auto &input : graph.node(i).input()) {
      if (input.empty())
        continue;
      auto it = producer.find(input);
      if (it != producer.end()) {
        users[it->second].push_back(i);
        ++pending[i];
      } else if (!graphValues.contains(input)) {
        return emitError(nodeLoc(graph.node(i), i))
               << nodeName(i) << ": input '" << input
               << "' is not produced by any node, graph input or initializer";
      }
    }
  }
  std::vector<int> order;
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0)
      ready.push(i);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int user : users[i])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (static_cast<int>(order.size()) != n) {
    // Nodes left with pending inputs are on a cycle or fed by one.
    std::string names;
    int first = -1, listed = 0;
    for (int i = 0; i < n && listed < 8; ++i) {
      if (pending[i] == 0)
        continue;
      if (first < 0)
        first = i;
      names += (listed++ ? ", " : "") + nodeName(i);
    }
    return emitError(nodeLoc(graph.node(first), first))
           << "the graph has a cycle: " << names << " depend on each other";
  }
  return order;
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node, int index) {
  Location loc = nodeLoc(node, index);
  std::string name = cast<NameLoc>(loc).getName().str();
  auto header = [&]() {
    return emitError(loc) << "node '" << name << "' (" << node.op_type() << "): ";
  };
  if (!isDefaultDomain(node.domain())) {
    int64_t version = domainOpset(node.domain());
    auto diag = header() << "domain '" << node.domain() << "' is not supported (operator '"
                         << node.op_type() << "', ";
    if (version < 0)
      diag << "and the model imports no opset of that domain";
    else
      diag << "domain opset " << version;
    return diag << "); only the default ONNX domain is";
  }
  const OpRegistration *reg = OpRegistry::get().lookup(node.op_type());
  if (!reg) {
    if (node.op_type() == "If" || node.op_type() == "Loop" || node.op_type() == "Scan")
      return header() << "control flow (" << node.op_type()
                      << ") is not supported yet; export the model with static control flow";
    return header() << "unsupported operator '" << node.op_type() << "' (domain 'ai.onnx', opset "
                    << opset_ << ")";
  }
  int64_t sinceVersion = OpRegistry::resolveVersion(*reg, opset_);
  if (sinceVersion == 0)
    return header() << "operator '" << node.op_type() << "' does not exist at opset " << opset_
                    << " (it first appears in opset " << reg->sinceVersions.front() << ")";
  // Inputs must exist before the handler runs (initializers are read here).
  for (const auto &input : node.input())
    if (!input.empty() && !lookupInput(input, &node, name))
      return failure();
  NodeContext ctx(*this, node, name, opset_, sinceVersion, builder_, loc);
  for (int i = 0; i < node.input_size(); ++i)
    if (ctx.hasInput(i) && !isa<RankedTensorType>(ctx.input(i).getType()))
      return header() << "input " << i << " is not a ranked tensor";
  if (failed(reg->handler(ctx)) || failed(ctx.checkAllAttributesRead()))
    return failure();
  for (const auto &output : node.output())
    if (!output.empty() && !values_.count(output))
      return header() << "output '" << output << "' is not supported by this importer";
  return success();
}

/// A declared output type must agree with the computed one where both are
/// known: element type, rank, static dims. (Symbolic dims are not checked.)
LogicalResult GraphImporter::checkOutputType(const onnx::ValueInfoProto &output, Value value) {
  if (!output.type().has_tensor_type())
    return success();
  const auto &declared = output.type().tensor_type();
  auto actual = cast<RankedTensorType>(value.getType());
  Location loc = FileLineColLoc::get(&context_, modelPath_, 0, 0);
  if (declared.elem_type() != 0) {
    Type type = convertElementType(declared.elem_type(), &context_);
    if (type != actual.getElementType())
      return emitError(loc) << "graph output '" << output.name() << "' is declared "
                            << elementTypeName(declared.elem_type()) << " but computes "
                            << actual.getElementType();
  }
  if (!declared.has_shape())
    return success();
  const auto &dims = declared.shape().dim();
  if (dims.size() != actual.getRank())
    return emitError(loc) << "graph output '" << output.name() << "' is declared with rank "
                          << dims.size() << " but computes " << actual;
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i].has_dim_value() && dims[i].dim_value() >= 0 && !actual.isDynamicDim(i) &&
        dims[i].dim_value() != actual.getDimSize(i))
      return emitError(loc) << "graph output '" << output.name() << "' is declared with dim " << i
                            << " = " << dims[i].dim_value() << " but computes " << actual;
  }
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  const auto &graph = model_.graph();
  Location fileLoc = FileLineColLoc::get(&context_, modelPath_, 0, 0);
  if (failed(checkOpsets()) || failed(collectInitializers()))
    return nullptr;
  if (graph.output_size() == 0) {
    emitError(fileLoc) << "graph '" << graph.name() << "' has no outputs";
    return nullptr;
  }

  // Inputs that are not initializers are the function's arguments.
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<DictionaryAttr> argAttrs;
  llvm::StringSet<> seenInputs;
  for (const auto &input : graph.input()) {
    if (initializers_.count(input.name()))
      continue;
    if (!seenInputs.insert(input.name()).second) {
      emitError(fileLoc) << "graph input '" << input.name() << "' is declared twice";
      return nullptr;
    }
    SmallVector<Attribute> dimNames;
    auto type = importInputType(input, dimNames);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    args.push_back(&input);
    NamedAttrList attrs;
    attrs.append("infer.name", builder_.getStringAttr(input.name()));
    if (!dimNames.empty())
      attrs.append("infer.dims", builder_.getArrayAttr(dimNames));
    argAttrs.push_back(attrs.getDictionary(&context_));
  }
  for (const auto &entry : options_.inputShapes) {
    if (!seenInputs.contains(entry.first)) {
      std::string names;
      for (const auto *arg : args)
        names += (names.empty() ? "" : ", ") + arg->name();
      emitError(fileLoc) << "--input-shape names '" << entry.first
                         << "', which is not a graph input (inputs: " << names << ")";
      return nullptr;
    }
  }

  auto module = ModuleOp::create(fileLoc);
  OwningOpRef<ModuleOp> owner(module);
  if (!graph.name().empty())
    module->setAttr("infer.graph_name", builder_.getStringAttr(graph.name()));
  module->setAttr("infer.opset", builder_.getI64IntegerAttr(opset_));
  builder_.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder_, fileLoc, "main",
                                   builder_.getFunctionType(argTypes, {}));
  func.setAllArgAttrs(argAttrs);
  Block *entry = func.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  for (auto [arg, value] : llvm::zip(args, entry->getArguments()))
    values_[arg->name()] = value;

  auto order = sortNodes();
  if (failed(order))
    return nullptr;
  for (int i : *order)
    if (failed(importNode(graph.node(i), i)))
      return nullptr;

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &output : graph.output()) {
    Value value = lookup(output.name(), fileLoc);
    if (!value) {
      emitError(fileLoc) << "graph output '" << output.name() << "' is not produced by any node";
      return nullptr;
    }
    if (failed(checkOutputType(output, value)))
      return nullptr;
    results.push_back(value);
    resultAttrs.push_back(builder_.getDictionaryAttr(
        builder_.getNamedAttr("infer.name", builder_.getStringAttr(output.name()))));
  }
  func::ReturnOp::create(builder_, fileLoc, results);
  func.setFunctionType(builder_.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func.setAllResultAttrs(resultAttrs);
  // Every op was verified as it was built, so a failure here is ours.
  if (failed(verify(module))) {
    internalError_ = true;
    emitError(fileLoc) << "internal error: the imported module does not verify; please "
                          "report this with the model";
    return nullptr;
  }
  return owner;
}

ONNXImportResult mlir::infer::importONNXModel(MLIRContext &context, const std::string &path,
                                              const ONNXImportOptions &options) {
  context.loadDialect<InferDialect, func::FuncDialect>();
  ONNXImportResult result;
  auto model = readModelFile(context, path);
  if (failed(model))
    return result;
  GraphImporter importer(context, **model, path, options);
  result.module = importer.run();
  result.internalError = importer.hadInternalError();
  return result;
}

bool mlir::infer::parseInputShapeFlag(const std::string &text, std::string &name,
                                      std::vector<int64_t> &dims) {
  // The name may itself contain ':' (some exporters use "input:0"): split at
  // the last one.
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return false;
  name = text.substr(0, colon);
  StringRef rest = StringRef(text).substr(colon + 1);
  dims.clear();
  if (rest.empty())
    return true; // A scalar.
  SmallVector<StringRef> parts;
  rest.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t d;
    if (part.getAsInteger(10, d) || d < 0)
      return false;
    dims.push_back(d);
  }
  return true;
}
