//===- ProfileReportTest.cpp - The printed profile and its numbers --------===//
//
// Aggregation into the Class and Ops tables, percentages, Gflops/s, the
// "remaining" lines, the tips and the sum of several functions.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "profile/ProfileTables.h"
#include "profile/TermReport.h"
#include "graphjit/Type.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace graphjit;
using namespace graphjit::profile;
using namespace graphjit::test;

namespace {

std::string summary(const Profile &P, SummaryOptions Opts = {}) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printSummary(OS, P, Opts);
  return S;
}

std::string summary(const FunctionProfile &F, SummaryOptions Opts = {}) {
  Profile P;
  P.Functions.push_back(F);
  return summary(P, Opts);
}

bool hasTipWith(const std::vector<std::string> &Tips, llvm::StringRef Word) {
  for (const std::string &T : Tips)
    if (llvm::StringRef(T).contains(Word))
      return true;
  return false;
}

FunctionProfile threeNodes() {
  return function("example",
                  {apply(0, "Elemwise{add,no_inplace}", "Elemwise", 10, 0.5),
                   apply(1, "Elemwise{add,no_inplace}", "Elemwise", 10, 0.2),
                   apply(2, "Elemwise{mul,no_inplace}", "Elemwise", 10, 0.3)});
}

TEST(ProfileTables, ClassTableMergesMoreThanOpsTable) {
  FunctionProfile F = threeNodes();
  F.Applies.push_back(apply(3, "Sum{axis=all}", "Sum", 10, 0.4));
  std::vector<GroupRow> Classes = groupApplies(F.Applies, /*ByOp=*/false);
  ASSERT_EQ(Classes.size(), 2u);
  EXPECT_EQ(Classes[0].Name, "Elemwise");
  EXPECT_DOUBLE_EQ(Classes[0].Seconds, 1.0);
  EXPECT_EQ(Classes[0].Calls, 30u);
  EXPECT_EQ(Classes[0].Applies, 3u);
  EXPECT_EQ(Classes[1].Name, "Sum");

  std::vector<GroupRow> Ops = groupApplies(F.Applies, /*ByOp=*/true);
  ASSERT_EQ(Ops.size(), 3u);
  EXPECT_EQ(Ops[0].Name, "Elemwise{add,no_inplace}");
  EXPECT_DOUBLE_EQ(Ops[0].Seconds, 0.7);
  EXPECT_EQ(Ops[0].Applies, 2u);
  EXPECT_EQ(Ops[1].Name, "Sum{axis=all}");
  EXPECT_EQ(Ops[2].Name, "Elemwise{mul,no_inplace}");
}

TEST(ProfileTables, MixedTypesAreMarked) {
  std::vector<ApplyProfile> As = {apply(0, "Dot", "Dot", 1, 1.0, true),
                                  apply(1, "Dot", "Dot", 1, 1.0, false)};
  EXPECT_EQ(groupApplies(As, true)[0].Type, "C+Py");
  As[1].Compiled = true;
  EXPECT_EQ(groupApplies(As, true)[0].Type, "C");
}

TEST(ProfileTables, AppliesSortByTimeThenIdAndSkipThoseThatNeverRan) {
  std::vector<ApplyProfile> As = {
      apply(0, "A", "A", 1, 0.1), apply(1, "B", "B", 0, 0),
      apply(2, "C", "C", 1, 0.3), apply(3, "D", "D", 1, 0.1)};
  std::vector<size_t> Order = sortedApplies(As);
  ASSERT_EQ(Order.size(), 3u);
  EXPECT_EQ(Order[0], 2u);
  EXPECT_EQ(Order[1], 0u);
  EXPECT_EQ(Order[2], 3u);
}

TEST(ProfileTables, RemainingArithmetic) {
  std::vector<double> S = {0.5, 0.3, 0.15, 0.05};
  Remaining R = remainingAfter(S, 2, 1.0);
  EXPECT_EQ(R.Count, 2u);
  EXPECT_DOUBLE_EQ(R.Seconds, 0.2);
  EXPECT_DOUBLE_EQ(R.Percent, 20.0);
  R = remainingAfter(S, 10, 1.0);
  EXPECT_EQ(R.Count, 0u);
  EXPECT_EQ(R.Percent, 0.0);
  R = remainingAfter(S, 0, 0.0); // zero total: no division by zero
  EXPECT_EQ(R.Count, 4u);
  EXPECT_EQ(R.Percent, 0.0);
}

