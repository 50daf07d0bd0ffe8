//===- OptimizerProfileTest.cpp - The optimizer's part of the profile -----===//
//
// profile_optimizer: the Optimizer Profile section, the join of each
// rewrite with the run time of the Applies it made, the provenance lines of
// the Apply table, the optimizer in JSON (version 3; versions 1 and 2 still
// read), merged runs, the sum of functions and diffs; and a compiled
// function's profile, checked against its rewritten graph and the
// optimizer's report.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "profile/OptimizerReport.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace graphjit;
using namespace graphjit::test;

namespace {

RewriteProfile rewrite(const std::string &Name, double Seconds,
                       uint64_t Applied, uint64_t Created,
                       std::vector<std::string> Tags = {"fast_run"}) {
  RewriteProfile R;
  R.Name = Name;
  R.Tags = std::move(Tags);
  R.Seconds = Seconds;
  R.Applied = Applied;
  R.NodesCreated = Created;
  R.NodesBefore = 6;
  R.NodesAfter = 4;
  return R;
}

/// Four Applies (1 s of thunks in all): one as written, one fused then
/// made in-place, one merged, one merged twice.
FunctionProfile optimized() {
  FunctionProfile F =
      function("train", {apply(0, "Dot", "Dot", 10, 0.4),
                         apply(1, "Composite", "Elemwise", 10, 0.3),
                         apply(2, "Exp", "Elemwise", 10, 0.2),
                         apply(3, "Log", "Elemwise", 10, 0.1)});
  F.Applies[1].Rewrites = {"fusion", "inplace"};
  F.Applies[1].SourceLocs = {"t.graph:5", "t.graph:6", "t.graph:7"};
  F.Applies[2].Rewrites = {"merge"};
  F.Applies[2].SourceLocs = {"t.graph:3", "t.graph:4"};
  F.Applies[3].Rewrites = {"merge", "merge"};
  F.Applies[3].SourceLocs = {"t.graph:8", "t.graph:9", "t.graph:8"};
  F.Compile.Rewrite = 0.01;
  F.Compile.Validate = 0.001;
  OptimizerProfile &O = F.Optimizer;
  O.Recorded = true;
  O.Name = "fast_run";
  O.Excluding = "gemm";
  O.Runs = 1;
  O.Seconds = 0.01;
  O.ValidateSeconds = 0.001;
  O.NodesBefore = 7;
  O.NodesAfter = 4;
  O.Phases = {{"merge1", 0.001, 7, 6, 7, false},
              {"canonicalize", 0.005, 6, 4, 12, false},
              {"merge2", 0.0005, 4, 4, 4, true}};
  O.Rewrites = {rewrite("merge", 0.002, 3, 0, {"merge", "fast_run"}),
                rewrite("constant_folding", 0.0004, 0, 0),
                rewrite("fusion", 0.003, 1, 1),
                rewrite("mul_one", 0.0001, 2, 0),
                rewrite("inplace", 0.0005, 1, 1),
                rewrite("neg_neg", 0.0006, 0, 0)};
  return F;
}

std::string summary(const FunctionProfile &F, SummaryOptions Opts = {}) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printFunctionSummary(OS, F, Opts);
  return S;
}

std::string toJSON(const Profile &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeProfileJSON(OS, P);
  return S;
}

std::string errorOf(llvm::StringRef Text) {
  llvm::Expected<Profile> P = readProfileJSON(Text, "a.json");
  if (P)
    return "(no error)";
  return llvm::toString(P.takeError());
}

const RewriteRunTime *runTime(const std::vector<RewriteRunTime> &Rows,
                              llvm::StringRef Name) {
  for (const RewriteRunTime &R : Rows)
    if (R.Rewrite == Name)
      return &R;
  return nullptr;
}

