//===- RewriteResultsTest.cpp - Rewritten functions compute the same ------===//
//
// The optimizer's one promise: the rewritten function computes what the
// given one computes. Each function here (snippets that make every rewrite
// fire, and the examples) is compiled as written and as rewritten, with
// the py and c|py linkers, called a few times on the same random inputs
// from the same shared values, and the outputs and the shared variables'
// values after the calls are compared. And the optimizer scales: graphs of
// 10,000 Applies are rewritten (the time is printed, not asserted).
//
//===----------------------------------------------------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Random.h"
#include "graphjit/Rewrite.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace graphjit;

namespace {

std::string examplePath(const char *Name) {
  llvm::SmallString<256> Dir(GRAPHJIT_EXAMPLES_DIR);
  llvm::sys::path::append(Dir, Name);
  return Dir.str().str();
}

/// Sizes for the symbolic dims of the snippets and examples.
DimBindings testDims() {
  DimBindings D;
  D["n"] = 5;
  D["m"] = 4;
  D["k"] = 2;
  return D;
}

std::vector<NDArray> randomInputs(const FunctionGraph &F, uint64_t Seed) {
  Rng R(Seed);
  DimBindings Dims = testDims();
  std::vector<NDArray> In;
  for (const Variable *V : F.inputs()) {
    Shape S;
    for (const Dim &D : V->type().Dims)
      S.push_back(D.isKnown() ? D.Size : Dims.lookup(D.Symbol));
    NDArray A = NDArray::zeros(V->type().Dtype, S);
    fillDefaultInput(A, R);
    In.push_back(std::move(A));
  }
  return In;
}

/// An empty string if A and B agree (floats to a few ulps: pow(x, 2) and
/// sqr(x) may round differently), else what differs.
std::string differs(const NDArray &A, const NDArray &B) {
  if (A.isNull() || B.isNull())
    return "a null array";
  if (A.dtype() != B.dtype() || A.shape() != B.shape())
    return dtypeName(A.dtype()).str() + " " + shapeStr(A.shape()) + " vs " +
           dtypeName(B.dtype()).str() + " " + shapeStr(B.shape());
  double Tol = A.dtype() == DType::F32 ? 1e-5 : 1e-12;
  for (int64_t I = 0; I < A.numElements(); ++I) {
    if (!isFloat(A.dtype())) {
      if (A.getInt(I) != B.getInt(I))
        return "element " + std::to_string(I) + ": " +
               std::to_string(A.getInt(I)) + " vs " +
               std::to_string(B.getInt(I));
      continue;
    }
    double X = A.getDouble(I), Y = B.getDouble(I);
    if (X == Y || (std::isnan(X) && std::isnan(Y)))
      continue;
    if (!(std::fabs(X - Y) <= Tol * (1 + std::fabs(Y))))
      return "element " + std::to_string(I) + ": " + std::to_string(X) +
             " vs " + std::to_string(Y);
  }
  return "";
}

struct Outcome {
  std::vector<NDArray> Outputs;     ///< Of the last call.
  std::vector<NDArray> SharedAfter; ///< Every shared variable's value.
};

/// Sets the module's shared variables to Start, compiles F, calls it
/// Calls times and returns what it did.
Outcome run(FunctionGraph &F, LinkerKind K, llvm::ArrayRef<NDArray> Inputs,
            const std::vector<NDArray> &Start, int Calls) {
  Outcome O;
  GraphModule &M = *F.module();
  for (size_t I = 0; I < Start.size(); ++I)
    M.sharedVariables()[I]->Value = Start[I].copy();
  CompileOptions Opts;
  Opts.Linker = K;
  auto Fn = Function::compile(F, Opts);
  if (!Fn) {
    ADD_FAILURE() << F.name() << ": " << llvm::toString(Fn.takeError());
    return O;
  }
  for (int C = 0; C < Calls; ++C) {
    auto Out = (*Fn)->call(Inputs, testDims());
    if (!Out) {
      ADD_FAILURE() << F.name() << ": " << llvm::toString(Out.takeError());
      return O;
    }
    O.Outputs = std::move(*Out);
  }
  for (const auto &S : M.sharedVariables())
    O.SharedAfter.push_back(S->Value.copy());
  return O;
}

/// Rewrites every function of M with O and compares it with the original
/// under both linkers. Returns the reports, one per function.
std::vector<RewriteReport> checkModule(GraphModule &M, RewriteOptions O = {}) {
  std::vector<RewriteReport> Reports;
  if (llvm::Error E = M.initShared()) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return Reports;
  }
  std::vector<NDArray> Start;
  for (const auto &S : M.sharedVariables())
    Start.push_back(S->Value.copy());
  for (const auto &F : M.functions()) {
    RewriteReport R;
    auto G = rewriteFunction(*F, O, &R);
    if (!G) {
      ADD_FAILURE() << F->name() << ": " << llvm::toString(G.takeError());
      continue;
    }
    Reports.push_back(R);
    std::vector<NDArray> In = randomInputs(*F, 42);
    for (LinkerKind K : {LinkerKind::Py, LinkerKind::CPy}) {
      SCOPED_TRACE(F->name() + " with linker " + linkerName(K).str());
      Outcome Want = run(*F, K, In, Start, 3);
      Outcome Have = run(**G, K, In, Start, 3);
      EXPECT_EQ(Want.Outputs.size(), Have.Outputs.size());
      for (size_t I = 0; I < std::min(Want.Outputs.size(), Have.Outputs.size());
           ++I)
        EXPECT_EQ("", differs(Want.Outputs[I], Have.Outputs[I]))
            << "output " << I;
      EXPECT_EQ(Want.SharedAfter.size(), Have.SharedAfter.size());
      for (size_t I = 0;
           I < std::min(Want.SharedAfter.size(), Have.SharedAfter.size()); ++I)
        EXPECT_EQ("", differs(Want.SharedAfter[I], Have.SharedAfter[I]))
            << "shared variable " << M.sharedVariables()[I]->Name;
    }
  }
  for (size_t I = 0; I < Start.size(); ++I)
    M.sharedVariables()[I]->Value = Start[I];
  return Reports;
}

