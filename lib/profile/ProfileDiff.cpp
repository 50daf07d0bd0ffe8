//===- profile/ProfileDiff.cpp - Differences between two profiles ---------===//
//
// diffProfiles() and printDiff(): Theano's print_diff_summary, per Class,
// per Op and per Apply, with rows added, removed and changed, sorted by the
// size of the change. Applies are matched by (function, Apply name), not by
// id, since ids shift when a graph changes (docs/profiling.md, "Diffs").
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace graphjit {
using namespace profile;

namespace {

/// One side's rows before matching: key -> seconds, calls.
struct Side {
  std::string Key, Loc;
  double Seconds = 0;
  uint64_t Calls = 0;
};

/// Matches rows with equal keys (the k-th of a key in A with the k-th in
/// B) and appends the result to Out.
void matchRows(ArrayRef<Side> A, ArrayRef<Side> B, StringRef Function,
               std::vector<DiffRow> &Out) {
  StringMap<std::vector<size_t>> InB;
  for (size_t I = 0; I < B.size(); ++I)
    InB[B[I].Key].push_back(I);
  StringMap<size_t> Used;
  std::vector<bool> Matched(B.size(), false);
  for (const Side &L : A) {
    DiffRow R;
    R.Function = Function.str();
    R.Key = L.Key;
    R.Loc = L.Loc;
    R.SecondsA = L.Seconds;
    R.CallsA = L.Calls;
    R.State = DiffRow::Removed;
    auto It = InB.find(L.Key);
    size_t &K = Used[L.Key];
    if (It != InB.end() && K < It->second.size()) {
      const Side &RB = B[It->second[K]];
      Matched[It->second[K]] = true;
      ++K;
      R.SecondsB = RB.Seconds;
      R.CallsB = RB.Calls;
      if (!RB.Loc.empty())
        R.Loc = RB.Loc;
      R.State = R.SecondsA == R.SecondsB && R.CallsA == R.CallsB
                    ? DiffRow::Same
                    : DiffRow::Changed;
    }
    Out.push_back(std::move(R));
  }
  for (size_t I = 0; I < B.size(); ++I) {
    if (Matched[I])
      continue;
    DiffRow R;
    R.Function = Function.str();
    R.Key = B[I].Key;
    R.Loc = B[I].Loc;
    R.SecondsB = B[I].Seconds;
    R.CallsB = B[I].Calls;
    R.State = DiffRow::Added;
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
    Rows.push_back({A.Name, A.Loc, A.Seconds, A.Calls});
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

/// The functions of P named Name, in order.
std::vector<const FunctionProfile *> named(const Profile &P, StringRef Name) {
  std::vector<const FunctionProfile *> Out;
  for (const FunctionProfile &F : P.Functions)
    if (F.Name == Name)
      Out.push_back(&F);
  return Out;
}

} // namespace

ProfileDiff diffProfiles(const Profile &A, const Profile &B) {
  ProfileDiff D;
  for (const FunctionProfile &F : A.Functions) {
    D.ThunkSecondsA += F.thunkSeconds();
    D.CallSecondsA += F.CallSeconds;
    D.CallsA += F.Calls;
  }
  for (const FunctionProfile &F : B.Functions) {
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
    if (K < InB.size())
      matchRows(applySides(F), applySides(*InB[K]), F.Name, D.Applies);
    else {
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
  sortRows(D.Classes);
  sortRows(D.Ops);
  sortRows(D.Applies);
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
                           StringRef Plural, ArrayRef<DiffRow> Rows, size_t N) {
  OS << Title << "\n" << std::string(Title == "Apply" ? 6 : 3, '-') << "\n";
  OS << "<time A> <time B> <difference> <ratio B/A> <#call A> <#call B> "
        "<status> <"
     << Column << ">\n";
  size_t Shown = std::min(N, Rows.size());
  for (size_t I = 0; I < Shown; ++I) {
    const DiffRow &R = Rows[I];
    std::string Key = R.Function.empty() ? R.Key : R.Function + ": " + R.Key;
    OS << format("  %.3es  %.3es  %+.3es  %9s  %8llu  %8llu  %-7s  ",
                 R.SecondsA, R.SecondsB, R.difference(),
                 ratioText(R.SecondsA, R.SecondsB).c_str(),
                 (unsigned long long)R.CallsA, (unsigned long long)R.CallsB,
                 statusName(R.State).str().c_str())
       << Key << "\n";
  }
  double Rest = 0;
  for (size_t I = Shown; I < Rows.size(); ++I)
    Rest += Rows[I].difference();
  OS << format("   ... (remaining %zu %s account for %+.3es of the "
               "difference)\n\n",
               Rows.size() - Shown, Plural.str().c_str(), Rest);
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
  if (!D.FunctionsRemoved.empty())
    OS << "  Functions only in A: " << join(D.FunctionsRemoved, ", ") << "\n";
  if (!D.FunctionsAdded.empty())
    OS << "  Functions only in B: " << join(D.FunctionsAdded, ", ") << "\n";
  OS << "\n";
  printDiffTable(OS, "Class", "Class name", "Classes", D.Classes, Opts.NOps);
  printDiffTable(OS, "Ops", "Op name", "Ops", D.Ops, Opts.NOps);
  printDiffTable(OS, "Apply", "Apply name", "Apply instances", D.Applies,
                 Opts.NApply);
}

} // namespace graphjit
