//===- EngineReader.h - the one reader of an engine file's layout -*- C++ -*-===//
//
// Reads and checks an engine's header, section table, sections and padding
// (include/inferrt/engine_format.h; docs/engine-format.md). The runtime's
// loader and `infer-opt --inspect` both read engines through it. Plain C++:
// the runtime, which must not depend on MLIR or LLVM, compiles it too.
//
//===----------------------------------------------------------------------===//

#ifndef INFER_OPT_TARGET_ENGINE_ENGINEREADER_H
#define INFER_OPT_TARGET_ENGINE_ENGINEREADER_H

#include "inferrt/engine_format.h"

#include <string>
#include <string_view>
#include <vector>

namespace inferrt {

/// An engine file as its header and table describe it.
struct EngineLayout {
  inferrt_engine_header header = {};
  /// The header and the section table could be read (the file is long
  /// enough, the magic and the header's sizes are right): `table` and
  /// `sectionIntact` are filled.
  bool tableRead = false;
  std::vector<inferrt_section_entry> table;
  /// Per table entry: the section lies inside the file and its checksum
  /// matches.
  std::vector<bool> sectionIntact;
  /// The intact sections' bytes by kind (views into the file).
  std::string_view sections[INFERRT_MAX_SECTIONS + 1];
  std::string target; // The header's target descriptor.
};

/// Reads `file` (a whole engine; `name` is used in messages) into `layout`
/// and checks every byte of it: magic, format version, sizes, the header's
/// and every section's checksum, each section's kind, bounds and alignment,
/// and that the padding between them is zero. Returns the first problem
/// found, a message naming the file ("'m.engine' has a corrupt header
/// (checksum mismatch)"), or "" for a sound engine. What it could read is
/// in `layout` either way, for a reader that reports every section.
std::string readEngineLayout(std::string_view file, const std::string &name,
                             EngineLayout &layout);

} // namespace inferrt

#endif // INFER_OPT_TARGET_ENGINE_ENGINEREADER_H
