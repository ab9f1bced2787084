//===- Matchers.h - GoogleTest checks on Status and Expected ----*- C++ -*-===//
//
// EXPECT_OK(expr): a Status or Expected<T> that must be ok.
// EXPECT_ERROR(expr, code, substring): must fail with `code` and a message
// containing `substring`. Both print the status they got.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_TEST_MATCHERS_H
#define FA_RUNTIME_TEST_MATCHERS_H

#include "fa/Runtime/Status.h"

#include <gtest/gtest.h>

#include <string>

namespace fa::runtime::test {

/// Directory of the Inputs/ files (the first argument after gtest's).
const std::string &inputsDir();

inline std::string statusText(const Status &s) {
  return s.ok() ? std::string("success")
                : std::string(errorCodeName(s.code())) + ": " + s.message();
}
template <typename T> const Status &statusOf(const Expected<T> &e) {
  return e.status();
}
inline const Status &statusOf(const Status &s) { return s; }

template <typename T>
::testing::AssertionResult isOk(const char *text, const T &value) {
  const Status &s = statusOf(value);
  if (s.ok())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << text << " failed: " << statusText(s);
}

template <typename T>
::testing::AssertionResult isError(const char *text, const char *, const char *,
                                   const T &value, ErrorCode code,
                                   const std::string &substring) {
  const Status &s = statusOf(value);
  if (!s.ok() && s.code() == code &&
      s.message().find(substring) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << text << ": expected " << errorCodeName(code) << " containing \""
         << substring << "\", got " << statusText(s);
}

} // namespace fa::runtime::test

#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::fa::runtime::test::isOk, expr)
#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::fa::runtime::test::isOk, expr)
#define EXPECT_ERROR(expr, code, substring)                                    \
  EXPECT_PRED_FORMAT3(::fa::runtime::test::isError, expr, code,                \
                      std::string(substring))

#endif // FA_RUNTIME_TEST_MATCHERS_H