TEST(ProfileTables, GflopsUseEveryCallsFlops) {
  ApplyProfile A = apply(0, "Dot", "Dot", 10, 2.0);
  A.FlopsPerCall = 4e9;
  A.BytesPerCall = 1e9;
  // 4e9 flops per call * 10 calls / 2 s = 20 Gflops/s (PyTensor would say 2).
  EXPECT_DOUBLE_EQ(gflopsPerSecond(A), 20.0);
  EXPECT_DOUBLE_EQ(gbytesPerSecond(A), 5.0);
  A.Seconds = 0;
  EXPECT_EQ(gflopsPerSecond(A), 0.0);
  EXPECT_EQ(gbytesPerSecond(A), 0.0);
}

TEST(ProfileTables, StridesPrintAsCWhenContiguous) {
  EXPECT_EQ(stridesString({"float64", {3, 4}, {32, 8}}), "c");
  EXPECT_EQ(stridesString({"float64", {3, 4}, {8, 24}}), "(8, 24)");
  EXPECT_EQ(stridesString({"float32", {1, 4}, {0, 4}}), "c");
  EXPECT_EQ(stridesString({"float32", {}, {}}), "c");
  EXPECT_EQ(stridesString({"float32", {5}, {8}}), "(8,)");
  EXPECT_EQ(shapeStr({}), "()");
  EXPECT_EQ(shapeStr({3}), "(3,)");
}

TEST(ProfileReport, SectionsColumnsAndPercentages) {
  FunctionProfile F = threeNodes();
  F.CallSeconds = 2.0;
  F.DriverSeconds = 1.5;
  std::string S = summary(F);
  EXPECT_NE(S.find("Function profiling\n==================\n  Message: "
                   "example\n"),
            std::string::npos);
  EXPECT_NE(S.find("Time in 10 calls to Function.__call__: 2.000000e+00s"),
            std::string::npos);
  EXPECT_NE(S.find("(the driver): 1.500000e+00s (75.000%)"), std::string::npos);
  EXPECT_NE(S.find("Time in thunks: 1.000000e+00s (50.000%)"),
            std::string::npos);
  EXPECT_NE(S.find("<% time> <sum %> <apply time> <time per call> <type> "
                   "<#call> <#apply> <Class name>"),
            std::string::npos);
  EXPECT_NE(S.find("<#call> <id> <Mflops> <Gflops/s> <GB/s> <Apply name>"),
            std::string::npos);
  // Ops: add 70%, then mul 30% with a running sum of 100%.
  size_t Add = S.find("  70.0%    70.0%       0.700s");
  size_t Mul = S.find("  30.0%   100.0%       0.300s");
  EXPECT_NE(Add, std::string::npos);
  EXPECT_NE(Mul, std::string::npos);
  EXPECT_LT(Add, Mul);
  EXPECT_NE(S.find("    at t.graph:1\n    input 0: dtype=float32, "
                   "shape=(100,), strides=c\n"),
            std::string::npos);
}

TEST(ProfileReport, RemainingLinesAfterN) {
  SummaryOptions Opts;
  Opts.NApply = 1;
  Opts.NOps = 1;
  std::string S = summary(threeNodes(), Opts);
  EXPECT_NE(S.find("... (remaining 1 Ops account for  30.00%(0.30s) of the "
                   "runtime)"),
            std::string::npos);
  EXPECT_NE(S.find("... (remaining 0 Classes account for   0.00%(0.00s)"),
            std::string::npos);
  EXPECT_NE(S.find("... (remaining 2 Apply instances account for "
                   "50.00%(0.50s) of the runtime)"),
            std::string::npos);
}

