//===- CEntryTest.cpp - Compiled functions called through the C ABI -------===//
//
// The C entry (graphjit/CEntry.h) as a foreign caller sees it: results
// written into its buffers and checked against the same arithmetic done
// here, bound data, statuses and messages for every wrong call, nutpie's
// density ABI, and calls from several threads at once counted by the
// profile.
//
//===----------------------------------------------------------------------===//

#include "graphjit/CEntry.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "gtest/gtest.h"
#include <cmath>
#include <thread>

using namespace graphjit;

namespace {

// weighted: sum(w * x^2) / 2 and its gradient w * x, with w bound data.
// density: a normal log-density, -sum(x^2)/2 and -x. logs: sum(log(x)),
// which is -inf at 0, and a gradient of ones. chol: a failing Apply.
const char *Source = R"(
func weighted(x: f64[n], w: f64[n]) -> (v, g) {
  g = mul(w, x)
  v = mul(0.5, sum(mul(g, x)))
}
func density(x: f64[n]) -> (lp, dx) {
  lp = mul(-0.5, sum(sqr(x)))
  dx = neg(x)
}
func logs(x: f64[n]) -> (lp, dx) {
  lp = sum(log(x))
  dx = add(mul(x, 0.0), 1.0)
}
func chol(x: f64[n]) -> (r) {
  r = cholesky(alloc_diag(x))
}
)";

struct Compiled {
  std::unique_ptr<GraphModule> Module;
  std::unique_ptr<Function> Fn;
};

Compiled compile(llvm::StringRef Name, bool Profile = false) {
  Compiled C;
  auto M = parseGraph(Source, "entry.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return C;
  }
  C.Module = std::move(*M);
  CompileOptions O;
  O.Profile = Profile;
  auto F = Function::compile(*C.Module->lookupFunction(Name), O);
  if (!F) {
    ADD_FAILURE() << llvm::toString(F.takeError());
    return C;
  }
  C.Fn = std::move(*F);
  return C;
}

std::unique_ptr<CEntry> entryOrFail(Function &F, std::vector<NDArray> Bound,
                                    std::vector<Shape> Free,
                                    std::vector<Shape> Out) {
  auto E = CEntry::make(F, std::move(Bound), std::move(Free), std::move(Out));
  if (!E) {
    ADD_FAILURE() << llvm::toString(E.takeError());
    return nullptr;
  }
  return std::move(*E);
}

std::string makeError(Function &F, std::vector<NDArray> Bound,
                      std::vector<Shape> Free, std::vector<Shape> Out) {
  auto E = CEntry::make(F, std::move(Bound), std::move(Free), std::move(Out));
  return E ? "made" : llvm::toString(E.takeError());
}

} // namespace

TEST(CEntry, WritesResultsIntoTheCallersBuffersWithBoundData) {
  Compiled C = compile("weighted");
  ASSERT_TRUE(C.Fn);
  std::vector<double> W = {1, 2, 3, 4};
  NDArray Wa = NDArray::wrap(W.data(), DType::F64, {4}, {8});
  auto E = entryOrFail(*C.Fn, {NDArray(), Wa}, {{4}}, {{}, {4}});
  ASSERT_TRUE(E);
  for (double Scale : {1.0, -0.5, 3.0}) {
    double X[4], V = 0, G[4];
    for (int I = 0; I < 4; ++I)
      X[I] = Scale * (I + 1);
    const void *In[] = {X};
    void *Out[] = {&V, G};
    ASSERT_EQ(gj_entry_call(E->asC(), In, Out), GJ_ENTRY_OK)
        << gj_entry_last_error();
    double Want = 0;
    for (int I = 0; I < 4; ++I) {
      EXPECT_DOUBLE_EQ(G[I], W[I] * X[I]);
      Want += W[I] * X[I] * X[I];
    }
    EXPECT_DOUBLE_EQ(V, Want / 2);
  }
  // The bound data is borrowed: changing it changes the next call.
  W[0] = 10;
  double X[4] = {1, 1, 1, 1}, V, G[4];
  const void *In[] = {X};
  void *Out[] = {&V, G};
  ASSERT_EQ(gj_entry_call(E->asC(), In, Out), GJ_ENTRY_OK);
  EXPECT_DOUBLE_EQ(G[0], 10);
  EXPECT_DOUBLE_EQ(V, (10 + 2 + 3 + 4) / 2.0);
}

