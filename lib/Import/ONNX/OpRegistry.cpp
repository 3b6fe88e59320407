//===- OpRegistry.cpp - ONNX op handler registry --------------------------===//

#include "OpRegistry.h"

#include <algorithm>

using namespace mlir::infer::onnx_import;

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerElementwiseOps(r);
    registerNNOps(r);
    registerReductionOps(r);
    registerTensorOps(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(StringRef opType, std::vector<int64_t> sinceVersions, OpHandler handler) {
  std::sort(sinceVersions.begin(), sinceVersions.end());
  handlers_[opType] = OpRegistration{std::move(sinceVersions), handler};
}

const OpRegistration *OpRegistry::lookup(StringRef opType) const {
  auto it = handlers_.find(opType);
  return it == handlers_.end() ? nullptr : &it->second;
}

int64_t OpRegistry::resolveVersion(const OpRegistration &reg, int64_t opset) {
  int64_t version = 0;
  for (int64_t v : reg.sinceVersions)
    if (v <= opset)
      version = v;
  return version;
}

std::vector<std::string> OpRegistry::opTypes() const {
  std::vector<std::string> names;
  for (const auto &entry : handlers_)
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}
