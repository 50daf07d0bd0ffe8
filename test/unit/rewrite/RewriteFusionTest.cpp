//===- RewriteFusionTest.cpp - fusion, in-place, gemm and stabilize ------===//
//
// What the later phases of fast_run do to a graph: each rewrite fires where
// it should and not where it must not (a value read twice, a function
// input, a broadcast that would recompute, an integer pow), and the Apply
// it makes stands for every statement it replaced. That the results compute
// the same is RewriteResultsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "RewriteTestUtil.h"

using namespace graphjit;
using namespace graphjit::test;

namespace {

const Apply *onlyApply(const Rewritten &W) {
  if (!W.G || W.G->numApplies() != 1)
    return nullptr;
  return W.G->applies()[0];
}

std::vector<std::string> locs(const Apply &A) {
  std::vector<std::string> L;
  for (const SourceLoc &S : A.sourceLocs())
    L.push_back(S.str());
  return L;
}

} // namespace

//===-- fusion ------------------------------------------------------------===//

TEST(RewriteFusion, TheTutorialBecomesOneComposite) {
  Rewritten W = rewriteText(R"(
func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  s = add(x, y)
  t = add(s, z)
  r = mul(t, 2.0)
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("Elemwise{Composite{((i0 + i1) + i2) * i3}}", A->op().name());
  EXPECT_EQ("r", A->output()->name());
  EXPECT_EQ((std::vector<std::string>{"rw.graph:5:7", "rw.graph:4:7",
                                      "rw.graph:3:7"}),
            locs(*A));
  EXPECT_EQ("elemwise_fusion", names(A->rewrites()));
  EXPECT_EQ(2u, applied(W.R, "elemwise_fusion"));
  // Its inputs are the function's: nothing to overwrite.
  EXPECT_EQ(0u, applied(W.R, "elemwise_inplace"));
}

TEST(RewriteFusion, ExcludingFusionAndInplaceKeepsTheThreeApplies) {
  RewriteOptions O;
  O.Excluding = {"fusion", "inplace"};
  Rewritten W = rewriteText(R"(
func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {
  s = add(x, y)
  t = add(s, z)
  r = mul(t, 2.0)
}
)",
                            O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, countOps(*W.G, "Elemwise{add,no_inplace}"));
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{mul,no_inplace}"));
}

TEST(RewriteFusion, AValueReadTwiceIsNotFused) {
  // s is read by t and is an output: fusing it would compute it twice.
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n]) -> (s, t) {
  s = exp(x)
  t = mul(s, y)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies()) << W.Text;
  EXPECT_EQ(0u, applied(W.R, "elemwise_fusion"));
}

TEST(RewriteFusion, TreesFuseWithSharedInputsOnce) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n]) -> (r) {
  r = true_div(exp(x), add(x, y))
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("Elemwise{Composite{exp(i0) / (i0 + i1)}}", A->op().name());
  EXPECT_EQ(2u, A->inputs().size());
}