TEST(CEntry, MakeRejectsWhatACallCouldNotDo) {
  Compiled C = compile("weighted");
  ASSERT_TRUE(C.Fn);
  NDArray W = NDArray::zeros(DType::F64, {4});
  EXPECT_NE(makeError(*C.Fn, {NDArray()}, {{4}}, {{}, {4}})
                .find("'weighted' has 2 inputs, 1 given"),
            std::string::npos);
  EXPECT_NE(makeError(*C.Fn, {NDArray(), W}, {}, {{}, {4}})
                .find("1 free inputs, 0 shapes given"),
            std::string::npos);
  // The free input's size disagrees with the bound data's (both are n).
  std::string Mismatch = makeError(*C.Fn, {NDArray(), W}, {{5}}, {{}, {4}});
  EXPECT_EQ(Mismatch,
            "C entry: input 'w' dim 0 is 4, but 'n' is 5 from input 'x' dim 0");
  EXPECT_NE(makeError(*C.Fn, {NDArray(), W}, {{4}}, {{4}, {4}})
                .find("output 0 ('v') of 'weighted' cannot have shape"),
            std::string::npos);
  EXPECT_NE(makeError(*C.Fn, {NDArray(), W}, {{4}}, {{}})
                .find("2 outputs, 1 shapes given"),
            std::string::npos);
}

TEST(CEntry, StatusesAndMessagesForWrongCalls) {
  Compiled C = compile("weighted");
  ASSERT_TRUE(C.Fn);
  NDArray W = NDArray::zeros(DType::F64, {3});
  // Declared outputs that the call's results do not match: an error at
  // the call (the gradient is 3 long, not 2... and the entry says so).
  auto E = entryOrFail(*C.Fn, {NDArray(), W}, {{3}}, {{}, {3}});
  ASSERT_TRUE(E);
  double X[3] = {1, 2, 3}, V, G[3];
  const void *In[] = {X};
  void *Out[] = {&V, G};
  EXPECT_EQ(gj_entry_call(nullptr, In, Out), GJ_ENTRY_BAD_CALL);
  EXPECT_STREQ(gj_entry_last_error(), "C entry: null entry");
  EXPECT_EQ(gj_entry_call(E->asC(), nullptr, Out), GJ_ENTRY_BAD_CALL);
  const void *NullIn[] = {nullptr};
  EXPECT_EQ(gj_entry_call(E->asC(), NullIn, Out), GJ_ENTRY_BAD_CALL);
  EXPECT_STREQ(gj_entry_last_error(), "C entry: free input 0 is null");
  EXPECT_EQ(gj_entry_call(E->asC(), In, Out), GJ_ENTRY_OK);
  EXPECT_STREQ(gj_entry_last_error(), "C entry: free input 0 is null")
      << "a good call leaves the last error as it was";

  // An Apply that fails: a status, the Apply's own message, and the entry
  // works again on the next values.
  Compiled Ch = compile("chol");
  ASSERT_TRUE(Ch.Fn);
  auto EC = entryOrFail(*Ch.Fn, {NDArray()}, {{2}}, {{2, 2}});
  ASSERT_TRUE(EC);
  double Bad[2] = {1, -1}, Good[2] = {4, 9}, R[4];
  const void *BadIn[] = {Bad}, *GoodIn[] = {Good};
  void *ROut[] = {R};
  EXPECT_EQ(gj_entry_call(EC->asC(), BadIn, ROut), GJ_ENTRY_FAILED);
  EXPECT_NE(std::string(gj_entry_last_error()).find("not positive definite"),
            std::string::npos)
      << gj_entry_last_error();
  ASSERT_EQ(gj_entry_call(EC->asC(), GoodIn, ROut), GJ_ENTRY_OK);
  EXPECT_DOUBLE_EQ(R[0], 2);
  EXPECT_DOUBLE_EQ(R[1], 0);
  EXPECT_DOUBLE_EQ(R[3], 3);
}

