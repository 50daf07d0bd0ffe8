//===- UpdateInplaceTest.cpp - Shared variables updated in place ---------===//
//
// shared_update_inplace makes a Gemm or Elemwise that computes a shared
// variable's update write it over the old value (link/call/UpdateCommit.h).
// What must hold, with every linker: the new values are right (computed
// here with plain loops), the shared variable keeps its memory, an array
// someone else holds is never written, the other readers see the old
// value, and a call that fails changes no shared variable at all.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Rewrite.h"
#include "StructuralOpsTestUtil.h"
#include "gtest/gtest.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

std::unique_ptr<GraphModule> parse(const char *Text) {
  auto M = parseGraph(Text, "inplace.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  if (llvm::Error E = (*M)->initShared()) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return nullptr;
  }
  return std::move(*M);
}

std::unique_ptr<Function> compile(FunctionGraph &F, LinkerKind L,
                                  const char *Optimizer = "fast_run") {
  CompileOptions O;
  O.Linker = L;
  O.Rewrite = RewriteOptions();
  O.Rewrite->Optimizer = Optimizer;
  auto Fn = Function::compile(F, O);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return nullptr;
  }
  return std::move(*Fn);
}

/// W - 0.5·xᵀd, for x n×3 and d n×2, with loops.
std::vector<double> sgdStep(std::vector<double> W, const NDArray &X,
                            const NDArray &D) {
  int64_t N = X.dim(0);
  for (int64_t I = 0; I < 3; ++I)
    for (int64_t J = 0; J < 2; ++J) {
      double S = 0;
      for (int64_t K = 0; K < N; ++K)
        S += X.getDouble(K * 3 + I) * D.getDouble(K * 2 + J);
      W[I * 2 + J] -= 0.5 * S;
    }
  return W;
}

const char *SgdGraph = "shared W: f64[3, 2] = ones\n"
                       "shared b: f64[2] = zeros\n"
                       "func step(x: f64[n, 3], d: f64[n, 2]) -> (z) {\n"
                       "  z = sum(d)\n"
                       "  update W = sub(W, mul(0.5, dot(transpose(x), d)))\n"
                       "  update b = sub(b, mul(0.5, sum(d, axis=[0])))\n"
                       "}\n";

class UpdateInplace : public ::testing::TestWithParam<LinkerKind> {};

std::string opNames(const Function &Fn) {
  std::string S;
  for (const Apply *A : Fn.graph().applies())
    S += A->op().name() + "\n";
  return S;
}

} // namespace

TEST_P(UpdateInplace, WritesTheSharedVariablesOwnMemory) {
  auto M = parse(SgdGraph);
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front(), GetParam());
  ASSERT_TRUE(Fn);
  std::string Ops = opNames(*Fn);
  EXPECT_NE(Ops.find("Gemm{alpha=-0.5,beta=1,trans_a,inplace}"),
            std::string::npos)
      << Ops;
  EXPECT_NE(Ops.find("[(0, 0)]"), std::string::npos) << Ops; // b's update
  // Updates in place come after every other Apply.
  std::vector<Apply *> Order = Fn->graph().applies();
  EXPECT_GE(sharedInputOverwritten(*Order.back()), 0);
  EXPECT_GE(sharedInputOverwritten(*Order[Order.size() - 2]), 0);

  SharedVariable *W = M->lookupShared("W"), *B = M->lookupShared("b");
  const char *WMemory = W->Value.data(), *BMemory = B->Value.data();
  std::vector<double> Want = values(W->Value);
  NDArray X = arr(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray D = arr(DType::F64, {2, 2}, {1, -1, 2, 0});
  for (int Call = 0; Call < 3; ++Call) {
    auto R = Fn->call({X, D});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    Want = sgdStep(Want, X, D);
    EXPECT_EQ(values(W->Value), Want);
    EXPECT_EQ(values(B->Value),
              (std::vector<double>{-1.5 * (Call + 1), 0.5 * (Call + 1)}));
    EXPECT_DOUBLE_EQ((*R)[0].getDouble(0), 2.0);
  }
  EXPECT_EQ(W->Value.data(), WMemory);
  EXPECT_EQ(B->Value.data(), BMemory);
}

TEST_P(UpdateInplace, AnArraySomeoneHoldsIsNotWritten) {
  auto M = parse(SgdGraph);
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front(), GetParam());
  ASSERT_TRUE(Fn);
  SharedVariable *W = M->lookupShared("W");
  NDArray Held = W->Value; // as a caller keeping get_value(borrow=True)
  std::vector<double> Before = values(Held);
  NDArray X = arr(DType::F64, {1, 3}, {1, 0, 0});
  NDArray D = arr(DType::F64, {1, 2}, {2, 4});
  auto R = Fn->call({X, D});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values(Held), Before);
  EXPECT_EQ(values(W->Value), sgdStep(Before, X, D));
  EXPECT_NE(W->Value.data(), Held.data());
  // Once nobody else holds it, the new memory is written in place.
  Held = NDArray();
  const char *Memory = W->Value.data();
  ASSERT_TRUE(bool(Fn->call({X, D})));
  EXPECT_EQ(W->Value.data(), Memory);
}

