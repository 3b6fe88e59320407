//===- KernelPlan.h - kernel configurations as typed values -----*- C++ -*-===//
//
// What the back end decides about each kernel, as structs: the planners
// compute them, the `plan` dialect's attributes carry them through the IR
// (PlanDialect.td), and the engine writer, --dump-kernels and the tuned-plans
// reader turn them into JSON and back through the one pair of functions per
// struct below. The text form of a tile plan is the --cuda-tile-plan flag's.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_PLAN_KERNELPLAN_H
#define INFER_OPT_PLAN_KERNELPLAN_H

#include "Plan/PlanDialect.h"
#include "infer-opt/Support/TextOptionParser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::infer {

using plan::KernelStrategy;
using plan::MmaKind;
using plan::OperandOrder;

/// How a staged-tiles kernel spreads one contraction (StagedTiles.cpp): a
/// group of 2 x 2 warps computes a tile of C, each warp warpM x warpN
/// fragments of 16 x 16; each round stages stepK of k in shared memory, in
/// `stages` buffers; a block has `groups` groups, each summing a slice of k.
struct TilePlan {
  int64_t warpM = 1, warpN = 1; // 1, 2 or 4 each.
  int64_t stepK = 8;            // 8, 16 or 32.
  int64_t stages = 2;           // 2, 3 or 4.
  int64_t groups = 1;           // 1, 2 or 4.
  MmaKind mma = MmaKind::Sync;
  bool operator==(const TilePlan &) const = default;
};

/// Parts of a tile plan fixed by hand (--cuda-tile-plan) or by a tuning
/// sweep; the heuristic chooses the others.
struct TilePlanChoice {
  std::optional<int64_t> warpM, warpN, stepK, stages, groups;
  std::optional<MmaKind> mma;
  bool operator==(const TilePlanChoice &) const = default;
  bool empty() const { return *this == TilePlanChoice(); }
  /// Every part fixed, as in `plan`.
  static TilePlanChoice of(const TilePlan &plan);
};

/// A contraction C[batch, m, n] += A[batch, m, k] x B[batch, k, n] as the
/// tensor cores see it, with the order A and B are stored in: the key a
/// tuned plan is filed under.
struct ContractionKey {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  OperandOrder a = OperandOrder::Row, b = OperandOrder::Row;
  auto operator<=>(const ContractionKey &) const = default;
};

/// How one kernel maps its op onto the GPU.
struct KernelConfig {
  KernelStrategy strategy = KernelStrategy::Simt;
  std::optional<TilePlan> tile;               // Staged tiles.
  std::optional<ContractionKey> contraction; // Staged tiles: what `tile` was planned for.
  bool usesTensorCores() const { return plan::usesTensorCores(strategy); }
};

/// One kernel launch of a CUDA plan, on a 1-D grid. `args` are indices into
/// the entry's arguments (inputs, weights, outputs, arena).
struct KernelLaunch {
  std::string kernel;
  int64_t grid = 1, block = 1;
  std::vector<unsigned> args;
  KernelConfig config;
};

/// Plans for particular contractions (infer-opt --cuda-tile-plans), which
/// take precedence over --cuda-tile-plan and the heuristic. `source` is the
/// file they were read from, which is how a pass option prints them.
struct TunedTilePlans {
  std::string source;
  std::map<ContractionKey, TilePlanChoice> plans;
  bool operator==(const TunedTilePlans &) const = default;
};

//===----------------------------------------------------------------------===//
// Text forms
//===----------------------------------------------------------------------===//

/// Parses "warp=MxN,step=K,stages=S,groups=G,mma=wmma|sync" (any of the
/// parts, in any order). Returns an error message (which part is wrong and
/// what it may be), empty if fine.
std::string parseTilePlanChoice(llvm::StringRef text, TilePlanChoice &choice);
/// The text form of `choice` (its given parts) or of a whole plan.
std::string describe(const TilePlanChoice &choice);
std::string describe(const TilePlan &plan);
/// "batch=B,m=M,n=N,k=K,a=row|col,b=row|col".
std::string describe(const ContractionKey &key);

/// Reads a tuned-plans file (TunedTilePlans; docs/cli.md has its format).
/// Returns an error message (what is wrong, where), empty if fine.
std::string readTunedTilePlans(llvm::StringRef path, TunedTilePlans &plans);

//===----------------------------------------------------------------------===//
// JSON (llvm::json's toJSON/fromJSON, found by argument-dependent lookup)
//===----------------------------------------------------------------------===//

llvm::json::Value toJSON(const TilePlan &plan);
llvm::json::Value toJSON(const TilePlanChoice &choice);
llvm::json::Value toJSON(const ContractionKey &key);
bool fromJSON(const llvm::json::Value &value, TilePlanChoice &choice, llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, ContractionKey &key, llvm::json::Path path);
/// The launch's fields that describe it ("strategy", "tensor_cores", and
/// "tile" and "contraction" where set) added to `object`.
void addConfigFields(const KernelConfig &config, llvm::json::Object &object);

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

plan::TilePlanAttr toAttr(MLIRContext *ctx, const TilePlan &plan);
plan::ContractionAttr toAttr(MLIRContext *ctx, const ContractionKey &key);
plan::LaunchAttr toAttr(MLIRContext *ctx, const KernelLaunch &launch);
TilePlan fromAttr(plan::TilePlanAttr attr);
ContractionKey fromAttr(plan::ContractionAttr attr);
KernelLaunch fromAttr(plan::LaunchAttr attr);

} // namespace mlir::infer

//===----------------------------------------------------------------------===//
// Pass options of these types (their text forms)
//===----------------------------------------------------------------------===//

namespace mlir::infer {
struct TilePlanChoiceText {
  static std::string parse(llvm::StringRef text, TilePlanChoice &value) {
    return parseTilePlanChoice(text, value);
  }
  static void print(llvm::raw_ostream &os, const TilePlanChoice &value) { os << describe(value); }
};
/// The text of a tuned-plans option is the file's path; parsing reads it.
struct TunedTilePlansText {
  static std::string parse(llvm::StringRef text, TunedTilePlans &value) {
    return readTunedTilePlans(text, value);
  }
  static void print(llvm::raw_ostream &os, const TunedTilePlans &value) { os << value.source; }
};
} // namespace mlir::infer

namespace llvm::cl {

template <>
class parser<mlir::infer::TilePlanChoice>
    : public mlir::infer::TextOptionParser<mlir::infer::TilePlanChoice,
                                           mlir::infer::TilePlanChoiceText> {
public:
  using TextOptionParser::TextOptionParser;
  StringRef getValueName() const override { return "tile plan"; }
};

template <>
class parser<mlir::infer::TunedTilePlans>
    : public mlir::infer::TextOptionParser<mlir::infer::TunedTilePlans,
                                           mlir::infer::TunedTilePlansText> {
public:
  using TextOptionParser::TextOptionParser;
  StringRef getValueName() const override { return "tuned-plans file"; }
};

} // namespace llvm::cl

#endif // INFER_OPT_PLAN_KERNELPLAN_H
