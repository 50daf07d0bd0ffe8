//===- profile/ProfileTips.cpp - Tips computed from a profile -------------===//
//
// The report's tips: each looks at this profile's numbers and speaks only
// when they show something (docs/profiling.md lists the rules and their
// thresholds). Theano printed a fixed list; these are measured.
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/ProfileTables.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace llvm;

namespace graphjit {
using namespace profile;

namespace {

/// An Apply above this share of the time in thunks dominates.
constexpr double DominantShare = 0.50;
/// Py Applies above this share are worth a lowering.
constexpr double PyShare = 0.10;
/// float64 Applies above this share suggest float32.
constexpr double Float64Share = 0.50;
/// Applies below this share are not worth a bandwidth tip.
constexpr double BandwidthMinShare = 0.05;
/// An Apply moving less than this per call is timed mostly by its fixed
/// costs (the call, the loop's setup), not by memory: no bandwidth tip.
constexpr double BandwidthMinBytesPerCall = 256 * 1024;
/// "Far below the bandwidth": under this fraction of the reference.
constexpr double SlowFraction = 0.25;
/// Above this many flops per byte an Apply is compute-bound (dot), not
/// bandwidth-bound, and gets no bandwidth tip.
constexpr double ComputeBoundIntensity = 2.0;
/// Below this share of the call time in thunks, the per-call overhead
/// dominates.
constexpr double ThunkShareOfCall = 0.50;
constexpr size_t MaxRowsPerTip = 3;

std::string describe(const ApplyProfile &A) {
  std::string S = "Apply " + std::to_string(A.Id) + " " + A.Name;
  if (!A.Loc.empty())
    S += " (" + A.Loc + ")";
  return S;
}

bool isFloat64(const ApplyProfile &A) {
  auto Has = [](ArrayRef<TensorInfo> Ts) {
    return any_of(Ts, [](const TensorInfo &T) { return T.DType == "float64"; });
  };
  return Has(A.Outputs) || (A.Outputs.empty() && Has(A.Inputs));
}

void dominantTip(const FunctionProfile &F, double Total,
                 std::vector<std::string> &Tips) {
  for (const ApplyProfile &A : F.Applies) {
    double Share = safeRatio(A.Seconds, Total);
    if (Share > DominantShare)
      Tips.push_back(formatv("{0} takes {1:f1}% of the time in thunks: "
                             "optimize it first; everything else together "
                             "can gain at most {2:f1}%.",
                             describe(A), 100 * Share, 100 * (1 - Share)));
  }
}

void pyTip(const FunctionProfile &F, double Total,
           std::vector<std::string> &Tips) {
  std::vector<ApplyProfile> Py;
  double PySeconds = 0;
  for (const ApplyProfile &A : F.Applies)
    if (!A.Compiled && A.Calls > 0) {
      Py.push_back(A);
      PySeconds += A.Seconds;
    }
  double Share = safeRatio(PySeconds, Total);
  if (Share < PyShare || Py.empty())
    return;
  std::vector<GroupRow> Ops = groupApplies(Py, /*ByOp=*/true);
  std::string Costliest;
  for (size_t I = 0; I < Ops.size() && I < MaxRowsPerTip; ++I)
    Costliest += formatv("{0}{1} ({2:f1}%, {3} Appl{4})", I ? ", " : "",
                         Ops[I].Name, percent(Ops[I].Seconds, Total),
                         Ops[I].Applies, Ops[I].Applies == 1 ? "y" : "ies")
                     .str();
  Tips.push_back(formatv("Applies run through perform (type Py) take {0:f1}% "
                         "of the time in thunks; the costliest: {1}. A "
                         "lowering of these ops to LLVM IR would run them as "
                         "JIT code (type C).",
                         100 * Share, Costliest));
}

void float64Tip(const FunctionProfile &F, double Total,
                std::vector<std::string> &Tips) {
  double Seconds = 0;
  unsigned Count = 0;
  for (const ApplyProfile &A : F.Applies)
    if (isFloat64(A) && A.Calls > 0) {
      Seconds += A.Seconds;
      ++Count;
    }
  double Share = safeRatio(Seconds, Total);
  if (Share < Float64Share)
    return;
  Tips.push_back(formatv("float64 Applies ({0} of {1}) take {2:f1}% of the "
                         "time in thunks: if float32's precision is enough, "
                         "float32 halves the bytes moved and doubles the SIMD "
                         "lanes.",
                         Count, F.Applies.size(), 100 * Share));
}

void bandwidthTip(const FunctionProfile &F, double Total,
                  const SummaryOptions &Opts, std::vector<std::string> &Tips) {
  double Reference = Opts.BandwidthGBs;
  std::string Against =
      formatv("the machine's {0:f1} GB/s", Opts.BandwidthGBs).str();
  unsigned Measured = 0;
  if (!(Reference > 0)) {
    Reference = 0;
    const ApplyProfile *Best = nullptr;
    for (const ApplyProfile &A : F.Applies) {
      double GBs = gbytesPerSecond(A);
      if (GBs > 0)
        ++Measured;
      if (GBs > Reference) {
        Reference = GBs;
        Best = &A;
      }
    }
    // One measured Apply has nothing to be compared with.
    if (!Best || Measured < 2)
      return;
    Against = formatv("the best in this profile, {0:f2} GB/s by Apply {1}",
                      Reference, Best->Id)
                  .str();
  }
  std::vector<const ApplyProfile *> Slow;
  for (const ApplyProfile &A : F.Applies) {
    double GBs = gbytesPerSecond(A);
    if (GBs <= 0 || safeRatio(A.Seconds, Total) < BandwidthMinShare ||
        A.BytesPerCall < BandwidthMinBytesPerCall ||
        safeRatio(A.FlopsPerCall, A.BytesPerCall) > ComputeBoundIntensity)
      continue;
    if (GBs < SlowFraction * Reference)
      Slow.push_back(&A);
  }
  std::stable_sort(Slow.begin(), Slow.end(),
                   [](const ApplyProfile *L, const ApplyProfile *R) {
                     return L->Seconds > R->Seconds;
                   });
  for (size_t I = 0; I < Slow.size() && I < MaxRowsPerTip; ++I) {
    const ApplyProfile &A = *Slow[I];
    double GBs = gbytesPerSecond(A);
    // Strides are a suspect only where the table shows some that are not
    // contiguous (none recorded: unknown).
    auto Strided = [](ArrayRef<TensorInfo> Ts) {
      return llvm::any_of(
          Ts, [](const TensorInfo &T) { return stridesString(T) != "c"; });
    };
    bool Known = !A.Inputs.empty() || !A.Outputs.empty();
    std::string Suspect =
        !Known ? "its strides (non-contiguous arrays?) and its loop"
        : Strided(A.Inputs) || Strided(A.Outputs)
            ? "its non-contiguous arrays (the strides in its rows) and its "
              "loop"
            : "its loop (its arrays are contiguous)";
    Tips.push_back(formatv("{0} moves {1:f2} GB/s, {2:f1}% of {3}, and takes "
                           "{4:f1}% of the time in thunks: look at {5}.",
                           describe(A), GBs, percent(GBs, Reference), Against,
                           percent(A.Seconds, Total), Suspect));
  }
}

void overheadTip(const FunctionProfile &F, double Total,
                 std::vector<std::string> &Tips) {
  if (F.Calls == 0 || !(F.CallSeconds > 0) || F.Applies.empty())
    return;
  double Share = safeRatio(Total, F.CallSeconds);
  if (Share >= ThunkShareOfCall)
    return;
  double PerCall = safeRatio(F.CallSeconds - Total, double(F.Calls));
  Tips.push_back(formatv("Only {0:f1}% of the call time is in thunks; the "
                         "rest ({1:e} s per call) binds and checks inputs "
                         "and runs the driver: give each call more work "
                         "(bigger batches) to amortize it.",
                         100 * Share, PerCall));
}

} // namespace

std::vector<std::string> computeTips(const FunctionProfile &F,
                                     const SummaryOptions &Opts) {
  std::vector<std::string> Tips;
  double Total = F.thunkSeconds();
  if (Total > 0) {
    dominantTip(F, Total, Tips);
    pyTip(F, Total, Tips);
    float64Tip(F, Total, Tips);
    bandwidthTip(F, Total, Opts, Tips);
  }
  overheadTip(F, Total, Tips);
  if (!F.Device.empty() && !F.HostOnly.empty()) {
    std::string Ops;
    for (const std::string &H : F.HostOnly)
      Ops += (Ops.empty() ? "" : "; ") + H;
    Tips.push_back("These ops stayed on the host (device " + F.Device +
                   "), each with a transfer around it: " + Ops + ".");
  }
  return Tips;
}

} // namespace graphjit
