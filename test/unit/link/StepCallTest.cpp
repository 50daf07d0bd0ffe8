//===- StepCallTest.cpp - A Function called step after step --------------===//
//
// StepCall (link/call/StepCall.h), the scan op's way of calling its body:
// results against the general call's, shapes that change between steps
// (bound again), a failing step (the general call's error) followed by
// steps that work, a planned result handed out without a copy, and the
// functions it does not take.
//
//===----------------------------------------------------------------------===//

#include "link/call/StepCall.h"
#include "graphjit/Initialize.h"
#include "graphjit/Parser.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace graphjit;

namespace {

const char *Source = R"(
func step(x: f64[n], a: f64[]) -> (y, z) {
  y = add(mul(x, a), 1.0)
  z = exp(y)
}
)";

struct Compiled {
  std::unique_ptr<GraphModule> M;
  std::unique_ptr<Function> F;
};

Compiled compile(LinkerKind Linker, bool Profile = false) {
  initialize();
  Compiled C;
  auto M = parseGraph(Source, "step.graph");
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
  C.M = std::move(*M);
  CompileOptions O;
  O.Linker = Linker;
  O.Profile = Profile;
  auto F = Function::compile(*C.M->lookupFunction("step"), O);
  EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
  C.F = std::move(*F);
  return C;
}

NDArray vec(std::vector<double> V) {
  NDArray A = NDArray::zeros(DType::F64, {int64_t(V.size())});
  for (size_t I = 0; I < V.size(); ++I)
    A.dataAs<double>()[I] = V[I];
  return A;
}

} // namespace

TEST(StepCall, StepsAgreeWithTheGeneralCall) {
  Compiled C = compile(LinkerKind::CPy);
  ASSERT_TRUE(StepCall::supports(*C.F));
  StepCall Steps(*C.F);
  std::vector<NDArray> Out;
  NDArray A = NDArray::scalar(DType::F64, 0.5);
  // The shape changes between steps: 3, 3, 5, 2 elements.
  for (std::vector<double> X : {std::vector<double>{1, 2, 3}, {4, 5, 6},
                                {-1, 0, 1, 2, 3}, {7, 8}}) {
    NDArray In = vec(X);
    ASSERT_EQ("", llvm::toString(Steps.run({In, A}, Out)));
    auto Want = C.F->call({In, A});
    ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
    ASSERT_EQ(Out.size(), 2u);
    for (unsigned K = 0; K < 2; ++K) {
      ASSERT_EQ(Out[K].shape(), (*Want)[K].shape());
      for (int64_t I = 0; I < Out[K].numElements(); ++I)
        EXPECT_EQ(Out[K].getDouble(I), (*Want)[K].getDouble(I)) << K << I;
    }
    EXPECT_EQ(Out[1].getDouble(0), std::exp(X[0] * 0.5 + 1));
  }
}

TEST(StepCall, AFailedStepIsTheCallsErrorAndLaterStepsWork) {
  Compiled C = compile(LinkerKind::CPy);
  StepCall Steps(*C.F);
  std::vector<NDArray> Out;
  NDArray A = NDArray::scalar(DType::F64, 2.0);
  ASSERT_EQ("", llvm::toString(Steps.run({vec({1, 2}), A}, Out)));
  // An input of the wrong dtype: the general call's words.
  NDArray Ints = NDArray::zeros(DType::I32, {2});
  std::string Err = llvm::toString(Steps.run({Ints, A}, Out));
  std::string Want = llvm::toString(C.F->call({Ints, A}).takeError());
  EXPECT_EQ(Err, Want);
  EXPECT_NE(Err.find("input 'x'"), std::string::npos) << Err;
  ASSERT_EQ("", llvm::toString(Steps.run({vec({3}), A}, Out)));
  EXPECT_EQ(Out[0].getDouble(0), 7.0);
}

TEST(StepCall, ResultsAreTheStepsMemory) {
  Compiled C = compile(LinkerKind::CPy);
  StepCall Steps(*C.F);
  std::vector<NDArray> Out;
  NDArray A = NDArray::scalar(DType::F64, 1.0);
  ASSERT_EQ("", llvm::toString(Steps.run({vec({1, 2, 3}), A}, Out)));
  const char *First = Out[1].data();
  ASSERT_EQ("", llvm::toString(Steps.run({vec({4, 5, 6}), A}, Out)));
  // The planned storage is reused from step to step: no new memory.
  EXPECT_EQ(Out[1].data(), First);
  EXPECT_EQ(Out[0].getDouble(2), 7.0);
}

TEST(StepCall, TakesOnlyUnprofiledJitCode) {
  EXPECT_TRUE(StepCall::supports(*compile(LinkerKind::CPy).F));
  EXPECT_FALSE(StepCall::supports(*compile(LinkerKind::Py).F));
  EXPECT_FALSE(StepCall::supports(*compile(LinkerKind::CPy, true).F));
}
