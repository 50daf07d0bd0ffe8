//===- FunctionProfileTest.cpp - Profiled functions count every call -----===//
//
// A profiled Function's numbers: every Apply's calls counted exactly, also
// when one Function is called from several threads at once (JIT code with
// the instrumentation pass, and the py linker's clock), the first call left
// out with profiling__ignore_first_call, and several functions reporting
// into one ProfileStats summed in its summary.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Flags.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "gtest/gtest.h"
#include <thread>

using namespace graphjit;

namespace {

const char *Graph = R"(
func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  s = add(x, y)
  t = add(s, z)
  r = mul(t, 2.0)
}
func total(x: f64[n]) -> (s) {
  s = sum(exp(x))
}
)";

std::unique_ptr<GraphModule> parseOrFail() {
  auto M = parseGraph(Graph, "profile.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::unique_ptr<Function> compileProfiled(FunctionGraph &F, LinkerKind K,
                                          std::shared_ptr<ProfileStats> Into) {
  CompileOptions O;
  O.Linker = K;
  O.Profile = true;
  O.ProfileInto = std::move(Into);
  // The Applies as written: the tests count them.
  O.Rewrite = RewriteOptions();
  O.Rewrite->Optimizer = "None";
  auto Fn = Function::compile(F, O);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return nullptr;
  }
  return std::move(*Fn);
}

NDArray filled(int64_t N, double V) {
  NDArray A = NDArray::zeros(DType::F64, {N});
  for (int64_t I = 0; I < N; ++I)
    A.dataAs<double>()[I] = V;
  return A;
}

class FunctionProfileTest : public ::testing::TestWithParam<LinkerKind> {};

TEST_P(FunctionProfileTest, ThreadsLoseNoCallsAndNoCounts) {
  auto M = parseOrFail();
  ASSERT_TRUE(M);
  auto Fn = compileProfiled(*M->lookupFunction("example"), GetParam(), nullptr);
  ASSERT_TRUE(Fn && Fn->profile());
  constexpr int Threads = 4, Calls = 300;
  std::atomic<int> Wrong{0};
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      NDArray X = filled(16, T), Y = filled(16, 1), Z = filled(16, 2);
      for (int I = 0; I < Calls; ++I) {
        auto R = Fn->call({X, Y, Z});
        if (!R || (*R)[0].dataAs<double>()[15] != 2.0 * (T + 3))
          ++Wrong;
        if (!R)
          llvm::consumeError(R.takeError());
      }
    });
  for (std::thread &T : Pool)
    T.join();
  EXPECT_EQ(Wrong.load(), 0);
  Profile P = Fn->profile()->profile();
  ASSERT_EQ(P.Functions.size(), 1u);
  const FunctionProfile &F = P.Functions[0];
  EXPECT_EQ(F.Calls, uint64_t(Threads * Calls));
  ASSERT_EQ(F.Applies.size(), 3u);
  for (const ApplyProfile &A : F.Applies) {
    EXPECT_EQ(A.Calls, uint64_t(Threads * Calls)) << A.Name;
    EXPECT_GE(A.Seconds, 0.0);
    EXPECT_EQ(A.Compiled, GetParam() != LinkerKind::Py) << A.Name;
    // One call recorded what each Apply saw.
    ASSERT_EQ(A.Inputs.size(), 2u) << A.Name;
    EXPECT_EQ(A.Outputs[0].Shape, std::vector<int64_t>{16});
  }
  EXPECT_GT(F.CallSeconds, 0.0);
  EXPECT_LE(F.thunkSeconds(), F.CallSeconds);
}