TEST(CEntry, DensityAbiAsNutpieCallsIt) {
  Compiled C = compile("density");
  ASSERT_TRUE(C.Fn);
  auto E = entryOrFail(*C.Fn, {NDArray()}, {{3}}, {{}, {3}});
  ASSERT_TRUE(E);
  gj_density D{E->asC(), nullptr};
  double X[3] = {0.5, -1, 2}, G[3], Lp = 0;
  ASSERT_EQ(gj_density_logp(3, X, G, &Lp, &D), GJ_ENTRY_OK);
  EXPECT_DOUBLE_EQ(Lp, -0.5 * (0.25 + 1 + 4));
  for (int I = 0; I < 3; ++I)
    EXPECT_DOUBLE_EQ(G[I], -X[I]);
  // A dimension that is not the entry's: a fatal status (negative).
  EXPECT_EQ(gj_density_logp(4, X, G, &Lp, &D), GJ_ENTRY_BAD_CALL);
  EXPECT_NE(std::string(gj_entry_last_error()).find("does not take 4"),
            std::string::npos);
  EXPECT_EQ(gj_density_logp(3, X, G, &Lp, nullptr), GJ_ENTRY_BAD_CALL);
  // No expand entry: expand fails cleanly.
  double Out[3];
  EXPECT_EQ(gj_density_expand(3, 3, X, Out, &D), GJ_ENTRY_BAD_CALL);
  // Used as an expand function too (one output of 3): the sizes differ.
  gj_density Both{E->asC(), E->asC()};
  EXPECT_EQ(gj_density_expand(3, 3, X, Out, &Both), GJ_ENTRY_BAD_CALL);

  // Non-finite results: recoverable statuses (positive), gradient first.
  Compiled L = compile("logs");
  ASSERT_TRUE(L.Fn);
  auto EL = entryOrFail(*L.Fn, {NDArray()}, {{2}}, {{}, {2}});
  ASSERT_TRUE(EL);
  gj_density DL{EL->asC(), nullptr};
  double Zero[2] = {0, 1}, Nan[2] = {NAN, 1};
  EXPECT_EQ(gj_density_logp(2, Zero, G, &Lp, &DL), GJ_ENTRY_NONFINITE_LOGP);
  EXPECT_STREQ(gj_entry_last_error(), "gj_density_logp: the log-density is "
                                      "-INF");
  EXPECT_EQ(gj_density_logp(2, Nan, G, &Lp, &DL), GJ_ENTRY_NONFINITE_GRAD);
  double One[2] = {1, std::exp(1.0)};
  ASSERT_EQ(gj_density_logp(2, One, G, &Lp, &DL), GJ_ENTRY_OK);
  EXPECT_DOUBLE_EQ(Lp, 1.0);
}

TEST(CEntry, ExpandAbi) {
  Compiled C = compile("chol");
  ASSERT_TRUE(C.Fn);
  auto E = entryOrFail(*C.Fn, {NDArray()}, {{2}}, {{2, 2}});
  ASSERT_TRUE(E);
  gj_density D{nullptr, E->asC()};
  double X[2] = {1, 16}, Out[4];
  EXPECT_EQ(gj_density_expand(2, 3, X, Out, &D), GJ_ENTRY_BAD_CALL)
      << "a 2x2 output is not 3 values";
  // A 2x2 output is not a vector of 4 either: the ABI takes vectors only.
  EXPECT_EQ(gj_density_expand(2, 4, X, Out, &D), GJ_ENTRY_BAD_CALL);
}

TEST(CEntry, CallsFromSeveralThreadsAreCountedByTheProfile) {
  Compiled C = compile("density", /*Profile=*/true);
  ASSERT_TRUE(C.Fn);
  ASSERT_NE(C.Fn->profile(), nullptr);
  auto E = entryOrFail(*C.Fn, {NDArray()}, {{5}}, {{}, {5}});
  ASSERT_TRUE(E);
  gj_density D{E->asC(), nullptr};
  constexpr int Threads = 4, Calls = 500;
  std::vector<int> Wrong(Threads, 0);
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back([&, T] {
      for (int K = 0; K < Calls; ++K) {
        double X[5], G[5], Lp;
        double Want = 0;
        for (int I = 0; I < 5; ++I) {
          X[I] = T + 0.001 * K + I;
          Want += X[I] * X[I];
        }
        if (gj_density_logp(5, X, G, &Lp, &D) != GJ_ENTRY_OK ||
            Lp != -0.5 * Want || G[4] != -X[4])
          ++Wrong[T];
      }
    });
  for (std::thread &T : Ts)
    T.join();
  for (int T = 0; T < Threads; ++T)
    EXPECT_EQ(Wrong[T], 0) << "thread " << T;
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  C.Fn->profile()->summary(OS);
  EXPECT_NE(Report.find(std::to_string(Threads * Calls) + " calls"),
            std::string::npos)
      << Report.substr(0, 600);
}
