//===- RewriteTest.cpp - What each rewrite of the optimizer does ---------===//
//
// Each rewrite fires where it should and not where it must not (types that
// broadcasting or promotion would change, Applies that read inputs), and
// every Apply says which rewrites made it and which lines it stands for.
// The options, the report and validation are RewritePipelineTest.cpp; that
// the results compute the same values is RewriteResultsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "RewriteTestUtil.h"

using namespace graphjit;
using namespace graphjit::test;

//===-- merge -------------------------------------------------------------===//

TEST(RewriteMerge, IdenticalAppliesBecomeOneCoveringBothLines) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n]) -> (r) {
  a = exp(x)
  b = exp(x)
  r = add(a, b)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies());
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{exp,no_inplace}"));
  const Apply *Exp = W.G->applies()[0];
  EXPECT_EQ("exp", Exp->op().formatName());
  EXPECT_EQ("a", Exp->output()->name()); // the first survives, with its name
  ASSERT_EQ(2u, Exp->sourceLocs().size());
  EXPECT_EQ("rw.graph:3:7", Exp->sourceLocs()[0].str());
  EXPECT_EQ("rw.graph:4:7", Exp->sourceLocs()[1].str());
  EXPECT_EQ("rw.graph:3:7", Exp->loc().str());
  EXPECT_EQ("merge", names(Exp->rewrites()));
  // The add was not touched.
  const Apply *Add = W.G->applies()[1];
  EXPECT_TRUE(Add->rewrites().empty());
  EXPECT_EQ(1u, Add->sourceLocs().size());
  EXPECT_EQ(Add->inputs()[0], Add->inputs()[1]);
  EXPECT_EQ(1u, applied(W.R, "merge"));
}

TEST(RewriteMerge, TheFirstWrittenStays) {
  // r's add only becomes s's once mul_one has run: r stays all the same.
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n]) -> (r, s) {
  r = add(mul(x, 1.0), y)
  s = add(x, y)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n], y: f64[n]) -> (r, s) {\n"
            "  r = add(x, y)\n"
            "  s = r\n"
            "}\n",
            W.Text);
  const Apply *Add = W.G->applies()[0];
  ASSERT_EQ(2u, Add->sourceLocs().size());
  EXPECT_EQ("rw.graph:3:7", Add->sourceLocs()[0].str());
  EXPECT_EQ("rw.graph:4:7", Add->sourceLocs()[1].str());
  EXPECT_EQ("merge", names(Add->rewrites()));
}

TEST(RewriteMerge, EqualConstantsThenTheirAppliesMerge) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  r = add(mul(x, 2.0), mul(x, 2.0))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(1u, countOps(*W.G, "Elemwise{mul,no_inplace}"));
  unsigned Constants = 0;
  for (const Variable *V : W.G->variables())
    Constants += V->kind() == Variable::Constant;
  EXPECT_EQ(1u, Constants);
  // The second 2.0 and the second mul went in one visit.
  EXPECT_EQ(1u, applied(W.R, "merge"));
}

TEST(RewriteMerge, WholeDuplicatedSubgraphsMergeInOnePass) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n]) -> (a, b) {
  a = tanh(exp(add(x, y)))
  b = tanh(exp(add(x, y)))
}
)",
                            withoutFusion());
  ASSERT_TRUE(W.G);
  EXPECT_EQ(3u, W.G->numApplies());
  EXPECT_EQ(W.G->outputs()[0], W.G->outputs()[1]);
  EXPECT_EQ("func f(x: f64[n], y: f64[n]) -> (a, b) {\n"
            "  a = tanh(exp(add(x, y)))\n"
            "  b = a\n"
            "}\n",
            W.Text);
  // The first phase did it all.
  ASSERT_FALSE(W.R.Phases.empty());
  EXPECT_EQ("merge1", W.R.Phases[0].Name);
  EXPECT_EQ(6u, W.R.Phases[0].NodesBefore);
  EXPECT_EQ(3u, W.R.Phases[0].NodesAfter);
}

TEST(RewriteMerge, DifferentOpsOrConstantsStayApart) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], i: i64[n]) -> (a, b, c, d, e, g) {
  a = mul(x, 2.0)
  b = mul(x, 3.0)
  c = add(x, 0.5)
  d = add(x, -0.5)
  e = sum(x, axis=0)
  g = max(x, axis=0)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(6u, W.G->numApplies());
  EXPECT_EQ(0u, applied(W.R, "merge"));
}

TEST(RewriteMerge, ZeroAndNegativeZeroAreDifferentConstants) {
  // 1 / 0.0 is inf, 1 / -0.0 is -inf: merging them would change r.
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  r = add(true_div(x, 0.0), true_div(x, -0.0))
}
)",
                            withoutFusion());
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, countOps(*W.G, "Elemwise{true_div,no_inplace}"));
}

