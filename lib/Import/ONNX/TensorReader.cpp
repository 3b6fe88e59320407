//===- TensorReader.cpp - ONNX TensorProto to DenseElementsAttr -----------===//
//
// Tensors come from raw_data, from the typed repeated fields, or from an
// external data file next to the model. Every size is checked against the
// declared dims before a byte is copied, and external locations are
// confined to the model's directory (no "..", no absolute path, no symlink
// leading out).
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "NodeContext.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::infer::onnx_import;

Type mlir::infer::onnx_import::convertElementType(int32_t t, MLIRContext *ctx) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT: return b.getF32Type();
  case onnx::TensorProto::DOUBLE: return b.getF64Type();
  case onnx::TensorProto::FLOAT16: return b.getF16Type();
  case onnx::TensorProto::BFLOAT16: return b.getBF16Type();
  case onnx::TensorProto::INT8: return b.getIntegerType(8);
  case onnx::TensorProto::INT16: return b.getIntegerType(16);
  case onnx::TensorProto::INT32: return b.getI32Type();
  case onnx::TensorProto::INT64: return b.getI64Type();
  case onnx::TensorProto::UINT8: return b.getIntegerType(8, /*isSigned=*/false);
  case onnx::TensorProto::UINT16: return b.getIntegerType(16, false);
  case onnx::TensorProto::UINT32: return b.getIntegerType(32, false);
  case onnx::TensorProto::UINT64: return b.getIntegerType(64, false);
  case onnx::TensorProto::BOOL: return b.getI1Type();
  case 17: return b.getType<Float8E4M3FNType>();   // FLOAT8E4M3FN
  case 18: return b.getType<Float8E4M3FNUZType>(); // FLOAT8E4M3FNUZ
  case 19: return b.getType<Float8E5M2Type>();     // FLOAT8E5M2
  case 20: return b.getType<Float8E5M2FNUZType>(); // FLOAT8E5M2FNUZ
  default: return {};
  }
}

std::string mlir::infer::onnx_import::elementTypeName(int32_t t) {
  static const char *names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
                                "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
                                "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
                                "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1",
                                "FLOAT8E8M0", "UINT2", "INT2"};
  if (t >= 0 && t < static_cast<int32_t>(std::size(names)))
    return names[t];
  return std::to_string(t) + " (not an ONNX element type)";
}

namespace {
struct ExternalRef {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
};
} // namespace

static FailureOr<ExternalRef> parseExternalRef(Location loc, const onnx::TensorProto &tensor,
                                               StringRef what) {
  ExternalRef ref;
  for (const auto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    auto parseInt = [&](int64_t &out) -> LogicalResult {
      if (StringRef(entry.value()).getAsInteger(10, out) || out < 0)
        return emitError(loc) << what << ": external data " << key << " '" << entry.value()
                              << "' is not a non-negative integer";
      return success();
    };
    if (key == "location")
      ref.location = entry.value();
    else if (key == "offset" && failed(parseInt(ref.offset)))
      return failure();
    else if (key == "length" && failed(parseInt(ref.length)))
      return failure();
  }
  if (ref.location.empty())
    return emitError(loc) << what << ": external data has no location";
  return ref;
}

/// Reads `size` bytes of external data, refusing any location that leaves
/// the model's directory.
static FailureOr<std::string> readExternalData(Location loc, const ExternalRef &ref,
                                               const std::string &modelDir, int64_t size,
                                               StringRef what) {
  StringRef location = ref.location;
  if (llvm::sys::path::is_absolute(location) || location.starts_with("/") ||
      location.starts_with("\\"))
    return emitError(loc) << what << ": external data location '" << location
                          << "' is an absolute path; it must be relative to the model's directory";
  for (auto it = llvm::sys::path::begin(location), e = llvm::sys::path::end(location); it != e;
       ++it)
    if (*it == "..")
      return emitError(loc) << what << ": external data location '" << location
                            << "' contains '..'; it must stay inside the model's directory";
  SmallString<256> path(modelDir);
  llvm::sys::path::append(path, location);
  if (!llvm::sys::fs::exists(path))
    return emitError(loc) << what << ": external data file '" << location << "' not found next to the model";
  // Resolve symlinks on both sides, then require containment.
  SmallString<256> realDir, realFile;
  if (llvm::sys::fs::real_path(modelDir, realDir) || llvm::sys::fs::real_path(path, realFile))
    return emitError(loc) << what << ": cannot resolve external data file '" << location << "'";
  if (!StringRef(realFile).starts_with((realDir + "/").str()))
    return emitError(loc) << what << ": external data file '" << location
                          << "' resolves outside the model's directory (to '" << realFile << "')";
  if (!llvm::sys::fs::is_regular_file(realFile))
    return emitError(loc) << what << ": external data '" << location << "' is not a regular file";
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(realFile, fileSize))
    return emitError(loc) << what << ": cannot stat external data file '" << location << "'";
  if (ref.length >= 0 && ref.length != size)
    return emitError(loc) << what << ": external data length " << ref.length
                          << " does not match the " << size << " bytes its dims need";
  if (static_cast<uint64_t>(ref.offset) > fileSize ||
      static_cast<uint64_t>(size) > fileSize - ref.offset)
    return emitError(loc) << what << ": external data [offset " << ref.offset << ", +" << size
                          << " bytes) lies past the end of '" << location << "' (" << fileSize
                          << " bytes)";
  auto buffer = llvm::MemoryBuffer::getFileSlice(realFile, size, ref.offset);
  if (!buffer)
    return emitError(loc) << what << ": cannot read external data file '" << location
                          << "': " << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

