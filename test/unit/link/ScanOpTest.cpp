//===- ScanOpTest.cpp - Loops over a compiled body ------------------------===//
//
// The scan op against loops written out here: a recurrence over a
// sequence, taps reaching two steps back, a map (nit_sot), an untraced
// value, a circular buffer shorter than the steps, a while loop that stops
// early, no steps at all; its errors, and its types. Each runs under the
// JIT (the op's compute path) and the py linker (its perform).
//
//===----------------------------------------------------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Initialize.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "graphjit/Scan.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace graphjit;

namespace {

const char *Bodies = R"(
func decay(x: f64[], h: f64[], a: f64[]) -> (r) {
  s = mul(h, a)
  r = add(s, x)
}
func fib(y2: f64[], y1: f64[]) -> (r, sq) {
  r = add(y2, y1)
  sq = mul(r, r)
}
func twice(x: f64[3]) -> (r) {
  r = mul(x, 2.0)
}
func doubling(h: f64[], bound: f64[]) -> (r, stop) {
  r = mul(h, 2.0)
  stop = gt(r, bound)
}
)";

struct Fixture : ::testing::TestWithParam<LinkerKind> {
  std::shared_ptr<GraphModule> Bodies;
  std::unique_ptr<GraphModule> Outer;

  void SetUp() override {
    initialize();
    auto M = parseGraph(::Bodies, "bodies.graph");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    this->Bodies = std::move(*M);
    Outer = std::make_unique<GraphModule>("outer.graph");
  }

  std::shared_ptr<Function> body(llvm::StringRef Name, bool Profile = false) {
    CompileOptions O;
    O.Linker = GetParam();
    O.Profile = Profile;
    auto F = Function::compile(*Bodies->lookupFunction(Name), O);
    EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
    // The body's graph lives as long as the fixture's module.
    return std::shared_ptr<Function>(std::move(*F));
  }

  /// The scan over Body of outer inputs of types In, as a function.
  std::unique_ptr<Function> outer(ScanSpec Spec, llvm::StringRef Body,
                                  std::vector<TensorType> In,
                                  bool Profile = false) {
    FunctionBuilder B(*Outer, "outer");
    std::vector<Variable *> Vars;
    for (size_t I = 0; I < In.size(); ++I)
      Vars.push_back(B.input("in" + std::to_string(I), In[I]));
    auto Op = makeScanOp(std::move(Spec), body(Body, Profile));
    EXPECT_TRUE(bool(Op)) << llvm::toString(Op.takeError());
    auto Outs = B.applyOp(*Op, Vars);
    EXPECT_TRUE(bool(Outs)) << llvm::toString(Outs.takeError());
    for (Variable *V : *Outs)
      B.output(V);
    auto G = B.finish();
    EXPECT_TRUE(bool(G)) << llvm::toString(G.takeError());
    CompileOptions O;
    O.Linker = GetParam();
    O.Profile = Profile;
    auto F = Function::compile(**G, O);
    EXPECT_TRUE(bool(F)) << llvm::toString(F.takeError());
    return std::move(*F);
  }
};

TensorType f64(std::vector<Dim> D = {}) { return {DType::F64, std::move(D)}; }
TensorType i64() { return TensorType::scalar(DType::I64); }
NDArray steps(int64_t N) { return NDArray::scalar(DType::I64, double(N)); }
NDArray scalar(double V) { return NDArray::scalar(DType::F64, V); }
NDArray vec(std::vector<double> V) {
  NDArray A = NDArray::zeros(DType::F64, {int64_t(V.size())});
  for (size_t I = 0; I < V.size(); ++I)
    A.dataAs<double>()[I] = V[I];
  return A;
}
std::vector<double> values(const NDArray &A) {
  std::vector<double> V;
  for (int64_t I = 0; I < A.numElements(); ++I)
    V.push_back(A.getDouble(I));
  return V;
}

struct ScanOpTest : Fixture {
  /// decay's scan: h[t] = h[t-1] * a + x[t] over a sequence x.
  std::unique_ptr<Function> decay(bool Profile = false) {
    ScanSpec S;
    S.NumSequences = 1;
    S.SitSotTaps = {{-1}};
    S.NumNonSequences = 1;
    return outer(S, "decay",
                 {i64(), f64({Dim::unknown()}), f64({Dim::unknown()}), f64()},
                 Profile);
  }