//===-- constant folding --------------------------------------------------===//

TEST(RewriteConstantFolding, AppliesOfConstantsBecomeConstants) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  r = add(x, mul(2.0, 3.0))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n]) -> (r) {\n"
            "  r = add(x, 6.0)\n"
            "}\n",
            W.Text);
  EXPECT_EQ(1u, applied(W.R, "constant_folding"));
  // The folded constant keeps the place of the Apply it replaced.
  const Variable *Six = W.G->applies()[0]->inputs()[1];
  EXPECT_EQ(Variable::Constant, Six->kind());
  EXPECT_EQ("rw.graph:3:14", Six->loc().str());
}

TEST(RewriteConstantFolding, WholeConstantSubgraphsFold) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  r = mul(x, sum(exp(alloc(0.0, shape=[3]))))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n]) -> (r) {\n"
            "  r = mul(x, 3.0)\n"
            "}\n",
            W.Text);
  EXPECT_EQ(3u, applied(W.R, "constant_folding"));
}

TEST(RewriteConstantFolding, NeverWhatReadsInputsOrSharedVariables) {
  Rewritten W = rewriteText(R"(
shared w: f64[3] = ones
func f(x: f64[3]) -> (a, b) {
  a = mul(x, 2.0)
  b = mul(w, 2.0)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies());
  EXPECT_EQ(0u, applied(W.R, "constant_folding"));
}

TEST(RewriteConstantFolding, NotSymbolicShapesHugeAllocationsOrErrors) {
  Rewritten W = rewriteText(R"(
func f(x: f64[m]) -> (a, b, c) {
  a = add(x, alloc(1.0, shape=[m]))
  b = alloc(2.0, shape=[2000])
  c = reshape(alloc(1.0, shape=[6]), shape=[k, -1])
}
)");
  ASSERT_TRUE(W.G);
  // alloc with a symbolic shape and the large one stay; the small alloc
  // folds, the reshape needing k's size does not.
  EXPECT_EQ(3u, countOps(*W.G, "Alloc{shape=[m]}") +
                    countOps(*W.G, "Alloc{shape=[2000]}") +
                    countOps(*W.G, "Reshape{2, shape=[k, -1]}"));
  EXPECT_EQ(1u, applied(W.R, "constant_folding"));
}

//===-- canonicalize ------------------------------------------------------===//

TEST(RewriteCanonicalize, NeutralElementsGo) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n], i: i64[n]) -> (a, b, c, d, e, g) {
  a = mul(x, 1.0)
  b = add(0.0, x)
  c = sub(y, 0.0)
  d = true_div(y, 1.0)
  e = add(x, 0.0, y)
  g = mul(1, i)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n], y: f64[n], i: i64[n]) -> (a, b, c, d, e, g) {\n"
            "  e = add(x, y)\n"
            "  a = x\n"
            "  b = x\n"
            "  c = y\n"
            "  d = y\n"
            "  g = i\n"
            "}\n",
            W.Text);
  EXPECT_EQ(2u, applied(W.R, "mul_one"));
  EXPECT_EQ(2u, applied(W.R, "add_zero"));
  EXPECT_EQ(1u, applied(W.R, "sub_zero"));
  EXPECT_EQ(1u, applied(W.R, "div_one"));
  // The new add stands for the old one's line and says who made it.
  const Apply *Add = W.G->applies()[0];
  EXPECT_EQ("rw.graph:7:7", Add->loc().str());
  EXPECT_EQ("add_zero", names(Add->rewrites()));
}

TEST(RewriteCanonicalize, NotWhereBroadcastingOrPromotionChangesTheType) {
  Rewritten W = rewriteText(R"(
func f(s: f64[], v: f64[3], i: i32[n], b: bool[n], x: f64[n]) -> (a, c, d, e, g, h, k) {
  a = mul(s, alloc(1.0, shape=[3]))
  c = mul(v, alloc(1.0, shape=[3]))
  d = mul(i, cast(1, dtype=f64))
  e = true_div(i, 1)
  g = mul(b, 1)
  h = add(x, alloc(0.0, shape=[1, 1]))
  k = mul(s, alloc(1.0, shape=[3]), 1.0)
}
)");
  ASSERT_TRUE(W.G);
  // Only c is v; k drops its 1.0 but keeps the ones that broadcast s,
  // and is then a.
  EXPECT_EQ(W.G->inputs()[1], W.G->outputs()[1]);
  EXPECT_EQ(5u, W.G->numApplies());
  EXPECT_EQ(2u, applied(W.R, "mul_one"));
  const Apply *K = W.G->outputs()[6]->owner();
  ASSERT_TRUE(K);
  EXPECT_EQ(W.G->outputs()[0], W.G->outputs()[6]);
  EXPECT_EQ(2u, K->inputs().size());
  EXPECT_EQ("f64[3]", K->output()->type().str());
  for (const char *Op :
       {"Elemwise{mul,no_inplace}", "Elemwise{true_div,no_inplace}",
        "Elemwise{add,no_inplace}"})
    EXPECT_NE(0u, countOps(*W.G, Op)) << Op;
}

