//===- profile/MemoryReport.h - The Memory Profile section -----*- C++ -*-===//
//
// The report's Memory Profile section (PyTensor's summary_memory): the
// simulated and measured peaks of a function, then its Applies by the
// bytes of their outputs. The diff counts an Apply's bytes the same way.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_MEMORYREPORT_H
#define GRAPHJIT_PROFILE_MEMORYREPORT_H

#include "graphjit/Profile.h"
#include <string>

namespace graphjit {
namespace profile {

/// The bytes of all of A's outputs, views and in-place outputs included
/// (Theano's "Sum apply outputs").
uint64_t outputBytes(const ApplyProfile &A);

/// Theano's "%dKB": bytes / 1024 rounded half to even, as Python's round.
std::string kilobytes(uint64_t Bytes);

/// The section, when F's memory was recorded and Opts.Memory is on.
void printMemoryProfile(llvm::raw_ostream &OS, const FunctionProfile &F,
                        const SummaryOptions &Opts);

} // namespace profile
} // namespace graphjit

#endif
