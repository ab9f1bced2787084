//===- Status.h - Error values of the runtime -------------------*- C++ -*-===//
//
// The runtime never throws across its API and never aborts: every fallible
// function returns a Status (or an Expected<T>), whose code tells the kind of
// failure and whose message names the field, operand or driver call at fault.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_STATUS_H
#define FA_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace fa::runtime {

/// Kinds of failure. The numbers are the C API's fa_status values.
enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1,   // null handle, bad enum value, ...
  Io = 2,                // a file cannot be read
  Parse = 3,             // the bundle JSON is not JSON
  InvalidBundle = 4,     // the bundle is JSON but breaks the format
  Tensor = 5,            // an operand's shape/dtype/stride/alignment is wrong
  NoDriver = 6,          // libcuda.so.1 cannot be loaded
  NoDevice = 7,          // the driver sees no usable GPU
  Driver = 8,            // a driver call failed
  UnsupportedDevice = 9, // the GPU cannot run this bundle (chip, shared mem)
  Expression = 10,       // an expression failed to evaluate (div by 0, ...)
  Internal = 11,
};

const char *errorCodeName(ErrorCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(ErrorCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Returns the same error with `context + ": "` in front of its message.
  Status withContext(const std::string &context) const {
    if (ok())
      return *this;
    return error(code_, context + ": " + message_);
  }

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// A value or the Status saying why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status status) : status_(std::move(status)) {}

  bool ok() const { return value_.has_value(); }
  const Status &status() const { return status_; }
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T &operator*() { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace fa::runtime

/// Returns from the enclosing function when `expr` (a Status) is an error.
#define FA_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    ::fa::runtime::Status faStatus_ = (expr);                                  \
    if (!faStatus_.ok())                                                       \
      return faStatus_;                                                        \
  } while (0)

#endif // FA_RUNTIME_STATUS_H
