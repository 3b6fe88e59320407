//===- model_proto_mutator.cpp - structured mutations of ONNX ModelProtos -===//
//
// libFuzzer's custom mutator for the onnx-proto target (scripts/fuzz.sh).
// Byte mutations of a binary model mostly break the protobuf framing, so the
// importer rejects them in the parser; these mutations keep the model
// well-formed protobuf and change what it says instead: a dimension, an
// attribute's value, a node's input name or op type, a tensor's data type or
// raw bytes, an opset version; elements of repeated fields removed,
// duplicated, swapped or copied in from another model (the cross-over).
//
// libprotobuf-mutator does this generically but is not packaged for Debian;
// this walks the message through protobuf reflection, which ONNX's full
// (non-lite) generated classes provide.
//
//===----------------------------------------------------------------------===//

#include "onnx/onnx_pb.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Random = std::mt19937_64;

// One place a mutation can act on: a field of a message (for a repeated
// field, the whole list: an element is picked when mutating).
struct Site {
  Message *message;
  const FieldDescriptor *field;
};

void collectSites(Message &message, std::vector<Site> &sites) {
  const Descriptor *descriptor = message.GetDescriptor();
  const Reflection *reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor *field = descriptor->field(i);
    sites.push_back({&message, field});
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (field->is_repeated()) {
      for (int k = 0, n = reflection->FieldSize(message, field); k < n; ++k)
        collectSites(*reflection->MutableRepeatedMessage(&message, field, k), sites);
    } else if (reflection->HasField(message, field)) {
      collectSites(*reflection->MutableMessage(&message, field), sites);
    }
  }
}

// Every string in the model (value names above all): a renamed input that
// names another existing value reaches much further than a random string.
void collectStrings(const Message &message, std::vector<std::string> &strings) {
  const Descriptor *descriptor = message.GetDescriptor();
  const Reflection *reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor *field = descriptor->field(i);
    bool isString = field->cpp_type() == FieldDescriptor::CPPTYPE_STRING &&
                    field->type() != FieldDescriptor::TYPE_BYTES;
    bool isMessage = field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (!isString && !isMessage)
      continue;
    if (field->is_repeated()) {
      for (int k = 0, n = reflection->FieldSize(message, field); k < n; ++k) {
        if (isString)
          strings.push_back(reflection->GetRepeatedString(message, field, k));
        else
          collectStrings(reflection->GetRepeatedMessage(message, field, k), strings);
      }
    } else if (reflection->HasField(message, field)) {
      if (isString)
        strings.push_back(reflection->GetString(message, field));
      else
        collectStrings(reflection->GetMessage(message, field), strings);
    }
  }
}

template <typename T> T pick(Random &random, const std::vector<T> &values) {
  return values[random() % values.size()];
}

int64_t newInteger(Random &random, int64_t old) {
  static const std::vector<int64_t> interesting = {
      0, 1, -1, 2, 3, 4, 7, 8, 16, 255, 256, 65535, 1 << 20,
      std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
  switch (random() % 4) {
  case 0:
    return pick(random, interesting);
  case 1:
    return int64_t(uint64_t(old) + uint64_t(int64_t(random() % 9) - 4));
  case 2:
    return int64_t(0 - uint64_t(old));
  default:
    return int64_t(random() % 64);
  }
}

double newFloat(Random &random, double old) {
  static const std::vector<double> interesting = {
      0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, 1e38, -1e38,
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity()};
  switch (random() % 3) {
  case 0:
    return pick(random, interesting);
  case 1:
    return old * 2;
  default:
    return double(int64_t(random() % 2001) - 1000) / 8;
  }
}

std::string newString(Random &random, const std::string &old,
                      const std::vector<std::string> &pool) {
  switch (random() % 4) {
  case 0:
    return "";
  case 1:
    return old + "_";
  default:
    return pool.empty() ? old : pick(random, pool);
  }
}

std::string newBytes(std::string old) {
  // raw_data: libFuzzer's own byte mutations, up to twice the size (+16).
  size_t size = old.size();
  old.resize(size * 2 + 16);
  old.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(old.data()), size, old.size()));
  return old;
}

