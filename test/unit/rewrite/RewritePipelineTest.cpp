//===- RewritePipelineTest.cpp - The optimizer's options, report, checks --===//
//
// The options select rewrites by optimizer name and tags as Theano's do
// (fast_run, fast_compile, None, optimizer_excluding, optimizer_including),
// the report counts what each rewrite and phase did, and validation rejects
// broken graphs, naming the rewrite that broke them. What each rewrite does
// is RewriteTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "RewriteTestUtil.h"
#include "graphjit/Builder.h"
#include "graphjit/OpRegistry.h"
#include "rewrite/Pipeline.h"

using namespace graphjit;
using namespace graphjit::test;

//===-- options -----------------------------------------------------------===//

namespace {
const char *Mixed = R"(
func f(x: f64[n]) -> (r) {
  a = exp(mul(x, 1.0))
  b = exp(mul(x, 1.0))
  r = add(a, b, mul(2.0, 3.0))
  unused = log(x)
}
)";
} // namespace

TEST(RewriteOptions, FastRunIsTheDefault) {
  Rewritten W = rewriteText(Mixed);
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n]) -> (r) {\n"
            "  a = exp(x)\n"
            "  r = add(a, a, 6.0)\n"
            "}\n",
            W.Text);
  EXPECT_EQ("fast_run", W.R.Optimizer);
  EXPECT_EQ(7u, W.R.NodesBefore);
  EXPECT_EQ(2u, W.R.NodesAfter);
}

TEST(RewriteOptions, FastCompileOnlyMerges) {
  RewriteOptions O;
  O.Optimizer = "fast_compile";
  Rewritten W = rewriteText(Mixed, O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n]) -> (r) {\n"
            "  a = exp(mul(x, 1.0))\n"
            "  r = add(a, a, mul(2.0, 3.0))\n"
            "}\n",
            W.Text);
  ASSERT_EQ(1u, W.R.Rewrites.size());
  EXPECT_EQ("merge", W.R.Rewrites[0].Name);
  // merge1 reaches merge's fixed point; the phases after it, left with
  // merge alone, would find nothing.
  ASSERT_EQ(1u, W.R.Phases.size());
  EXPECT_EQ("merge1", W.R.Phases[0].Name);
}

TEST(RewriteOptions, NoneCopiesEverything) {
  RewriteOptions O;
  O.Optimizer = "None";
  auto M = parse(Mixed);
  ASSERT_TRUE(M);
  const FunctionGraph &F = *M->functions().front();
  RewriteReport R;
  auto G = rewriteFunction(F, O, &R);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  std::string Before, After;
  llvm::raw_string_ostream B(Before), A(After);
  printFunction(F, B);
  printFunction(**G, A);
  EXPECT_EQ(Before, After); // the unused log too
  EXPECT_EQ(F.numApplies(), (*G)->numApplies());
  EXPECT_TRUE(R.Rewrites.empty());
  EXPECT_TRUE(R.Phases.empty());
  EXPECT_EQ(R.NodesBefore, R.NodesAfter);
  EXPECT_EQ(M.get(), (*G)->module());
  EXPECT_EQ(7u, M->functions().front()->numApplies()); // F unchanged
  EXPECT_EQ(1u, M->functions().size()); // the copy is not the module's
}

TEST(RewriteOptions, ExcludingByTagOrName) {
  RewriteOptions O;
  O.Excluding = splitRewriteTags("canonicalize:fusion:inplace");
  Rewritten W = rewriteText(Mixed, O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n]) -> (r) {\n"
            "  a = exp(mul(x, 1.0))\n"
            "  r = add(a, a, 6.0)\n"
            "}\n",
            W.Text);
  EXPECT_EQ(nullptr, stat(W.R, "mul_one"));
  EXPECT_NE(nullptr, stat(W.R, "constant_folding"));

  O.Excluding = {"mul_one", "merge", "fusion"};
  Rewritten N = rewriteText(Mixed, O);
  ASSERT_TRUE(N.G);
  EXPECT_EQ(5u, N.G->numApplies()); // two muls, two exps, the add
  EXPECT_EQ(nullptr, stat(N.R, "merge"));
}

