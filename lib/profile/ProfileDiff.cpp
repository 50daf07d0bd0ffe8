//===- profile/ProfileDiff.cpp - Differences between two profiles ---------===//
//
// diffProfiles() and printDiff(): Theano's print_diff_summary, per Class,
// per Op and per Apply, with rows added, removed and changed, sorted by the
// size of the change, the memory of functions recorded in both, and the
// optimizer's time and, where both recorded it, its rewrites. Applies
// are matched by (function, Apply name), not by id, since ids shift when a
// graph changes (docs/profiling.md, "Diffs").
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/MemoryReport.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace llvm;

namespace graphjit {
using namespace profile;

namespace {

/// One side's rows before matching: key -> seconds, calls.
struct Side {
  std::string Key, Loc;
  double Seconds = 0;
  uint64_t Calls = 0;
  std::optional<TimeDistribution> Distribution; ///< Apply rows only.
};

/// Pairs the rows of A and B with equal keys, the k-th of a key in A with
/// the k-th in B: (index in A, index in B), -1 for a row of one side only.
/// A's rows come first, in order, then B's unmatched ones.
template <typename Row>
std::vector<std::pair<int, int>> matchKeys(ArrayRef<Row> A, ArrayRef<Row> B) {
  StringMap<std::vector<int>> InB;
  for (size_t I = 0; I < B.size(); ++I)
    InB[B[I].Key].push_back(int(I));
  StringMap<size_t> Used;
  std::vector<bool> Matched(B.size(), false);
  std::vector<std::pair<int, int>> Pairs;
  for (size_t I = 0; I < A.size(); ++I) {
    auto It = InB.find(A[I].Key);
    size_t &K = Used[A[I].Key];
    int J = -1;
    if (It != InB.end() && K < It->second.size()) {
      J = It->second[K++];
      Matched[J] = true;
    }
    Pairs.push_back({int(I), J});
  }
  for (size_t J = 0; J < B.size(); ++J)
    if (!Matched[J])
      Pairs.push_back({-1, int(J)});
  return Pairs;
}

DiffRow::Status statusOf(int A, int B, bool Same) {
  if (A < 0)
    return DiffRow::Added;
  if (B < 0)
    return DiffRow::Removed;
  return Same ? DiffRow::Same : DiffRow::Changed;
}

void markGroupNoise(const Profile &A, const Profile &B, ProfileDiff &D);

/// Matches rows with equal keys and appends the result to Out. Changes
/// of FloorSeconds or less per call are below what the clock resolves.
void matchRows(ArrayRef<Side> A, ArrayRef<Side> B, StringRef Function,
               std::vector<DiffRow> &Out, double FloorSeconds = 0) {
  for (auto [I, J] : matchKeys(A, B)) {
    DiffRow R;
    R.Function = Function.str();
    const Side &Some = I >= 0 ? A[I] : B[J];
    R.Key = Some.Key;
    if (I >= 0) {
      R.SecondsA = A[I].Seconds;
      R.CallsA = A[I].Calls;
      R.Loc = A[I].Loc;
    }
    if (J >= 0) {
      R.SecondsB = B[J].Seconds;
      R.CallsB = B[J].Calls;
      if (!B[J].Loc.empty())
        R.Loc = B[J].Loc;
    }
    // Equal up to rounding: leaving out a first call subtracts, and no
    // clock resolves a picosecond.
    bool SameTime = std::fabs(R.SecondsA - R.SecondsB) <= 1e-12;
    R.State = statusOf(I, J, SameTime && R.CallsA == R.CallsB);
    // Where both sides kept distributions, their spread says whether a
    // change is one.
    if (I >= 0 && J >= 0 && A[I].Distribution && B[J].Distribution) {
      ChangeTest T = testChange(*A[I].Distribution, *B[J].Distribution,
                                FloorSeconds);
      R.MedianA = T.MedianA;
      R.MedianB = T.MedianB;
      R.PValue = T.PValue;
      R.RunsA = T.RunsA;
      R.RunsB = T.RunsB;
      if (R.State == DiffRow::Changed && !T.Significant)
        R.State = DiffRow::Noise;
    }
    Out.push_back(std::move(R));
  }
}

std::vector<Side> groupSides(const Profile &P, bool ByOp) {
  std::vector<ApplyProfile> All;
  for (const FunctionProfile &F : P.Functions)
    All.insert(All.end(), F.Applies.begin(), F.Applies.end());
  std::vector<Side> Rows;
  for (const GroupRow &G : groupApplies(All, ByOp))
    Rows.push_back({G.Name, "", G.Seconds, G.Calls});
  return Rows;
}

std::vector<Side> applySides(const FunctionProfile &F) {
  std::vector<Side> Rows;
  for (const ApplyProfile &A : F.Applies)
    Rows.push_back({A.Name, A.Loc, A.Seconds, A.Calls, A.Distribution});
  return Rows;
}

/// The optimizer's rewrites: seconds trying each, times applied.
std::vector<Side> rewriteSides(const FunctionProfile &F) {
  std::vector<Side> Rows;
  for (const RewriteProfile &R : F.Optimizer.Rewrites)
    Rows.push_back({R.Name, "", R.Seconds, R.Applied});
  return Rows;
}

void sortRows(std::vector<DiffRow> &Rows) {
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const DiffRow &L, const DiffRow &R) {
                     double DL = std::fabs(L.difference());
                     double DR = std::fabs(R.difference());
                     if (DL != DR)
                       return DL > DR;
                     if (L.Function != R.Function)
                       return L.Function < R.Function;
                     return L.Key < R.Key;
                   });
}