TEST(OptimizerProfile, RunTimeOfEachRewritesApplies) {
  FunctionProfile F = optimized();
  std::vector<RewriteRunTime> Rows = rewriteRunTimes(F);
  // Every rewrite of the optimizer, in its order, also those that made no
  // Apply.
  ASSERT_EQ(Rows.size(), 6u);
  EXPECT_EQ(Rows[0].Rewrite, "merge");
  EXPECT_EQ(Rows[5].Rewrite, "neg_neg");
  // merge made Applies 2 and 3 (3 twice, counted once).
  EXPECT_DOUBLE_EQ(runTime(Rows, "merge")->Seconds, 0.2 + 0.1);
  EXPECT_EQ(runTime(Rows, "merge")->Applies, 2u);
  EXPECT_EQ(runTime(Rows, "merge")->Calls, 20u);
  // Apply 1 counts for both rewrites that made it.
  EXPECT_DOUBLE_EQ(runTime(Rows, "fusion")->Seconds, 0.3);
  EXPECT_DOUBLE_EQ(runTime(Rows, "inplace")->Seconds, 0.3);
  EXPECT_EQ(runTime(Rows, "mul_one")->Applies, 0u);
  EXPECT_DOUBLE_EQ(runTime(Rows, "mul_one")->Seconds, 0);

  // A rewrite an Apply names that this optimizer did not run comes last.
  F.Applies[0].Rewrites = {"gemm"};
  Rows = rewriteRunTimes(F);
  ASSERT_EQ(Rows.size(), 7u);
  EXPECT_EQ(Rows[6].Rewrite, "gemm");
  EXPECT_DOUBLE_EQ(Rows[6].Seconds, 0.4);
}

TEST(OptimizerProfile, ProvenanceText) {
  FunctionProfile F = optimized();
  EXPECT_EQ(profile::provenanceText(F.Applies[0]), "");
  EXPECT_EQ(profile::provenanceText(F.Applies[1]),
            "from t.graph:5,6,7 (fusion, inplace)");
  // Each line once, in order (a fused Apply's own line is its last).
  EXPECT_EQ(profile::provenanceText(F.Applies[3]),
            "from t.graph:8,9 (merge, merge)");
  F.Applies[1].SourceLocs = {"t.graph:17", "t.graph:5", "t.graph:9"};
  EXPECT_EQ(profile::provenanceText(F.Applies[1]),
            "from t.graph:5,9,17 (fusion, inplace)");
  ApplyProfile A = F.Applies[1];
  A.SourceLocs = {"/x/a.graph:3", "b.graph:4", "/x/a.graph:5"};
  A.Rewrites = {"merge"};
  EXPECT_EQ(profile::provenanceText(A),
            "from /x/a.graph:3,5, b.graph:4 (merge)");
}

