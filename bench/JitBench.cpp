//===- JitBench.cpp - The JIT against the interpreter and physical limits -===//
//
// Measures, side by side in one run (absolute times vary on these machines,
// ratios much less):
//  - an elemwise add on 10^7 float64 under c|py and py, against memcpy
//    bandwidth and against the same loop in C++ built -O3 -march=native;
//  - the logistic-regression (n=400) and perceptron (n=128) train steps,
//    c|py against py;
//  - the overhead of one call of a compiled function on 3-element vectors;
//  - compile time of each example function (warm: LLVM already loaded);
//  - the kernel pipeline against LLVM's O2: compile time and step time.
// Each figure is the median of several repetitions.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Initialize.h"
#include "graphjit/Builder.h"
#include "BenchSupport.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Random.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>

using namespace graphjit;
using namespace graphjit::bench;
using llvm::format;
using llvm::outs;

// Median seconds per run of Fn over Reps runs of Inner iterations each.
static double timeIt(const std::function<void()> &Fn, int Reps, int Inner) {
  std::vector<double> T;
  for (int R = 0; R < Reps; ++R) {
    double Start = now();
    for (int I = 0; I < Inner; ++I)
      Fn();
    T.push_back((now() - Start) / Inner);
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

static std::unique_ptr<Function> compileOrDie(FunctionGraph &F,
                                              LinkerKind K) {
  CompileOptions O;
  O.Linker = K;
  return bench::compileOrDie(F, O);
}

__attribute__((noinline)) static void cppAdd(const double *X, const double *Y,
                                             double *R, int64_t N) {
  for (int64_t I = 0; I < N; ++I)
    R[I] = X[I] + Y[I];
}

static void benchElemwise() {
  const int64_t N = 10000000;
  GraphModule M;
  FunctionBuilder B(M, "add");
  TensorType T(DType::F64, {Dim::symbolic("n")});
  Variable *X = B.input("x", T), *Y = B.input("y", T);
  B.output(llvm::cantFail(B.apply("add", {X, Y})));
  FunctionGraph *F = llvm::cantFail(B.finish());
  std::vector<NDArray> In = {randomArray(DType::F64, {N}, 1),
                             randomArray(DType::F64, {N}, 2)};
  auto Jit = compileOrDie(*F, LinkerKind::CPy);
  auto Py = compileOrDie(*F, LinkerKind::Py);
  double TJit = timeIt([&] { callOrDie(*Jit, In); }, 7, 1);
  double TPy = timeIt([&] { callOrDie(*Py, In); }, 5, 1);
  std::vector<double> Out(N), Src(N, 1.0), Dst(N);
  double TCpp = timeIt([&] { cppAdd(In[0].dataAs<double>(),
                                    In[1].dataAs<double>(), Out.data(), N); },
                       7, 1);
  double TCopy = timeIt([&] { std::memcpy(Dst.data(), Src.data(), N * 8); },
                        7, 1);
  // Bandwidth: bytes read and written per second (add: 3N doubles; memcpy:
  // 2N doubles).
  double BwCopy = 2.0 * N * 8 / TCopy, BwJit = 3.0 * N * 8 / TJit,
         BwCpp = 3.0 * N * 8 / TCpp;
  outs() << "elemwise add, 10^7 float64:\n"
         << format("  memcpy           %8.2f ms  %6.2f GB/s\n", TCopy * 1e3,
                   BwCopy / 1e9)
         << format("  C++ -O3 native   %8.2f ms  %6.2f GB/s  (%.2f of memcpy)\n",
                   TCpp * 1e3, BwCpp / 1e9, BwCpp / BwCopy)
         << format("  graphjit c|py    %8.2f ms  %6.2f GB/s  (%.2f of memcpy, "
                   "%.2f of C++)\n",
                   TJit * 1e3, BwJit / 1e9, BwJit / BwCopy, BwJit / BwCpp)
         << format("  graphjit py      %8.2f ms  %6.2f GB/s  (c|py is %.1fx "
                   "faster)\n",
                   TPy * 1e3, 3.0 * N * 8 / TPy / 1e9, TPy / TJit);
}

static std::unique_ptr<GraphModule> loadExample(const char *Name) {
  auto M = parseGraphFile(std::string(GRAPHJIT_EXAMPLES_DIR) + "/" + Name);
  if (!M) {
    llvm::errs() << llvm::toString(M.takeError()) << "\n";
    exit(1);
  }
  llvm::cantFail((*M)->initShared());
  return std::move(*M);
}

static void benchTrainStep(const char *File, int64_t N, DType T, Shape X,
                           Shape Y) {
  auto M = loadExample(File);
  FunctionGraph *F = M->lookupFunction("train");
  std::vector<NDArray> In = {randomArray(T, X, 3), randomArray(T, Y, 4)};
  auto Jit = compileOrDie(*F, LinkerKind::CPy);
  auto Py = compileOrDie(*F, LinkerKind::Py);
  double TJit = timeIt([&] { callOrDie(*Jit, In); }, 7, 5);
  double TPy = timeIt([&] { callOrDie(*Py, In); }, 7, 5);
  unsigned Compiled = 0;
  for (unsigned I = 0; I < Jit->graph().numApplies(); ++I)
    Compiled += Jit->isCompiled(I);
  outs() << format("%s train step (n=%lld): c|py %.3f ms, py %.3f ms, "
                   "c|py/py time %.2f (%u of %zu Applies compiled)\n",
                   File, (long long)N, TJit * 1e3, TPy * 1e3, TJit / TPy,
                   Compiled, Jit->graph().numApplies());
}

static void benchCallOverhead() {
  auto M = loadExample("profiling_example.graph");
  FunctionGraph *F = M->lookupFunction("example");
  std::vector<NDArray> In;
  for (int I = 0; I < 3; ++I)
    In.push_back(randomArray(DType::F64, {3}, I));
  auto Jit = compileOrDie(*F, LinkerKind::CPy);
  auto Py = compileOrDie(*F, LinkerKind::Py);
  double TJit = timeIt([&] { callOrDie(*Jit, In); }, 9, 20000);
  double TPy = timeIt([&] { callOrDie(*Py, In); }, 9, 20000);
  outs() << format("call overhead, (x+y+z)*2 on 3-element vectors "
                   "(3 Applies): c|py %.0f ns per call, py %.0f ns\n",
                   TJit * 1e9, TPy * 1e9);
}

// Issue 17's measures, side by side in one run: the compiled code with
// planned memory against the same code asking the runtime (gj_prepare)
// for every output (-plan-memory=false): the unfused chain of 1,001 scalar
// Applies, the call overhead, and the train steps.
static std::unique_ptr<Function> compilePlanned(FunctionGraph &F, bool Plan,
                                                const char *Optimizer) {
  CompileOptions O;
  O.PlanMemory = Plan;
  if (Optimizer) {
    O.Rewrite = RewriteOptions();
    O.Rewrite->Optimizer = Optimizer;
  }
  return bench::compileOrDie(F, O);
}

static void benchPlanned() {
  auto Chain = llvm::cantFail(parseGraph(scalarChainGraph(1000), "chain.graph"));
  FunctionGraph &F = *Chain->functions().front();
  std::vector<NDArray> X = {randomArray(DType::F64, {}, 1)};
  auto Planned = compilePlanned(F, true, "None");
  auto Runtime = compilePlanned(F, false, "None");
  auto [TP, TR] = sideBySide(*Planned, *Runtime, X, 15, 200);
  outs() << format("planned: chain of %zu scalar Applies: %.2f us per call "
                   "(%.2f ns per Apply), runtime-prepared %.2f us "
                   "(%.2f ns per Apply): %.1fx\n",
                   F.numApplies(), TP * 1e6, TP / F.numApplies() * 1e9,
                   TR * 1e6, TR / F.numApplies() * 1e9, TR / TP);

  auto M = loadExample("profiling_example.graph");
  FunctionGraph *G = M->lookupFunction("example");
  std::vector<NDArray> In;
  for (int I = 0; I < 3; ++I)
    In.push_back(randomArray(DType::F64, {3}, I));
  auto CP = compilePlanned(*G, true, nullptr);
  auto CR = compilePlanned(*G, false, nullptr);
  auto [CallP, CallR] = sideBySide(*CP, *CR, In, 15, 20000);
  outs() << format("planned: call overhead, (x+y+z)*2 at n=3: %.0f ns, "
                   "runtime-prepared %.0f ns\n",
                   CallP * 1e9, CallR * 1e9);

  // The same planned function through call() and callInto() (outputs
  // kept by the caller from call to call), in alternation.
  std::vector<NDArray> Out;
  std::vector<double> TCall, TInto;
  for (int R = 0; R < 15; ++R) {
    double Start = now();
    for (int I = 0; I < 20000; ++I)
      callOrDie(*CP, In);
    TCall.push_back((now() - Start) / 20000);
    Start = now();
    for (int I = 0; I < 20000; ++I)
      if (llvm::Error E = CP->callInto(In, Out)) {
        llvm::errs() << llvm::toString(std::move(E)) << "\n";
        exit(1);
      }
    TInto.push_back((now() - Start) / 20000);
  }
  llvm::sort(TCall);
  llvm::sort(TInto);
  outs() << format("planned: call overhead, (x+y+z)*2 at n=3: call() %.0f "
                   "ns, callInto() %.0f ns\n",
                   TCall[TCall.size() / 2] * 1e9, TInto[TInto.size() / 2] * 1e9);
}

// The planned callInto() of (x+y+z)*2 at n=3 alone, for seconds: a
// loop to run under `perf record` (the other sections mix in other code).
static void benchCallLoop() {
  auto M = loadExample("profiling_example.graph");
  FunctionGraph *G = M->lookupFunction("example");
  std::vector<NDArray> In;
  for (int I = 0; I < 3; ++I)
    In.push_back(randomArray(DType::F64, {3}, I));
  auto Fn = compilePlanned(*G, true, nullptr);
  std::vector<NDArray> Out;
  double T = timeIt([&] { llvm::cantFail(Fn->callInto(In, Out)); }, 9,
                    1000000);
  outs() << format("callloop: (x+y+z)*2 at n=3, planned, callInto(): %.0f "
                   "ns per call\n",
                   T * 1e9);
}

// Warm: LLVM already loaded and initialised in this process. Uncached
// compiles run the whole pipeline; cached ones find the object in the
// compile cache (a temporary directory, filled by the first).
static void benchCompileTime() {
  llvm::SmallString<128> CacheDir;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueDirectory("graphjit-bench", CacheDir)) {
    llvm::errs() << "cannot make a cache directory: " << EC.message() << "\n";
    exit(1);
  }
  for (const char *File :
       {"profiling_example.graph", "logistic_regression.graph", "mlp.graph"}) {
    auto M = loadExample(File);
    for (const auto &F : M->functions()) {
      for (bool Cached : {false, true}) {
        llvm::cantFail(
            setCompileCacheDirectory(Cached ? std::string(CacheDir) : ""));
        std::vector<double> T;
        CompileTimes Split;
        for (int R = 0; R < 5; ++R) {
          auto Fn = compileOrDie(*F, LinkerKind::CPy);
          T.push_back(Fn->compileTimes().total());
          Split = Fn->compileTimes();
        }
        std::sort(T.begin(), T.end());
        outs() << format("compile %-26s %-8s %-8s %7.2f ms (lower %.2f, "
                         "optimize %.2f, codegen %.2f, link %.2f)\n",
                         File, F->name().c_str(),
                         Cached ? "cached" : "uncached", T[2] * 1e3,
                         Split.Lower * 1e3, Split.Optimize * 1e3,
                         Split.Codegen * 1e3, Split.Link * 1e3);
      }
    }
  }
  llvm::sys::fs::remove_directories(CacheDir);
}

// Issue 17's updates in place: each train step with shared_update_inplace
// against the same step copying its updates (optimizer_excluding), side
// by side; each on a module of its own, so both start from the same
// weights.
static void benchInplaceUpdates(const char *File, DType T, Shape X, Shape Y) {
  std::vector<NDArray> In = {randomArray(T, X, 3), randomArray(T, Y, 4)};
  auto MA = loadExample(File), MB = loadExample(File);
  CompileOptions O;
  auto Inplace = bench::compileOrDie(*MA->lookupFunction("train"), O);
  O.Rewrite = RewriteOptions();
  O.Rewrite->Excluding = {"shared_update_inplace"};
  auto Copying = bench::compileOrDie(*MB->lookupFunction("train"), O);
  auto [TI, TC] = sideBySide(*Inplace, *Copying, In, 15, 20);
  outs() << format("inplace: %s train step: updates in place %.3f ms, "
                   "copied %.3f ms: %.3fx\n",
                   File, TI * 1e3, TC * 1e3, TC / TI);
}

// The kernel pipeline (jit/IRPipeline.h) against LLVM's default<O2>, side
// by side: each train step compiled uncached with each, alternately
// (medians of 7: the whole compile and its optimize step, warm: LLVM
// loaded, target machines kept), then the two compiled steps run in
// alternation, each on a module of its own (the same weights).
static void benchPipeline(const char *File, DType T, Shape X, Shape Y) {
  llvm::cantFail(setCompileCacheDirectory(""));
  std::vector<NDArray> In = {randomArray(T, X, 3), randomArray(T, Y, 4)};
  auto MK = loadExample(File), ML = loadExample(File);
  std::unique_ptr<Function> Fn[2];
  std::vector<double> Total[2], Optimize[2];
  for (int R = 0; R < 7; ++R)
    for (bool LLVM : {false, true}) {
      CompileOptions O;
      O.LLVMPipeline = LLVM;
      Fn[LLVM] = bench::compileOrDie(
          *(LLVM ? ML : MK)->lookupFunction("train"), O);
      Total[LLVM].push_back(Fn[LLVM]->compileTimes().total());
      Optimize[LLVM].push_back(Fn[LLVM]->compileTimes().Optimize);
    }
  auto Median = [](std::vector<double> V) {
    std::sort(V.begin(), V.end());
    return V[V.size() / 2];
  };
  auto [TK, TL] = sideBySide(*Fn[0], *Fn[1], In, 15, 20);
  outs() << format("pipeline: %s train step: compile %.2f ms (optimize "
                   "%.2f) with the kernel pipeline, %.2f ms (optimize %.2f) "
                   "with LLVM's O2: %.2fx; step %.3f ms against %.3f ms: "
                   "%.3fx\n",
                   File, Median(Total[0]) * 1e3, Median(Optimize[0]) * 1e3,
                   Median(Total[1]) * 1e3, Median(Optimize[1]) * 1e3,
                   Median(Total[1]) / Median(Total[0]), TK * 1e3, TL * 1e3,
                   TL / TK);
}

// Arguments name the sections to run (elemwise, train, call, compile,
// planned, inplace, pipeline); none: all of them.
int main(int Argc, char **Argv) {
  graphjit::initialize();
  auto Wanted = [&](llvm::StringRef Section) {
    if (Argc < 2)
      return true;
    for (int I = 1; I < Argc; ++I)
      if (Section == Argv[I])
        return true;
    return false;
  };
  if (Wanted("elemwise"))
    benchElemwise();
  if (Wanted("train")) {
    benchTrainStep("logistic_regression.graph", 400, DType::F64, {400, 784},
                   {400});
    benchTrainStep("mlp.graph", 128, DType::F32, {128, 784}, {128, 10});
  }
  if (Wanted("call"))
    benchCallOverhead();
  if (Wanted("compile"))
    benchCompileTime();
  if (Wanted("planned"))
    benchPlanned();
  if (Argc > 1 && Wanted("callloop")) // Only when named.
    benchCallLoop();
  if (Wanted("inplace")) {
    benchInplaceUpdates("logistic_regression.graph", DType::F64, {400, 784},
                        {400});
    benchInplaceUpdates("mlp.graph", DType::F32, {128, 784}, {128, 10});
  }
  if (Wanted("pipeline")) {
    benchPipeline("logistic_regression.graph", DType::F64, {400, 784}, {400});
    benchPipeline("mlp.graph", DType::F32, {128, 784}, {128, 10});
  }
  return 0;
}
