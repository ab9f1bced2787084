//===- TestMain.cpp - GoogleTest main of the host-side runtime tests ------===//
//
// Usage: fa-runtime-tests [gtest flags] <Inputs dir>
//
//===----------------------------------------------------------------------===//
#include "Matchers.h"

#include <iostream>

namespace fa::runtime::test {

static std::string gInputs;

const std::string &inputsDir() { return gInputs; }

} // namespace fa::runtime::test

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv); // removes the flags it knows
  if (argc != 2) {
    std::cerr << "usage: fa-runtime-tests [gtest flags] <Inputs dir>\n";
    return 2;
  }
  fa::runtime::test::gInputs = argv[1];
  return RUN_ALL_TESTS();
}