TEST(OptimizerProfile, SectionInPyTensorsStyle) {
  FunctionProfile F = optimized();
  std::string S = summary(F);
  size_t Section = S.find("Optimizer Profile\n-----------------\n");
  ASSERT_NE(Section, std::string::npos) << S;
  // After the Apply table, before the tips.
  EXPECT_LT(S.find("Apply\n------\n"), Section);
  EXPECT_LT(Section, S.find("Here are tips"));
  EXPECT_NE(S.find(" SequentialGraphRewriter fast_run  time 0.010000s for 7/4 "
                   "nodes before/after rewriting\n"
                   "   optimizer_excluding=gemm\n"
                   "       0.001000s for fgraph.validate()\n"),
            std::string::npos)
      << S;
  // Phases by time, largest first; a phase that ran out of visits says so.
  EXPECT_NE(S.find("   time      - (phase, nodes before, nodes after, "
                   "visits)\n"
                   "   0.005000s - ('canonicalize', 6, 4, 12)\n"
                   "   0.001000s - ('merge1', 7, 6, 7)\n"
                   "   0.000500s - ('merge2', 4, 4, 4) - stopped at its visit "
                   "budget\n"),
            std::string::npos)
      << S;
  // Rewrites that applied, by time; the join with the thunks' 1 s.
  EXPECT_NE(S.find("   0.003000s - 1 - 1 - 6/4 - 3.000e-01s ( 30.0%) - fusion "
                   "(fast_run)\n"
                   "   0.002000s - 3 - 0 - 6/4 - 3.000e-01s ( 30.0%) - merge "
                   "(merge, fast_run)\n"
                   "   0.000500s - 1 - 1 - 6/4 - 3.000e-01s ( 30.0%) - inplace "
                   "(fast_run)\n"
                   "   0.000100s - 2 - 0 - 6/4 - - - mul_one (fast_run)\n"
                   "   0.001000s - in 2 rewrites that were not used (tried, "
                   "never applied)\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("counts for each of them"), std::string::npos);

  // The global section: the optimizer's time and validation's.
  EXPECT_NE(S.find("    Rewrite time: 1.000000e-02s (validate "
                   "1.000000e-03s)\n"),
            std::string::npos);

  // Left out when not recorded, or when asked.
  SummaryOptions NoOptimizer;
  NoOptimizer.Optimizer = false;
  EXPECT_EQ(summary(F, NoOptimizer).find("Optimizer Profile"),
            std::string::npos);
  F.Optimizer = OptimizerProfile();
  EXPECT_EQ(summary(F).find("Optimizer Profile"), std::string::npos);
}

TEST(OptimizerProfile, OptimizerNoneSaysNothingRan) {
  FunctionProfile F = function("f", {apply(0, "Dot", "Dot", 1, 0.1)});
  F.Optimizer.Recorded = true;
  F.Optimizer.Name = "None";
  F.Optimizer.Runs = 1;
  F.Optimizer.NodesBefore = F.Optimizer.NodesAfter = 1;
  EXPECT_NE(summary(F).find("Optimizer Profile\n-----------------\n  "
                            "optimizer=None: the graph ran as written (1 "
                            "Apply nodes, no rewrite tried)\n"),
            std::string::npos);
}

TEST(OptimizerProfile, ApplyTableSaysWhatARewrittenApplyStandsFor) {
  std::string S = summary(optimized());
  // As written: where it was written, as before.
  EXPECT_NE(S.find("Dot(v0)\n    at t.graph:1\n    input 0:"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("Composite(v1)\n    from t.graph:5,6,7 (fusion, "
                   "inplace)\n    input 0:"),
            std::string::npos)
      << S;
  EXPECT_EQ(S.find("at t.graph:6"), std::string::npos);
}

TEST(OptimizerProfile, JSONRoundTripVersion3) {
  Profile P;
  P.Functions = {optimized(), function("plain", {apply(0, "A", "A", 1, 1)})};
  std::string Text = toJSON(P);
  EXPECT_NE(Text.find("\"graphjit_profile\": 3"), std::string::npos);
  EXPECT_NE(Text.find("\"source_locs\": ["), std::string::npos);
  llvm::Expected<Profile> Back = readProfileJSON(Text, "t.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(*Back == P);
  EXPECT_EQ(Back->Functions[0].Optimizer.Rewrites[0].Tags,
            (std::vector<std::string>{"merge", "fast_run"}));
  EXPECT_EQ(Back->Functions[0].Applies[1].Rewrites,
            (std::vector<std::string>{"fusion", "inplace"}));
  EXPECT_DOUBLE_EQ(Back->Functions[0].Compile.Validate, 0.001);
  EXPECT_FALSE(Back->Functions[1].Optimizer.Recorded);
  EXPECT_EQ(toJSON(*Back), Text);
}

TEST(OptimizerProfile, OlderVersionsReadWithoutIt) {
  // A version 2 file knows no optimizer, provenance or validate time:
  // whatever it holds under those names is not read.
  const char *V2 = R"J({"graphjit_profile": 2, "functions": [
    {"name": "f", "calls": 1, "call_seconds": 1, "driver_seconds": 0.5,
     "compile": {"rewrite": 0.5, "validate": 0.25},
     "optimizer": {"recorded": true, "name": "fast_run"},
     "applies": [{"id": 0, "name": "A(x)", "op": "A", "op_class": "A",
                  "type": "C", "calls": 1, "seconds": 0.25,
                  "rewrites": ["merge"]}]}]})J";
  llvm::Expected<Profile> P = readProfileJSON(V2, "v2.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const FunctionProfile &F = P->Functions[0];
  EXPECT_FALSE(F.Optimizer.Recorded);
  EXPECT_TRUE(F.Applies[0].Rewrites.empty());
  EXPECT_DOUBLE_EQ(F.Compile.Rewrite, 0.5);
  EXPECT_DOUBLE_EQ(F.Compile.Validate, 0);
  EXPECT_EQ(summary(F).find("Optimizer Profile"), std::string::npos);
  // Version 1 too.
  std::string V1 = V2;
  V1.replace(V1.find("2"), 1, "1");
  EXPECT_TRUE(bool(readProfileJSON(V1, "v1.json")));
}

TEST(OptimizerProfile, JSONErrorsNameThePath) {
  std::string Base = R"J({"graphjit_profile": 3, "functions": [
    {"name": "f", "calls": 1, "call_seconds": 1, "driver_seconds": 0.5,
     "optimizer": OPT,
     "applies": [{"id": 0, "name": "A(x)", "op": "A", "op_class": "A",
                  "type": "C", "calls": 1, "seconds": 0.25, APPLY}]}]})J";
  auto With = [&](const std::string &Opt, const std::string &Apply) {
    std::string S = Base;
    S.replace(S.find("OPT"), 3, Opt);
    S.replace(S.find("APPLY"), 5, Apply);
    return S;
  };
  EXPECT_EQ(
      errorOf(With(R"({"recorded": true, "rewrites": [{"name": "merge"}]})",
                   R"("loc": "")")),
      "(no error)");
  EXPECT_EQ(errorOf(With(R"({"name": "fast_run"})", R"("loc": "")")),
            "a.json: functions[0].optimizer.recorded: missing");
  EXPECT_EQ(errorOf(With(R"([])", R"("loc": "")")),
            "a.json: functions[0].optimizer: expected an object");
  EXPECT_EQ(errorOf(With(R"({"recorded": true, "rewrites": [{"name": "m"},
                           {"name": "m"}]})",
                         R"("loc": "")")),
            "a.json: functions[0].optimizer.rewrites[1].name: duplicate "
            "rewrite 'm' in this function");
  EXPECT_EQ(errorOf(With(R"({"recorded": true, "rewrites": [{"name": "m",
                           "tags": ["a", 3]}]})",
                         R"("loc": "")")),
            "a.json: functions[0].optimizer.rewrites[0].tags[1]: expected a "
            "string");
  EXPECT_EQ(errorOf(With(R"({"recorded": true, "rewrites": [{"name": "m",
                           "applied": -1}]})",
                         R"("loc": "")")),
            "a.json: functions[0].optimizer.rewrites[0].applied: expected an "
            "integer >= 0");
  EXPECT_EQ(errorOf(With(R"({"recorded": true, "phases": [{"seconds": 1}]})",
                         R"("loc": "")")),
            "a.json: functions[0].optimizer.phases[0].name: missing");
  EXPECT_EQ(
      errorOf(With(R"({"recorded": true, "seconds": -2})", R"("loc": "")")),
      "a.json: functions[0].optimizer.seconds: expected a finite number "
      ">= 0");
  EXPECT_EQ(errorOf(With(R"({"recorded": false})", R"("rewrites": "merge")")),
            "a.json: functions[0].applies[0].rewrites: expected an array");
  EXPECT_EQ(errorOf(With(R"({"recorded": false})", R"("source_locs": [1])")),
            "a.json: functions[0].applies[0].source_locs[0]: expected a "
            "string");
}

