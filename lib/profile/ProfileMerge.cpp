//===- profile/ProfileMerge.cpp - Sums of runs ----------------------------===//
//
// mergeProfiles(): runs of the same functions added together, as Theano
// combines the profiles of several calls. A function is the same when its
// name and file are; its Applies must then be the same too (ids, names,
// ops, C or Py), since adding the times of different graphs would give a
// report that describes neither. Memory is kept where every run recorded
// it: the largest peaks and outputs, the buffers summed; so is the
// optimizer's profile, its rewrites and phases summed by name.
// docs/profile-json.md, "Merging".
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/OptimizerReport.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>

using namespace llvm;

namespace graphjit {

namespace {

/// A mean of per-call numbers weighted by calls, so that the merged
/// per-call estimate times the merged calls is the sum of the totals.
double weighted(double A, uint64_t CallsA, double B, uint64_t CallsB) {
  double Calls = double(CallsA) + double(CallsB);
  if (!(Calls > 0))
    return A != 0 ? A : B;
  return (A * double(CallsA) + B * double(CallsB)) / Calls;
}

uint64_t applyCalls(const FunctionProfile &F) {
  uint64_t N = 0;
  for (const ApplyProfile &A : F.Applies)
    N += A.Calls;
  return N;
}

/// "A; B" without repeating what is already there.
void joinDistinct(std::string &Into, const std::string &Other) {
  if (Other.empty() || Into == Other)
    return;
  if (Into.empty()) {
    Into = Other;
    return;
  }
  if (Into.find(Other) == std::string::npos)
    Into += "; " + Other;
}

class ProfileMerger {
public:
  explicit ProfileMerger(ArrayRef<std::string> Names) : Names(Names) {}
  Error add(const Profile &P, size_t Run);
  Profile take() { return std::move(Result); }

private:
  ArrayRef<std::string> Names;
  Profile Result;
  /// The run each function of Result first came from.
  std::vector<size_t> FirstRun;