TEST_P(UpdateInplace, AFailedCallChangesNoSharedVariable) {
  // W's gemm passes its checks; v's add does not broadcast c of 4
  // elements to v's 3, and u's update has the wrong shape: the call fails
  // before anything is written over.
  auto M = parse("shared W: f64[2, 2] = ones\n"
                 "shared v: f64[3] = ones\n"
                 "shared u: f64[3] = ones\n"
                 "func f(a: f64[k, 2], c: f64[m], e: f64[p]) -> (z) {\n"
                 "  z = sum(a)\n"
                 "  update W = sub(W, dot(transpose(a), a))\n"
                 "  update v = add(v, c)\n"
                 "  update u = mul(e, 2.0)\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front(), GetParam());
  ASSERT_TRUE(Fn);
  std::string Ops = opNames(*Fn);
  ASSERT_NE(Ops.find(",inplace}"), std::string::npos) << Ops;
  SharedVariable *W = M->lookupShared("W"), *V = M->lookupShared("v"),
                 *U = M->lookupShared("u");
  NDArray A = arr(DType::F64, {1, 2}, {1, 2});
  struct Case {
    NDArray C, E;
    const char *Error;
  } Cases[] = {
      {f64Vector({1, 2, 3, 4}), f64Vector({1, 1, 1}), "Elemwise{add}[(0, 0)]"},
      {f64Vector({1, 2, 3}), f64Vector({1, 1, 1, 1}),
       "update of 'u' computed shape (4,), but 'u' is f64[3]"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Error);
    auto R = Fn->call({A, C.C, C.E});
    ASSERT_FALSE(bool(R));
    std::string Msg = llvm::toString(R.takeError());
    EXPECT_NE(Msg.find(C.Error), std::string::npos) << Msg;
    EXPECT_EQ(values(W->Value), (std::vector<double>{1, 1, 1, 1}));
    EXPECT_EQ(values(V->Value), (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(values(U->Value), (std::vector<double>{1, 1, 1}));
  }
  // And with good arguments, everything is updated.
  auto R = Fn->call({A, f64Vector({1, 2, 3}), f64Vector({1, 2, 3})});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values(W->Value), (std::vector<double>{0, -1, -1, -3}));
  EXPECT_EQ(values(V->Value), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values(U->Value), (std::vector<double>{2, 4, 6}));
}

TEST_P(UpdateInplace, WhatOthersSeeStaysCopied) {
  // W is an output, and its old value another update's: neither may see
  // it change, so its update is not made in place.
  auto M = parse("shared W: f64[2] = ones\n"
                 "shared Old: f64[2] = zeros\n"
                 "func f(x: f64[2]) -> (W) {\n"
                 "  update Old = W\n"
                 "  update W = add(W, x)\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front(), GetParam());
  ASSERT_TRUE(Fn);
  std::string Ops = opNames(*Fn);
  EXPECT_EQ(Ops.find("[(0, "), std::string::npos) << Ops;
  auto R = Fn->call({f64Vector({1, 2})});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(M->lookupShared("Old")->Value),
            (std::vector<double>{1, 1}));
  EXPECT_EQ(values(M->lookupShared("W")->Value), (std::vector<double>{2, 3}));
}

INSTANTIATE_TEST_SUITE_P(Linkers, UpdateInplace,
                         ::testing::Values(LinkerKind::Py, LinkerKind::CPy,
                                           LinkerKind::C),
                         [](const auto &Info) {
                           switch (Info.param) {
                           case LinkerKind::Py: return std::string("Py");
                           case LinkerKind::CPy: return std::string("CPy");
                           case LinkerKind::C: return std::string("C");
                           }
                           return std::string();
                         });

TEST(UpdateInplaceValidation, AGraphMayOnlyOverwriteASharedVariableLast) {
  struct Case {
    const char *Body, *Why;
  } Cases[] = {
      {"  t = gemm(W, a, a, inplace=true)\n  z = sum(a)\n  update W = t\n",
       "must come after every other Apply"},
      {"  z = gemm(W, a, a, inplace=true)\n",
       "is not that variable's update alone"},
      {"  z = sum(a)\n  t = gemm(W, a, a, inplace=true)\n"
       "  update W = t\n  update V = exp(t)\n",
       "is not that variable's update alone"},
      {"  z = sum(a)\n  update W = gemm(W, a, W, inplace=true)\n",
       "a shared variable it also reads in input 2"},
      {"  z = sum(W)\n  update V = W\n"
       "  update W = gemm(W, a, a, inplace=true)\n",
       "also another update's value"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Body);
    std::string Text = std::string("shared W: f64[2, 2] = ones\n"
                                   "shared V: f64[2, 2] = ones\n"
                                   "func f(a: f64[2, 2]) -> (z) {\n") +
                       C.Body + "}\n";
    auto M = parseGraph(Text, "bad.graph");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    // As built (the optimizer, even None, writes such updates last).
    llvm::Error E = validateFunction(*(*M)->functions().front());
    ASSERT_TRUE(bool(E));
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_NE(Msg.find(C.Why), std::string::npos) << Msg;
  }
}
