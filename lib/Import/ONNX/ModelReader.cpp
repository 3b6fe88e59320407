//===- ModelReader.cpp - read .onnx / .onnxtext files ---------------------===//

#include "GraphImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/defs/parser.h"

#include <google/protobuf/io/coded_stream.h>

#include <exception>

using namespace mlir;
using namespace mlir::infer::onnx_import;

static bool isTextFormat(const std::string &path) {
  StringRef ext = llvm::sys::path::extension(path);
  return ext == ".onnxtext" || ext == ".txt";
}

FailureOr<std::unique_ptr<onnx::ModelProto>>
mlir::infer::onnx_import::readModelFile(MLIRContext &context, const std::string &path) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/true);
  if (!buffer)
    return emitError(loc) << "cannot read the model: " << buffer.getError().message();
  StringRef bytes = (*buffer)->getBuffer();
  // An empty file parses as an empty (valid) protobuf message.
  if (bytes.empty())
    return emitError(loc) << "the model file is empty";
  auto model = std::make_unique<onnx::ModelProto>();

  if (isTextFormat(path)) {
    // The onnx library's parser reads the textual syntax of onnx/defs/parser.h.
    // It reports most errors as a status, but some malformed numbers only as
    // the standard library's exceptions (std::stol on "[0, 0, >"): both are
    // a parse error of the model.
    onnx::Common::Status status;
    try {
      status = onnx::OnnxParser::Parse(*model, bytes.data());
    } catch (const std::exception &e) {
      return emitError(loc) << "cannot parse the model as ONNX text: malformed value (" << e.what()
                            << ")";
    }
    if (!status.IsOK())
      return emitError(loc) << "cannot parse the model as ONNX text: " << status.ErrorMessage();
    return model;
  }

  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return emitError(loc) << "the model is over 2 GiB; protobuf models must keep large "
                             "weights in external data files";
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t *>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return emitError(loc) << "cannot parse the model as an ONNX protobuf: it is malformed or "
                             "truncated";
  return model;
}
