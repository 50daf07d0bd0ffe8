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

//===----------------------------------------------------------------------===//
// Memory: Applies that read and make variables by id.
//===----------------------------------------------------------------------===//

/// An output of its own of Bytes bytes, shape (Bytes / 8,).
inline OutputMemory created(int Var, uint64_t Bytes) {
  OutputMemory O;
  O.Var = Var;
  O.Bytes = Bytes;
  O.Shape = {int64_t(Bytes / 8)};
  return O;
}

/// An output sharing the memory of the Apply's input at position Input.
inline OutputMemory sharing(int Var, int Input, uint64_t Bytes,
                            const std::string &Kind = "view") {
  OutputMemory O = created(Var, Bytes);
  O.Kind = Kind;
  O.Input = Input;
  return O;
}

/// Apply Id, named "OP(v<inputs>...)", reading the variables Inputs and
/// making Outputs.
inline ApplyProfile memApply(unsigned Id, const std::string &Op,
                             std::vector<int> Inputs,
                             std::vector<OutputMemory> Outputs) {
  ApplyProfile A = apply(Id, Op, Op, 1, 0.1);
  A.Name = Op + "(";
  for (size_t I = 0; I < Inputs.size(); ++I)
    A.Name += (I ? ", v" : "v") + std::to_string(Inputs[I]);
  A.Name += ")";
  A.InputVars = std::move(Inputs);
  A.OutputMem = std::move(Outputs);
  for (const OutputMemory &O : A.OutputMem)
    A.AllocatedBytes += O.Kind == "created" || O.Allocated ? O.Bytes : 0;
  A.Allocations = 1;
  return A;
}

/// A function with memory recorded; Kept never freed. The measured peak is
/// left 0.
inline FunctionProfile memFunction(const std::string &Name,
                                   std::vector<ApplyProfile> Applies,
                                   std::vector<int> Kept = {},
                                   bool AllowGC = true) {
  FunctionProfile F = function(Name, std::move(Applies), 1);
  F.Memory.Recorded = true;
  F.Memory.AllowGC = AllowGC;
  F.Memory.KeptVars = std::move(Kept);
  F.Memory.Calls = 1;
  return F;
}

} // namespace test
} // namespace graphjit

#endif
