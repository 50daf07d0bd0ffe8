//===- ProfileBench.cpp - What profiling costs ---------------------------===//
//
// The instrumentation's overhead, measured side by side in one run
// (profiled and unprofiled calls alternate, so that the machine's drift
// hits both):
//  - per Apply: (profiled - unprofiled) / Applies on a chain of 1,000
//    scalar Applies (target: at most 10 ns, about one counter read);
//  - relative, on the logistic-regression (n=400) and perceptron (n=128)
//    train steps (target: at most 1%);
//  - accounting: time in thunks over time in the driver on those steps,
//    from the profile itself (target: at least 0.95);
//  - profile_memory: memory-profiled against plainly profiled calls, per
//    Apply on the chain and relative on the train steps (target: at most
//    2% more than plain profiling);
//  - the timeline (profiling__trace): traced against plainly profiled
//    calls on the chain, per slice recorded (target: at most 20 ns);
//  - distributions (profiling__distributions): against plainly profiled
//    calls on the chain, per Apply (reported; "a few ns");
//  - sampling (profiling__mode=sample): per Apply on the chain against
//    unprofiled calls (target: at most 1 ns), and each Op's share of a
//    millisecond step against exact timing's (target: within 2 points).
// Each figure is the median of several repetitions.
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "graphjit/Initialize.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "graphjit/Random.h"
#include "graphjit/Flags.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

using namespace graphjit;
using namespace graphjit::bench;
using llvm::format;
using llvm::outs;

enum class Profiling { None, Time, Memory, Distributions, Sample };

/// Optimizer None keeps the chain's 1,000 Applies (fusion would make a few
/// Composites of them); the train steps run as optimized.
static std::unique_ptr<Function> compileOrDie(FunctionGraph &F, Profiling P,
                                              const char *Optimizer = nullptr) {
  CompileOptions O;
  if (Optimizer) {
    O.Rewrite = RewriteOptions();
    O.Rewrite->Optimizer = Optimizer;
  }
  O.Profile = P != Profiling::None;
  O.ProfileMemory = P == Profiling::Memory;
  O.ProfileDistributions = P == Profiling::Distributions;
  O.ProfileSample = P == Profiling::Sample;
  return bench::compileOrDie(F, O);
}

static void benchChain() {
  std::string Text = scalarChainGraph(1000);
  auto M = llvm::cantFail(parseGraph(Text, "chain.graph"));
  FunctionGraph &F = *M->functions().front();
  auto Plain = compileOrDie(F, Profiling::None, "None");
  auto Profiled = compileOrDie(F, Profiling::Time, "None");
  auto Memory = compileOrDie(F, Profiling::Memory, "None");
  std::vector<NDArray> In = {randomArray(DType::F64, {}, 1)};
  auto [TPlain, TProf] = sideBySide(*Plain, *Profiled, In, 15, 200);
  unsigned Applies = F.numApplies();
  outs() << format("chain of %u scalar Applies: unprofiled %.2f us, profiled "
                   "%.2f us per call: %.2f ns per Apply\n",
                   Applies, TPlain * 1e6, TProf * 1e6,
                   (TProf - TPlain) / Applies * 1e9);
  auto [TProf2, TMem] = sideBySide(*Profiled, *Memory, In, 15, 200);
  outs() << format("  with profile_memory: profiled %.2f us, memory-profiled "
                   "%.2f us per call: %.2f ns more per Apply\n",
                   TProf2 * 1e6, TMem * 1e6, (TMem - TProf2) / Applies * 1e9);
  auto Sampled = compileOrDie(F, Profiling::Sample, "None");
  auto [TPlain5, TSample] = sideBySide(*Plain, *Sampled, In, 15, 200);
  outs() << format("  sampled (profiling__mode=sample): unprofiled %.2f us, "
                   "sampled %.2f us per call: %.2f ns per Apply (target: at "
                   "most 1 ns)\n",
                   TPlain5 * 1e6, TSample * 1e6,
                   (TSample - TPlain5) / Applies * 1e9);
  auto Distributed = compileOrDie(F, Profiling::Distributions, "None");
  auto [TProf4, TDist] = sideBySide(*Profiled, *Distributed, In, 15, 200);
  outs() << format("  with distributions: profiled %.2f us, with "
                   "distributions %.2f us per call: %.2f ns more per Apply\n",
                   TProf4 * 1e6, TDist * 1e6, (TDist - TProf4) / Applies * 1e9);
  // The flag turns the trace on for the functions compiled from then on,
  // with a ring smaller than the run: the cost with the ring wrapping, as
  // in a long run. (The file, written at exit, is thrown away.)
  Flags Fl = llvm::cantFail(processFlags());
  Fl.ProfilingTrace = "/dev/null";
  Fl.ProfilingTraceEvents = 1 << 20;
  setProcessFlags(Fl);
  auto Traced = compileOrDie(F, Profiling::Time, "None");
  auto [TProf3, TTrace] = sideBySide(*Profiled, *Traced, In, 15, 200);
  Fl.ProfilingTrace.clear();
  setProcessFlags(Fl);
  outs() << format("  with the timeline: profiled %.2f us, traced %.2f us per "
                   "call: %.2f ns more per slice (an Apply's or the call's)\n",
                   TProf3 * 1e6, TTrace * 1e6,
                   (TTrace - TProf3) / (Applies + 1) * 1e9);
}

