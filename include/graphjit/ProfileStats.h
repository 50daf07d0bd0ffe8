//===- graphjit/ProfileStats.h - Where profiled functions report -*- C++ -*-===//
//
// Theano's ProfileStats: the object compiled functions report their
// numbers into. Several functions may share one (CompileOptions::ProfileInto)
// and its summary() then shows each of them and their sum; with
// GRAPHJIT_FLAGS=profile=True every function reports into the process's
// one, printed at exit to profiling__destination.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILESTATS_H
#define GRAPHJIT_PROFILESTATS_H

#include "graphjit/Flags.h"
#include "graphjit/Profile.h"
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace graphjit {

class ProfileStats {
public:
  /// Name: printed as the profile's title when set (Theano's message).
  explicit ProfileStats(std::string Name = "") : Name(std::move(Name)) {}

  /// One FunctionProfile per function that reported here, in the order
  /// they were compiled: live ones as they stand now, destroyed ones as
  /// they ended.
  Profile profile() const;
  /// Theano's summary(): each function's profile, then their sum when
  /// there are several.
  void summary(llvm::raw_ostream &OS, const SummaryOptions &Opts = {}) const;

  /// summary() as the profiling__* flags say: rows, destination (stdout,
  /// stderr or a file), the functions' debugprints first.
  llvm::Error report(const Flags &F) const;

  /// For the linkers: a function reports through Snapshot until detach(),
  /// which keeps its last numbers. DebugPrint, if not empty, is printed
  /// before the function's profile with profiling__debugprint.
  using Snapshot = std::function<FunctionProfile()>;
  unsigned attach(Snapshot Take, std::string DebugPrint);
  void detach(unsigned Handle);
  /// The debugprints of the functions, in profile() order.
  std::vector<std::string> debugPrints() const;

private:
  struct Source {
    unsigned Handle;
    Snapshot Take;
    std::optional<FunctionProfile> Final;
    std::string DebugPrint;
  };
  std::string Name;
  mutable std::mutex Lock;
  std::vector<Source> Sources;
  unsigned NextHandle = 0;
};

/// The profile of GRAPHJIT_FLAGS=profile=True (created on first use, with
/// its printing at exit registered then).
std::shared_ptr<ProfileStats> processProfileStats();

/// Prints the process's profile now, where the flags say, instead of at
/// exit (where an error can only be printed): the command line does, so
/// that a profile it cannot write fails the run. Nothing is printed at
/// exit afterwards. Success when nothing was profiled.
llvm::Error reportProcessProfile();

/// Writes the timeline that GRAPHJIT_FLAGS=profiling__trace=FILE asked for
/// (every call of the functions compiled since, one slice per Apply) to
/// that file now, once; it is otherwise written at exit. Nothing when no
/// trace was asked for. docs/profiling.md, "Timeline".
llvm::Error writeProcessTrace();

} // namespace graphjit

#endif
