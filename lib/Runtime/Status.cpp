//===- Status.cpp - statuses with messages --------------------------------===//

#include "Internal.h"

#include <cstdarg>
#include <cstdio>
#include <new>

using namespace inferrt;

// Handed out when even a status cannot be allocated: NULL would read as
// success. Never freed.
static inferrt_status_s outOfMemory{INFERRT_INTERNAL, "out of host memory"};

inferrt_status inferrt::makeStatus(inferrt_status_code code, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  try {
    return new inferrt_status_s{code, buffer};
  } catch (const std::bad_alloc &) { // The status or its message's copy.
    return &outOfMemory;
  }
}

extern "C" {

INFERRT_EXPORT inferrt_status_code inferrt_status_get_code(inferrt_status status) {
  return status ? status->code : INFERRT_OK;
}

INFERRT_EXPORT const char *inferrt_status_message(inferrt_status status) {
  return status ? status->message.c_str() : "ok";
}

INFERRT_EXPORT void inferrt_status_free(inferrt_status status) {
  if (status != &outOfMemory)
    delete status;
}

} // extern "C"
