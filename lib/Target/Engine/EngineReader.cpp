//===- EngineReader.cpp - the one reader of an engine file's layout -------===//
//
// No MLIR or LLVM here: libinferrt compiles this file too.
//
//===----------------------------------------------------------------------===//

#include "infer-opt/Target/Engine/EngineReader.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <utility>

using namespace inferrt;

namespace {

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

std::string format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char text[512];
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  return text;
}

/// The first non-zero byte outside the header, the table and the
/// sections, or nothing: then no byte of the file goes unchecked.
std::string checkPadding(std::string_view file, const EngineLayout &layout, const char *name) {
  size_t tableBytes = sizeof(inferrt_section_entry) * layout.table.size();
  std::vector<std::pair<uint64_t, uint64_t>> covered = {
      {0, sizeof(inferrt_engine_header) + tableBytes}};
  for (const auto &entry : layout.table)
    covered.push_back({entry.offset, entry.offset + entry.size});
  std::sort(covered.begin(), covered.end());
  covered.push_back({file.size(), file.size()});
  uint64_t position = 0;
  for (const auto &[begin, end] : covered) {
    for (uint64_t i = position; i < begin; ++i)
      if (file[i] != 0)
        return format("'%s' is corrupt (non-zero padding at byte %llu)", name,
                      (unsigned long long)i);
    position = std::max(position, end);
  }
  return "";
}

} // namespace

std::string inferrt::readEngineLayout(std::string_view file, const std::string &path,
                                      EngineLayout &layout) {
  layout = EngineLayout();
  const char *name = path.c_str();
  inferrt_engine_header &header = layout.header;
  if (file.size() < sizeof(header))
    return format("'%s' is truncated: %zu bytes, an engine header needs %zu", name, file.size(),
                  sizeof(header));
  std::memcpy(&header, file.data(), sizeof(header));
  if (std::memcmp(header.magic, INFERRT_ENGINE_MAGIC, 8) != 0)
    return format("'%s' is not an infer-opt engine (bad magic)", name);
  layout.target.assign(header.target, strnlen(header.target, sizeof(header.target)));
  if (header.formatMajor > INFERRT_FORMAT_MAJOR)
    return format("'%s' has format %u.%u, newer than this runtime (%d.%d): update the runtime",
                  name, header.formatMajor, header.formatMinor, INFERRT_FORMAT_MAJOR,
                  INFERRT_FORMAT_MINOR);
  if (header.formatMajor < INFERRT_FORMAT_MAJOR)
    return format("'%s' has old format %u.%u: recompile it", name, header.formatMajor,
                  header.formatMinor);
  if (header.headerSize != sizeof(header) || header.sectionCount == 0 ||
      header.sectionCount > INFERRT_MAX_SECTIONS)
    return format("'%s' has a corrupt header (size %u, %u sections)", name, header.headerSize,
                  header.sectionCount);
  // Past here every section is looked at, so that a reader can report
  // each; the first problem is the answer.
  std::string problem;
  auto note = [&](std::string message) {
    if (problem.empty())
      problem = std::move(message);
  };
  if (header.fileSize != file.size())
    note(format("'%s' is truncated or padded: the header says %llu bytes, the file has %zu", name,
                (unsigned long long)header.fileSize, file.size()));
  size_t tableBytes = sizeof(inferrt_section_entry) * header.sectionCount;
  if (file.size() < sizeof(header) + tableBytes) {
    note(format("'%s' is truncated inside its section table", name));
    return problem;
  }
  layout.table.resize(header.sectionCount);
  std::memcpy(layout.table.data(), file.data() + sizeof(header), tableBytes);
  layout.tableRead = true;
  inferrt_engine_header zeroed = header;
  zeroed.headerCrc = 0;
  uint32_t crc = inferrt_crc32(0, &zeroed, sizeof(zeroed));
  if (inferrt_crc32(crc, layout.table.data(), tableBytes) != header.headerCrc)
    note(format("'%s' has a corrupt header (checksum mismatch)", name));
  bool seen[INFERRT_MAX_SECTIONS + 1] = {};
  for (const inferrt_section_entry &entry : layout.table) {
    bool inside = entry.offset <= file.size() && entry.size <= file.size() - entry.offset;
    bool intact = inside && inferrt_crc32(0, file.data() + entry.offset, entry.size) == entry.crc;
    layout.sectionIntact.push_back(intact);
    if (entry.kind < INFERRT_SECTION_METADATA || entry.kind > INFERRT_SECTION_PLAN) {
      note(format("'%s' has a section of unknown kind %u", name, entry.kind));
      continue;
    }
    if (seen[entry.kind])
      note(format("'%s' has section %u twice", name, entry.kind));
    seen[entry.kind] = true;
    if (entry.offset % INFERRT_SECTION_ALIGNMENT != 0 || !inside)
      note(format("'%s': section %u lies outside the file", name, entry.kind));
    else if (!intact)
      note(format("'%s': section %u is corrupt (checksum mismatch)", name, entry.kind));
    else if (layout.sections[entry.kind].empty())
      layout.sections[entry.kind] = file.substr(entry.offset, entry.size);
  }
  if (problem.empty())
    note(checkPadding(file, layout, name));
  return problem;
}