TEST(RewriteFusion, ASmallerOutputBroadcastIsNotTakenIn) {
  // exp(v) has n elements, the product n*m: fused, exp would run m times
  // per element.
  Rewritten W = rewriteText(R"(
func f(x: f64[n, m], v: f64[m]) -> (r) {
  r = mul(x, exp(v))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies()) << W.Text;
}

TEST(RewriteFusion, DTypesFollowEveryStep) {
  // The i32 sum wraps in i32 before it is cast; fused, it still does.
  Rewritten W = rewriteText(R"(
func f(a: i32[n], b: i32[n]) -> (r) {
  r = mul(cast(add(a, b), dtype=f32), 0.5)
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ(DType::F32, A->output()->type().Dtype);
  EXPECT_NE(std::string::npos, A->op().name().find("Cast{float32}"));
}

TEST(RewriteFusion, IntegerPowStaysOut) {
  Rewritten W = rewriteText(R"(
func f(a: i64[n], b: i64[n]) -> (r) {
  r = add(pow(a, b), 1)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies()) << W.Text;
}

//===-- in-place ----------------------------------------------------------===//

TEST(RewriteInplace, AnIntermediateDyingHereIsOverwritten) {
  // Without fusion, exp(x) dies in the log: the log writes over it.
  RewriteOptions O;
  O.Excluding = {"fusion"};
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  e = exp(x)
  r = log(e)
}
)",
                            O);
  ASSERT_TRUE(W.G);
  ASSERT_EQ(2u, W.G->numApplies()) << W.Text;
  const Apply *Log = W.G->applies()[1];
  EXPECT_EQ("Elemwise{log}[(0, 0)]", Log->op().name());
  EXPECT_EQ(OutputAlias::Inplace, Log->op().outputAlias(0).K);
  EXPECT_EQ("elemwise_inplace", names(Log->rewrites()));
  // The exp reads the function's input: never overwritten.
  EXPECT_EQ("Elemwise{exp,no_inplace}", W.G->applies()[0]->op().name());
}

TEST(RewriteInplace, NeverOverAValueStillNeeded) {
  RewriteOptions O;
  O.Excluding = {"fusion"};
  Rewritten W = rewriteText(R"(
shared w: f64[4] = ones
func f(x: f64[4]) -> (e, r, v) {
  e = exp(x)
  r = log(e)
  v = neg(w)
  u = sqr(exp(r))
  update w = neg(u)
}
)",
                            O);
  ASSERT_TRUE(W.G);
  std::vector<std::string> Overwritten;
  for (const Apply *A : W.G->applies()) {
    OutputAlias Al = A->op().outputAlias(0);
    if (Al.K != OutputAlias::Inplace)
      continue;
    // Only a result of the function's own, read by this Apply alone, whose
    // memory is not another value's.
    const Variable *V = A->inputs()[Al.Input];
    ASSERT_TRUE(V->owner()) << A->op().name();
    EXPECT_NE(OutputAlias::View, V->owner()->op().outputAlias(0).K);
    unsigned Reads = 0;
    for (const Apply *B : W.G->applies())
      Reads += llvm::count(B->inputs(), V);
    EXPECT_EQ(1u, Reads) << A->op().name();
    Overwritten.push_back(V->owner()->op().name());
  }
  // e and r are outputs, w is shared, x an input: only exp(r) and the sqr
  // over it are overwritten.
  EXPECT_EQ((std::vector<std::string>{"Elemwise{exp,no_inplace}",
                                      "Elemwise{sqr}[(0, 0)]"}),
            Overwritten)
      << W.Text;
}

TEST(RewriteInplace, AFusedChainOverwritesTheIntermediateOfAReduction) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n, m]) -> (r) {
  s = sum(x, axis=[1])
  r = mul(exp(s), 2.0)
}
)");
  ASSERT_TRUE(W.G);
  ASSERT_EQ(2u, W.G->numApplies()) << W.Text;
  EXPECT_EQ("Elemwise{Composite{exp(i0) * i1}}[(0, 0)]",
            W.G->applies()[1]->op().name());
}

TEST(RewriteInplace, AGraphMayNotOverwriteWhatOthersSee) {
  // The graph format can ask for an in-place op; validation refuses one
  // that would write over the caller's array, a constant or a value read
  // elsewhere, whatever the optimizer.
  struct Case {
    const char *Body, *Why;
  } Cases[] = {
      {"r = mul(x, y, inplace=1)", "(y), which is an input of the function"},
      {"r = mul(x, 2.0, inplace=1)", "which is a constant"},
      {"e = exp(x)\n  r = mul(e, exp(e), inplace=0)",
       "which is read elsewhere"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Body);
    auto M = parse(std::string("func f(x: f64[n], y: f64[n]) -> (r) {\n  ") +
                   C.Body + "\n}\n");
    ASSERT_TRUE(M);
    for (const char *Opt : {"None", "fast_run"}) {
      RewriteOptions O;
      O.Optimizer = Opt;
      auto G = rewriteFunction(*M->functions().front(), O);
      if (std::string(Opt) == "fast_run") {
        // The optimizer drops in-place ops first and decides anew.
        EXPECT_TRUE(bool(G)) << (G ? "" : llvm::toString(G.takeError()));
        continue;
      }
      ASSERT_FALSE(bool(G));
      std::string Msg = llvm::toString(G.takeError());
      EXPECT_NE(std::string::npos, Msg.find(C.Why)) << Msg;
    }
  }
}