std::unique_ptr<GraphModule> parse(const std::string &Text) {
  auto M = parseGraph(Text, "results.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

unsigned totalApplied(const RewriteReport &R) {
  unsigned N = 0;
  for (const RewriteStat &S : R.Rewrites)
    N += S.Applied;
  return N;
}

const char *Snippets = R"(
shared w: f64[4] = uniform(-1.0, 1.0, seed=3)
shared c: i32[] = 0
shared g: f32[4] = ones

func canon(x: f64[n], y: f64[n], i: i32[n], b: bool[n], u: u8[n]) -> (r1, r2, r3, r4, r5, r6, r7, r8, r9, r10) {
  r1 = add(mul(x, 1.0), 0.0, y)
  r2 = neg(neg(sub(x, 0.0)))
  r3 = true_div(pow(x, 2), 1.0)
  r4 = add(mul(y, y), pow(y, 1))
  r5 = cast(cast(i, dtype=i64), dtype=f64)
  r6 = cast(cast(x, dtype=f32), dtype=f64)
  r7 = add(switch(1, x, y), switch(0, x, y))
  r8 = mul(b, 1)
  r9 = add(pow(i, 2), mul(1, i, 1))
  r10 = cast(cast(u, dtype=i8), dtype=i32)
}

func broadcast(s: f64[], v: f64[3], x: f64[n]) -> (a, b, d, e) {
  a = mul(s, alloc(1.0, shape=[3]), 1.0)
  b = mul(v, alloc(1.0, shape=[3]))
  d = add(x, alloc(0.0, shape=[1, 1]))
  e = pow(s, alloc(2.0, shape=[2]))
}

func folding(x: f64[n, m]) -> (r, t) {
  r = add(x, mul(alloc(2.0, shape=[4]), sum(exp(alloc(0.0, shape=[3])))))
  t = dot(x, dimshuffle(alloc(0.5, shape=[4]), pattern=[0]))
}

func merged(x: f64[n], y: f64[n]) -> (a, b, p) {
  a = exp(add(x, y))
  b = exp(add(x, y))
  p = mul(a, b, tanh(add(y, x)), tanh(add(x, y)))
}

func shapes(x: f64[n, m], v: f64[m]) -> (r, s) {
  r = cast(shape(dot(x, v), axis=0), dtype=f64)
  s = mul(x, cast(shape(transpose(transpose(x)), axis=1), dtype=f64))
}

func views(x: f64[n, m]) -> (a, b, d) {
  a = transpose(transpose(x))
  b = dimshuffle(dimshuffle(x, pattern=[1, x, 0]), pattern=[2, 0, 1])
  d = add(transpose(x), 0.0)
}

func updates(x: f64[4], lr: f64[]) -> (cost, x) {
  cost = sum(mul(w, mul(x, 1.0)))
  update w = sub(w, mul(mul(lr, 1.0), neg(neg(x))))
  update c = add(c, 0)
}

shared k: f64[2] = ones

func constants(x: f64[n]) -> (six, t, cat, sm) {
  six = mul(2.0, 3.0)
  t = add(x, shape(x, axis=0))
  cat = concatenate(alloc(1.0, shape=[2]), subtensor(alloc(2.0, shape=[5]), start=1, stop=3), axis=0)
  sm = softmax(transpose(alloc(0.5, shape=[2, 3])), axis=1)
  update k = alloc(mul(2.0, 3.0), shape=[2])
}

func multi(x: f64[n, m]) -> (a1, a2, b1, b2, c1, c2) {
  a1, a2 = max_and_argmax(x, axis=1)
  b1, b2 = max_and_argmax(x, axis=1)
  c1, c2 = max_and_argmax(alloc(1.5, shape=[2, 3]), axis=0)
}

func update_only(v: f32[4]) -> (z) {
  z = sum(v)
  update g = mul(add(g, v), 1.0)
}

func fused(x: f64[n, m], v: f64[m], i: i32[n, m], b: bool[n, m]) -> (r1, r2, r3, r4) {
  r1 = mul(add(exp(x), v), 2.0)
  r2 = cast(add(mul(i, 3), i), dtype=f32)
  r3 = switch(b, sqr(x), neg(x))
  r4 = true_div(sum(exp(x), axis=[1]), add(sum(x, axis=[1]), 1.0))
}

func linalg(x: f64[n, m], v: f64[m, k], bias: f64[k], d: f64[n, k], u: f32[m, k], y: f32[n, m]) -> (h, gw, hf, t) {
  h = tanh(add(dot(x, v), bias))
  gw = add(dot(transpose(x), d), mul(0.5, v))
  hf = add(dot(y, u), 1.0)
  t = dot(transpose(v), transpose(x))
}

shared W: f64[4, 2] = uniform(-1.0, 1.0, seed=5)

func sgd(x: f64[n, 4], d: f64[n, 2]) -> (z) {
  z = sum(d)
  update W = sub(W, mul(0.1, dot(transpose(x), d)))
}

func stable(x: f64[n, m], z: f64[n]) -> (a, b, s, d) {
  a = log(softmax(x, axis=1))
  e = exp(x)
  b = true_div(e, sum(e, axis=[1], keepdims=true))
  s = log(sigmoid(z))
  d = add(log(sub(1.0, sigmoid(z))), log(add(1.0, z)), sub(exp(z), 1.0))
}
)";

} // namespace

