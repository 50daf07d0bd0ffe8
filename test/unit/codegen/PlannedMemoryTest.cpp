//===- PlannedMemoryTest.cpp - Values in the storages of a memory plan ----===//
//
// Planned Applies place their outputs in storages reused call after call
// (codegen/StoragePlan.h, link/call/CallFrame.h). What a caller must never see:
// a result changed by a later call, a value clobbered while a view of it
// made at run time (or a Py op's reference) still reads it, an update that
// is not what it computed. And what the plan promises: a storage is reused
// once its result is dropped. Expected values are computed here in C++.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "StructuralOpsTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

std::unique_ptr<GraphModule> parse(const char *Text) {
  auto M = parseGraph(Text, "planned.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::unique_ptr<Function> compile(FunctionGraph &F, bool Plan = true) {
  CompileOptions O;
  O.Linker = LinkerKind::CPy;
  O.PlanMemory = Plan;
  O.Rewrite = RewriteOptions();
  O.Rewrite->Optimizer = "None"; // Keep every Apply of the graph.
  auto Fn = Function::compile(F, O);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return nullptr;
  }
  return std::move(*Fn);
}

} // namespace

TEST(PlannedMemory, ResultsSurviveLaterCallsAndStoragesAreReused) {
  auto M = parse("func f(x: f64[n]) -> (r) {\n"
                 "  t = mul(x, 2.0)\n"
                 "  r = add(t, 1.0)\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front());
  ASSERT_TRUE(Fn);
  ASSERT_TRUE(Fn->isCompiled(0) && Fn->isCompiled(1));
  auto First = Fn->call({f64Vector({1, 2, 3})});
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  // The caller keeps the first result: the second call must not write it.
  auto Second = Fn->call({f64Vector({10, 20, 30})});
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  EXPECT_EQ(values((*First)[0]), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(values((*Second)[0]), (std::vector<double>{21, 41, 61}));
  EXPECT_NE((*First)[0].data(), (*Second)[0].data());
  // Once dropped, the result's memory is the storage's again.
  const char *Was = (*Second)[0].data();
  Second->clear();
  auto Third = Fn->call({f64Vector({0, 1, 2})});
  ASSERT_TRUE(bool(Third)) << llvm::toString(Third.takeError());
  EXPECT_EQ((*Third)[0].data(), Was);
  EXPECT_EQ(values((*Third)[0]), (std::vector<double>{1, 3, 5}));
  // A larger shape grows the storage; a smaller one fits in it.
  auto Larger = Fn->call({f64Vector({1, 1, 1, 1, 1, 1})});
  ASSERT_TRUE(bool(Larger));
  EXPECT_EQ(values((*Larger)[0]), std::vector<double>(6, 3));
  auto Empty = Fn->call({f64Vector({})});
  ASSERT_TRUE(bool(Empty)) << llvm::toString(Empty.takeError());
  EXPECT_FALSE((*Empty)[0].isNull());
  EXPECT_EQ((*Empty)[0].shape(), Shape{0});
}

// t's storage is free once u is made (t's last planned reader), but the
// transpose made at run time (gj_prepare: a view) still reads t's memory;
// w, planned after, may be given t's storage and must not write there.
TEST(PlannedMemory, ViewsMadeAtRunTimeKeepTheirMemory) {
  auto M = parse("func f(x: f64[n, m]) -> (r) {\n"
                 "  t = exp(x)\n"
                 "  v = dimshuffle(t, pattern=[1, 0])\n"
                 "  w = add(x, 100.0)\n"
                 "  u = dimshuffle(w, pattern=[1, 0])\n"
                 "  r = add(v, u)\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front());
  ASSERT_TRUE(Fn);
  NDArray X = NDArray::zeros(DType::F64, {2, 3});
  for (int64_t I = 0; I < 6; ++I)
    X.dataAs<double>()[I] = 0.1 * double(I);
  for (int Call = 0; Call < 3; ++Call) {
    auto R = Fn->call({X});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    const NDArray &Out = (*R)[0];
    ASSERT_EQ(Out.shape(), (Shape{3, 2}));
    for (int64_t I = 0; I < 3; ++I)
      for (int64_t J = 0; J < 2; ++J) {
        double Xji = X.dataAs<double>()[J * 3 + I];
        EXPECT_DOUBLE_EQ(Out.getDouble(I * 2 + J),
                         std::exp(Xji) + (Xji + 100.0))
            << "call " << Call << " element (" << I << ", " << J << ")";
      }
  }
}

// An update whose value the call alone holds becomes the shared value
// without a copy; an update that is also an output is copied, so that
// the result the caller holds and the shared value stay apart.
TEST(PlannedMemory, UpdatesAreTheirValuesAndStayApartFromResults) {
  auto M = parse("shared w: f64[3] = zeros\n"
                 "shared s: f64[3] = zeros\n"
                 "func f(x: f64[3]) -> (r) {\n"
                 "  r = add(s, x)\n"
                 "  update w = add(w, x)\n"
                 "  update s = r\n"
                 "}\n");
  ASSERT_TRUE(M);
  llvm::cantFail(M->initShared());
  auto Fn = compile(*M->functions().front());
  ASSERT_TRUE(Fn);
  SharedVariable *W = M->lookupShared("w"), *S = M->lookupShared("s");
  ASSERT_TRUE(W && S);
  auto R1 = Fn->call({f64Vector({1, 2, 3})});
  ASSERT_TRUE(bool(R1)) << llvm::toString(R1.takeError());
  auto R2 = Fn->call({f64Vector({1, 1, 1})});
  ASSERT_TRUE(bool(R2)) << llvm::toString(R2.takeError());
  EXPECT_EQ(values(W->Value), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values(S->Value), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values((*R1)[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values((*R2)[0]), (std::vector<double>{2, 3, 4}));
  EXPECT_FALSE((*R2)[0].sharesBufferWith(S->Value));
  EXPECT_EQ(W->Value.buffer().use_count(), 1);
  EXPECT_TRUE(W->Value.isContiguous());
  // A failed call changes neither.
  auto Bad = Fn->call({NDArray::zeros(DType::F64, {4})});
  EXPECT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
  EXPECT_EQ(values(W->Value), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(values(S->Value), (std::vector<double>{2, 3, 4}));
}

// The same values whether the outputs are planned or made by gj_prepare.
TEST(PlannedMemory, SameResultsAsTheRuntimesOutputs) {
  auto M = parse("func f(a: f64[n, k], b: f64[k], c: f64[n]) -> (r, m) {\n"
                 "  d = dot(a, b)\n"
                 "  e = softmax(a)\n"
                 "  s = sum(e, axis=[1])\n"
                 "  r = mul(add(d, c), s)\n"
                 "  m = max(a, axis=[0])\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Planned = compile(*M->functions().front(), true);
  auto Runtime = compile(*M->functions().front(), false);
  ASSERT_TRUE(Planned && Runtime);
  NDArray A = NDArray::zeros(DType::F64, {4, 3});
  for (int64_t I = 0; I < 12; ++I)
    A.dataAs<double>()[I] = std::sin(double(I));
  std::vector<NDArray> In = {A, f64Vector({1, -2, 0.5}),
                             f64Vector({1, 2, 3, 4})};
  auto P = Planned->call(In);
  auto R = Runtime->call(In);
  ASSERT_TRUE(P && R);
  for (unsigned I = 0; I < 2; ++I)
    EXPECT_EQ(values((*P)[I]), values((*R)[I])) << "output " << I;
  // Dot against its definition.
  for (int64_t Row = 0; Row < 4; ++Row) {
    double D = 0;
    for (int64_t K = 0; K < 3; ++K)
      D += A.getDouble(Row * 3 + K) * std::vector<double>{1, -2, 0.5}[K];
    EXPECT_NEAR((*P)[0].getDouble(Row), (D + double(Row + 1)) * 1.0, 1e-12);
  }
}

// Planned views (dimshuffle) read their input's memory: a planned input's
// storage and an unplanned input's array (made by gj_prepare: concatenate)
// stay theirs until the view's last reader ran, though the input itself is
// read for the last time before.
TEST(PlannedMemory, PlannedViewsKeepWhatTheyViewAlive) {
  auto M = parse("func f(x: f64[n, m], y: f64[n, m]) -> (r) {\n"
                 "  t = exp(x)\n"
                 "  v = dimshuffle(t, pattern=[1, 0])\n"
                 "  j = concatenate(x, y, axis=0)\n"
                 "  jt = dimshuffle(j, pattern=[1, 0])\n"
                 "  a = add(x, 100.0)\n"
                 "  b = mul(y, 3.0)\n"
                 "  c = concatenate(a, b, axis=0)\n"
                 "  s = add(v, 1000.0)\n"
                 "  r = add(concatenate(s, s, axis=1), add(jt, dimshuffle(c, pattern=[1, 0])))\n"
                 "}\n");
  ASSERT_TRUE(M);
  auto Fn = compile(*M->functions().front());
  ASSERT_TRUE(Fn);
  const int64_t N = 2, Mm = 3;
  NDArray X = NDArray::zeros(DType::F64, {N, Mm}),
          Y = NDArray::zeros(DType::F64, {N, Mm});
  for (int64_t I = 0; I < N * Mm; ++I) {
    X.dataAs<double>()[I] = 0.25 * double(I);
    Y.dataAs<double>()[I] = -1.5 * double(I) + 2;
  }
  for (int Call = 0; Call < 3; ++Call) {
    auto R = Fn->call({X, Y});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    const NDArray &Out = (*R)[0];
    ASSERT_EQ(Out.shape(), (Shape{Mm, 2 * N}));
    for (int64_t I = 0; I < Mm; ++I)
      for (int64_t K = 0; K < 2 * N; ++K) {
        // Row I, column K: s[I, K % N] + jt[I, K] + c^T[I, K].
        double XI = X.dataAs<double>()[(K % N) * Mm + I];
        double S = std::exp(XI) + 1000.0;
        double J = K < N ? X.dataAs<double>()[K * Mm + I]
                         : Y.dataAs<double>()[(K - N) * Mm + I];
        double Cc = K < N ? X.dataAs<double>()[K * Mm + I] + 100.0
                          : Y.dataAs<double>()[(K - N) * Mm + I] * 3.0;
        EXPECT_DOUBLE_EQ(Out.getDouble(I * 2 * N + K), S + J + Cc)
            << "call " << Call << " element (" << I << ", " << K << ")";
      }
  }
}
