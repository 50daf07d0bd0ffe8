//===- profile/ProfileModel.cpp - The profile's raw numbers ---------------===//
//
// Equality and totals of the data model, the skeleton of a function's
// profile built from its graph (provenance included), and the sum of a
// profile's functions.
//
//===----------------------------------------------------------------------===//
#include "graphjit/Graph.h"
#include "graphjit/NDArray.h"
#include "graphjit/Profile.h"
#include "profile/OptimizerReport.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <tuple>

using namespace llvm;

namespace graphjit {

bool ApplyProfile::operator==(const ApplyProfile &O) const {
  return Id == O.Id && Name == O.Name && Op == O.Op && OpClass == O.OpClass &&
         Loc == O.Loc && Compiled == O.Compiled && Calls == O.Calls &&
         Seconds == O.Seconds && FlopsPerCall == O.FlopsPerCall &&
         BytesPerCall == O.BytesPerCall && Inputs == O.Inputs &&
         Outputs == O.Outputs && InputVars == O.InputVars &&
         OutputMem == O.OutputMem && AllocatedBytes == O.AllocatedBytes &&
         Allocations == O.Allocations && Rewrites == O.Rewrites &&
         SourceLocs == O.SourceLocs && OnDevice == O.OnDevice &&
         Terms == O.Terms && Gradient == O.Gradient &&
         FirstCallSeconds == O.FirstCallSeconds &&
         Distribution == O.Distribution;
}

bool FunctionProfile::operator==(const FunctionProfile &O) const {
  return Name == O.Name && File == O.File && Calls == O.Calls &&
         CallSeconds == O.CallSeconds && DriverSeconds == O.DriverSeconds &&
         Compile == O.Compile && Linker == O.Linker && Clock == O.Clock &&
         InstrumentationNsPerApply == O.InstrumentationNsPerApply &&
         Applies == O.Applies && Memory == O.Memory &&
         Optimizer == O.Optimizer && Device == O.Device &&
         HostOnly == O.HostOnly && GpuPeakBytes == O.GpuPeakBytes &&
         GpuPeakReservedBytes == O.GpuPeakReservedBytes &&
         FirstCallSeconds == O.FirstCallSeconds &&
         FirstCallInTotals == O.FirstCallInTotals && InnerOf == O.InnerOf;
}

TimeDistribution distributionOf(std::vector<TimeBucket> Buckets) {
  std::sort(Buckets.begin(), Buckets.end(),
            [](const TimeBucket &L, const TimeBucket &R) {
              return std::tie(L.Lower, L.Upper) < std::tie(R.Lower, R.Upper);
            });
  TimeDistribution D;
  for (const TimeBucket &B : Buckets) {
    if (!B.Count)
      continue;
    if (!D.Buckets.empty() && D.Buckets.back().Lower == B.Lower &&
        D.Buckets.back().Upper == B.Upper)
      D.Buckets.back().Count += B.Count;
    else
      D.Buckets.push_back(B);
    D.Calls += B.Count;
  }
  if (!D.Calls)
    return D;
  auto Quantile = [&](double Q) {
    double Rank = Q * double(D.Calls), Below = 0;
    for (const TimeBucket &B : D.Buckets) {
      if (Below + double(B.Count) >= Rank || &B == &D.Buckets.back()) {
        double Within = std::clamp((Rank - Below) / double(B.Count), 0.0, 1.0);
        return B.Lower + (B.Upper - B.Lower) * Within;
      }
      Below += double(B.Count);
    }
    return 0.0;
  };
  D.Min = D.Buckets.front().Lower;
  D.P25 = Quantile(0.25);
  D.Median = Quantile(0.5);
  D.P75 = Quantile(0.75);
  D.P90 = Quantile(0.9);
  D.Max = 0;
  for (const TimeBucket &B : D.Buckets)
    D.Max = std::max(D.Max, B.Upper);
  return D;
}

double FunctionProfile::thunkSeconds() const {
  double Sum = 0;
  for (const ApplyProfile &A : Applies)
    Sum += A.Seconds;
  return Sum;
}

FunctionProfile describeFunction(const FunctionGraph &F) {
  FunctionProfile P;
  P.Name = F.name();
  if (F.module())
    P.File = F.module()->fileName();
  for (const Apply *A : F.applies()) {
    ApplyProfile AP;
    AP.Id = A->id();
    AP.Name = A->displayName();
    AP.Op = A->op().name();
    AP.OpClass = A->op().className().str();
    if (A->loc().isValid())
      AP.Loc = A->loc().fileLine();
    AP.Rewrites.assign(A->rewrites().begin(), A->rewrites().end());
    // The statements are worth keeping when they say more than Loc.
    if (!AP.Rewrites.empty() || A->sourceLocs().size() > 1)
      for (const SourceLoc &L : A->sourceLocs())
        if (L.isValid())
          AP.SourceLocs.push_back(L.fileLine());
    P.Applies.push_back(std::move(AP));
  }
  return P;
}

static TensorInfo tensorInfo(const NDArray &A) {
  return {dtypeNumpyName(A.dtype()).str(), A.shape(), A.strides()};
}

void recordTensors(ApplyProfile &P, const Apply &A, ArrayRef<NDArray> Inputs,
                   ArrayRef<NDArray> Outputs) {
  P.Inputs.clear();
  P.Outputs.clear();
  SmallVector<Shape, 4> InShapes, OutShapes;
  for (const NDArray &In : Inputs) {
    P.Inputs.push_back(tensorInfo(In));
    InShapes.push_back(In.shape());
  }
  bool AllOutputs = true;
  for (const NDArray &Out : Outputs) {
    if (Out.isNull()) {
      AllOutputs = false;
      continue;
    }
    P.Outputs.push_back(tensorInfo(Out));
    OutShapes.push_back(Out.shape());
  }
  if (!AllOutputs)
    return;
  P.FlopsPerCall = A.op().flops(InShapes, OutShapes);
  P.BytesPerCall = A.op().bytesMoved(Inputs, Outputs);
}

/// The distinct values of Get over the functions, joined by ", ".
template <typename Fn>
static std::string distinctJoined(const Profile &P, Fn Get) {
  SmallVector<std::string, 4> Seen;
  for (const FunctionProfile &F : P.Functions) {
    std::string V = Get(F);
    if (!V.empty() && !is_contained(Seen, V))
      Seen.push_back(V);
  }
  return join(Seen, ", ");
}

FunctionProfile sumOfFunctions(const Profile &P) {
  // Loop bodies' time is already their outer Apply's.
  std::vector<const FunctionProfile *> Outer;
  for (const FunctionProfile &F : P.Functions)
    if (F.InnerOf.empty())
      Outer.push_back(&F);
  FunctionProfile S;
  S.Name = "Sum of all(" + std::to_string(Outer.size()) +
           ") printed profiles at exit";
  S.Linker =
      distinctJoined(P, [](const FunctionProfile &F) { return F.Linker; });
  S.Clock = distinctJoined(P, [](const FunctionProfile &F) { return F.Clock; });
  S.Compile.Cached = !Outer.empty();
  // The optimizers' sum, when every function recorded its own.
  S.Optimizer.Recorded =
      !Outer.empty() && llvm::all_of(Outer, [](const FunctionProfile *F) {
        return F->Optimizer.Recorded;
      });
  bool FirstOptimizer = true;
  double WeightedNs = 0, ApplyCalls = 0;
  for (const FunctionProfile *Fn : Outer) {
    const FunctionProfile &F = *Fn;
    if (S.Optimizer.Recorded) {
      if (FirstOptimizer)
        S.Optimizer = F.Optimizer;
      else
        profile::addOptimizerProfile(S.Optimizer, F.Optimizer,
                                     /*SameFunction=*/false);
      FirstOptimizer = false;
    }
    S.Calls += F.Calls;
    S.CallSeconds += F.CallSeconds;
    S.DriverSeconds += F.DriverSeconds;
    S.Compile += F.Compile;
    for (const ApplyProfile &A : F.Applies) {
      ApplyProfile Copy = A;
      Copy.Name = F.Name + ": " + A.Name;
      // Variable ids are per function: the sum has no memory to simulate.
      Copy.InputVars.clear();
      Copy.OutputMem.clear();
      Copy.AllocatedBytes = Copy.Allocations = 0;
      WeightedNs += F.InstrumentationNsPerApply * double(A.Calls);
      ApplyCalls += double(A.Calls);
      S.Applies.push_back(std::move(Copy));
    }
  }
  S.InstrumentationNsPerApply = ApplyCalls > 0 ? WeightedNs / ApplyCalls : 0;
  return S;
}

} // namespace graphjit
