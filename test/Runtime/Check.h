//===- Check.h - Tiny test harness for fa-runtime-tests ---------*- C++ -*-===//
//
// TEST(name) registers a function; CHECK* macros record failures and keep
// going, so one run reports every broken expectation.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_TEST_CHECK_H
#define FA_RUNTIME_TEST_CHECK_H

#include "fa/Runtime/Status.h"

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fa::runtime::test {

struct TestCase {
  const char *name;
  std::function<void()> fn;
};

std::vector<TestCase> &registry();
/// Directory of the Inputs/ files (argv[1]).
const std::string &inputsDir();
void recordCheck(bool ok, const char *file, int line, const std::string &what);

struct Registrar {
  Registrar(const char *name, std::function<void()> fn) {
    registry().push_back({name, std::move(fn)});
  }
};

inline std::string statusText(const Status &s) {
  return std::string(errorCodeName(s.code())) + ": " + s.message();
}
template <typename T> const Status &statusOf(const Expected<T> &e) {
  return e.status();
}
inline const Status &statusOf(const Status &s) { return s; }

} // namespace fa::runtime::test

#define FA_TEST_CAT2(a, b) a##b
#define FA_TEST_CAT(a, b) FA_TEST_CAT2(a, b)
#define TEST(name)                                                             \
  static void name();                                                          \
  static ::fa::runtime::test::Registrar FA_TEST_CAT(registrar_, name)(#name,   \
                                                                      name);   \
  static void name()

#define CHECK(cond)                                                            \
  ::fa::runtime::test::recordCheck(static_cast<bool>(cond), __FILE__,          \
                                   __LINE__, "CHECK(" #cond ")")

#define CHECK_EQ(a, b)                                                         \
  do {                                                                         \
    auto faA_ = (a);                                                           \
    auto faB_ = (b);                                                           \
    std::ostringstream faOs_;                                                  \
    if (!(faA_ == faB_))                                                       \
      faOs_ << "CHECK_EQ(" #a ", " #b "): " << faA_ << " != " << faB_;         \
    ::fa::runtime::test::recordCheck(faA_ == faB_, __FILE__, __LINE__,         \
                                     faOs_.str());                             \
  } while (0)

/// `expr` is a Status or Expected<T> that must be ok.
#define CHECK_OK(expr)                                                         \
  do {                                                                         \
    const auto &faV_ = (expr);                                                 \
    const ::fa::runtime::Status &faS_ = ::fa::runtime::test::statusOf(faV_);   \
    ::fa::runtime::test::recordCheck(                                          \
        faS_.ok(), __FILE__, __LINE__,                                         \
        "CHECK_OK(" #expr "): " + ::fa::runtime::test::statusText(faS_));      \
  } while (0)

/// `expr` must fail with `code` and a message containing `substring`.
#define CHECK_ERROR(expr, errCode, substring)                                  \
  do {                                                                         \
    const auto &faV_ = (expr);                                                 \
    const ::fa::runtime::Status &faS_ = ::fa::runtime::test::statusOf(faV_);   \
    bool faOk_ = !faS_.ok() && faS_.code() == (errCode) &&                     \
                 faS_.message().find(substring) != std::string::npos;          \
    ::fa::runtime::test::recordCheck(                                          \
        faOk_, __FILE__, __LINE__,                                             \
        std::string("CHECK_ERROR(" #expr ", " #errCode ", \"") + (substring) + \
            "\"): got " +                                                      \
            (faS_.ok() ? std::string("success")                                \
                       : ::fa::runtime::test::statusText(faS_)));              \
  } while (0)

#endif // FA_RUNTIME_TEST_CHECK_H