TEST(RewriteCanonicalize, DoubleNegation) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], i: i8[n]) -> (a, b, c) {
  a = neg(neg(x))
  b = neg(neg(neg(x)))
  c = neg(neg(i))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n], i: i8[n]) -> (a, b, c) {\n"
            "  b = neg(x)\n"
            "  a = x\n"
            "  c = i\n"
            "}\n",
            W.Text);
}

TEST(RewriteCanonicalize, PowAndMulOfItselfBecomeSqr) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], i: i32[n], b: bool[n], s: f64[]) -> (a, c, d, e, g, h) {
  a = pow(x, 2)
  c = pow(i, 2)
  d = mul(x, x)
  e = pow(x, 1.0)
  g = pow(b, 2)
  h = pow(s, alloc(2.0, shape=[2]))
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n], i: i32[n], b: bool[n], s: f64[]) -> "
            "(a, c, d, e, g, h) {\n"
            "  a = sqr(x)\n"
            "  c = sqr(i)\n"
            "  g = pow(b, 2)\n"
            "  h = pow(s, alloc(2.0, shape=[2]))\n"
            "  d = a\n"
            "  e = x\n"
            "}\n",
            W.Text);
  // pow(x, 2) and mul(x, x) became the same sqr(x), merged.
  const Apply *Sqr = W.G->applies()[0];
  EXPECT_EQ("pow_specialize,mul_self_to_sqr,merge", names(Sqr->rewrites()));
  ASSERT_EQ(2u, Sqr->sourceLocs().size());
  EXPECT_EQ("rw.graph:3:7", Sqr->sourceLocs()[0].str());
  EXPECT_EQ("rw.graph:5:7", Sqr->sourceLocs()[1].str());
  EXPECT_EQ(3u, applied(W.R, "pow_specialize"));
  EXPECT_EQ(1u, applied(W.R, "mul_self_to_sqr"));
  EXPECT_EQ(2u, stat(W.R, "pow_specialize")->NodesCreated);
}

TEST(RewriteCanonicalize, CastsThatChangeNothingGo) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f32[n], i: i8[n], u: u8[n], j: i64[n]) -> (a, b, c, d, e, g) {
  a = cast(x, dtype=f64)
  b = cast(cast(y, dtype=f64), dtype=f32)
  c = cast(cast(x, dtype=f32), dtype=f64)
  d = cast(cast(i, dtype=i32), dtype=f64)
  e = cast(cast(u, dtype=i8), dtype=i32)
  g = cast(cast(j, dtype=f64), dtype=i64)
}
)",
                            withoutFusion());
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n], y: f32[n], i: i8[n], u: u8[n], j: i64[n]) -> "
            "(a, b, c, d, e, g) {\n"
            "  c = cast(cast(x, dtype=f32), dtype=f64)\n"
            "  d = cast(i, dtype=f64)\n"
            "  e = cast(cast(u, dtype=i8), dtype=i32)\n"
            "  g = cast(cast(j, dtype=f64), dtype=i64)\n"
            "  a = x\n"
            "  b = y\n"
            "}\n",
            W.Text);
  EXPECT_EQ(1u, applied(W.R, "cast_same"));
  EXPECT_EQ(2u, applied(W.R, "cast_cast"));
}

TEST(RewriteCanonicalize, SwitchOnAConstantCondition) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n], y: f64[n], s: f64[]) -> (a, b, c, d) {
  a = switch(1, x, y)
  b = switch(0, x, y)
  c = switch(gt(x, 0.5), x, y)
  d = switch(1, s, y)
}
)",
                            withoutFusion());
  ASSERT_TRUE(W.G);
  EXPECT_EQ(W.G->inputs()[0], W.G->outputs()[0]);
  EXPECT_EQ(W.G->inputs()[1], W.G->outputs()[1]);
  EXPECT_EQ(2u, countOps(*W.G, "Elemwise{switch,no_inplace}"));
  EXPECT_EQ(2u, applied(W.R, "switch_constant"));
}

TEST(RewriteCanonicalize, DimShuffles) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n, m], v: f64[n]) -> (a, b, c, d) {
  a = transpose(transpose(x))
  b = dimshuffle(x, pattern=[0, 1])
  c = transpose(v)
  d = dimshuffle(dimshuffle(x, pattern=[1, x, 0]), pattern=[2, 0, 1])
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ("func f(x: f64[n, m], v: f64[n]) -> (a, b, c, d) {\n"
            "  d = dimshuffle(x, pattern=[0,1,x])\n"
            "  a = x\n"
            "  b = x\n"
            "  c = v\n"
            "}\n",
            W.Text);
}