TEST(RewriteOptions, IncludingAddsRewrites) {
  RewriteOptions O;
  O.Optimizer = "fast_compile";
  O.Including = {"constant_folding"};
  Rewritten W = rewriteText(Mixed, O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ(1u, applied(W.R, "constant_folding"));
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{mul,no_inplace}"));

  O.Optimizer = "None";
  O.Including = {"mul_one"};
  auto Sel = selectedRewrites(O);
  ASSERT_TRUE(bool(Sel));
  EXPECT_EQ("mul_one", names(*Sel));
}

TEST(RewriteOptions, UnknownNamesAreErrorsListingTheKnownOnes) {
  auto M = parse(Mixed);
  ASSERT_TRUE(M);
  RewriteOptions O;
  O.Excluding = {"fusoin"};
  auto G = rewriteFunction(*M->functions().front(), O);
  ASSERT_FALSE(bool(G));
  std::string Msg = llvm::toString(G.takeError());
  EXPECT_NE(Msg.find("unknown tag or rewrite 'fusoin' in optimizer_excluding"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("fusion"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("mul_one"), std::string::npos) << Msg;

  O = RewriteOptions();
  O.Including = {"nope"};
  EXPECT_FALSE(bool(selectedRewrites(O)));
  llvm::consumeError(selectedRewrites(O).takeError());

  O = RewriteOptions();
  O.Optimizer = "fast";
  auto Bad = selectedRewrites(O);
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ("unknown optimizer 'fast'; expected one of: fast_run "
            "fast_compile merge None",
            llvm::toString(Bad.takeError()));
}

TEST(RewriteOptions, TagsAndNames) {
  EXPECT_EQ(std::vector<std::string>({"a", "b"}), splitRewriteTags("a::b:"));
  EXPECT_TRUE(splitRewriteTags("").empty());
  std::vector<std::string> Tags = knownRewriteTags();
  for (const char *T :
       {"fast_run", "fast_compile", "merge", "canonicalize", "constant_folding",
        "shape", "fusion", "inplace", "gemm"})
    EXPECT_TRUE(llvm::is_contained(Tags, T)) << T;
  EXPECT_TRUE(std::is_sorted(Tags.begin(), Tags.end()));
  std::vector<std::string> All = rewriteNames();
  EXPECT_EQ("merge", All.front());
  auto Sel = selectedRewrites({});
  ASSERT_TRUE(bool(Sel));
  // fast_run runs every rewrite there is, but the device's placement,
  // which runs exactly when a device is asked for, and legalizing, which
  // runs exactly where a graph needs it.
  EXPECT_TRUE(llvm::is_contained(All, "split_wide_elemwise"));
  std::vector<std::string> Host, Placed;
  for (const std::string &N : All)
    if (N != "split_wide_elemwise") {
      Placed.push_back(N);
      if (!llvm::StringRef(N).starts_with("gpu_"))
        Host.push_back(N);
    }
  EXPECT_EQ(Host, *Sel);
  RewriteOptions Gpu;
  Gpu.Gpu = true;
  auto WithGpu = selectedRewrites(Gpu);
  ASSERT_TRUE(bool(WithGpu));
  EXPECT_EQ(Placed, *WithGpu);
  Gpu.Optimizer = "None";
  WithGpu = selectedRewrites(Gpu);
  ASSERT_TRUE(bool(WithGpu));
  EXPECT_EQ(std::vector<std::string>({"gpu_placement", "gpu_transfer_cut"}),
            *WithGpu);
  Gpu.Excluding = {"gpu"};
  WithGpu = selectedRewrites(Gpu);
  ASSERT_TRUE(bool(WithGpu));
  EXPECT_TRUE(WithGpu->empty());
}

//===-- report ------------------------------------------------------------===//

TEST(RewriteReport, CountsTimesAndNodes) {
  Rewritten W = rewriteText(Mixed);
  ASSERT_TRUE(W.G);
  const RewriteReport &R = W.R;
  // Every rewrite but the device's two and split_wide_elemwise (no add
  // here is too wide).
  EXPECT_EQ(rewriteNames().size() - 3, R.Rewrites.size());
  std::vector<std::string> Phases;
  for (const RewritePhaseStat &P : R.Phases)
    Phases.push_back(P.Name);
  EXPECT_EQ(std::vector<std::string>({"merge1", "canonicalize", "stabilize",
                                      "gemm", "fusion", "merge2", "inplace"}),
            Phases);
  ASSERT_EQ(7u, R.Phases.size());
  // The unused log is gone before the first phase.
  EXPECT_EQ(6u, R.Phases[0].NodesBefore);
  for (size_t I = 1; I < R.Phases.size(); ++I)
    EXPECT_EQ(R.Phases[I - 1].NodesAfter, R.Phases[I].NodesBefore);
  // The add reads the exp twice: neither fusion nor in-place may touch it.
  EXPECT_EQ(2u, R.Phases.back().NodesAfter);
  EXPECT_EQ(0u, applied(R, "elemwise_fusion"));
  EXPECT_EQ(0u, applied(R, "elemwise_inplace"));
  for (const RewritePhaseStat &P : R.Phases) {
    EXPECT_GE(P.Seconds, 0);
    EXPECT_FALSE(P.BudgetExhausted);
    EXPECT_GT(P.Visits, 0u);
  }
  double Sum = 0;
  for (const RewriteStat &S : R.Rewrites) {
    EXPECT_GE(S.Seconds, 0) << S.Name;
    EXPECT_FALSE(S.Tags.empty()) << S.Name;
    Sum += S.Seconds;
  }
  EXPECT_LE(Sum, R.Seconds);
  EXPECT_LE(R.ValidateSeconds, R.Seconds);
  const RewriteStat *Merge = stat(R, "merge");
  ASSERT_TRUE(Merge);
  EXPECT_EQ(std::vector<std::string>({"merge", "fast_run", "fast_compile"}),
            Merge->Tags);
  EXPECT_EQ(6u, Merge->NodesBefore); // from merge1
  EXPECT_EQ(2u, Merge->NodesAfter);  // to merge2
  // merge1: the second mul (with its 1.0), the second exp.
  EXPECT_EQ(2u, Merge->Applied);
  EXPECT_EQ(1u, applied(R, "mul_one"));
  EXPECT_EQ(1u, applied(R, "constant_folding"));
  const RewriteStat *Fold = stat(R, "constant_folding");
  EXPECT_EQ(4u, Fold->NodesBefore); // canonicalize began with 2 muls, exp, add
  EXPECT_EQ(2u, Fold->NodesAfter);
  EXPECT_EQ(0u, Fold->NodesCreated);
}

//===-- validation --------------------------------------------------------===//

TEST(RewriteValidate, AcceptsWhatTheParserBuilds) {
  auto M = parse(Mixed);
  ASSERT_TRUE(M);
  EXPECT_FALSE(bool(validateFunction(*M->functions().front())));
}

TEST(RewriteValidate, RejectsWrongTypesAndForeignVariables) {
  GraphModule M("v.graph");
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", TensorType(DType::F64, {Dim::known(3)}));
  Variable *E = llvm::cantFail(B.apply("exp", {X}));
  B.output(E);
  FunctionGraph &F = B.graph();
  ASSERT_FALSE(bool(validateFunction(F)));

  // An Apply claiming a type its op does not give.
  auto Exp = llvm::cantFail(OpRegistry::get().make("exp", {}, 1));
  FunctionGraph Bad(&M, "bad");
  Variable *BX = Bad.addInput("x", TensorType(DType::F64, {Dim::known(3)}));
  Bad.addApply(Exp, {BX}, {TensorType(DType::F32, {Dim::known(3)})}, {},
               {"a_test_rewrite"});
  Bad.addOutput(Bad.applies()[0]->output());
  llvm::Error Err = validateFunction(Bad);
  ASSERT_TRUE(bool(Err));
  EXPECT_EQ("function 'bad' is not valid: Apply 0 Elemwise{exp,no_inplace} "
            "(<api>, made by a_test_rewrite): its outputs have types "
            "f32[3], but its op gives f64[3]",
            llvm::toString(std::move(Err)));

  // A variable of another function.
  FunctionGraph Foreign(&M, "foreign");
  Foreign.addInput("x", TensorType(DType::F64, {Dim::known(3)}));
  Foreign.addApply(Exp, {X}, {TensorType(DType::F64, {Dim::known(3)})}, {});
  Foreign.addOutput(Foreign.applies()[0]->output());
  Err = validateFunction(Foreign);
  ASSERT_TRUE(bool(Err));
  EXPECT_NE(llvm::toString(std::move(Err))
                .find("input 0 is not a variable of the function"),
            std::string::npos);

  // An output of another function.
  FunctionGraph NoOut(&M, "noout");
  NoOut.addInput("x", TensorType(DType::F64, {Dim::known(3)}));
  NoOut.addOutput(X);
  Err = validateFunction(NoOut);
  ASSERT_TRUE(bool(Err));
  EXPECT_EQ("function 'noout' is not valid: output 0 is not a variable of "
            "the function",
            llvm::toString(std::move(Err)));
}

TEST(RewriteValidate, RejectsBadUpdates) {
  auto M = parse(R"(
shared w: f64[3] = ones
func f(x: f64[3]) -> (x) {
  update w = add(w, x)
}
)");
  ASSERT_TRUE(M);
  FunctionGraph &F = *M->functions().front();
  SharedVariable *W = M->lookupShared("w");
  F.addUpdate(W, F.inputs()[0], {});
  llvm::Error Err = validateFunction(F);
  ASSERT_TRUE(bool(Err));
  EXPECT_EQ("function 'f' is not valid: shared variable 'w' is updated twice",
            llvm::toString(std::move(Err)));

  GraphModule Other("other.graph");
  SharedVariable *W2 =
      Other.addShared("w", TensorType(DType::F64, {Dim::known(3)}), {});
  FunctionGraph G(M.get(), "g");
  Variable *X = G.addInput("x", TensorType(DType::F64, {Dim::known(3)}));
  G.addUpdate(W2, X, {});
  Err = validateFunction(G);
  ASSERT_TRUE(bool(Err));
  EXPECT_NE(llvm::toString(std::move(Err)).find("not a shared variable"),
            std::string::npos);

  FunctionGraph H(M.get(), "h");
  Variable *Y = H.addInput("y", TensorType(DType::F64, {Dim::known(4)}));
  H.addUpdate(W, Y, {});
  Err = validateFunction(H);
  ASSERT_TRUE(bool(Err));
  EXPECT_EQ("function 'h' is not valid: the update of 'w' has type f64[4], "
            "but the shared variable is f64[3]",
            llvm::toString(std::move(Err)));
}

namespace {

using namespace graphjit::rewrite;

/// Test rewrites that break the graph in the ways the pipeline and the
/// validation must catch.
class BrokenRewrite final : public NodeRewrite {
public:
  enum Kind { WrongType, RetypeInPlace, Cycle, Fails };
  explicit BrokenRewrite(Kind K) : NodeRewrite("broken", {"test"}), K(K) {}

  llvm::Expected<std::vector<Replacement>> apply(RewriteGraph &G,
                                                 RNode &N) override {
    if (N.op().formatName() != "exp")
      return std::vector<Replacement>{};
    switch (K) {
    case WrongType: {
      // exp(x) -> sum(x): a scalar for a vector.
      RNode *Sum = llvm::cantFail(G.makeNode("sum", {N.Inputs[0]}));
      return std::vector<Replacement>{{N.Outputs[0], Sum->Outputs[0]}};
    }
    case RetypeInPlace:
      // Behind the pipeline's back: the op of a node changes.
      N.Op = llvm::cantFail(OpRegistry::get().make("sum", {}, 1));
      N.OpName = N.Op->name();
      N.MadeBy.push_back("broken");
      return std::vector<Replacement>{};
    case Cycle: {
      // exp(log(x)): log's output replaced by exp's, which uses it.
      RValue *In = N.Inputs[0];
      if (!In->Owner)
        return std::vector<Replacement>{};
      return std::vector<Replacement>{{In, N.Outputs[0]}};
    }
    case Fails:
      return llvm::createStringError("it broke");
    }
    return std::vector<Replacement>{};
  }

private:
  Kind K;
};

/// Runs only R on F's graph and writes it out and validates it as
/// rewriteFunction does; returns the first error's text.
std::string runBroken(const FunctionGraph &F, BrokenRewrite::Kind K) {
  std::unique_ptr<RewriteGraph> G = RewriteGraph::build(F);
  Pipeline P;
  P.Rewrites.push_back(std::make_unique<BrokenRewrite>(K));
  P.Phases.push_back({"test", {P.Rewrites[0].get()}});
  RewriteReport R;
  if (llvm::Error E = runPipeline(*G, P, R))
    return llvm::toString(std::move(E));
  auto Out = G->write(false);
  if (!Out)
    return llvm::toString(Out.takeError());
  if (llvm::Error E = validateFunction(**Out))
    return llvm::toString(std::move(E));
  return "";
}

} // namespace

TEST(RewriteValidate, NamesTheRewriteThatBrokeTheGraph) {
  auto M = parse(R"(
func f(x: f64[n]) -> (r) {
  r = add(exp(log(x)), 1.0)
}
)");
  ASSERT_TRUE(M);
  const FunctionGraph &F = *M->functions().front();
  EXPECT_EQ("rewrite 'broken' replaced a value of type f64[n] by one of type "
            "f64[] at Apply Elemwise{exp,no_inplace} (rw.graph:3:11)",
            runBroken(F, BrokenRewrite::WrongType));
  EXPECT_EQ("function 'f' is not valid: Apply 1 Sum{axis=all} "
            "(rw.graph:3:11, made by broken): its outputs have types f64[n], "
            "but its op gives f64[]",
            runBroken(F, BrokenRewrite::RetypeInPlace));
  EXPECT_EQ("the rewritten graph has a cycle through Apply "
            "Elemwise{exp,no_inplace} (rw.graph:3:11)",
            runBroken(F, BrokenRewrite::Cycle));
  EXPECT_EQ("rewrite 'broken' failed on Apply Elemwise{exp,no_inplace} "
            "(rw.graph:3:11): it broke",
            runBroken(F, BrokenRewrite::Fails));
}