TEST(ProfileReport, NothingDividesByZero) {
  Profile Empty;
  EXPECT_EQ(summary(Empty), "No function was profiled.\n");

  FunctionProfile NoApplies = function("f", {}, 0, 0);
  NoApplies.CallSeconds = 0;
  FunctionProfile ZeroTime =
      function("g", {apply(0, "A", "A", 5, 0), apply(1, "B", "B", 0, 0)}, 5);
  ZeroTime.CallSeconds = 0;
  Profile P;
  P.Functions = {NoApplies, ZeroTime};
  std::string S = summary(P);
  EXPECT_EQ(S.find("nan"), std::string::npos) << S;
  EXPECT_EQ(S.find("inf"), std::string::npos) << S;
  EXPECT_NE(S.find("Time in 0 calls"), std::string::npos);
  EXPECT_NE(S.find("(1 Apply instance never ran)"), std::string::npos);
  EXPECT_NE(S.find("Sum of all(2) printed profiles at exit"),
            std::string::npos);
}

TEST(ProfileReport, SumOfFunctions) {
  Profile P;
  P.Functions = {
      function("train", {apply(0, "Dot", "Dot", 10, 1.0),
                         apply(1, "Elemwise{add}", "Elemwise", 10, 0.5)}),
      function("predict", {apply(0, "Dot", "Dot", 5, 0.5)}, 5)};
  FunctionProfile S = sumOfFunctions(P);
  EXPECT_EQ(S.Name, "Sum of all(2) printed profiles at exit");
  EXPECT_EQ(S.Calls, 15u);
  EXPECT_DOUBLE_EQ(S.thunkSeconds(), 2.0);
  EXPECT_DOUBLE_EQ(S.Compile.Lower, 1.0);
  ASSERT_EQ(S.Applies.size(), 3u);
  EXPECT_EQ(S.Applies[0].Name, "train: Dot(v0)");
  EXPECT_EQ(S.Applies[2].Name, "predict: Dot(v0)");
  EXPECT_EQ(S.Linker, "c|py");
  // The Ops table merges the Dot of both functions.
  std::vector<GroupRow> Ops = groupApplies(S.Applies, true);
  EXPECT_EQ(Ops[0].Name, "Dot");
  EXPECT_DOUBLE_EQ(Ops[0].Seconds, 1.5);
  EXPECT_EQ(Ops[0].Applies, 2u);

  std::string Text = summary(P);
  size_t Train = Text.find("Message: train");
  size_t Predict = Text.find("Message: predict");
  size_t Sum = Text.find("Message: Sum of all(2) printed profiles at exit");
  EXPECT_LT(Train, Predict);
  EXPECT_LT(Predict, Sum);
  EXPECT_NE(Sum, std::string::npos);
}

TEST(ProfileTips, DominantNode) {
  FunctionProfile F = function("f", {apply(0, "Dot", "Dot", 1, 0.8),
                                     apply(1, "Add", "Elemwise", 1, 0.2)});
  EXPECT_TRUE(hasTipWith(computeTips(F), "takes 80.0% of the time"));
  F.Applies[0].Seconds = 0.2;
  EXPECT_FALSE(hasTipWith(computeTips(F), "of the time in thunks: optimize"));
}

TEST(ProfileTips, PyNodes) {
  FunctionProfile F = function("f", {apply(0, "Softmax", "Softmax", 1, 0.3,
                                           /*Compiled=*/false),
                                     apply(1, "Dot", "Dot", 1, 0.4),
                                     apply(2, "Add", "Elemwise", 1, 0.3)});
  std::vector<std::string> Tips = computeTips(F);
  EXPECT_TRUE(hasTipWith(Tips, "perform (type Py) take 30.0%"));
  EXPECT_TRUE(hasTipWith(Tips, "Softmax (30.0%, 1 Apply)"));
  F.Applies[0].Compiled = true;
  EXPECT_FALSE(hasTipWith(computeTips(F), "type Py"));
  // A cheap Py node is not worth a tip.
  F.Applies[0].Compiled = false;
  F.Applies[0].Seconds = 0.01;
  EXPECT_FALSE(hasTipWith(computeTips(F), "type Py"));
}