TEST(RewriteResults, SnippetsComputeTheSame) {
  auto M = parse(Snippets);
  ASSERT_TRUE(M);
  std::vector<RewriteReport> Reports = checkModule(*M);
  ASSERT_EQ(M->functions().size(), Reports.size());
  for (size_t I = 0; I < Reports.size(); ++I)
    EXPECT_GT(totalApplied(Reports[I]), 0u) << M->functions()[I]->name();
}

TEST(RewriteResults, SnippetsWithEachKindOfSelection) {
  for (const char *Opt : {"fast_compile", "None"}) {
    auto M = parse(Snippets);
    ASSERT_TRUE(M);
    RewriteOptions O;
    O.Optimizer = Opt;
    SCOPED_TRACE(Opt);
    checkModule(*M, O);
  }
  auto M = parse(Snippets);
  ASSERT_TRUE(M);
  RewriteOptions O;
  O.Excluding = {"merge", "constant_folding"};
  checkModule(*M, O);
}

TEST(RewriteResults, ExamplesComputeTheSame) {
  for (const char *Name :
       {"logistic_regression.graph", "mlp.graph", "profiling_example.graph"}) {
    SCOPED_TRACE(Name);
    auto M = parseGraphFile(examplePath(Name));
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    checkModule(**M);
  }
}