/// An Apply's output bytes, before matching.
struct MemorySide {
  std::string Key, Loc;
  uint64_t Bytes = 0;
};

std::vector<MemorySide> memorySides(const FunctionProfile &F) {
  std::vector<MemorySide> Rows;
  for (const ApplyProfile &A : F.Applies)
    Rows.push_back({A.Name, A.Loc, outputBytes(A)});
  return Rows;
}

/// The memory rows of a function recorded in A and B.
void diffMemory(const FunctionProfile &A, const FunctionProfile &B,
                ProfileDiff &D) {
  // The peaks in the schedule's order; the minimum's search is not needed.
  MemorySimulation SimA = simulateMemory(A, 0), SimB = simulateMemory(B, 0);
  D.Memory.push_back({A.Name, A.Memory.MeasuredPeak, B.Memory.MeasuredPeak,
                      SimA.NoGC, SimB.NoGC, SimA.GC, SimB.GC});
  std::vector<MemorySide> SA = memorySides(A), SB = memorySides(B);
  for (auto [I, J] : matchKeys<MemorySide>(SA, SB)) {
    ApplyMemoryDiffRow R;
    R.Function = A.Name;
    R.Key = I >= 0 ? SA[I].Key : SB[J].Key;
    R.Loc = J >= 0 && !SB[J].Loc.empty() ? SB[J].Loc : I >= 0 ? SA[I].Loc : "";
    R.BytesA = I >= 0 ? SA[I].Bytes : 0;
    R.BytesB = J >= 0 ? SB[J].Bytes : 0;
    R.State = statusOf(I, J, R.BytesA == R.BytesB);
    D.MemoryApplies.push_back(std::move(R));
  }
}

/// The functions of P named Name, in order.
std::vector<const FunctionProfile *> named(const Profile &P, StringRef Name) {
  std::vector<const FunctionProfile *> Out;
  for (const FunctionProfile &F : P.Functions)
    if (F.Name == Name)
      Out.push_back(&F);
  return Out;
}

/// A Class or Op row that changed is noise when every Apply of it, in
/// both profiles, has a distribution and none changed beyond its noise.
void markGroupNoise(const Profile &A, const Profile &B, ProfileDiff &D) {
  StringMap<bool> Significant; // Apply rows by "function: name".
  for (const DiffRow &R : D.Applies)
    if (R.MedianA)
      Significant[R.Function + ": " + R.Key] = R.State == DiffRow::Changed;
  // Per Op and per Class: whether all their Applies were judged noise.
  StringMap<bool> OpNoise, ClassNoise;
  for (const Profile *P : {&A, &B})
    for (const FunctionProfile &F : P->Functions)
      for (const ApplyProfile &Ap : F.Applies) {
        auto It = Significant.find(F.Name + ": " + Ap.Name);
        bool Noise = It != Significant.end() && !It->second;
        for (auto [Map, Key] : {std::pair{&OpNoise, &Ap.Op},
                                std::pair{&ClassNoise, &Ap.OpClass}}) {
          auto [Entry, New] = Map->try_emplace(*Key, Noise);
          Entry->second = Entry->second && Noise;
        }
      }
  for (auto [Rows, Map] : {std::pair{&D.Classes, &ClassNoise},
                           std::pair{&D.Ops, &OpNoise}})
    for (DiffRow &R : *Rows)
      if (R.State == DiffRow::Changed && Map->lookup(R.Key))
        R.State = DiffRow::Noise;
}

} // namespace

