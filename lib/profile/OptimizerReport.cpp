//===- profile/OptimizerReport.cpp - The Optimizer Profile section --------===//
//
// PyTensor's profile_optimizer output, for graphjit's pipeline: the
// optimizer's line (SequentialGraphRewriter's "time ... for N/M nodes
// before/after rewriting", its validate time), its phases (each an
// EquilibriumGraphRewriter: a worklist run to a fixed point), then one row
// per rewrite that applied, sorted by time ("times - times applied - nb
// node created - name"), with the nodes before/after and, joined from the
// run-time profile, the time spent in the Applies it made; the rewrites that
// never applied are summed on one line. docs/profiling.md, "Optimizer
// Profile".
//
//===----------------------------------------------------------------------===//
#include "profile/OptimizerReport.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace llvm;

namespace graphjit {
namespace profile {

std::string provenanceText(const ApplyProfile &A) {
  if (A.Rewrites.empty() && A.SourceLocs.size() <= 1)
    return "";
  // "a.graph:7", "a.graph:5" -> "a.graph:5,7": lines grouped by file
  // (files in the order given), each once, in increasing order.
  std::vector<std::pair<std::string, std::vector<std::string>>> Files;
  for (StringRef Loc : A.SourceLocs) {
    auto [File, Line] = Loc.rsplit(':');
    if (Line.empty() || File.empty()) {
      File = Loc;
      Line = "";
    }
    auto It = find_if(Files, [&](const auto &F) { return F.first == File; });
    if (It == Files.end()) {
      Files.push_back({File.str(), {}});
      It = std::prev(Files.end());
    }
    if (!Line.empty() && !is_contained(It->second, Line))
      It->second.push_back(Line.str());
  }
  for (auto &F : Files)
    llvm::sort(F.second, [](const std::string &L, const std::string &R) {
      // Numerically; anything that is not a number comes last.
      unsigned NL = 0, NR = 0;
      bool BadL = StringRef(L).getAsInteger(10, NL);
      bool BadR = StringRef(R).getAsInteger(10, NR);
      if (BadL != BadR)
        return BadR;
      return BadL ? L < R : NL < NR;
    });
  std::string Text = "from ";
  for (size_t I = 0; I < Files.size(); ++I) {
    Text += (I ? ", " : "") + Files[I].first;
    if (!Files[I].second.empty())
      Text += ":" + join(Files[I].second, ",");
  }
  if (Files.empty())
    Text += "<api>";
  if (!A.Rewrites.empty())
    Text += " (" + join(A.Rewrites, ", ") + ")";
  return Text;
}

namespace {

class OptimizerPrinter {
public:
  OptimizerPrinter(raw_ostream &OS, const FunctionProfile &F)
      : OS(OS), F(F), O(F.Optimizer), ThunkSeconds(F.thunkSeconds()) {}
  void print();

private:
  raw_ostream &OS;
  const FunctionProfile &F;
  const OptimizerProfile &O;
  double ThunkSeconds;

