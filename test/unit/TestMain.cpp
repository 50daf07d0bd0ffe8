//===- TestMain.cpp - The unit tests' main: graphjit initialised first ----===//

#include "graphjit/Initialize.h"
#include "gtest/gtest.h"

int main(int argc, char **argv) {
  graphjit::initialize();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
