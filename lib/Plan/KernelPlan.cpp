//===- KernelPlan.cpp - kernel configurations: text, JSON, attributes -----===//

#include "infer-opt/Plan/KernelPlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::infer;

namespace {

constexpr int64_t kSides[] = {1, 2, 4}, kSteps[] = {8, 16, 32}, kStages[] = {2, 3, 4};

constexpr llvm::StringLiteral kPlanParts =
    "warp=MxN, step=K, stages=S, groups=G and mma=wmma|sync";

std::string listOf(llvm::ArrayRef<int64_t> values) {
  std::string list;
  for (int64_t v : values)
    list += (list.empty() ? "" : ", ") + std::to_string(v);
  return list;
}

} // namespace

TilePlanChoice TilePlanChoice::of(const TilePlan &plan) {
  TilePlanChoice choice;
  choice.warpM = plan.warpM;
  choice.warpN = plan.warpN;
  choice.stepK = plan.stepK;
  choice.stages = plan.stages;
  choice.groups = plan.groups;
  choice.mma = plan.mma;
  return choice;
}

//===----------------------------------------------------------------------===//
// Text forms
//===----------------------------------------------------------------------===//

std::string mlir::infer::parseTilePlanChoice(llvm::StringRef text, TilePlanChoice &choice) {
  choice = {};
  struct Field {
    llvm::StringRef key;
    std::optional<int64_t> *value;
    llvm::ArrayRef<int64_t> allowed;
    llvm::StringRef what;
  } fields[] = {{"step", &choice.stepK, kSteps, "k a round"},
                {"stages", &choice.stages, kStages, "buffers of rounds"},
                {"groups", &choice.groups, kSides, "groups of 4 warps splitting k"}};
  auto number = [](llvm::StringRef digits, llvm::ArrayRef<int64_t> allowed) {
    int64_t v = 0;
    return digits.getAsInteger(10, v) || !llvm::is_contained(allowed, v) ? std::optional<int64_t>()
                                                                         : std::optional(v);
  };
  if (text.trim().empty())
    return "an empty plan: give any of warp=MxN,step=K,stages=S,groups=G,mma=wmma|sync";
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  llvm::StringSet<> seen;
  for (llvm::StringRef raw : parts) {
    llvm::StringRef part = raw.trim();
    auto [key, value] = part.split('=');
    key = key.trim();
    value = value.trim();
    const Field *field = llvm::find_if(fields, [&](const Field &f) { return f.key == key; });
    if (key != "warp" && key != "mma" && field == std::end(fields))
      return llvm::formatv("'{0}': no such part of a plan; the parts are {1}", part, kPlanParts);
    if (!seen.insert(key).second)
      return llvm::formatv("'{0}': {1} is given twice", part, key);
    if (key == "mma") {
      choice.mma = plan::symbolizeMmaKind(value);
      if (!choice.mma)
        return llvm::formatv("'{0}': mma (how a warp multiplies) is wmma or sync", part);
      continue;
    }
    if (key == "warp") {
      auto [along, across] = value.split('x');
      choice.warpM = number(along, kSides);
      choice.warpN = number(across, kSides);
      if (!choice.warpM || !choice.warpN)
        return llvm::formatv("'{0}': warp=MxN is the fragments of 16x16 a warp computes along "
                             "m and n, each 1, 2 or 4",
                             part);
      continue;
    }
    *field->value = number(value, field->allowed);
    if (!*field->value)
      return llvm::formatv("'{0}': {1} ({2}) is one of {3}", part, key, field->what,
                           listOf(field->allowed));
  }
  return "";
}

std::string mlir::infer::describe(const TilePlanChoice &c) {
  llvm::SmallVector<std::string> parts;
  if (c.warpM && c.warpN)
    parts.push_back(llvm::formatv("warp={0}x{1}", *c.warpM, *c.warpN));
  if (c.stepK)
    parts.push_back(llvm::formatv("step={0}", *c.stepK));
  if (c.stages)
    parts.push_back(llvm::formatv("stages={0}", *c.stages));
  if (c.groups)
    parts.push_back(llvm::formatv("groups={0}", *c.groups));
  if (c.mma)
    parts.push_back(("mma=" + plan::stringifyMmaKind(*c.mma)).str());
  return llvm::join(parts, ",");
}