//===-- shapes ------------------------------------------------------------===//

TEST(RewriteShape, KnownDimsBecomeConstants) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n, 784]) -> (a, b) {
  a = shape(x, axis=1)
  b = shape(x, axis=-1)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(0u, W.G->numApplies());
  const Variable *A = W.G->outputs()[0];
  ASSERT_EQ(Variable::Constant, A->kind());
  EXPECT_EQ("i64[]", A->type().str());
  EXPECT_EQ(784, A->constantValue().getInt(0));
  EXPECT_EQ(784, W.G->outputs()[1]->constantValue().getInt(0));
  EXPECT_EQ(2u, applied(W.R, "shape_i_constant"));
}

TEST(RewriteShape, SymbolicDimsReadTheInputThatBindsThem) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n, 784], w: f64[784], y: f64[n]) -> (a, b, c) {
  a = shape(dot(x, w), axis=0)
  b = shape(y, axis=0)
  c = shape(x, axis=0)
  d = shape(reshape(x, shape=[k, -1]), axis=0)
}
)");
  ASSERT_TRUE(W.G);
  // The dot is gone; all three read x's dim 0, merged into one Apply
  // named as the first statement.
  EXPECT_EQ("func f(x: f64[n, 784], w: f64[784], y: f64[n]) -> (a, b, c) {\n"
            "  a = shape(x, axis=0)\n"
            "  b = a\n"
            "  c = a\n"
            "}\n",
            W.Text);
  EXPECT_EQ(2u, applied(W.R, "shape_i_of_input"));
}

TEST(RewriteShape, NotForSizesOnlyTheCallGives) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (a) {
  a = shape(reshape(x, shape=[k, -1]), axis=0)
}
)");
  ASSERT_TRUE(W.G);
  EXPECT_EQ(2u, W.G->numApplies());
  EXPECT_EQ(0u, applied(W.R, "shape_i_of_input"));
}

//===-- provenance --------------------------------------------------------===//

TEST(RewriteProvenance, RewritingARewrittenGraphKeepsIt) {
  Rewritten W = rewriteText(R"(
func f(x: f64[n]) -> (r) {
  a = pow(x, 2)
  b = pow(x, 2)
  r = add(a, b)
}
)");
  ASSERT_TRUE(W.G);
  // Rewriting the result again changes nothing and keeps the history.
  RewriteReport R2;
  auto G2 = rewriteFunction(*W.G, {}, &R2);
  ASSERT_TRUE(bool(G2)) << llvm::toString(G2.takeError());
  const Apply *Sqr = (*G2)->applies()[0];
  EXPECT_EQ("Elemwise{sqr,no_inplace}", Sqr->op().name());
  EXPECT_EQ("merge,pow_specialize", names(Sqr->rewrites()));
  EXPECT_EQ(2u, Sqr->sourceLocs().size());
  for (const RewriteStat &S : R2.Rewrites)
    EXPECT_EQ(0u, S.Applied) << S.Name;
}

TEST(RewriteProvenance, SharedVariablesInputsAndUpdatesAreTheSame) {
  auto M = parse(R"(
shared w: f64[3] = ones
shared b: f64[] = 0
func train(x: f64[3], lr: f64[]) -> (c, x) {
  c = sum(mul(w, x))
  update b = add(b, 0.0)
  update w = sub(w, mul(lr, mul(x, 1.0)))
}
)");
  ASSERT_TRUE(M);
  const FunctionGraph &F = *M->functions().front();
  auto G = rewriteFunction(F, {});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const FunctionGraph &R = **G;
  EXPECT_EQ("train", R.name());
  ASSERT_EQ(2u, R.inputs().size());
  EXPECT_EQ("x", R.inputs()[0]->name());
  EXPECT_EQ("lr", R.inputs()[1]->name());
  EXPECT_EQ(R.inputs()[0], R.outputs()[1]);
  ASSERT_EQ(2u, R.updates().size());
  EXPECT_EQ(M->lookupShared("b"), R.updates()[0].Target);
  EXPECT_EQ(M->lookupShared("w"), R.updates()[1].Target);
  // b's update is b itself now: the read of b.
  EXPECT_EQ(Variable::SharedRead, R.updates()[0].Value->kind());
  EXPECT_EQ(M->lookupShared("b"), R.updates()[0].Value->shared());
  EXPECT_EQ(R.sharedRead(M->lookupShared("w")),
            R.updates()[1].Value->owner()->inputs()[0]);
}
