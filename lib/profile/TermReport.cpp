//===- profile/TermReport.cpp - Time by model variable --------------------===//
//
// termRows() and the section printing them (TermReport.h): what a model
// builder asks of a profile, which variable's likelihood or prior costs
// most, with the value and its gradient apart and the shared work shown as
// shared rather than charged to one of its users.
//
//===----------------------------------------------------------------------===//
#include "profile/TermReport.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include <map>

using namespace llvm;

namespace graphjit {
namespace profile {

std::vector<TermRow> termRows(const FunctionProfile &F) {
  if (none_of(F.Applies,
              [](const ApplyProfile &A) { return !A.Terms.empty(); }))
    return {};
  std::map<std::vector<std::string>, TermRow> ByTerms;
  for (const ApplyProfile &A : F.Applies) {
    std::vector<std::string> Key = A.Terms;
    sort(Key);
    Key.erase(std::unique(Key.begin(), Key.end()), Key.end());
    TermRow &R = ByTerms[Key];
    R.Terms = Key;
    (A.Gradient ? R.GradientSeconds : R.ValueSeconds) += A.Seconds;
    if (A.Compiled)
      R.CompiledSeconds += A.Seconds;
    ++R.Applies;
  }
  std::vector<TermRow> Rows;
  for (auto &KV : ByTerms)
    Rows.push_back(std::move(KV.second));
  // Equal times keep the map's order of their names.
  std::stable_sort(Rows.begin(), Rows.end(),
                   [](const TermRow &A, const TermRow &B) {
                     return A.seconds() > B.seconds();
                   });
  return Rows;
}

static std::string rowName(const TermRow &R) {
  if (R.Terms.empty())
    return "(no variable)";
  if (R.Terms.size() == 1)
    return R.Terms.front();
  return "shared: " + join(R.Terms, ", ");
}

void printTermTable(raw_ostream &OS, const FunctionProfile &F,
                    const SummaryOptions &Opts) {
  std::vector<TermRow> Rows = termRows(F);
  if (Rows.empty())
    return;
  double Total = F.thunkSeconds();
  OS << "Time by model variable\n----------------------\n";
  OS << "  Each Apply is charged to the variables (and Potentials) whose "
        "log-density\n  it computes, the value or its gradient; Applies "
        "several variables share\n  have rows of their own.\n";
  OS << "<% time> <sum %> <value time> <gradient time> <% C> <#apply> "
        "<variable>\n";
  size_t Shown = std::min<size_t>(Rows.size(), Opts.NOps);
  double Sum = 0;
  for (size_t I = 0; I < Shown; ++I) {
    const TermRow &R = Rows[I];
    Sum += R.seconds();
    OS << format("  %4.1f%%   %5.1f%%     %.2es      %.2es   %4.0f%%  %6u   ",
                 percent(R.seconds(), Total), percent(Sum, Total),
                 R.ValueSeconds, R.GradientSeconds,
                 percent(R.CompiledSeconds, R.seconds()), R.Applies)
       << rowName(R) << "\n";
  }
  std::vector<double> Seconds;
  for (const TermRow &R : Rows)
    Seconds.push_back(R.seconds());
  Remaining Rest = remainingAfter(Seconds, Shown, Total);
  OS << format("   ... (remaining %zu rows account for %6.2f%%(%.2fs) of "
               "the runtime)\n\n",
               Rest.Count, Rest.Percent, Rest.Seconds);
}

} // namespace profile
} // namespace graphjit