TEST_P(FunctionProfileTest, FailedCallsCountTheAppliesThatRan) {
  auto M = parseOrFail();
  ASSERT_TRUE(M);
  auto Fn = compileProfiled(*M->lookupFunction("example"), GetParam(), nullptr);
  ASSERT_TRUE(Fn);
  ASSERT_TRUE(bool(Fn->call({filled(4, 1), filled(4, 1), filled(4, 1)})));
  // n is bound by x: y of another size fails in the binding, before any
  // Apply runs.
  auto R = Fn->call({filled(4, 1), filled(5, 1), filled(4, 1)});
  ASSERT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
  const FunctionProfile F = Fn->profile()->profile().Functions[0];
  EXPECT_EQ(F.Calls, 2u);
  for (const ApplyProfile &A : F.Applies)
    EXPECT_EQ(A.Calls, 1u) << A.Name;
}

TEST_P(FunctionProfileTest, SeveralFunctionsShareOneProfile) {
  auto M = parseOrFail();
  ASSERT_TRUE(M);
  auto Stats = std::make_shared<ProfileStats>();
  auto A = compileProfiled(*M->lookupFunction("example"), GetParam(), Stats);
  auto B = compileProfiled(*M->lookupFunction("total"), GetParam(), Stats);
  ASSERT_TRUE(A && B);
  for (int I = 0; I < 3; ++I)
    ASSERT_TRUE(bool(A->call({filled(8, 1), filled(8, 2), filled(8, 3)})));
  ASSERT_TRUE(bool(B->call({filled(8, 0)})));
  // A function destroyed keeps its numbers in the shared profile.
  B.reset();
  Profile P = Stats->profile();
  ASSERT_EQ(P.Functions.size(), 2u);
  EXPECT_EQ(P.Functions[0].Name, "example");
  EXPECT_EQ(P.Functions[0].Calls, 3u);
  EXPECT_EQ(P.Functions[1].Name, "total");
  EXPECT_EQ(P.Functions[1].Calls, 1u);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  Stats->summary(OS);
  EXPECT_NE(Text.find("Message: example"), std::string::npos);
  EXPECT_NE(Text.find("Message: total"), std::string::npos);
  EXPECT_NE(Text.find("Sum of all(2)"), std::string::npos) << Text;
}

TEST_P(FunctionProfileTest, IgnoreFirstCallLeavesItOut) {
  auto M = parseOrFail();
  ASSERT_TRUE(M);
  Flags Saved = llvm::cantFail(processFlags());
  Flags F = Saved;
  F.ProfilingIgnoreFirstCall = true;
  setProcessFlags(F);
  auto Fn = compileProfiled(*M->lookupFunction("example"), GetParam(), nullptr);
  setProcessFlags(Saved);
  ASSERT_TRUE(Fn);
  for (int I = 0; I < 5; ++I)
    ASSERT_TRUE(bool(Fn->call({filled(4, 1), filled(4, 1), filled(4, 1)})));
  const FunctionProfile P = Fn->profile()->profile().Functions[0];
  EXPECT_EQ(P.Calls, 4u);
  for (const ApplyProfile &A : P.Applies)
    EXPECT_EQ(A.Calls, 4u) << A.Name;
}

INSTANTIATE_TEST_SUITE_P(Linkers, FunctionProfileTest,
                         ::testing::Values(LinkerKind::CPy, LinkerKind::Py),
                         [](const auto &Info) {
                           return Info.param == LinkerKind::Py ? "py" : "cpy";
                         });

TEST(Flags, ParsesTheanoSpellingsAndRejectsUnknownNames) {
  Flags F = llvm::cantFail(parseFlags(
      "profile=True, profiling.n_apply=7,profiling__destination=out.txt,"
      "compile_threads=3"));
  EXPECT_TRUE(F.Profile);
  EXPECT_EQ(F.ProfilingNApply, 7u);
  EXPECT_EQ(F.ProfilingDestination, "out.txt");
  EXPECT_EQ(F.CompileThreads, 3u);
  auto Bad = parseFlags("profile=True,profiling__n_aply=3");
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find("unknown flag 'profiling__n_aply'"), std::string::npos);
  EXPECT_NE(Msg.find("profiling__n_apply"), std::string::npos) << Msg;
  auto BadValue = parseFlags("profile=maybe");
  ASSERT_FALSE(bool(BadValue));
  EXPECT_NE(llvm::toString(BadValue.takeError()).find("True or False"),
            std::string::npos);
}

