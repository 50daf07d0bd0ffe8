//===- profile/OptimizerReport.h - The Optimizer Profile section *- C++ -*-===//
//
// The report's Optimizer Profile (PyTensor's profile_optimizer: the
// print_profile of SequentialGraphRewriter and EquilibriumGraphRewriter),
// joined with the run time of the Applies each rewrite made, and the
// provenance line under a rewritten Apply's row. The sums of optimizer
// profiles (merged runs, the sum of functions) are here too, so that both
// add them the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_OPTIMIZERREPORT_H
#define GRAPHJIT_PROFILE_OPTIMIZERREPORT_H

#include "graphjit/Profile.h"
#include <string>

namespace graphjit {
namespace profile {


/// The section, when F's optimizer was recorded and Opts.Optimizer is on.
void printOptimizerProfile(llvm::raw_ostream &OS, const FunctionProfile &F,
                           const SummaryOptions &Opts);

/// Adds From's numbers to Into (both recorded): seconds, runs, times
/// applied, nodes created and visits are summed; rewrites and phases are
/// matched by name, those of From alone appended. Node counts describe a
/// graph: runs of one function (SameFunction) keep the largest, different
/// functions (the sum of functions) add them. Different settings are kept
/// side by side, joined with "; ".
void addOptimizerProfile(OptimizerProfile &Into, const OptimizerProfile &From,
                         bool SameFunction);

} // namespace profile
} // namespace graphjit

#endif