/// P in its steady state: each function's first call, where its totals
/// include it and it was kept apart, left out of the function's and its
/// Applies' calls and seconds. Whether any was.
static bool leaveOutFirstCalls(Profile &P) {
  bool Any = false;
  for (FunctionProfile &F : P.Functions) {
    if (!F.FirstCallInTotals || !F.FirstCallSeconds || F.Calls == 0)
      continue;
    Any = true;
    F.FirstCallInTotals = false;
    F.Calls -= 1;
    F.CallSeconds = std::max(0.0, F.CallSeconds - *F.FirstCallSeconds);
    for (ApplyProfile &Ap : F.Applies)
      if (Ap.FirstCallSeconds && Ap.Calls > 0) {
        Ap.Calls -= 1;
        Ap.Seconds = std::max(0.0, Ap.Seconds - *Ap.FirstCallSeconds);
      }
  }
  return Any;
}

ProfileDiff diffProfiles(const Profile &FullA, const Profile &FullB) {
  ProfileDiff D;
  // The first call pays page faults and warm-up: it must not look like a
  // change (docs/profiling.md, "Diffs").
  Profile A = FullA, B = FullB;
  D.FirstCallLeftOutA = leaveOutFirstCalls(A);
  D.FirstCallLeftOutB = leaveOutFirstCalls(B);
  for (const FunctionProfile &F : A.Functions) {
    D.RewriteSecondsA += F.Compile.Rewrite;
    D.ValidateSecondsA += F.Compile.Validate;
    D.ThunkSecondsA += F.thunkSeconds();
    D.CallSecondsA += F.CallSeconds;
    D.CallsA += F.Calls;
  }
  for (const FunctionProfile &F : B.Functions) {
    D.RewriteSecondsB += F.Compile.Rewrite;
    D.ValidateSecondsB += F.Compile.Validate;
    D.ThunkSecondsB += F.thunkSeconds();
    D.CallSecondsB += F.CallSeconds;
    D.CallsB += F.Calls;
  }
  matchRows(groupSides(A, false), groupSides(B, false), "", D.Classes);
  matchRows(groupSides(A, true), groupSides(B, true), "", D.Ops);

  // Functions by name, the k-th of a name in A with the k-th in B.
  StringMap<size_t> SeenA, SeenB;
  for (const FunctionProfile &F : A.Functions) {
    std::vector<const FunctionProfile *> InB = named(B, F.Name);
    size_t K = SeenA[F.Name]++;
    if (K < InB.size()) {
      // What the clock resolves: the instrumentation's own cost.
      double Floor = 1e-9 * std::max(F.InstrumentationNsPerApply,
                                     InB[K]->InstrumentationNsPerApply);
      matchRows(applySides(F), applySides(*InB[K]), F.Name, D.Applies, Floor);
      if (F.Memory.Recorded && InB[K]->Memory.Recorded)
        diffMemory(F, *InB[K], D);
      if (F.Optimizer.Recorded && InB[K]->Optimizer.Recorded)
        matchRows(rewriteSides(F), rewriteSides(*InB[K]), F.Name, D.Rewrites);
    } else {
      D.FunctionsRemoved.push_back(F.Name);
      matchRows(applySides(F), {}, F.Name, D.Applies);
    }
  }
  for (const FunctionProfile &F : B.Functions) {
    size_t K = SeenB[F.Name]++;
    if (K >= named(A, F.Name).size()) {
      D.FunctionsAdded.push_back(F.Name);
      matchRows({}, applySides(F), F.Name, D.Applies);
    }
  }
  for (const DiffRow &R : D.Applies)
    if (R.MedianA) {
      ++D.AppliesWithDistributions;
      D.SignificantApplies += R.State == DiffRow::Changed;
      D.AppliesTestedBetweenRuns += bool(R.PValue);
      D.RunsA = std::max(D.RunsA, R.RunsA);
      D.RunsB = std::max(D.RunsB, R.RunsB);
    }
  markGroupNoise(A, B, D);
  sortRows(D.Classes);
  sortRows(D.Ops);
  sortRows(D.Applies);
  sortRows(D.Rewrites);
  std::stable_sort(
      D.MemoryApplies.begin(), D.MemoryApplies.end(),
      [](const ApplyMemoryDiffRow &L, const ApplyMemoryDiffRow &R) {
        uint64_t DL = uint64_t(std::llabs(L.difference()));
        uint64_t DR = uint64_t(std::llabs(R.difference()));
        if (DL != DR)
          return DL > DR;
        if (L.Function != R.Function)
          return L.Function < R.Function;
        return L.Key < R.Key;
      });
  return D;
}