static void benchStep(const char *File, int64_t N, DType T, Shape X, Shape Y) {
  std::string Path = std::string(GRAPHJIT_EXAMPLES_DIR) + "/" + File;
  auto M = llvm::cantFail(parseGraphFile(Path));
  llvm::cantFail(M->initShared());
  FunctionGraph &F = *M->lookupFunction("train");
  auto Plain = compileOrDie(F, Profiling::None);
  auto Profiled = compileOrDie(F, Profiling::Time);
  auto Memory = compileOrDie(F, Profiling::Memory);
  std::vector<NDArray> In = {randomArray(T, X, 1), randomArray(T, Y, 2)};
  auto [TPlain, TProf] = sideBySide(*Plain, *Profiled, In, 11, 20);
  FunctionProfile P = Profiled->profile()->profile().Functions[0];
  outs() << format("%s train step (n=%lld): unprofiled %.3f ms, profiled "
                   "%.3f ms: overhead %+.2f%%; thunks/driver %.3f "
                   "(%u Applies)\n",
                   File, (long long)N, TPlain * 1e3, TProf * 1e3,
                   (TProf / TPlain - 1) * 100,
                   P.DriverSeconds > 0 ? P.thunkSeconds() / P.DriverSeconds
                                       : 0.0,
                   Plain->graph().numApplies());
  auto [TProf2, TMem] = sideBySide(*Profiled, *Memory, In, 11, 20);
  FunctionProfile PM = Memory->profile()->profile().Functions[0];
  outs() << format("  with profile_memory: profiled %.3f ms, memory-profiled "
                   "%.3f ms: %+.2f%% more; measured peak %llu bytes\n",
                   TProf2 * 1e3, TMem * 1e3, (TMem / TProf2 - 1) * 100,
                   (unsigned long long)PM.Memory.MeasuredPeak);
}

/// Sampling against exact timing on a step of milliseconds: each Op's
/// share of the time in thunks under both, calls alternating.
static void benchSampleShares(int64_t N) {
  std::string Path = std::string(GRAPHJIT_EXAMPLES_DIR) + "/mlp.graph";
  auto M = llvm::cantFail(parseGraphFile(Path));
  llvm::cantFail(M->initShared());
  FunctionGraph &F = *M->lookupFunction("train");
  auto Exact = compileOrDie(F, Profiling::Time);
  auto Sampled = compileOrDie(F, Profiling::Sample);
  std::vector<NDArray> In = {randomArray(DType::F32, {N, 784}, 1),
                             randomArray(DType::F32, {N, 10}, 2)};
  auto [TExact, TSample] = sideBySide(*Exact, *Sampled, In, 10, 40);
  auto Shares = [](Function &Fn) {
    FunctionProfile P = Fn.profile()->profile().Functions[0];
    std::map<std::string, double> ByOp;
    double Total = P.thunkSeconds();
    for (const ApplyProfile &A : P.Applies)
      ByOp[A.Op] += Total > 0 ? 100 * A.Seconds / Total : 0;
    return ByOp;
  };
  std::map<std::string, double> E = Shares(*Exact), S = Shares(*Sampled);
  double Worst = 0;
  std::string WorstOp;
  for (auto &[Op, Share] : E)
    if (std::fabs(Share - S[Op]) > Worst) {
      Worst = std::fabs(Share - S[Op]);
      WorstOp = Op;
    }
  outs() << format("mlp train step (n=%lld), %.2f ms exact, %.2f ms sampled "
                   "per call: the Ops' shares differ by at most %.2f "
                   "percentage points (target: at most 2), %s: %.1f%% "
                   "exact, %.1f%% sampled\n",
                   (long long)N, TExact * 1e3, TSample * 1e3, Worst,
                   WorstOp.c_str(), E[WorstOp], S[WorstOp]);
}

int main() {
  graphjit::initialize();
  benchChain();
  benchSampleShares(512);
  benchStep("logistic_regression.graph", 400, DType::F64, {400, 784}, {400});
  benchStep("mlp.graph", 128, DType::F32, {128, 784}, {128, 10});
  return 0;
}
