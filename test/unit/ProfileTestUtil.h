//===- ProfileTestUtil.h - Profiles built by hand for tests ----*- C++ -*-===//
//
// Small constructors of ApplyProfile and FunctionProfile with fixed
// numbers, shared by the Profile*Test.cpp unit tests.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_UNIT_PROFILETESTUTIL_H
#define GRAPHJIT_TEST_UNIT_PROFILETESTUTIL_H

#include "graphjit/Profile.h"
#include <string>

namespace graphjit {
namespace test {

inline TensorInfo vec(const std::string &DType, int64_t N, int64_t Item) {
  return {DType, {N}, {Item}};
}

inline ApplyProfile apply(unsigned Id, const std::string &Op,
                          const std::string &Class, uint64_t Calls,
                          double Seconds, bool Compiled = true,
                          const std::string &DType = "float32") {
  ApplyProfile A;
  A.Id = Id;
  A.Op = Op;
  A.OpClass = Class;
  A.Name = Op + "(v" + std::to_string(Id) + ")";
  A.Loc = "t.graph:" + std::to_string(Id + 1);
  A.Compiled = Compiled;
  A.Calls = Calls;
  A.Seconds = Seconds;
  int64_t Item = DType == "float64" ? 8 : 4;
  A.Inputs = {vec(DType, 100, Item)};
  A.Outputs = {vec(DType, 100, Item)};
  return A;
}

inline FunctionProfile function(const std::string &Name,
                                std::vector<ApplyProfile> Applies,
                                uint64_t Calls = 10, double CallSeconds = 0) {
  FunctionProfile F;
  F.Name = Name;
  F.File = "t.graph";
  F.Calls = Calls;
  F.Applies = std::move(Applies);
  F.CallSeconds = CallSeconds > 0 ? CallSeconds : F.thunkSeconds() * 1.25;
  F.DriverSeconds = F.thunkSeconds() * 1.1;
  F.Linker = "c|py";
  F.Clock = "TSC";
  F.InstrumentationNsPerApply = 10;
  F.Compile.Lower = 0.5;
  return F;
}

} // namespace test
} // namespace graphjit

#endif