static StringRef statusName(DiffRow::Status S) {
  switch (S) {
  case DiffRow::Added:
    return "added";
  case DiffRow::Removed:
    return "removed";
  case DiffRow::Changed:
    return "changed";
  case DiffRow::Noise:
    return "noise";
  case DiffRow::Same:
    break;
  }
  return "same";
}

/// B / A as text; "-" where A is 0 (never inf or NaN).
static std::string ratioText(double A, double B) {
  if (!(A > 0))
    return "-";
  return formatv("{0:f3}", safeRatio(B, A)).str();
}

static void printDiffTable(raw_ostream &OS, StringRef Title, StringRef Column,
                           StringRef Plural, ArrayRef<DiffRow> Rows, size_t N,
                           StringRef Count = "#call") {
  OS << Title << "\n" << std::string(Title == "Apply" ? 6 : 3, '-') << "\n";
  OS << "<time A> <time B> <difference> <ratio B/A> <" << Count << " A> <"
     << Count << " B> <status> <" << Column << ">\n";
  size_t Shown = std::min(N, Rows.size());
  for (size_t I = 0; I < Shown; ++I) {
    const DiffRow &R = Rows[I];
    std::string Key = R.Function.empty() ? R.Key : R.Function + ": " + R.Key;
    OS << format("  %.3es  %.3es  %+.3es  %9s  %8llu  %8llu  %-7s  ",
                 R.SecondsA, R.SecondsB, R.difference(),
                 ratioText(R.SecondsA, R.SecondsB).c_str(),
                 (unsigned long long)R.CallsA, (unsigned long long)R.CallsB,
                 statusName(R.State).str().c_str())
       << Key;
    if (R.MedianA && R.MedianB && R.PValue)
      OS << format("  [median per call %.2es -> %.2es; runs %u -> %u, p=%.3g]",
                   *R.MedianA, *R.MedianB, R.RunsA, R.RunsB, *R.PValue);
    else if (R.MedianA && R.MedianB)
      OS << format("  [median per call %.2es -> %.2es]", *R.MedianA,
                   *R.MedianB);
    OS << "\n";
  }
  double Rest = 0;
  for (size_t I = Shown; I < Rows.size(); ++I)
    Rest += Rows[I].difference();
  OS << format("   ... (remaining %zu %s account for %+.3es of the "
               "difference)\n\n",
               Rows.size() - Shown, Plural.str().c_str(), Rest);
}

/// The peaks of each function recorded in both, then the Applies whose
/// output bytes changed most.
static void printMemoryDiff(raw_ostream &OS, const ProfileDiff &D, size_t N) {
  OS << "Memory\n------\n";
  OS << "<measured peak A> <measured peak B> <difference> <no gc A> <no gc B> "
        "<gc A> <gc B> <Function>\n";
  for (const MemoryDiffRow &R : D.Memory)
    OS << format("  %10lluB  %10lluB  %+11lldB  %10lluB  %10lluB  %10lluB  "
                 "%10lluB  ",
                 (unsigned long long)R.MeasuredA,
                 (unsigned long long)R.MeasuredB, (long long)R.difference(),
                 (unsigned long long)R.NoGCA, (unsigned long long)R.NoGCB,
                 (unsigned long long)R.GCA, (unsigned long long)R.GCB)
       << R.Function << "\n";
  OS << "<output bytes A> <output bytes B> <difference> <status> <Apply "
        "name>\n";
  size_t Shown = std::min(N, D.MemoryApplies.size());
  for (size_t I = 0; I < Shown; ++I) {
    const ApplyMemoryDiffRow &R = D.MemoryApplies[I];
    OS << format("  %10lluB  %10lluB  %+11lldB  %-7s  ",
                 (unsigned long long)R.BytesA, (unsigned long long)R.BytesB,
                 (long long)R.difference(), statusName(R.State).str().c_str())
       << R.Function << ": " << R.Key << "\n";
  }
  long long Rest = 0;
  for (size_t I = Shown; I < D.MemoryApplies.size(); ++I)
    Rest += D.MemoryApplies[I].difference();
  OS << format("   ... (remaining %zu Apply instances account for %+lldB of "
               "the difference)\n\n",
               D.MemoryApplies.size() - Shown, Rest);
}