  void printPhases();
  void printRewrites();
};

} // namespace

void OptimizerPrinter::print() {
  OS << "Optimizer Profile\n-----------------\n";
  if (O.Name == "None") {
    OS << "  optimizer=None: the graph ran as written (" << O.NodesAfter
       << " Apply nodes, no rewrite tried)\n\n";
    return;
  }
  OS << format(" SequentialGraphRewriter %s  time %.6fs for %llu/%llu nodes "
               "before/after rewriting",
               O.Name.c_str(), O.Seconds, (unsigned long long)O.NodesBefore,
               (unsigned long long)O.NodesAfter);
  if (O.Runs > 1)
    OS << " (" << O.Runs << " runs)";
  OS << "\n";
  if (!O.Excluding.empty())
    OS << "   optimizer_excluding=" << O.Excluding << "\n";
  if (!O.Including.empty())
    OS << "   optimizer_including=" << O.Including << "\n";
  OS << format("       %.6fs for fgraph.validate()\n", O.ValidateSeconds);
  printPhases();
  printRewrites();
}

void OptimizerPrinter::printPhases() {
  OS << "   time      - (phase, nodes before, nodes after, visits)\n";
  // As SequentialGraphRewriter prints its rewriters: by time, largest
  // first.
  std::vector<const RewritePhaseProfile *> Phases;
  for (const RewritePhaseProfile &P : O.Phases)
    Phases.push_back(&P);
  std::stable_sort(
      Phases.begin(), Phases.end(),
      [](const RewritePhaseProfile *L, const RewritePhaseProfile *R) {
        return L->Seconds > R->Seconds;
      });
  for (const RewritePhaseProfile *P : Phases) {
    OS << format("   %.6fs - ('%s', %llu, %llu, %llu)", P->Seconds,
                 P->Name.c_str(), (unsigned long long)P->NodesBefore,
                 (unsigned long long)P->NodesAfter,
                 (unsigned long long)P->Visits);
    if (P->BudgetExhausted)
      OS << " - stopped at its visit budget";
    OS << "\n";
  }
  if (Phases.empty())
    OS << "   (no phase ran: no rewrite was selected)\n";
  OS << "\n";
}

void OptimizerPrinter::printRewrites() {
  std::vector<RewriteRunTime> Joined = rewriteRunTimes(F);
  StringMap<RewriteRunTime> RunTimes;
  for (const RewriteRunTime &R : Joined)
    RunTimes[R.Rewrite] = R;
  std::vector<const RewriteProfile *> Used;
  double NotUsedSeconds = 0;
  unsigned NotUsed = 0;
  for (const RewriteProfile &R : O.Rewrites) {
    if (R.Applied > 0) {
      Used.push_back(&R);
    } else {
      ++NotUsed;
      NotUsedSeconds += R.Seconds;
    }
  }
  std::stable_sort(Used.begin(), Used.end(),
                   [](const RewriteProfile *L, const RewriteProfile *R) {
                     if (L->Seconds != R->Seconds)
                       return L->Seconds > R->Seconds;
                     if (L->Applied != R->Applied)
                       return L->Applied > R->Applied;
                     return L->Name < R->Name;
                   });
  auto RunTime = [&](StringRef Name) -> std::string {
    auto It = RunTimes.find(Name);
    if (It == RunTimes.end() || It->second.Applies == 0)
      return "-"; // None of its Applies is left in the graph.
    return formatv("{0:e3}s ({1,5:f1}%)", It->second.Seconds,
                   percent(It->second.Seconds, ThunkSeconds))
        .str();
  };
  OS << "   times - times applied - nb node created - nodes before/after - "
        "run time of its Applies* (% of thunks) - name (tags):\n";
  for (const RewriteProfile *R : Used) {
    OS << format("   %.6fs - %llu - %llu - %llu/%llu - ", R->Seconds,
                 (unsigned long long)R->Applied,
                 (unsigned long long)R->NodesCreated,
                 (unsigned long long)R->NodesBefore,
                 (unsigned long long)R->NodesAfter)
       << RunTime(R->Name) << " - " << R->Name;
    if (!R->Tags.empty())
      OS << " (" << join(R->Tags, ", ") << ")";
    OS << "\n";
  }
  // Rewrites named by the Applies but not run here (the graph given to
  // the optimizer had been rewritten before).
  for (const RewriteRunTime &R : Joined)
    if (none_of(O.Rewrites,
                [&](const RewriteProfile &P) { return P.Name == R.Rewrite; }))
      OS << "   - - - - " << RunTime(R.Rewrite) << " - " << R.Rewrite
         << " (made before this optimizer ran)\n";
  OS << format("   %.6fs - in %u rewrites that were not used (tried, never "
               "applied)\n",
               NotUsedSeconds, NotUsed);
  OS << "\n   * The time in thunks of the Applies the rewrite made, over all "
        "calls; an Apply made by several rewrites (fusion, then inplace) "
        "counts for each of them, so the shares may add up to more than "
        "100%. '-': none of its Applies is left.\n\n";
}

void printOptimizerProfile(raw_ostream &OS, const FunctionProfile &F,
                           const SummaryOptions &Opts) {
  if (!Opts.Optimizer || !F.Optimizer.Recorded)
    return;
  OptimizerPrinter(OS, F).print();
}

} // namespace profile
} // namespace graphjit
