//===- OptimizerBench.cpp - What the optimizer buys and what it costs ----===//
//
// Measures, side by side in one run:
//  - the tutorial's example (n = 10^3 and 10^6) and the logistic-regression
//    (n=400) and perceptron (n=128) train steps compiled with
//    optimizer=fast_run and optimizer=None, called in alternation: the
//    time per call of each and the speedup, with the Applies each runs;
//  - rewriteFunction on generated graphs of 1,000 and 10,000 Applies (a
//    chain the canonicalizer shrinks and fusion fuses, and a wide graph of
//    independent Elemwise trees): the time and the growth from 1,000 to
//    10,000 (linear growth is 10x; target: 10,000 Applies under 2 s).
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "graphjit/Initialize.h"
#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Rewrite.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace graphjit;
using namespace graphjit::bench;
using llvm::format;
using llvm::outs;

static std::unique_ptr<Function> compileWith(FunctionGraph &F,
                                             const char *Optimizer) {
  CompileOptions O;
  O.Rewrite = RewriteOptions();
  O.Rewrite->Optimizer = Optimizer;
  return compileOrDie(F, O);
}

static void compare(const char *What, FunctionGraph &F,
                    const std::vector<NDArray> &In, int Inner) {
  auto Fast = compileWith(F, "fast_run");
  auto None = compileWith(F, "None");
  auto [TFast, TNone] = sideBySide(*Fast, *None, In, 11, Inner);
  outs() << format("%-34s fast_run %9.3f ms (%2zu Applies), None %9.3f ms "
                   "(%2zu Applies): %.2fx faster\n",
                   What, TFast * 1e3, Fast->graph().numApplies(), TNone * 1e3,
                   None->graph().numApplies(), TNone / TFast);
}

static std::unique_ptr<GraphModule> loadExample(const char *Name) {
  std::string Path = std::string(GRAPHJIT_EXAMPLES_DIR) + "/" + Name;
  auto M = llvm::cantFail(parseGraphFile(Path));
  llvm::cantFail(M->initShared());
  return M;
}

static void benchRunTime() {
  auto Tutorial = loadExample("profiling_example.graph");
  FunctionGraph &Ex = *Tutorial->functions().front();
  for (int64_t N : {int64_t(1000), int64_t(1000000)}) {
    std::vector<NDArray> In;
    for (int I = 0; I < 3; ++I)
      In.push_back(randomArray(DType::F64, {N}, 10 + I));
    std::string What = "tutorial (n=" + std::to_string(N) + ")";
    compare(What.c_str(), Ex, In, N > 1000 ? 5 : 2000);
  }
  auto LogReg = loadExample("logistic_regression.graph");
  compare("logistic_regression train (n=400)",
          *LogReg->lookupFunction("train"),
          {randomArray(DType::F64, {400, 784}, 1),
           randomArray(DType::F64, {400}, 2)},
          20);
  auto Mlp = loadExample("mlp.graph");
  compare("mlp train (n=128)", *Mlp->lookupFunction("train"),
          {randomArray(DType::F32, {128, 784}, 1),
           randomArray(DType::F32, {128, 10}, 2)},
          20);
}

/// A chain of about Applies Elemwise Applies: blocks of x+0, x*1, two
/// negations and an add of a folded constant.
static FunctionGraph &chainGraph(GraphModule &M, unsigned Applies) {
  FunctionBuilder B(M, "chain");
  Variable *V = B.input("x", TensorType(DType::F64, {Dim::symbolic("n")}));
  while (B.graph().numApplies() < Applies) {
    V = llvm::cantFail(B.apply("add", {V, B.literal(0.0)}));
    V = llvm::cantFail(B.apply("mul", {V, B.literal(1.0)}));
    V = llvm::cantFail(B.apply("neg", {V}));
    V = llvm::cantFail(B.apply("neg", {V}));
    Variable *One =
        llvm::cantFail(B.apply("mul", {B.literal(0.5), B.literal(2.0)}));
    V = llvm::cantFail(B.apply("add", {V, One}));
  }
  B.output(V);
  return *llvm::cantFail(B.finish());
}

/// Independent trees exp(x_i) * y + sigmoid(x_i) - x_i, one output each,
/// all over the same two inputs: merge, stabilize and fusion at work on a
/// wide graph.
static FunctionGraph &wideGraph(GraphModule &M, unsigned Applies) {
  FunctionBuilder B(M, "wide");
  TensorType T(DType::F64, {Dim::symbolic("n")});
  Variable *X = B.input("x", T), *Y = B.input("y", T);
  for (unsigned I = 0; B.graph().numApplies() < Applies; ++I) {
    Variable *Xi = llvm::cantFail(
        B.apply("mul", {X, B.literal(1.0 + 1e-3 * I)}));
    Variable *E = llvm::cantFail(B.apply("exp", {Xi}));
    Variable *P = llvm::cantFail(B.apply("mul", {E, Y}));
    Variable *S = llvm::cantFail(B.apply("sigmoid", {Xi}));
    Variable *A = llvm::cantFail(B.apply("add", {P, S}));
    B.output(llvm::cantFail(B.apply("sub", {A, Xi})));
  }
  return *llvm::cantFail(B.finish());
}

/// Median seconds of rewriteFunction(F) over Reps runs.
static double rewriteSeconds(const FunctionGraph &F, int Reps,
                             size_t &After) {
  std::vector<double> T;
  for (int R = 0; R < Reps; ++R) {
    double Start = now();
    auto G = rewriteFunction(F, {});
    T.push_back(now() - Start);
    if (!G) {
      llvm::errs() << llvm::toString(G.takeError()) << "\n";
      std::exit(1);
    }
    After = (*G)->numApplies();
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

static void benchRewriteTime() {
  using MakeGraph = FunctionGraph &(*)(GraphModule &, unsigned);
  for (auto [Name, Make] : {std::pair<const char *, MakeGraph>{"chain", chainGraph},
                            {"wide", wideGraph}}) {
    double Small = 0;
    for (unsigned N : {1000u, 10000u}) {
      GraphModule M("bench.graph");
      FunctionGraph &F = Make(M, N);
      size_t After = 0;
      double S = rewriteSeconds(F, N > 1000 ? 3 : 9, After);
      outs() << format("rewrite %-5s %6zu Applies -> %5zu: %8.1f ms "
                       "(%.2f us per Apply)",
                       Name, F.numApplies(), After, S * 1e3,
                       S / F.numApplies() * 1e6);
      if (Small > 0)
        outs() << format("; %.1fx the time of 1,000 (linear: 10x)",
                         S / Small);
      outs() << "\n";
      Small = S;
    }
  }
}

int main() {
  graphjit::initialize();
  benchRunTime();
  benchRewriteTime();
  return 0;
}