TEST(OptimizerProfile, MergeSumsRunsOfOneFunction) {
  Profile A, B;
  A.Functions = {optimized()};
  B.Functions = {optimized()};
  B.Functions[0].Optimizer.Rewrites.push_back(rewrite("cast_cast", 0.5, 1, 0));
  B.Functions[0].Optimizer.Phases[1].BudgetExhausted = true;
  B.Functions[0].Optimizer.Including = "fusion";
  llvm::Expected<Profile> S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  const OptimizerProfile &O = S->Functions[0].Optimizer;
  ASSERT_TRUE(O.Recorded);
  EXPECT_EQ(O.Runs, 2u);
  EXPECT_DOUBLE_EQ(O.Seconds, 0.02);
  EXPECT_DOUBLE_EQ(O.ValidateSeconds, 0.002);
  EXPECT_DOUBLE_EQ(S->Functions[0].Compile.Validate, 0.002);
  // The same graph: node counts are not added.
  EXPECT_EQ(O.NodesBefore, 7u);
  EXPECT_EQ(O.NodesAfter, 4u);
  EXPECT_EQ(O.Name, "fast_run");
  EXPECT_EQ(O.Including, "(none); fusion");
  ASSERT_EQ(O.Rewrites.size(), 7u);
  EXPECT_EQ(O.Rewrites[0].Name, "merge");
  EXPECT_EQ(O.Rewrites[0].Applied, 6u);
  EXPECT_DOUBLE_EQ(O.Rewrites[0].Seconds, 0.004);
  EXPECT_EQ(O.Rewrites[2].NodesCreated, 2u);
  EXPECT_EQ(O.Rewrites[6].Name, "cast_cast");
  EXPECT_EQ(O.Rewrites[6].Applied, 1u);
  EXPECT_EQ(O.Phases[1].Visits, 24u);
  EXPECT_TRUE(O.Phases[1].BudgetExhausted);
  EXPECT_EQ(S->Functions[0].Applies[1].Rewrites,
            (std::vector<std::string>{"fusion", "inplace"}));
  // The join on the sum: merge's Applies ran 0.6 s of 2 s.
  std::string Text = summary(S->Functions[0]);
  EXPECT_NE(Text.find("0.020000s for 7/4 nodes before/after rewriting (2 "
                      "runs)"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("0.004000s - 6 - 0 - 6/4 - 6.000e-01s ( 30.0%) - merge"),
            std::string::npos)
      << Text;

  // A run without the optimizer's profile: the sum has none.
  B.Functions[0].Optimizer = OptimizerProfile();
  S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_FALSE(S->Functions[0].Optimizer.Recorded);
}

TEST(OptimizerProfile, SumOfFunctionsAddsTheirOptimizers) {
  Profile P;
  P.Functions = {optimized(), optimized()};
  P.Functions[1].Name = "predict";
  P.Functions[1].Optimizer.Name = "fast_compile";
  FunctionProfile S = sumOfFunctions(P);
  ASSERT_TRUE(S.Optimizer.Recorded);
  EXPECT_EQ(S.Optimizer.Name, "fast_run; fast_compile");
  EXPECT_EQ(S.Optimizer.NodesBefore, 14u);
  EXPECT_EQ(S.Optimizer.NodesAfter, 8u);
  EXPECT_EQ(S.Optimizer.Rewrites[0].Applied, 6u);
  EXPECT_DOUBLE_EQ(rewriteRunTimes(S)[0].Seconds, 0.6);

  P.Functions[1].Optimizer = OptimizerProfile();
  EXPECT_FALSE(sumOfFunctions(P).Optimizer.Recorded);
}

TEST(OptimizerProfile, DiffShowsTheOptimizersTime) {
  Profile A, B;
  A.Functions = {optimized()};
  B.Functions = {optimized()};
  B.Functions[0].Compile.Rewrite = 0.03;
  B.Functions[0].Compile.Validate = 0.002;
  B.Functions[0].Optimizer.Rewrites[2].Seconds = 0.013;
  B.Functions[0].Optimizer.Rewrites[2].Applied = 4;
  ProfileDiff D = diffProfiles(A, B);
  EXPECT_DOUBLE_EQ(D.RewriteSecondsA, 0.01);
  EXPECT_DOUBLE_EQ(D.RewriteSecondsB, 0.03);
  EXPECT_DOUBLE_EQ(D.ValidateSecondsB, 0.002);
  ASSERT_EQ(D.Rewrites.size(), 6u);
  EXPECT_EQ(D.Rewrites[0].Key, "fusion");
  EXPECT_EQ(D.Rewrites[0].State, DiffRow::Changed);
  EXPECT_EQ(D.Rewrites[0].CallsB, 4u);
  EXPECT_DOUBLE_EQ(D.Rewrites[0].difference(), 0.01);
  EXPECT_EQ(D.Rewrites[1].State, DiffRow::Same);
  std::string S;
  llvm::raw_string_ostream OS(S);
  printDiff(OS, D, "a.json", "b.json");
  EXPECT_NE(S.find("  Time in rewriting: A 1.000000e-02s (validate "
                   "1.000000e-03s), B 3.000000e-02s (validate "
                   "2.000000e-03s), difference +2.000000e-02s\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("Rewrites\n---\n<time A> <time B> <difference> <ratio "
                   "B/A> <#applied A> <#applied B> <status> <Rewrite name>\n"
                   "  3.000e-03s  1.300e-02s  +1.000e-02s      4.333         "
                   "1         4  changed  train: fusion\n"),
            std::string::npos)
      << S;

  // Without the optimizer's profile on one side: only the total time.
  B.Functions[0].Optimizer = OptimizerProfile();
  EXPECT_TRUE(diffProfiles(A, B).Rewrites.empty());
}

//===----------------------------------------------------------------------===//
// A compiled function's profile.
//===----------------------------------------------------------------------===//

const char *Duplicates = R"(
func f(x: f64[n]) -> (r) {
  a = exp(x)
  b = exp(x)
  c = mul(a, 1.0)
  r = add(c, b)
}
)";

