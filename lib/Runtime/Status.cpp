//===- Status.cpp ---------------------------------------------------------===//
#include "fa/Runtime/Status.h"

namespace fa::runtime {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok: return "FA_OK";
  case ErrorCode::InvalidArgument: return "FA_ERROR_INVALID_ARGUMENT";
  case ErrorCode::Io: return "FA_ERROR_IO";
  case ErrorCode::Parse: return "FA_ERROR_PARSE";
  case ErrorCode::InvalidBundle: return "FA_ERROR_INVALID_BUNDLE";
  case ErrorCode::Tensor: return "FA_ERROR_TENSOR";
  case ErrorCode::NoDriver: return "FA_ERROR_NO_DRIVER";
  case ErrorCode::NoDevice: return "FA_ERROR_NO_DEVICE";
  case ErrorCode::Driver: return "FA_ERROR_DRIVER";
  case ErrorCode::UnsupportedDevice: return "FA_ERROR_UNSUPPORTED_DEVICE";
  case ErrorCode::Expression: return "FA_ERROR_EXPRESSION";
  case ErrorCode::Internal: return "FA_ERROR_INTERNAL";
  }
  return "FA_ERROR_UNKNOWN";
}

} // namespace fa::runtime