  /// fib's scan: taps [-2, -1] of a buffer, the squares as a nit_sot.
  std::unique_ptr<Function> fibonacci() {
    ScanSpec S;
    S.MitSotTaps = {{-2, -1}};
    S.NumNitSot = 1;
    return outer(S, "fib", {i64(), f64({Dim::unknown()}), i64()});
  }
};

TEST_P(ScanOpTest, RecurrenceOverASequence) {
  // h[t] = h[t-1] * a + x[t], all the states kept after the initial one.
  auto F = decay();
  auto R = F->call({steps(4), vec({1, 2, 3, 4}), vec({0, 0, 0, 0, 0}),
                    scalar(0.5)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  std::vector<double> Want{0};
  for (double X : {1, 2, 3, 4})
    Want.push_back(Want.back() * 0.5 + X);
  EXPECT_EQ(values((*R)[0]), Want);
}

TEST_P(ScanOpTest, TapsTwoStepsBackAndAMap) {
  // Fibonacci from (1, 1), with the squares as a nit_sot.
  auto F = fibonacci();
  auto R = F->call({steps(5), vec({1, 1, 0, 0, 0, 0, 0}), steps(5)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{1, 1, 2, 3, 5, 8, 13}));
  EXPECT_EQ(values((*R)[1]), (std::vector<double>{4, 9, 25, 64, 169}));
}

TEST_P(ScanOpTest, CircularBufferComesOutInOrder) {
  // PyTensor's save-memory buffers: 3 rows for 7 steps of taps [-2, -1]
  // keep the last three values, oldest first.
  auto F = fibonacci();
  auto R = F->call({steps(7), vec({1, 1, 0}), steps(2)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{13, 21, 34}));
  EXPECT_EQ(values((*R)[1]), (std::vector<double>{21 * 21, 34 * 34}));
}

TEST_P(ScanOpTest, RowsOfAMatrixAndAnUntracedValue) {
  ScanSpec S;
  S.NumSequences = 1;
  S.NumNitSot = 1;
  auto F = outer(S, "twice", {i64(), f64({Dim::unknown(), Dim::known(3)}),
                              i64()});
  NDArray X = NDArray::zeros(DType::F64, {2, 3});
  for (int I = 0; I < 6; ++I)
    X.dataAs<double>()[I] = I;
  auto R = F->call({steps(2), X, steps(2)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ((*R)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{0, 2, 4, 6, 8, 10}));

  // The same recurrence as RecurrenceOverASequence, only its last value
  // kept (what PyTensor makes of h[-1]).
  ScanSpec U;
  U.NumSequences = 1;
  U.NumUntraced = 1;
  U.NumNonSequences = 1;
  auto G = outer(U, "decay", {i64(), f64({Dim::unknown()}), f64(), f64()});
  auto Last = G->call({steps(3), vec({1, 2, 3}), scalar(1), scalar(0.5)});
  ASSERT_TRUE(bool(Last)) << llvm::toString(Last.takeError());
  EXPECT_EQ(values((*Last)[0]), (std::vector<double>{((0.5 + 1) * 0.5 + 2) *
                                                         0.5 + 3}));
}

TEST_P(ScanOpTest, WhileLoopStopsEarly) {
  // Doubling from 1.5 until past 100: 7 steps of at most 50; the buffer is
  // cut to the steps run.
  ScanSpec S;
  S.SitSotTaps = {{-1}};
  S.NumNonSequences = 1;
  S.AsWhile = true;
  auto F = outer(S, "doubling", {i64(), f64({Dim::unknown()}), f64()});
  NDArray Init = NDArray::zeros(DType::F64, {51});
  Init.dataAs<double>()[0] = 1.5;
  auto R = F->call({steps(50), Init, scalar(100)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  std::vector<double> Want{1.5};
  while (Want.back() <= 100)
    Want.push_back(Want.back() * 2);
  EXPECT_EQ(values((*R)[0]), Want);
}

TEST_P(ScanOpTest, NoSteps) {
  auto F = fibonacci();
  auto R = F->call({steps(0), vec({1, 1}), steps(0)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{1, 1}));
  EXPECT_EQ((*R)[1].shape(), Shape{0});
}

TEST_P(ScanOpTest, ErrorsAsPyTensorWordsThem) {
  auto F = decay();
  auto Short = F->call({steps(4), vec({1, 2}), vec({0, 0, 0, 0, 0}),
                        scalar(0.5)});
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(llvm::toString(Short.takeError())
                .find("Sequence 0 has shape (2,) but the Scan's required "
                      "number of steps is 4"),
            std::string::npos);
  auto Negative = F->call({steps(-1), vec({1}), vec({0}), scalar(0.5)});
  ASSERT_FALSE(bool(Negative));
  EXPECT_NE(llvm::toString(Negative.takeError())
                .find("IndexError: Scan was asked to run for negative"),
            std::string::npos);
  // The function works afterwards.
  auto R = F->call({steps(1), vec({3}), vec({1, 0}), scalar(0.5)});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(values((*R)[0]), (std::vector<double>{1, 3.5}));
}

TEST_P(ScanOpTest, SpecMustMatchTheBody) {
  ScanSpec S;
  S.NumSequences = 3; // decay takes three inputs in all, not four
  S.SitSotTaps = {{-1}};
  auto Op = makeScanOp(S, body("decay"));
  ASSERT_FALSE(bool(Op));
  EXPECT_NE(llvm::toString(Op.takeError()).find("the spec gives the body"),
            std::string::npos);
  // Types: a buffer of the wrong dtype is refused when applied.
  ScanSpec Good;
  Good.NumSequences = 1;
  Good.SitSotTaps = {{-1}};
  Good.NumNonSequences = 1;
  auto Ok = makeScanOp(Good, body("decay"));
  ASSERT_TRUE(bool(Ok));
  auto Types = (*Ok)->inferTypes({i64(), f64({Dim::unknown()}),
                                  TensorType(DType::F32, {Dim::unknown()}),
                                  f64()});
  ASSERT_FALSE(bool(Types));
  EXPECT_NE(llvm::toString(Types.takeError()).find("does not hold"),
            std::string::npos);
  EXPECT_EQ((*Ok)->name(), "Scan{decay}");
  EXPECT_EQ((*Ok)->className(), "Scan");
}

INSTANTIATE_TEST_SUITE_P(Linkers, ScanOpTest,
                         ::testing::Values(LinkerKind::CPy, LinkerKind::Py),
                         [](const auto &I) {
                           return I.param == LinkerKind::Py ? "py" : "c";
                         });

} // namespace

// Profiled, the body's per-Apply profile reports with the scan's function,
// marked as the body of its Apply, its calls the steps; the sum of
// functions leaves it out (its time is the scan Apply's), and the JSON
// keeps the mark.
TEST_P(ScanOpTest, TheBodysProfileReportsWithTheScan) {
  auto F = decay(/*Profile=*/true);
  for (int Call = 0; Call < 2; ++Call) {
    auto R = F->call({steps(4), vec({1, 2, 3, 4}), vec({0, 0, 0, 0, 0}),
                      scalar(0.5)});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  }
  ASSERT_NE(F->profile(), nullptr);
  Profile P = F->profile()->profile();
  ASSERT_EQ(P.Functions.size(), 2u);
  EXPECT_EQ(P.Functions[0].Name, "outer");
  EXPECT_TRUE(P.Functions[0].InnerOf.empty());
  const FunctionProfile &Body = P.Functions[1];
  EXPECT_EQ(Body.Name, "decay");
  EXPECT_EQ(Body.InnerOf.rfind("Apply ", 0), 0u) << Body.InnerOf;
  EXPECT_NE(Body.InnerOf.find("of 'outer'"), std::string::npos);
  EXPECT_EQ(Body.Calls, 8u); // 4 steps in each of 2 calls
  ASSERT_FALSE(Body.Applies.empty());
  for (const ApplyProfile &A : Body.Applies)
    EXPECT_EQ(A.Calls, 8u) << A.Name;
  EXPECT_EQ(sumOfFunctions(P).Name, "Sum of all(1) printed profiles at exit");

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  F->profile()->summary(OS);
  EXPECT_NE(Text.find("  Loop body of: " + Body.InnerOf +
                      " (its time is that Apply's; sums leave it out)"),
            std::string::npos)
      << Text;
  EXPECT_EQ(Text.find("Sum of all("), std::string::npos) << Text;

  std::string Json;
  llvm::raw_string_ostream JS(Json);
  writeProfileJSON(JS, P);
  auto Back = readProfileJSON(Json, "scan.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Functions[1].InnerOf, Body.InnerOf);
  EXPECT_TRUE(Back->Functions[0].InnerOf.empty());
}
