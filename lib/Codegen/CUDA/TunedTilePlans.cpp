//===- TunedTilePlans.cpp - read a file of tuned staged-tiles plans -------===//
//
// The tuning loop without a GPU at compile time: a sweep on a GPU
// (scripts/gpu-check.sh's sweep phase) times each staged-tiles launch under
// several plans, scripts/bench/sweep.py --tuned-plans writes the fastest
// plan of each contraction that beat the heuristic to a JSON file, and
// `infer-opt --cuda-tile-plans FILE` compiles with them:
//
//   {"device": "...", "plans": {"batch=8,m=1024,n=768,k=768,a=row,b=col":
//                               "warp=4x4,step=16,stages=2,groups=1", ...}}
//
// Only "plans" is read; every plan must parse (parseTilePlanChoice), so a
// mistyped file is refused rather than silently ignored.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Codegen/CUDA/CUDACodegen.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

std::string mlir::infer::readTunedTilePlans(llvm::StringRef path, TunedTilePlans &plans) {
  plans.clear();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    return llvm::formatv("cannot read '{0}': {1}", path, file.getError().message());
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*file)->getBuffer());
  if (!json)
    return llvm::formatv("'{0}' is not JSON: {1}", path, llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *table = root ? root->getObject("plans") : nullptr;
  if (!table)
    return llvm::formatv("'{0}' has no \"plans\" object (contraction -> plan, as "
                         "scripts/bench/sweep.py --tuned-plans writes)",
                         path);
  for (const auto &[key, value] : *table) {
    std::optional<llvm::StringRef> text = value.getAsString();
    if (!text)
      return llvm::formatv("'{0}': the plan of '{1}' is not a string", path, key.str());
    TilePlanChoice choice;
    std::string error = parseTilePlanChoice(*text, choice);
    if (!error.empty())
      return llvm::formatv("'{0}': the plan of '{1}': {2}", path, key.str(), error);
    plans.push_back({key.str(), text->str()});
  }
  // The object's order is a hash map's: sorted, so that the pass sees one order.
  llvm::sort(plans);
  return "";
}