// A PYTENSOR_FLAGS string copied over works: what means something to
// graphjit is honoured, the rest is a warning, typos stay errors.
TEST(Flags, AcceptsPyTensorsFlags) {
  Flags F = llvm::cantFail(parseFlags(
      "floatX=float32,device=cpu,mode=FAST_COMPILE,compiledir=/tmp/gj-c,"
      "profiling__output_line_width=200,profiling.min_peak_memory=True"));
  EXPECT_EQ(F.Optimizer, "fast_compile");
  EXPECT_EQ(F.CompileDir, "/tmp/gj-c");
  EXPECT_EQ(F.Device, "cpu");
  ASSERT_EQ(F.Warnings.size(), 3u);
  EXPECT_EQ(F.Warnings[0].rfind("floatX does not apply to graphjit", 0), 0u)
      << F.Warnings[0];
  EXPECT_EQ(F.Warnings[2].rfind("profiling.min_peak_memory does not apply", 0),
            0u)
      << F.Warnings[2];
  EXPECT_EQ(llvm::cantFail(parseFlags("mode=FAST_RUN")).Optimizer, "fast_run");
  Flags Other = llvm::cantFail(parseFlags("mode=NUMBA"));
  EXPECT_EQ(Other.Optimizer, "fast_run");
  ASSERT_EQ(Other.Warnings.size(), 1u);
  EXPECT_NE(Other.Warnings[0].find("mode=NUMBA does not apply"),
            std::string::npos);
  // Still errors: a typo of graphjit's own, an item without a value.
  auto Typo = parseFlags("floatx=float32");
  ASSERT_FALSE(bool(Typo));
  EXPECT_NE(llvm::toString(Typo.takeError()).find("unknown flag 'floatx'"),
            std::string::npos);
  auto NoValue = parseFlags("floatX");
  ASSERT_FALSE(bool(NoValue));
  llvm::consumeError(NoValue.takeError());
}

} // namespace

// Sampling (profiling__mode=sample) counts a chain's calls from the ways
// out of it: a call that fails in its second Apply counts the first two,
// not the third, exactly as exact timing does.
TEST(SampledProfile, AFailedCallCountsTheAppliesThatRan) {
  auto M = parseGraph(R"(
func g(x: f64[n], y: f64[m]) -> (r) {
  a = exp(x)
  b = add(a, y)
  r = mul(b, 2.0)
}
)",
                      "sampled.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  for (bool Sampled : {false, true}) {
    CompileOptions O;
    O.Profile = true;
    O.ProfileSample = Sampled;
    O.Rewrite = RewriteOptions();
    O.Rewrite->Optimizer = "None";
    auto Fn = Function::compile(*(*M)->lookupFunction("g"), O);
    ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
    for (int I = 0; I < 3; ++I)
      ASSERT_TRUE(bool((*Fn)->call({filled(4, 1), filled(4, 2)})));
    auto R = (*Fn)->call({filled(4, 1), filled(5, 2)});
    ASSERT_FALSE(bool(R));
    llvm::consumeError(R.takeError());
    const FunctionProfile F = (*Fn)->profile()->profile().Functions[0];
    EXPECT_EQ(F.Calls, 4u);
    EXPECT_EQ(F.Clock.rfind("sampled every", 0) == 0, Sampled) << F.Clock;
    ASSERT_EQ(F.Applies.size(), 3u);
    EXPECT_EQ(F.Applies[0].Calls, 4u) << Sampled;
    EXPECT_EQ(F.Applies[1].Calls, 4u) << Sampled; // ran, and failed
    EXPECT_EQ(F.Applies[2].Calls, 3u) << Sampled;
  }
}