std::string mlir::infer::describe(const TilePlan &plan) {
  return describe(TilePlanChoice::of(plan));
}

std::string mlir::infer::describe(const ContractionKey &key) {
  return llvm::formatv("batch={0},m={1},n={2},k={3},a={4},b={5}", key.batch, key.m, key.n, key.k,
                       plan::stringifyOperandOrder(key.a), plan::stringifyOperandOrder(key.b));
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value mlir::infer::toJSON(const TilePlanChoice &c) {
  llvm::json::Object object;
  if (c.warpM && c.warpN)
    object["warp"] = llvm::json::Array{*c.warpM, *c.warpN};
  if (c.stepK)
    object["step"] = *c.stepK;
  if (c.stages)
    object["stages"] = *c.stages;
  if (c.groups)
    object["groups"] = *c.groups;
  if (c.mma)
    object["mma"] = plan::stringifyMmaKind(*c.mma);
  return object;
}

llvm::json::Value mlir::infer::toJSON(const TilePlan &plan) {
  return toJSON(TilePlanChoice::of(plan));
}

llvm::json::Value mlir::infer::toJSON(const ContractionKey &key) {
  return llvm::json::Object{{"batch", key.batch},
                            {"m", key.m},
                            {"n", key.n},
                            {"k", key.k},
                            {"a", plan::stringifyOperandOrder(key.a)},
                            {"b", plan::stringifyOperandOrder(key.b)}};
}

namespace {

/// Maps `key` to `out` if present; `expected` is the error unless it is
/// one of `allowed`.
bool mapAllowed(llvm::json::ObjectMapper &mapper, llvm::StringLiteral key,
                std::optional<int64_t> &out, llvm::ArrayRef<int64_t> allowed,
                llvm::StringLiteral expected, llvm::json::Path path) {
  if (!mapper.mapOptional(key, out))
    return false;
  if (out && !llvm::is_contained(allowed, *out)) {
    path.field(key).report(expected);
    return false;
  }
  return true;
}

template <typename Enum>
bool mapEnum(const llvm::json::Object &object, llvm::StringLiteral key,
             std::optional<Enum> (*symbolize)(llvm::StringRef), std::optional<Enum> &out,
             llvm::StringLiteral expected, llvm::json::Path path) {
  const llvm::json::Value *value = object.get(key);
  if (!value)
    return true;
  std::optional<llvm::StringRef> text = value->getAsString();
  out = text ? symbolize(*text) : std::nullopt;
  if (!out)
    path.field(key).report(expected);
  return out.has_value();
}

} // namespace

bool mlir::infer::fromJSON(const llvm::json::Value &value, TilePlanChoice &c,
                           llvm::json::Path path) {
  c = {};
  llvm::json::ObjectMapper mapper(value, path);
  const llvm::json::Object *object = value.getAsObject();
  if (!mapper || !object)
    return false;
  for (const auto &[key, _] : *object)
    if (!llvm::is_contained({"warp", "step", "stages", "groups", "mma"}, key.str())) {
      path.field(key).report("no such part of a plan");
      return false;
    }
  std::optional<std::vector<int64_t>> warp;
  if (!mapper.mapOptional("warp", warp))
    return false;
  if (warp) {
    if (warp->size() != 2 || !llvm::is_contained(kSides, (*warp)[0]) ||
        !llvm::is_contained(kSides, (*warp)[1])) {
      path.field("warp").report("must be [M, N], each 1, 2 or 4");
      return false;
    }
    c.warpM = (*warp)[0];
    c.warpN = (*warp)[1];
  }
  return mapAllowed(mapper, "step", c.stepK, kSteps, "must be 8, 16 or 32", path) &&
         mapAllowed(mapper, "stages", c.stages, kStages, "must be 2, 3 or 4", path) &&
         mapAllowed(mapper, "groups", c.groups, kSides, "must be 1, 2 or 4", path) &&
         mapEnum(*object, "mma", plan::symbolizeMmaKind, c.mma, "must be \"wmma\" or \"sync\"",
                 path);
}

bool mlir::infer::fromJSON(const llvm::json::Value &value, ContractionKey &key,
                           llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  const llvm::json::Object *object = value.getAsObject();
  std::optional<OperandOrder> a, b;
  constexpr llvm::StringLiteral order = "must be \"row\" or \"col\"";
  if (!mapper || !mapper.map("batch", key.batch) || !mapper.map("m", key.m) ||
      !mapper.map("n", key.n) || !mapper.map("k", key.k) ||
      !mapEnum(*object, "a", plan::symbolizeOperandOrder, a, order, path) ||
      !mapEnum(*object, "b", plan::symbolizeOperandOrder, b, order, path))
    return false;
  if (!a || !b) {
    path.report("needs \"a\" and \"b\"");
    return false;
  }
  key.a = *a;
  key.b = *b;
  return true;
}

void mlir::infer::addConfigFields(const KernelConfig &config, llvm::json::Object &object) {
  object["strategy"] = plan::stringifyKernelStrategy(config.strategy);
  object["tensor_cores"] = config.usesTensorCores();
  if (config.tile)
    object["tile"] = toJSON(*config.tile);
  if (config.contraction)
    object["contraction"] = toJSON(*config.contraction);
}

std::string mlir::infer::readTunedTilePlans(llvm::StringRef path, TunedTilePlans &tuned) {
  tuned = {};
  tuned.source = path.str();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::formatv("cannot read '{0}': {1}", path, file.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*file)->getBuffer());
  if (!json)
    return llvm::formatv("'{0}' is not JSON: {1}", path, llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *entries = root ? root->getArray("plans") : nullptr;
  if (!entries)
    return "'" + path.str() +
           "' has no \"plans\" list (of {\"contraction\": {...}, \"plan\": {...}}, as "
           "scripts/bench/sweep.py --tuned-plans writes)";
  for (auto [i, entry] : llvm::enumerate(*entries)) {
    std::string where = llvm::formatv("plans[{0}]", i);
    llvm::json::Path::Root report(where);
    llvm::json::ObjectMapper mapper(entry, report);
    ContractionKey key;
    TilePlanChoice choice;
    if (!mapper || !mapper.map("contraction", key) || !mapper.map("plan", choice))
      return llvm::formatv("'{0}': {1}", path, llvm::toString(report.getError()));
    if (!tuned.plans.emplace(key, choice).second)
      return llvm::formatv("'{0}': {1}: {2} has a plan already", path, where, describe(key));
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

plan::TilePlanAttr mlir::infer::toAttr(MLIRContext *ctx, const TilePlan &p) {
  return plan::TilePlanAttr::get(ctx, p.warpM, p.warpN, p.stepK, p.stages, p.groups, p.mma);
}

plan::ContractionAttr mlir::infer::toAttr(MLIRContext *ctx, const ContractionKey &key) {
  return plan::ContractionAttr::get(ctx, key.batch, key.m, key.n, key.k, key.a, key.b);
}

plan::LaunchAttr mlir::infer::toAttr(MLIRContext *ctx, const KernelLaunch &l) {
  llvm::SmallVector<int64_t> args(l.args.begin(), l.args.end());
  const KernelConfig &c = l.config;
  return plan::LaunchAttr::get(ctx, StringAttr::get(ctx, l.kernel), l.grid, l.block,
                               DenseI64ArrayAttr::get(ctx, args), c.strategy,
                               c.tile ? toAttr(ctx, *c.tile) : plan::TilePlanAttr(),
                               c.contraction ? toAttr(ctx, *c.contraction)
                                             : plan::ContractionAttr());
}

TilePlan mlir::infer::fromAttr(plan::TilePlanAttr a) {
  return {a.getWarpM(), a.getWarpN(), a.getStep(), a.getStages(), a.getGroups(), a.getMma()};
}

ContractionKey mlir::infer::fromAttr(plan::ContractionAttr a) {
  return {a.getBatch(), a.getM(), a.getN(), a.getK(), a.getA(), a.getB()};
}

KernelLaunch mlir::infer::fromAttr(plan::LaunchAttr a) {
  KernelLaunch l;
  l.kernel = a.getKernel().str();
  l.grid = a.getGrid();
  l.block = a.getBlock();
  l.args.assign(a.getArgs().asArrayRef().begin(), a.getArgs().asArrayRef().end());
  l.config.strategy = a.getStrategy();
  if (a.getTile())
    l.config.tile = fromAttr(a.getTile());
  if (a.getContraction())
    l.config.contraction = fromAttr(a.getContraction());
  return l;
}
