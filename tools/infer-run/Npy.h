//===- Npy.h - read and write NumPy .npy files ------------------*- C++ -*-===//

#ifndef INFER_RUN_NPY_H
#define INFER_RUN_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace inferrun {

struct NpyArray {
  std::string dtype; // Runtime names: "float32", "int64", "bool", ...
  std::vector<int64_t> shape;
  std::string data;  // Little-endian, C order.
};

/// Reads `path`; on failure returns false and sets `error`.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);
/// Writes `array` to `path` (format 1.0); on failure returns false and sets `error`.
bool writeNpy(const std::string &path, const NpyArray &array, std::string &error);

} // namespace inferrun

#endif // INFER_RUN_NPY_H