TEST(ProfileTips, Float64WhenItDominates) {
  FunctionProfile F =
      function("f", {apply(0, "Add", "Elemwise", 1, 0.6, true, "float64"),
                     apply(1, "Mul", "Elemwise", 1, 0.4, true, "float32")});
  EXPECT_TRUE(
      hasTipWith(computeTips(F), "float64 Applies (1 of 2) take 60.0%"));
  F.Applies[0].Seconds = 0.3;
  EXPECT_FALSE(hasTipWith(computeTips(F), "float64"));
}

TEST(ProfileTips, BandwidthAgainstTheBestOrTheMachine) {
  FunctionProfile F = function("f", {apply(0, "Add", "Elemwise", 10, 1.0),
                                     apply(1, "Mul", "Elemwise", 10, 1.0)});
  F.Applies[0].BytesPerCall = 1e9; // 10 GB/s
  F.Applies[1].BytesPerCall = 1e8; // 1 GB/s
  std::vector<std::string> Tips = computeTips(F);
  EXPECT_TRUE(hasTipWith(Tips, "Apply 1 Mul(v1) (t.graph:2) moves 1.00 GB/s, "
                               "10.0% of the best in this profile"));
  EXPECT_FALSE(hasTipWith(Tips, "Apply 0 Add(v0) (t.graph:1) moves"));

  SummaryOptions Opts;
  Opts.BandwidthGBs = 100;
  Tips = computeTips(F, Opts);
  EXPECT_TRUE(hasTipWith(Tips, "Apply 0 Add(v0) (t.graph:1) moves 10.00 "
                               "GB/s, 10.0% of the machine's 100.0 GB/s"));
  EXPECT_TRUE(hasTipWith(Tips, "Apply 1 Mul(v1)"));

  // Compute-bound Applies (many flops per byte) are left alone.
  F.Applies[1].FlopsPerCall = 1e10;
  EXPECT_FALSE(hasTipWith(computeTips(F), "Apply 1 Mul(v1) (t.graph:2) moves"));
  // Close to the best: no tip.
  F.Applies[1].FlopsPerCall = 0;
  F.Applies[1].BytesPerCall = 8e8;
  EXPECT_FALSE(hasTipWith(computeTips(F), "GB/s"));
}

// A tip must be true of the Apply it names: contiguous arrays are not a
// suspect, and an Apply moving little per call is timed by its fixed
// costs, not by memory.
TEST(ProfileTips, BandwidthSaysWhatItSaw) {
  FunctionProfile F = function("f", {apply(0, "Add", "Elemwise", 10, 1.0),
                                     apply(1, "Mul", "Elemwise", 10, 1.0)});
  F.Applies[0].BytesPerCall = 1e9; // 10 GB/s
  F.Applies[1].BytesPerCall = 1e8; // 1 GB/s, contiguous arrays
  std::vector<std::string> Tips = computeTips(F);
  EXPECT_TRUE(hasTipWith(Tips, "look at its loop (its arrays are contiguous)"));
  EXPECT_FALSE(hasTipWith(Tips, "strides"));

  F.Applies[1].Inputs = {{"float32", {100}, {8}}}; // every other float
  Tips = computeTips(F);
  EXPECT_TRUE(hasTipWith(Tips, "look at its non-contiguous arrays (the "
                               "strides in its rows) and its loop"));

  // 1,000 bytes a call, at 1,000 times less per second than the other:
  // the call's fixed costs, not memory.
  F.Applies[0].BytesPerCall = 1e6;
  F.Applies[1].BytesPerCall = 1e3;
  EXPECT_FALSE(hasTipWith(computeTips(F), "GB/s"));
}

TEST(ProfileTips, OverheadAndNothingToSay) {
  FunctionProfile F = function("f",
                               {apply(0, "Add", "Elemwise", 10, 0.2),
                                apply(1, "Mul", "Elemwise", 10, 0.2),
                                apply(2, "Sub", "Elemwise", 10, 0.2)},
                               10, 2.0);
  std::vector<std::string> Tips = computeTips(F);
  ASSERT_EQ(Tips.size(), 1u);
  EXPECT_TRUE(hasTipWith(Tips, "Only 30.0% of the call time is in thunks"));
  F.CallSeconds = 0.7;
  EXPECT_TRUE(computeTips(F).empty());
  EXPECT_NE(summary(F).find("  Sorry, no tip for today.\n"), std::string::npos);
  EXPECT_TRUE(computeTips(function("e", {}, 0, 0)).empty());
}

