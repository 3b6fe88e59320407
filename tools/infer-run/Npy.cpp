//===- Npy.cpp - read and write NumPy .npy files --------------------------===//
//
// The subset infer-run needs: format 1.0/2.0/3.0 headers, little-endian or
// byte-sized dtypes, C order. Anything else is refused with a message.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace inferrun {

static const std::map<std::string, std::string> kDescrToDtype = {
    {"<f4", "float32"}, {"<f8", "float64"}, {"<f2", "float16"}, {"<i8", "int64"},
    {"<i4", "int32"},   {"<i2", "int16"},   {"|i1", "int8"},    {"|u1", "uint8"},
    {"<u2", "uint16"},  {"<u4", "uint32"},  {"<u8", "uint64"},  {"|b1", "bool"},
};

static size_t dtypeSize(const std::string &dtype) {
  for (const auto &[descr, name] : kDescrToDtype)
    if (name == dtype)
      return std::stoul(descr.substr(2));
  return 0;
}

/// The value of `key` in the header dict ("'descr': '<f4'" -> "<f4").
static bool headerValue(const std::string &header, const std::string &key, std::string &value) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return false;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  if (pos >= header.size())
    return false;
  char open = header[pos];
  char close = open == '\'' ? '\'' : open == '(' ? ')' : ',';
  size_t end = header.find(close, pos + 1);
  if (end == std::string::npos)
    return false;
  value = open == '\'' || open == '(' ? header.substr(pos + 1, end - pos - 1)
                                      : header.substr(pos, end - pos);
  return true;
}

bool readNpy(const std::string &path, NpyArray &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < 10 || file.compare(0, 6, "\x93NUMPY") != 0) {
    error = "'" + path + "' is not a .npy file (bad magic)";
    return false;
  }
  unsigned major = static_cast<unsigned char>(file[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(file[8]) | (static_cast<unsigned char>(file[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) {
      error = "'" + path + "' is truncated";
      return false;
    }
    uint32_t len;
    std::memcpy(&len, file.data() + 8, 4);
    headerLen = len;
    headerStart = 12;
  } else {
    error = "'" + path + "' has unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (headerStart + headerLen > file.size()) {
    error = "'" + path + "' is truncated inside its header";
    return false;
  }
  std::string header = file.substr(headerStart, headerLen);
  std::string descr, order, shape;
  if (!headerValue(header, "descr", descr) || !headerValue(header, "fortran_order", order) ||
      !headerValue(header, "shape", shape)) {
    error = "'" + path + "' has a malformed header";
    return false;
  }
  auto it = kDescrToDtype.find(descr);
  if (it == kDescrToDtype.end()) {
    error = "'" + path + "' has unsupported dtype '" + descr + "'";
    return false;
  }
  if (order.find("True") != std::string::npos) {
    error = "'" + path + "' is in Fortran order; save it C-contiguous";
    return false;
  }
  array.dtype = it->second;
  array.shape.clear();
  std::stringstream dims(shape);
  std::string dim;
  size_t count = 1;
  while (std::getline(dims, dim, ',')) {
    size_t start = dim.find_first_not_of(' ');
    if (start == std::string::npos)
      continue;
    int64_t d;
    try {
      d = std::stoll(dim.substr(start));
    } catch (...) {
      error = "'" + path + "' has a malformed shape '(" + shape + ")'";
      return false;
    }
    if (d < 0) {
      error = "'" + path + "' has a negative dim";
      return false;
    }
    array.shape.push_back(d);
    count *= static_cast<size_t>(d);
  }
  size_t bytes = count * dtypeSize(array.dtype);
  size_t dataStart = headerStart + headerLen;
  if (file.size() - dataStart != bytes) {
    error = "'" + path + "' holds " + std::to_string(file.size() - dataStart) +
            " bytes of data, its shape needs " + std::to_string(bytes);
    return false;
  }
  array.data = file.substr(dataStart);
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array, std::string &error) {
  std::string descr;
  for (const auto &[d, name] : kDescrToDtype)
    if (name == array.dtype)
      descr = d;
  std::string shape;
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 1); // "(2, 3)" but "(4,)".
  else if (array.shape.size() == 1)
    shape.pop_back();
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                       (array.shape.size() > 1 ? shape.substr(0, shape.size() - 1) : shape) +
                       "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char *>(&len), 2);
  out << header;
  out.write(array.data.data(), static_cast<std::streamsize>(array.data.size()));
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace inferrun