// A double as a float without undefined behaviour: out of range is infinity.
float toFloat(double value) {
  if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max())
    return value > 0 ? std::numeric_limits<float>::infinity()
                     : -std::numeric_limits<float>::infinity();
  return float(value);
}

// Sets `field` (element `index`, or the singular field when index < 0) of
// `message` to a new value of its type.
void setScalar(Random &random, Message &message, const FieldDescriptor *field, int index,
               const std::vector<std::string> &strings) {
  const Reflection *r = message.GetReflection();
  bool rep = index >= 0;
#define INFER_SET(Type, Getter, value)                                                 \
  do {                                                                                 \
    auto old = rep ? r->GetRepeated##Getter(message, field, index)                     \
                   : r->Get##Getter(message, field);                                   \
    (void)old;                                                                         \
    if (rep)                                                                           \
      r->SetRepeated##Getter(&message, field, index, Type(value));                     \
    else                                                                               \
      r->Set##Getter(&message, field, Type(value));                                    \
  } while (false)
  switch (field->cpp_type()) {
  case FieldDescriptor::CPPTYPE_INT32:
    INFER_SET(int32_t, Int32, newInteger(random, old));
    break;
  case FieldDescriptor::CPPTYPE_INT64:
    INFER_SET(int64_t, Int64, newInteger(random, old));
    break;
  case FieldDescriptor::CPPTYPE_UINT32:
    INFER_SET(uint32_t, UInt32, newInteger(random, old));
    break;
  case FieldDescriptor::CPPTYPE_UINT64:
    INFER_SET(uint64_t, UInt64, newInteger(random, int64_t(old)));
    break;
  case FieldDescriptor::CPPTYPE_FLOAT:
    INFER_SET(float, Float, toFloat(newFloat(random, old)));
    break;
  case FieldDescriptor::CPPTYPE_DOUBLE:
    INFER_SET(double, Double, newFloat(random, old));
    break;
  case FieldDescriptor::CPPTYPE_BOOL:
    INFER_SET(bool, Bool, !old);
    break;
  case FieldDescriptor::CPPTYPE_ENUM: {
    const auto *type = field->enum_type();
    const auto *value = type->value(int(random() % type->value_count()));
    if (rep)
      r->SetRepeatedEnum(&message, field, index, value);
    else
      r->SetEnum(&message, field, value);
    break;
  }
  case FieldDescriptor::CPPTYPE_STRING:
    if (field->type() == FieldDescriptor::TYPE_BYTES)
      INFER_SET(std::string, String, newBytes(old));
    else
      INFER_SET(std::string, String, newString(random, old, strings));
    break;
  case FieldDescriptor::CPPTYPE_MESSAGE:
    break;
  }
#undef INFER_SET
}