TEST(ProfileReport, TimeByModelVariable) {
  FunctionProfile F = function("logp",
                               {apply(0, "Sub", "Elemwise", 10, 0.4),
                                apply(1, "Mul", "Elemwise", 10, 0.1),
                                apply(2, "Exp", "Elemwise", 10, 0.2, false),
                                apply(3, "Add", "Elemwise", 10, 0.05),
                                apply(4, "Sum", "Sum", 10, 0.25)});
  // No terms: no section.
  EXPECT_TRUE(termRows(F).empty());
  EXPECT_EQ(summary(F).find("Time by model variable"), std::string::npos);

  F.Applies[0].Terms = {"y"};
  F.Applies[1].Terms = {"y"};
  F.Applies[1].Gradient = true;
  F.Applies[2].Terms = {"y", "sigma"}; // shared; the order given is kept
  F.Applies[4].Terms = {"sigma"};
  std::vector<TermRow> Rows = termRows(F);
  ASSERT_EQ(Rows.size(), 4u);
  EXPECT_EQ(Rows[0].Terms, std::vector<std::string>{"y"});
  EXPECT_DOUBLE_EQ(Rows[0].ValueSeconds, 0.4);
  EXPECT_DOUBLE_EQ(Rows[0].GradientSeconds, 0.1);
  EXPECT_EQ(Rows[0].Applies, 2u);
  EXPECT_EQ(Rows[1].Terms, std::vector<std::string>{"sigma"});
  EXPECT_EQ(Rows[2].Terms, (std::vector<std::string>{"sigma", "y"}));
  EXPECT_DOUBLE_EQ(Rows[2].CompiledSeconds, 0); // the Py Apply
  EXPECT_TRUE(Rows[3].Terms.empty());

  std::string S = summary(F);
  size_t Section = S.find("Time by model variable\n----------------------\n");
  ASSERT_NE(Section, std::string::npos);

  EXPECT_LT(S.find("Apply\n------\n"), Section);
  EXPECT_NE(S.find("<% time> <sum %> <value time> <gradient time> <% C> "
                   "<#apply> <variable>"),
            std::string::npos);
  EXPECT_NE(S.find("  50.0%    50.0%     4.00e-01s      1.00e-01s    100%"
                   "       2   y\n"),
            std::string::npos);
  EXPECT_NE(S.find("  20.0%    95.0%     2.00e-01s      0.00e+00s      0%"
                   "       1   shared: sigma, y\n"),
            std::string::npos);
  EXPECT_NE(S.find("   5.0%   100.0%     5.00e-02s      0.00e+00s    100%"
                   "       1   (no variable)\n"),
            std::string::npos);
  // The sum of functions keeps the terms.
  Profile P;
  P.Functions = {F, F};
  std::string Sum = summary(P);
  EXPECT_NE(Sum.rfind("       4   y\n"), std::string::npos);
}

TEST(ProfileReport, CompileStepsBeforeGraphjit) {
  FunctionProfile F = threeNodes();
  EXPECT_EQ(summary(F).find("before graphjit"), std::string::npos);
  double Own = F.Compile.total();
  F.Compile.Host = {{"PyTensor rewrites", 0.5}, {"translation", 0.25}};
  std::string S = summary(F);
  EXPECT_NE(S.find("  Compile time before graphjit: 7.500000e-01s\n"
                   "    PyTensor rewrites: 5.000000e-01s\n"
                   "    translation: 2.500000e-01s\n"),
            std::string::npos);
  // Not graphjit's own compile time.
  EXPECT_EQ(F.Compile.total(), Own);
  // Sums add the steps by name, new ones after.
  CompileTimes Sum = F.Compile;
  CompileTimes Other;
  Other.Host = {{"translation", 1.0}, {"PyMC graphs", 2.0}};
  Sum += Other;
  EXPECT_EQ(Sum.Host, (std::vector<std::pair<std::string, double>>{
                          {"PyTensor rewrites", 0.5},
                          {"translation", 1.25},
                          {"PyMC graphs", 2.0}}));
}

} // namespace