//===-- scale -------------------------------------------------------------===//

namespace {

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

void reportTime(const char *What, unsigned Nodes, double Seconds) {
  std::printf("[   INFO   ] %s: %u Applies rewritten in %.3f s\n", What, Nodes,
              Seconds);
  ::testing::Test::RecordProperty(std::string(What) + "_ms",
                                  std::to_string(int(Seconds * 1000)));
}

} // namespace

// A chain of 10,002 Applies where every block of six is one add of 1.0
// once x+0, x*1, neg(neg(x)) are gone and 0.5*2.0 is folded (the 1.0s
// merged): 1667 adds remain, which fusion makes 27 Composites.
TEST(RewriteResults, TenThousandNodeChain) {
  GraphModule M("chain.graph");
  FunctionBuilder B(M, "chain");
  Variable *X = B.input("x", TensorType(DType::F64, {Dim::symbolic("n")}));
  Variable *V = X;
  unsigned Blocks = 0;
  while (B.graph().numApplies() < 10000) {
    V = llvm::cantFail(B.apply("add", {V, B.literal(0.0)}));
    V = llvm::cantFail(B.apply("mul", {V, B.literal(1.0)}));
    V = llvm::cantFail(B.apply("neg", {V}));
    V = llvm::cantFail(B.apply("neg", {V}));
    Variable *One =
        llvm::cantFail(B.apply("mul", {B.literal(0.5), B.literal(2.0)}));
    V = llvm::cantFail(B.apply("add", {V, One}));
    ++Blocks;
  }
  B.output(V);
  FunctionGraph *F = llvm::cantFail(B.finish());
  ASSERT_EQ(6 * Blocks, F->numApplies());

  RewriteReport R;
  auto T0 = std::chrono::steady_clock::now();
  auto G = rewriteFunction(*F, {}, &R);
  double Seconds = secondsSince(T0);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  reportTime("chain", F->numApplies(), Seconds);
  // The adds fuse into Composites of at most 64 steps.
  EXPECT_EQ((Blocks + 63) / 64, (*G)->numApplies());
  for (const RewritePhaseStat &P : R.Phases)
    EXPECT_FALSE(P.BudgetExhausted) << P.Name;
  unsigned Constants = 0;
  for (const Variable *C : (*G)->variables())
    Constants += C->kind() == Variable::Constant;
  EXPECT_EQ(1u, Constants);

  // The same values, node by node (the py linker; the JIT would spend its
  // time compiling 10,000 thunks).
  std::vector<NDArray> In = randomInputs(*F, 7);
  Outcome Want = run(*F, LinkerKind::Py, In, {}, 1);
  Outcome Have = run(**G, LinkerKind::Py, In, {}, 1);
  ASSERT_EQ(1u, Have.Outputs.size());
  ASSERT_EQ(1u, Want.Outputs.size());
  EXPECT_EQ("", differs(Want.Outputs[0], Have.Outputs[0]));
  EXPECT_NEAR(In[0].getDouble(0) + Blocks, Have.Outputs[0].getDouble(0), 1e-9);
}

