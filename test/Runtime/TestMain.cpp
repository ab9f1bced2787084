//===- TestMain.cpp - Runs every registered host-side runtime test --------===//
//
// Usage: fa-runtime-tests <Inputs dir> [name-substring]
// Prints one line per test and a summary; exits 1 if any check failed.
//
//===----------------------------------------------------------------------===//
#include "Check.h"

#include <cstring>

namespace fa::runtime::test {

std::vector<TestCase> &registry() {
  static std::vector<TestCase> tests;
  return tests;
}

static std::string gInputs;
static int gChecks = 0, gFailures = 0, gTestFailures = 0;

const std::string &inputsDir() { return gInputs; }

void recordCheck(bool ok, const char *file, int line, const std::string &what) {
  ++gChecks;
  if (ok)
    return;
  ++gFailures;
  ++gTestFailures;
  const char *base = std::strrchr(file, '/');
  std::cout << "  FAILED " << (base ? base + 1 : file) << ":" << line << ": "
            << what << "\n";
}

} // namespace fa::runtime::test

int main(int argc, char **argv) {
  using namespace fa::runtime::test;
  if (argc < 2) {
    std::cerr << "usage: fa-runtime-tests <Inputs dir> [filter]\n";
    return 2;
  }
  gInputs = argv[1];
  const char *filter = argc > 2 ? argv[2] : nullptr;
  int run = 0, failedTests = 0;
  for (const TestCase &t : registry()) {
    if (filter && !std::strstr(t.name, filter))
      continue;
    ++run;
    gTestFailures = 0;
    t.fn();
    std::cout << (gTestFailures ? "FAIL " : "ok   ") << t.name << "\n";
    if (gTestFailures)
      ++failedTests;
  }
  std::cout << "fa-runtime-tests: " << run << " tests, " << gChecks
            << " checks, " << failedTests << " failed tests, " << gFailures
            << " failed checks\n";
  return failedTests == 0 && run > 0 ? 0 : 1;
}