// Adds an element to the repeated scalar field (its value mutated after).
void addScalar(Message &message, const FieldDescriptor *field) {
  const Reflection *r = message.GetReflection();
  switch (field->cpp_type()) {
  case FieldDescriptor::CPPTYPE_INT32: r->AddInt32(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_INT64: r->AddInt64(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(&message, field, 0); break;
  case FieldDescriptor::CPPTYPE_BOOL: r->AddBool(&message, field, false); break;
  case FieldDescriptor::CPPTYPE_ENUM:
    r->AddEnum(&message, field, field->enum_type()->value(0));
    break;
  case FieldDescriptor::CPPTYPE_STRING: r->AddString(&message, field, ""); break;
  case FieldDescriptor::CPPTYPE_MESSAGE: r->AddMessage(&message, field); break;
  }
}

void mutateRepeated(Random &random, Message &message, const FieldDescriptor *field,
                    const std::vector<std::string> &strings) {
  const Reflection *r = message.GetReflection();
  int size = r->FieldSize(message, field);
  bool scalar = field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE;
  unsigned choice = size == 0 ? 0 : random() % 4;
  int k = size == 0 ? 0 : int(random() % size);
  switch (choice) {
  case 0: // add
    addScalar(message, field);
    if (scalar)
      setScalar(random, message, field, size, strings);
    return;
  case 1: // remove element k: swap it to the end and drop it
    r->SwapElements(&message, field, k, size - 1);
    r->RemoveLast(&message, field);
    return;
  case 2: // swap two elements
    r->SwapElements(&message, field, k, int(random() % size));
    return;
  default: // a new value for scalar element k; a copy of message element k
    if (scalar)
      setScalar(random, message, field, k, strings);
    else
      r->AddMessage(&message, field)->CopyFrom(r->GetRepeatedMessage(message, field, k));
    return;
  }
}

void mutateModel(Random &random, onnx::ModelProto &model) {
  std::vector<Site> sites;
  collectSites(model, sites);
  if (sites.empty())
    return;
  std::vector<std::string> strings;
  collectStrings(model, strings);
  Site site = pick(random, sites);
  Message &message = *site.message;
  const FieldDescriptor *field = site.field;
  const Reflection *r = message.GetReflection();
  if (field->is_repeated()) {
    mutateRepeated(random, message, field, strings);
  } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    if (r->HasField(message, field) && random() % 2)
      r->ClearField(&message, field);
    else
      r->MutableMessage(&message, field);
  } else if (r->HasField(message, field) && random() % 8 == 0) {
    r->ClearField(&message, field);
  } else {
    setScalar(random, message, field, -1, strings);
  }
}

size_t serialize(const onnx::ModelProto &model, uint8_t *data, size_t maxSize) {
  size_t size = model.ByteSizeLong();
  if (size > maxSize || !model.SerializeToArray(data, int(size)))
    return 0;
  return size;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  Random random(seed);
  onnx::ModelProto model;
  // One input in eight (and whatever does not parse) gets byte mutations:
  // the parser's own error paths stay covered.
  if (random() % 8 == 0 || !model.ParseFromArray(data, int(size)))
    return LLVMFuzzerMutate(data, size, maxSize);
  for (unsigned n = 1 + random() % 3; n > 0; --n)
    mutateModel(random, model);
  size_t newSize = serialize(model, data, maxSize);
  return newSize ? newSize : LLVMFuzzerMutate(data, size, maxSize);
}

// Copies a node, attribute, tensor or value_info of the second model into a
// list of the same type in the first: ops meet inputs they were never tested
// with.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1,
                                            const uint8_t *data2, size_t size2,
                                            uint8_t *out, size_t maxOutSize,
                                            unsigned int seed) {
  Random random(seed);
  onnx::ModelProto first, second;
  if (!first.ParseFromArray(data1, int(size1)) || !second.ParseFromArray(data2, int(size2)))
    return 0;
  std::vector<Site> donors, targets;
  collectSites(second, donors);
  collectSites(first, targets);
  std::vector<const Message *> pieces;
  for (const Site &site : donors) {
    if (!site.field->is_repeated() ||
        site.field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    const Reflection *r = site.message->GetReflection();
    for (int k = 0, n = r->FieldSize(*site.message, site.field); k < n; ++k)
      pieces.push_back(&r->GetRepeatedMessage(*site.message, site.field, k));
  }
  if (pieces.empty())
    return 0;
  const Message *piece = pick(random, pieces);
  std::vector<Site> matching;
  for (const Site &site : targets)
    if (site.field->is_repeated() &&
        site.field->message_type() == piece->GetDescriptor())
      matching.push_back(site);
  if (matching.empty())
    return 0;
  Site target = pick(random, matching);
  target.message->GetReflection()->AddMessage(target.message, target.field)->CopyFrom(*piece);
  return serialize(first, out, maxOutSize);
}