TEST(RewriteInplace, RewritingARewrittenGraphKeepsConstantsIntact) {
  // Once in place over the alloc, folding the alloc into a constant would
  // make every call write over the constant.
  RewriteOptions First;
  First.Excluding = {"constant_folding", "merge"};
  Rewritten W = rewriteText(R"(
func f(s: f64[]) -> (a) {
  a = mul(s, alloc(1.0, shape=[3]))
}
)",
                            First);
  ASSERT_TRUE(W.G);
  ASSERT_EQ(1u, countOps(*W.G, "Elemwise{mul}[(0, 1)]")) << W.Text;
  auto Again = rewriteFunction(*W.G, {});
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  for (const Apply *A : (*Again)->applies()) {
    OutputAlias Al = A->op().outputAlias(0);
    if (Al.K == OutputAlias::Inplace) {
      EXPECT_NE(Variable::Constant, A->inputs()[Al.Input]->kind());
    }
  }
}

//===-- gemm --------------------------------------------------------------===//

TEST(RewriteGemm, BiasAddBecomesGemm) {
  Rewritten W = rewriteText(R"(
func f(x: f32[n, 4], w: f32[4, 3], b: f32[3]) -> (r) {
  r = add(dot(x, w), b)
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("gemm", A->op().formatName());
  EXPECT_EQ("b", A->inputs()[0]->name());
  EXPECT_EQ("x", A->inputs()[1]->name());
  EXPECT_EQ("w", A->inputs()[2]->name());
  EXPECT_EQ(1u, applied(W.R, "dot_to_gemm"));
}

TEST(RewriteGemm, SgdStepWithATransposeBecomesOneGemm) {
  Rewritten W = rewriteText(R"(
shared W: f64[4, 3] = ones
func f(h: f64[n, 4], d: f64[n, 3]) -> (z) {
  z = sum(d)
  update W = sub(W, mul(0.1, dot(transpose(h), d)))
}
)");
  ASSERT_TRUE(W.G);
  ASSERT_EQ(2u, W.G->numApplies()) << W.Text;
  const Apply *G = W.G->applies()[1];
  EXPECT_EQ("gemm", G->op().formatName()) << W.Text;
  const AttrMap &A = G->op().attrs();
  EXPECT_DOUBLE_EQ(-0.1, A.at("alpha").F);
  EXPECT_DOUBLE_EQ(1.0, A.at("beta").F);
  EXPECT_TRUE(A.at("trans_a").B);
  EXPECT_FALSE(A.at("trans_b").B);
  EXPECT_EQ("h", G->inputs()[1]->name());
}

TEST(RewriteGemm, GradientWithWeightDecayFoldsIntoBeta) {
  // add(dot(x.T, g), mul(0.02, w)): beta = 0.02 over w.
  Rewritten W = rewriteText(R"(
func f(x: f64[n, 4], g: f64[n], w: f64[4]) -> (gw) {
  gw = add(dot(transpose(x), g), mul(0.02, w))
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("gemm", A->op().formatName());
  EXPECT_DOUBLE_EQ(0.02, A->op().attrs().at("beta").F);
  EXPECT_EQ("w", A->inputs()[0]->name());
}

TEST(RewriteGemm, NotForIntegersNorAProductReadTwice) {
  Rewritten W = rewriteText(R"(
func f(x: i64[n, 4], w: i64[4], y: f64[n, 4], v: f64[4]) -> (r, p, q) {
  r = add(dot(x, w), 1)
  p = dot(y, v)
  q = add(p, 1.0)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, applied(W.R, "dot_to_gemm")) << W.Text;
}

TEST(RewriteGemm, NotWhenCMayBroadcastTheProductLarger) {
  // The product is m x 1; c is m x p: add broadcasts to m x p, which gemm
  // cannot compute (and would refuse at run time).
  Rewritten W = rewriteText(R"(
func f(x: f64[m, k], w: f64[k, 1], c: f64[m, p]) -> (y) {
  y = add(dot(x, w), c)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, applied(W.R, "dot_to_gemm")) << W.Text;
}

TEST(RewriteGemm, NotWithAZeroCoefficient) {
  // 0 * dot(a, b) is NaN where a holds an infinity; gemm with alpha 0
  // would not read a at all.
  Rewritten W = rewriteText(R"(
func f(a: f64[n, k], b: f64[k, m], c: f64[n, m]) -> (y) {
  y = add(mul(0.0, dot(a, b)), c)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, applied(W.R, "dot_to_gemm")) << W.Text;
}

//===-- printing ----------------------------------------------------------===//

TEST(RewritePrint, CompositeLiteralsKeepTheirDType) {
  // 0.1 is f32 (x's dtype); read back among the composite's inputs, a bare
  // 0.1 would take k's f64 and the product would be computed in f64.
  Rewritten W = rewriteText(R"(
func f(x: f32[n], k: f64[n]) -> (z) {
  z = add(mul(x, 0.1), k)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_NE(std::string::npos, W.Text.find("cast(0.1, dtype=f32)")) << W.Text;
  auto Back = parseGraph(W.Text, "back.graph");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  const FunctionGraph &F = *(*Back)->functions().front();
  const Apply *Fused = F.outputs()[0]->owner();
  ASSERT_TRUE(Fused);
  EXPECT_EQ(W.G->applies().back()->op().name(), Fused->op().name());
  EXPECT_EQ(DType::F32, Fused->inputs()[1]->type().Dtype);
}

//===-- stabilize ---------------------------------------------------------===//

TEST(RewriteStabilize, LogOfSoftmaxIsLogSoftmax) {
  Rewritten W = rewriteText(R"(
func f(x: f32[n, 10]) -> (r) {
  r = log(softmax(x, axis=1))
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("LogSoftmax{axis=1}", A->op().name());
}

TEST(RewriteStabilize, ExpOverSumOfExpIsSoftmax) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n, 10]) -> (r) {
  e = exp(x)
  r = true_div(e, sum(e, axis=[1], keepdims=true))
}
)");
  const Apply *A = onlyApply(W);
  ASSERT_TRUE(A) << W.Text;
  EXPECT_EQ("Softmax{axis=1}", A->op().name());
}

TEST(RewriteStabilize, SigmoidCrossEntropyUsesSoftplus) {
  RewriteOptions O;
  O.Excluding = {"fusion"};
  Rewritten W = rewriteText(R"(
func f(z: f64[n], y: f64[n]) -> (xent) {
  p = sigmoid(z)
  xent = neg(add(mul(y, log(p)), mul(sub(1.0, y), log(sub(1.0, p)))))
}
)",
                            O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, countOps(*W.G, "Elemwise{log,no_inplace}")) << W.Text;
  EXPECT_EQ(0u, countOps(*W.G, "Elemwise{sigmoid,no_inplace}")) << W.Text;
  EXPECT_EQ(1u, applied(W.R, "log_sigmoid"));
  EXPECT_EQ(1u, applied(W.R, "log1m_sigmoid"));
}

TEST(RewriteStabilize, Log1pAndExpm1) {
  RewriteOptions O;
  O.Excluding = {"fusion"};
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (a, b, c) {
  a = log(add(1.0, x))
  b = sub(exp(x), 1.0)
  c = log(add(exp(x), 1.0))
}
)",
                            O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{log1p,no_inplace}")) << W.Text;
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{expm1,no_inplace}")) << W.Text;
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{softplus,no_inplace}")) << W.Text;
}

TEST(RewriteStabilize, NotWhereTheTypeWouldChange) {
  // 1.0 as an f64 array of 3 broadcasts x: log1p(x) would not.
  RewriteOptions O;
  O.Excluding = {"fusion"};
  Rewritten W = rewriteText(R"(
func f(x: f64[]) -> (a) {
  a = log(add(alloc(1.0, shape=[3]), x))
}
)",
                            O);
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, applied(W.R, "log1p_from_log")) << W.Text;
}