/// How the Apply rows were judged, and what they showed.
static void printNoiseHeader(raw_ostream &OS, const ProfileDiff &D) {
  if (D.AppliesWithDistributions == 0) {
    OS << "  Noise: unknown (profile with -profile-distributions, "
          "profiling__distributions=True, on both sides to tell changes "
          "from noise)\n";
    return;
  }
  if (D.SignificantApplies == 0)
    OS << "  Noise: no significant change (" << D.AppliesWithDistributions
       << " Apply instances compared by their time per call, the first call "
          "apart)\n";
  else
    OS << "  Noise: " << D.SignificantApplies << " of "
       << D.AppliesWithDistributions
       << " Apply instances changed beyond the noise (status \"changed\"; "
          "\"noise\": within it)\n";
  if (D.AppliesTestedBetweenRuns == D.AppliesWithDistributions) {
    OS << "  Tested between runs: " << D.RunsA << " runs of A against "
       << D.RunsB
       << ", their medians by Mann-Whitney's test (changed: p < 0.05 and a "
          "move over 12%)\n";
    // The smallest p the runs allow: all of one side below the other.
    double Orders = 1;
    for (unsigned K = 1; K <= D.RunsB; ++K)
      Orders = Orders * double(D.RunsA + K) / double(K);
    if (2 / Orders >= 0.05)
      OS << format("  (with so few runs p cannot fall below %.3g, so no "
                   "change can show: merge 4 or more runs a side)\n",
                   2 / Orders);
  } else {
    OS << "  Tested within each run: the medians against the interquartile "
          "ranges. That spread cannot see what moves a whole process; for a "
          "test between runs, merge 4 or more runs a side (graphjit-prof "
          "merge) and diff the merged profiles\n";
  }
}

void printDiff(raw_ostream &OS, const ProfileDiff &D, StringRef NameA,
               StringRef NameB, const SummaryOptions &Opts) {
  OS << "Profile difference\n";
  OS << "==================\n";
  OS << "  A: " << NameA << "\n";
  OS << "  B: " << NameB << "\n";
  OS << format("  Time in calls to Function.__call__: A %es (%llu calls), "
               "B %es (%llu calls)\n",
               D.CallSecondsA, (unsigned long long)D.CallsA, D.CallSecondsB,
               (unsigned long long)D.CallsB);
  OS << format("  Time in thunks: A %es, B %es, difference %+es, ratio B/A "
               "%s\n",
               D.ThunkSecondsA, D.ThunkSecondsB,
               D.ThunkSecondsB - D.ThunkSecondsA,
               ratioText(D.ThunkSecondsA, D.ThunkSecondsB).c_str());
  OS << format("  Time in rewriting: A %es (validate %es), B %es (validate "
               "%es), difference %+es\n",
               D.RewriteSecondsA, D.ValidateSecondsA, D.RewriteSecondsB,
               D.ValidateSecondsB, D.RewriteSecondsB - D.RewriteSecondsA);
  if (!D.FunctionsRemoved.empty())
    OS << "  Functions only in A: " << join(D.FunctionsRemoved, ", ") << "\n";
  if (!D.FunctionsAdded.empty())
    OS << "  Functions only in B: " << join(D.FunctionsAdded, ", ") << "\n";
  if (D.FirstCallLeftOutA || D.FirstCallLeftOutB)
    OS << "  Steady state: the first call of each function is left out of "
          "every row and total ("
       << (D.FirstCallLeftOutA && D.FirstCallLeftOutB ? "A and B"
           : D.FirstCallLeftOutA                        ? "A"
                                                        : "B")
       << "; profiles that kept it apart)\n";
  printNoiseHeader(OS, D);
  OS << "\n";
  printDiffTable(OS, "Class", "Class name", "Classes", D.Classes, Opts.NOps);
  printDiffTable(OS, "Ops", "Op name", "Ops", D.Ops, Opts.NOps);
  printDiffTable(OS, "Apply", "Apply name", "Apply instances", D.Applies,
                 Opts.NApply);
  if (!D.Memory.empty())
    printMemoryDiff(OS, D, Opts.NApply);
  if (!D.Rewrites.empty())
    printDiffTable(OS, "Rewrites", "Rewrite name", "rewrites", D.Rewrites,
                   Opts.NOps, "#applied");
}

} // namespace graphjit