// A tree of 2^14 - 1 Applies in which every subtree is written twice:
// merge makes it 14 Applies, one per level.
TEST(RewriteResults, TenThousandNodeDuplicatedTree) {
  GraphModule M("tree.graph");
  FunctionBuilder B(M, "tree");
  TensorType T(DType::F64, {Dim::symbolic("n")});
  Variable *X = B.input("x", T);
  Variable *Y = B.input("y", T);
  const unsigned Depth = 14;
  // Builds the tree of Depth levels over (x, y) afresh each time.
  std::function<Variable *(unsigned)> Build = [&](unsigned D) -> Variable * {
    if (D == 0)
      return llvm::cantFail(B.apply("mul", {X, Y}));
    Variable *L = Build(D - 1);
    Variable *R = Build(D - 1);
    return llvm::cantFail(B.apply("add", {L, R}));
  };
  B.output(Build(Depth - 1));
  FunctionGraph *F = llvm::cantFail(B.finish());
  ASSERT_EQ((1u << Depth) - 1, F->numApplies());

  RewriteReport R;
  auto T0 = std::chrono::steady_clock::now();
  auto G = rewriteFunction(*F, {}, &R);
  double Seconds = secondsSince(T0);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  reportTime("tree", F->numApplies(), Seconds);
  EXPECT_EQ(Depth, (*G)->numApplies());
  // The root was never duplicated; its two subtrees were merged.
  const Apply *Root = (*G)->outputs()[0]->owner();
  EXPECT_TRUE(Root->rewrites().empty());
  ASSERT_EQ(Root->inputs()[0], Root->inputs()[1]);
  EXPECT_EQ("merge", Root->inputs()[0]->owner()->rewrites().front());

  std::vector<NDArray> In = randomInputs(*F, 9);
  Outcome Want = run(*F, LinkerKind::Py, In, {}, 1);
  Outcome Have = run(**G, LinkerKind::Py, In, {}, 1);
  ASSERT_EQ(1u, Have.Outputs.size());
  ASSERT_EQ(1u, Want.Outputs.size());
  EXPECT_EQ("", differs(Want.Outputs[0], Have.Outputs[0]));
}

// Wide rather than deep: 10,000 independent Shape_i and cast Applies on
// one input, each of a known or symbolic dim, all ending in one sum.
TEST(RewriteResults, TenThousandShapeReads) {
  GraphModule M("wide.graph");
  FunctionBuilder B(M, "wide");
  Variable *X =
      B.input("x", TensorType(DType::F64, {Dim::symbolic("n"), Dim::known(3)}));
  std::vector<Variable *> Terms;
  while (B.graph().numApplies() < 10000) {
    int64_t Axis = Terms.size() % 2;
    Variable *S = llvm::cantFail(
        B.apply("shape", {X}, {{"axis", AttrValue::integer(Axis)}}));
    Terms.push_back(llvm::cantFail(
        B.apply("cast", {S}, {{"dtype", AttrValue::ident("f64")}})));
  }
  B.output(llvm::cantFail(B.apply("add", Terms)));
  FunctionGraph *F = llvm::cantFail(B.finish());

  RewriteReport R;
  auto T0 = std::chrono::steady_clock::now();
  auto G = rewriteFunction(*F, {}, &R);
  double Seconds = secondsSince(T0);
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  reportTime("wide", F->numApplies(), Seconds);
  // shape(x, 0), its cast, and the add; the casts of 3 folded. The add
  // of 5,000 terms is a chain of adds of at most MaxElemwiseInputs
  // (split_wide_elemwise): the first takes that many, each next one the
  // sum before it and one less.
  size_t Adds = 1 + (Terms.size() - MaxElemwiseInputs +
                     MaxElemwiseInputs - 2) / (MaxElemwiseInputs - 1);
  EXPECT_EQ(2u + Adds, (*G)->numApplies());

  std::vector<NDArray> In = randomInputs(*F, 11);
  Outcome Want = run(*F, LinkerKind::Py, In, {}, 1);
  Outcome Have = run(**G, LinkerKind::Py, In, {}, 1);
  ASSERT_EQ(1u, Have.Outputs.size());
  ASSERT_EQ(1u, Want.Outputs.size());
  EXPECT_EQ("", differs(Want.Outputs[0], Have.Outputs[0]));
}
