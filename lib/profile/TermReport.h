//===- profile/TermReport.h - Time by model variable ------------*- C++ -*-===//
//
// The report's "Time by model variable" section: the Applies' time summed
// by the model term each works for (ApplyProfile::Terms, a PyMC model's
// random variables and Potentials), the value and the gradient apart, and
// the Applies shared by several terms in rows of their own.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_TERMREPORT_H
#define GRAPHJIT_PROFILE_TERMREPORT_H

#include "graphjit/Profile.h"
#include <string>
#include <vector>

namespace graphjit {
namespace profile {

/// A row: the Applies of one set of terms (one term, or several shared).
struct TermRow {
  std::vector<std::string> Terms; ///< Sorted; empty: no term.
  double ValueSeconds = 0, GradientSeconds = 0;
  double CompiledSeconds = 0; ///< Of both, in Applies that ran as C.
  unsigned Applies = 0;
  double seconds() const { return ValueSeconds + GradientSeconds; }
};

/// F's Applies by term set, sorted by time descending, then by name; empty
/// when no Apply has terms.
std::vector<TermRow> termRows(const FunctionProfile &F);

/// The section, when some Apply of F has terms.
void printTermTable(llvm::raw_ostream &OS, const FunctionProfile &F,
                    const SummaryOptions &Opts);

} // namespace profile
} // namespace graphjit

#endif
