//===- engine_loader_fuzzer.cpp - libFuzzer target: the engine loader -----===//
//
// Built by scripts/fuzz.sh with clang -fsanitize=fuzzer,address,undefined
// and the runtime's sources compiled in with INFERRT_FUZZ_NO_KERNELS (the
// loader stops before dlopen). Each input is an engine file. Before loading,
// the target recomputes the section checksums and then the header checksum
// of well-formed-looking inputs, so that mutations get past the CRCs into
// the layout checks, the metadata and plan JSON and the weights table; the
// raw input (checksums as they are) is loaded too. Any crash, sanitizer
// report or status without a message is a finding.
//
//===----------------------------------------------------------------------===//

#include "inferrt/engine_format.h"
#include "inferrt/inferrt.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string scratchPath() {
  return "/dev/shm/inferrt-fuzz-" + std::to_string(getpid()) + ".engine";
}

void loadFrom(const std::vector<uint8_t> &bytes) {
  static const std::string path = scratchPath();
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  if (!bytes.empty())
    std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  inferrt_engine *engine = nullptr;
  inferrt_status status = inferrt_engine_load(path.c_str(), &engine);
  if (!status) { // Cannot happen with INFERRT_FUZZ_NO_KERNELS.
    inferrt_engine_free(engine);
    return;
  }
  const char *message = inferrt_status_message(status);
  if (!message || !*message)
    std::abort(); // Every refusal must say why.
  inferrt_status_free(status);
}

/// Recomputes every in-bounds section's CRC and then the header's.
void reseal(std::vector<uint8_t> &bytes) {
  if (bytes.size() < sizeof(inferrt_engine_header))
    return;
  inferrt_engine_header header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  uint64_t count = header.sectionCount;
  if (count > INFERRT_MAX_SECTIONS ||
      sizeof(header) + count * sizeof(inferrt_section_entry) > bytes.size())
    return;
  for (uint64_t i = 0; i < count; ++i) {
    size_t at = sizeof(header) + i * sizeof(inferrt_section_entry);
    inferrt_section_entry entry;
    std::memcpy(&entry, bytes.data() + at, sizeof(entry));
    if (entry.offset > bytes.size() || entry.size > bytes.size() - entry.offset)
      continue;
    entry.crc = inferrt_crc32(0, bytes.data() + entry.offset, entry.size);
    std::memcpy(bytes.data() + at, &entry, sizeof(entry));
  }
  header.headerCrc = 0;
  std::memcpy(bytes.data(), &header, sizeof(header));
  header.headerCrc = inferrt_crc32(0, bytes.data(), sizeof(header) + count * sizeof(inferrt_section_entry));
  std::memcpy(bytes.data(), &header, sizeof(header));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  loadFrom(bytes);
  reseal(bytes);
  loadFrom(bytes);
  return 0;
}