TEST(OptimizerProfile, CompiledFunctionRecordsWhatTheOptimizerDid) {
  auto M = parseGraph(Duplicates, "dup.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  FunctionGraph &G = *(*M)->functions().front();
  CompileOptions O;
  O.Linker = LinkerKind::Py;
  O.ProfileOptimizer = true;
  auto Fn = Function::compile(G, O);
  ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
  NDArray X = NDArray::zeros(DType::F64, {8});
  for (int I = 0; I < 3; ++I)
    ASSERT_TRUE(bool((*Fn)->call({X})));
  ASSERT_NE((*Fn)->profile(), nullptr);
  Profile P = (*Fn)->profile()->profile();
  ASSERT_EQ(P.Functions.size(), 1u);
  const FunctionProfile &F = P.Functions[0];
  const RewriteReport &R = (*Fn)->rewriteReport();

  // The report's facts, copied.
  const OptimizerProfile &Opt = F.Optimizer;
  ASSERT_TRUE(Opt.Recorded);
  EXPECT_EQ(Opt.Name, "fast_run");
  EXPECT_EQ(Opt.Runs, 1u);
  EXPECT_EQ(Opt.Seconds, R.Seconds);
  EXPECT_EQ(Opt.ValidateSeconds, R.ValidateSeconds);
  EXPECT_EQ(F.Compile.Validate, R.ValidateSeconds);
  EXPECT_EQ(F.Compile.Rewrite, R.Seconds);
  EXPECT_EQ(Opt.NodesBefore, 4u);
  EXPECT_EQ(Opt.NodesAfter, 2u);
  ASSERT_EQ(Opt.Rewrites.size(), R.Rewrites.size());
  for (size_t I = 0; I < R.Rewrites.size(); ++I) {
    EXPECT_EQ(Opt.Rewrites[I].Name, R.Rewrites[I].Name);
    EXPECT_EQ(Opt.Rewrites[I].Applied, R.Rewrites[I].Applied);
    EXPECT_EQ(Opt.Rewrites[I].Tags, R.Rewrites[I].Tags);
  }
  ASSERT_EQ(Opt.Phases.size(), R.Phases.size());

  // Provenance from the graph that ran: the merged exp stands for lines 3
  // and 4.
  const FunctionGraph &Ran = (*Fn)->graph();
  ASSERT_EQ(F.Applies.size(), Ran.numApplies());
  double MergeSeconds = 0;
  unsigned Merged = 0;
  for (const Apply *A : Ran.applies()) {
    const ApplyProfile &AP = F.Applies[A->id()];
    EXPECT_EQ(AP.Rewrites, std::vector<std::string>(A->rewrites().begin(),
                                                    A->rewrites().end()));
    EXPECT_EQ(AP.Calls, 3u);
    if (llvm::is_contained(A->rewrites(), "merge")) {
      MergeSeconds += AP.Seconds;
      ++Merged;
      EXPECT_EQ(AP.SourceLocs,
                (std::vector<std::string>{"dup.graph:3", "dup.graph:4"}));
    }
  }
  EXPECT_EQ(Merged, 1u);
  std::vector<RewriteRunTime> Joined = rewriteRunTimes(F);
  const RewriteRunTime *Join = runTime(Joined, "merge");
  ASSERT_NE(Join, nullptr);
  EXPECT_EQ(Join->Applies, 1u);
  EXPECT_DOUBLE_EQ(Join->Seconds, MergeSeconds);

  std::string S;
  llvm::raw_string_ostream OS(S);
  (*Fn)->profile()->summary(OS);
  EXPECT_NE(S.find("Optimizer Profile"), std::string::npos) << S;
  EXPECT_NE(S.find("from dup.graph:3,4 (merge)"), std::string::npos) << S;
}

TEST(OptimizerProfile, OffByDefaultAndNoneRunsNothing) {
  auto M = parseGraph(Duplicates, "dup.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  FunctionGraph &G = *(*M)->functions().front();
  CompileOptions O;
  O.Linker = LinkerKind::Py;
  O.Profile = true;
  auto Fn = Function::compile(G, O);
  ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
  FunctionProfile F = (*Fn)->profile()->profile().Functions[0];
  EXPECT_FALSE(F.Optimizer.Recorded);
  // The validate time is always there.
  EXPECT_EQ(F.Compile.Validate, (*Fn)->rewriteReport().ValidateSeconds);

  O.ProfileOptimizer = true;
  O.Rewrite = RewriteOptions();
  O.Rewrite->Optimizer = "None";
  Fn = Function::compile(G, O);
  ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
  F = (*Fn)->profile()->profile().Functions[0];
  ASSERT_TRUE(F.Optimizer.Recorded);
  EXPECT_EQ(F.Optimizer.Name, "None");
  EXPECT_EQ(F.Optimizer.NodesAfter, 4u);
  EXPECT_TRUE(F.Optimizer.Rewrites.empty());
  for (const ApplyProfile &A : F.Applies)
    EXPECT_TRUE(A.Rewrites.empty() && A.SourceLocs.empty());
}

} // namespace