/// Copies `values` into a little-endian buffer of `bytes`-wide elements.
template <typename T>
static std::string packValues(const T &values, size_t bytes) {
  std::string out(values.size() * bytes, '\0');
  size_t i = 0;
  for (auto v : values) {
    uint64_t bits;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, float>) {
      uint32_t b32;
      std::memcpy(&b32, &v, 4);
      bits = b32;
    } else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
      std::memcpy(&bits, &v, 8);
    } else {
      bits = static_cast<uint64_t>(v);
    }
    std::memcpy(out.data() + i * bytes, &bits, bytes); // Little-endian host.
    ++i;
  }
  return out;
}

FailureOr<DenseElementsAttr>
mlir::infer::onnx_import::readTensor(MLIRContext &context, Location loc,
                                     const onnx::TensorProto &tensor, const std::string &modelDir,
                                     StringRef what, int64_t maxTensorBytes) {
  int32_t dataType = tensor.data_type();
  if (dataType == onnx::TensorProto::STRING)
    return emitError(loc) << what << ": string tensors are not supported";
  Type elementType = convertElementType(dataType, &context);
  if (!elementType)
    return emitError(loc) << what << ": element type " << elementTypeName(dataType)
                          << " is not supported";
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return emitError(loc) << what << " has a negative dim " << d;
    if (d != 0 && count > maxTensorBytes / d)
      return emitError(loc) << what << " is larger than --max-tensor-bytes=" << maxTensorBytes;
    count *= d;
    dims.push_back(d);
  }
  unsigned bits = elementType.getIntOrFloatBitWidth();
  size_t width = bits == 1 ? 1 : bits / 8; // bool is one byte on the wire.
  if (count * static_cast<int64_t>(width) > maxTensorBytes)
    return emitError(loc) << what << " holds " << count * width
                          << " bytes, more than --max-tensor-bytes=" << maxTensorBytes;
  auto type = RankedTensorType::get(dims, elementType);

  bool external = tensor.data_location() == onnx::TensorProto::EXTERNAL;
  int typedFields = (tensor.float_data_size() > 0) + (tensor.int32_data_size() > 0) +
                    (tensor.int64_data_size() > 0) + (tensor.double_data_size() > 0) +
                    (tensor.uint64_data_size() > 0) + (tensor.string_data_size() > 0);
  if (tensor.has_raw_data() + (typedFields > 0) + external > 1)
    return emitError(loc) << what
                          << " stores its data in more than one place (raw_data, typed fields, "
                             "external data); it must use exactly one";

  std::string bytes;
  size_t expected = count * width;
  if (external) {
    auto ref = parseExternalRef(loc, tensor, what);
    if (failed(ref))
      return failure();
    auto data = readExternalData(loc, *ref, modelDir, expected, what);
    if (failed(data))
      return failure();
    bytes = std::move(*data);
  } else if (tensor.has_raw_data()) {
    bytes = tensor.raw_data();
    if (bytes.size() != expected)
      return emitError(loc) << what << ": raw_data has " << bytes.size() << " bytes, its dims "
                            << type << " need " << expected;
  } else {
    // Typed fields: which one holds the data depends on the element type.
    int64_t have = 0;
    switch (dataType) {
    case onnx::TensorProto::FLOAT:
      have = tensor.float_data_size();
      bytes = packValues(tensor.float_data(), 4);
      break;
    case onnx::TensorProto::DOUBLE:
      have = tensor.double_data_size();
      bytes = packValues(tensor.double_data(), 8);
      break;
    case onnx::TensorProto::INT64:
      have = tensor.int64_data_size();
      bytes = packValues(tensor.int64_data(), 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      have = tensor.uint64_data_size();
      bytes = packValues(tensor.uint64_data(), width);
      break;
    default: // int32_data holds every narrower type, float16 bits included.
      have = tensor.int32_data_size();
      bytes = packValues(tensor.int32_data(), width);
      break;
    }
    if (have != count)
      return emitError(loc) << what << " has " << have << " values, its dims " << type
                            << " need " << count;
  }

  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  ArrayRef<char> raw(bytes.data(), bytes.size());
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, detectedSplat))
    return emitError(loc) << what << ": data does not fit its type " << type;
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}