  std::string runName(size_t Run) const {
    if (Run < Names.size())
      return Names[Run];
    return "profile " + std::to_string(Run + 1);
  }
  Error mismatch(const FunctionProfile &F, size_t RunA, size_t RunB,
                 const Twine &What) const {
    std::string Where = "function '" + F.Name + "'";
    if (!F.File.empty())
      Where += " (" + F.File + ")";
    return createStringError(inconvertibleErrorCode(),
                             "cannot merge " + runName(RunA) + " and " +
                                 runName(RunB) + ": " + Where + ": " + What);
  }
  Error addFunction(FunctionProfile &Into, const FunctionProfile &F,
                    size_t RunA, size_t RunB);
  Error checkMemory(const FunctionProfile &Into, const FunctionProfile &F,
                    ArrayRef<size_t> Match, size_t RunA, size_t RunB) const;
};

/// Forgets a function's memory: a sum where some run did not record it
/// would show a peak that no run had.
void dropMemory(FunctionProfile &F) {
  F.Memory = FunctionMemory();
  for (ApplyProfile &A : F.Applies) {
    A.InputVars.clear();
    A.OutputMem.clear();
    A.AllocatedBytes = A.Allocations = 0;
  }
}

/// Adds B's memory to A's (the same Apply in two runs): the largest
/// outputs, the largest allocation of one call, all the buffers.
void addApplyMemory(ApplyProfile &A, const ApplyProfile &B) {
  for (size_t K = 0; K < A.OutputMem.size(); ++K) {
    OutputMemory &O = A.OutputMem[K];
    const OutputMemory &P = B.OutputMem[K];
    if (P.Bytes > O.Bytes) {
      O.Bytes = P.Bytes;
      O.Shape = P.Shape;
    }
    O.Allocated = O.Allocated || P.Allocated;
  }
  A.AllocatedBytes = std::max(A.AllocatedBytes, B.AllocatedBytes);
  A.Allocations += B.Allocations;
}

Error ProfileMerger::checkMemory(const FunctionProfile &Into,
                                 const FunctionProfile &F,
                                 ArrayRef<size_t> Match, size_t RunA,
                                 size_t RunB) const {
  if (!Into.Memory.Recorded || !F.Memory.Recorded)
    return Error::success();
  std::string NameA = runName(RunA), NameB = runName(RunB);
  auto GC = [](bool AllowGC) {
    return AllowGC ? "allow_gc=True" : "allow_gc=False";
  };
  if (Into.Memory.AllowGC != F.Memory.AllowGC)
    return mismatch(F, RunA, RunB,
                    Twine(GC(Into.Memory.AllowGC)) + " in " + NameA + " but " +
                        GC(F.Memory.AllowGC) + " in " + NameB);
  // The same graph has the same variables; anything else is not the same
  // function, whatever its names say.
  for (size_t I = 0; I < F.Applies.size(); ++I) {
    const ApplyProfile &A = Into.Applies[Match[I]], &B = F.Applies[I];
    bool Same =
        A.InputVars == B.InputVars && A.OutputMem.size() == B.OutputMem.size();
    for (size_t K = 0; Same && K < A.OutputMem.size(); ++K)
      Same = A.OutputMem[K].Var == B.OutputMem[K].Var &&
             A.OutputMem[K].Kind == B.OutputMem[K].Kind &&
             A.OutputMem[K].Input == B.OutputMem[K].Input;
    if (!Same)
      return mismatch(F, RunA, RunB,
                      "Apply " + Twine(B.Id) +
                          " reads or makes other variables in " + NameA +
                          " than in " + NameB);
  }
  return Error::success();
}

Error ProfileMerger::addFunction(FunctionProfile &Into,
                                 const FunctionProfile &F, size_t RunA,
                                 size_t RunB) {
  std::string NameA = runName(RunA), NameB = runName(RunB);
  if (!Into.Linker.empty() && !F.Linker.empty() && Into.Linker != F.Linker)
    return mismatch(F, RunA, RunB,
                    "linker " + Into.Linker + " in " + NameA + " but " +
                        F.Linker + " in " + NameB);
  if (Into.Applies.size() != F.Applies.size())
    return mismatch(F, RunA, RunB,
                    Twine(Into.Applies.size()) + " Applies in " + NameA +
                        " but " + Twine(F.Applies.size()) + " in " + NameB);
  DenseMap<unsigned, size_t> ById;
  for (size_t I = 0; I < Into.Applies.size(); ++I)
    ById[Into.Applies[I].Id] = I;
  // Check everything before changing anything: an error leaves no half sum.
  std::vector<size_t> Match;
  for (const ApplyProfile &B : F.Applies) {
    auto It = ById.find(B.Id);
    if (It == ById.end())
      return mismatch(F, RunA, RunB,
                      "Apply " + Twine(B.Id) + " is only in " + NameB);
    const ApplyProfile &A = Into.Applies[It->second];
    if (A.Name != B.Name || A.Op != B.Op)
      return mismatch(F, RunA, RunB,
                      "Apply " + Twine(B.Id) + " is '" + A.Name + "' in " +
                          NameA + " but '" + B.Name + "' in " + NameB);
    if (A.Compiled != B.Compiled)
      return mismatch(F, RunA, RunB,
                      "Apply " + Twine(B.Id) + " is " + A.type() + " in " +
                          NameA + " but " + B.type() + " in " + NameB);
    Match.push_back(It->second);
  }
  if (Error E = checkMemory(Into, F, Match, RunA, RunB))
    return E;

  Into.InstrumentationNsPerApply =
      weighted(Into.InstrumentationNsPerApply, applyCalls(Into),
               F.InstrumentationNsPerApply, applyCalls(F));
  // The first call kept apart stays the first run's (the diff leaves out
  // that one only).
  if (!Into.FirstCallSeconds) {
    Into.FirstCallSeconds = F.FirstCallSeconds;
    Into.FirstCallInTotals = F.FirstCallInTotals;
  }
  Into.Calls += F.Calls;
  Into.CallSeconds += F.CallSeconds;
  Into.DriverSeconds += F.DriverSeconds;
  Into.Compile += F.Compile;
  if (Into.Linker.empty())
    Into.Linker = F.Linker;
  if (Into.InnerOf.empty())
    Into.InnerOf = F.InnerOf;
  joinDistinct(Into.Clock, F.Clock);
  // The GPU path: the device (or devices) and the largest device peaks.
  if (Into.Device.empty())
    Into.Device = F.Device;
  else if (!F.Device.empty())
    joinDistinct(Into.Device, F.Device);
  for (const std::string &H : F.HostOnly)
    if (!llvm::is_contained(Into.HostOnly, H))
      Into.HostOnly.push_back(H);
  Into.GpuPeakBytes = std::max(Into.GpuPeakBytes, F.GpuPeakBytes);
  Into.GpuPeakReservedBytes =
      std::max(Into.GpuPeakReservedBytes, F.GpuPeakReservedBytes);
  bool MemoryKept = Into.Memory.Recorded && F.Memory.Recorded;
  if (MemoryKept) {
    FunctionMemory &M = Into.Memory;
    M.MeasuredPeak = std::max(M.MeasuredPeak, F.Memory.MeasuredPeak);
    M.Calls += F.Memory.Calls;
    M.Allocations += F.Memory.Allocations;
  } else {
    dropMemory(Into);
  }
  // Like memory: a sum where some run did not record the optimizer would
  // show less time than the runs took.
  if (Into.Optimizer.Recorded && F.Optimizer.Recorded)
    profile::addOptimizerProfile(Into.Optimizer, F.Optimizer,
                                 /*SameFunction=*/true);
  else
    Into.Optimizer = OptimizerProfile();
  for (size_t I = 0; I < F.Applies.size(); ++I) {
    ApplyProfile &A = Into.Applies[Match[I]];
    const ApplyProfile &B = F.Applies[I];
    if (MemoryKept)
      addApplyMemory(A, B);
    A.FlopsPerCall = weighted(A.FlopsPerCall, A.Calls, B.FlopsPerCall, B.Calls);
    A.BytesPerCall = weighted(A.BytesPerCall, A.Calls, B.BytesPerCall, B.Calls);
    A.Calls += B.Calls;
    A.Seconds += B.Seconds;
    A.OnDevice |= B.OnDevice;
    // Runs' distributions add up, bucket by bucket; a run without one
    // leaves the sum without. The first call stays the first run's.
    // A distribution read without its buckets cannot be added to.
    if (A.Distribution && B.Distribution && !A.Distribution->Buckets.empty() &&
        !B.Distribution->Buckets.empty()) {
      std::vector<TimeBucket> Buckets = A.Distribution->Buckets;
      llvm::append_range(Buckets, B.Distribution->Buckets);
      // Each run's median is kept for a diff between runs.
      std::vector<double> Runs = A.Distribution->runMedians();
      llvm::append_range(Runs, B.Distribution->runMedians());
      A.Distribution = distributionOf(std::move(Buckets));
      A.Distribution->RunMedians = std::move(Runs);
    } else {
      A.Distribution.reset();
    }
    if (!A.FirstCallSeconds)
      A.FirstCallSeconds = B.FirstCallSeconds;
    if (A.Loc.empty())
      A.Loc = B.Loc;
    // The same Apply (same name and op) of the same function: provenance
    // may only be missing from one side (a version 2 file).
    if (A.Rewrites.empty() && A.SourceLocs.empty()) {
      A.Rewrites = B.Rewrites;
      A.SourceLocs = B.SourceLocs;
    }
    // The tensors as last seen.
    if (!B.Inputs.empty() || !B.Outputs.empty()) {
      A.Inputs = B.Inputs;
      A.Outputs = B.Outputs;
    }
  }
  return Error::success();
}

Error ProfileMerger::add(const Profile &P, size_t Run) {
  joinDistinct(Result.Machine, P.Machine);
  for (const FunctionProfile &F : P.Functions) {
    size_t Found = Result.Functions.size();
    for (size_t I = 0; I < Result.Functions.size(); ++I)
      if (Result.Functions[I].Name == F.Name &&
          Result.Functions[I].File == F.File) {
        Found = I;
        break;
      }
    if (Found == Result.Functions.size()) {
      Result.Functions.push_back(F);
      FirstRun.push_back(Run);
      continue;
    }
    if (Error E = addFunction(Result.Functions[Found], F, FirstRun[Found], Run))
      return E;
  }
  return Error::success();
}

} // namespace

Expected<Profile> mergeProfiles(ArrayRef<Profile> Profiles,
                                ArrayRef<std::string> Names) {
  ProfileMerger M(Names);
  for (size_t I = 0; I < Profiles.size(); ++I)
    if (Error E = M.add(Profiles[I], I))
      return E;
  return M.take();
}

} // namespace graphjit
