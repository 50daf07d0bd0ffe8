//===- graphjit/Profile.h - Profiles of compiled functions -----*- C++ -*-===//
//
// The raw numbers of a profile (per function: calls, call and driver time,
// the compile-time split; per Apply: calls, seconds, flops and bytes, the
// tensors last seen) and every view derived from them: Theano's printed
// report (summary()), the JSON export (docs/profile-json.md), the sum of
// several runs (mergeProfiles) and the differences between two profiles
// (diffProfiles). docs/profiling.md explains the report.
//
// The model holds facts only; percentages, per-call times, Gflops/s and
// tips are computed when printed, so that JSON written today prints every
// view tomorrow.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_H
#define GRAPHJIT_PROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace graphjit {

class Apply;
class FunctionGraph;
class NDArray;

/// A tensor as last seen by an Apply.
struct TensorInfo {
  std::string DType;            ///< NumPy's spelling: "float64", "int32".
  std::vector<int64_t> Shape;   ///< Empty for a 0-d tensor.
  std::vector<int64_t> Strides; ///< In bytes, NumPy's convention.
  bool operator==(const TensorInfo &O) const {
    return DType == O.DType && Shape == O.Shape && Strides == O.Strides;
  }
};

/// One Apply's numbers, summed over the calls of its function.
struct ApplyProfile {
  unsigned Id = 0;  ///< Position in the function's topological order.
  std::string Name; ///< As Theano prints it: "Elemwise{add,no_inplace}(x, y)".
  std::string Op;   ///< With its parameters: "Elemwise{add,no_inplace}".
  std::string OpClass;  ///< "Elemwise", "Sum", "Dot", ...
  std::string Loc;      ///< "file.graph:LINE", or empty.
  bool Compiled = true; ///< "C" (JIT code) or "Py" (run through perform).
  uint64_t Calls = 0;
  /// Total over all calls, instrumentation cost subtracted; >= 0.
  double Seconds = 0;
  double FlopsPerCall = 0; ///< The op's estimate for the shapes seen.
  double BytesPerCall = 0; ///< Bytes read and written by one call.
  std::vector<TensorInfo> Inputs, Outputs;

  llvm::StringRef type() const { return Compiled ? "C" : "Py"; }
  bool operator==(const ApplyProfile &O) const;
};

/// Seconds spent compiling, by phase (CompileTimes in Function.h).
struct CompileSplit {
  double Rewrite = 0, Lower = 0, Optimize = 0, Codegen = 0, Link = 0;
  bool Cached = false; ///< The object came from the compile cache.
  double total() const { return Rewrite + Lower + Optimize + Codegen + Link; }
  /// Sums the phases; cached only if both were.
  CompileSplit &operator+=(const CompileSplit &O) {
    Rewrite += O.Rewrite;
    Lower += O.Lower;
    Optimize += O.Optimize;
    Codegen += O.Codegen;
    Link += O.Link;
    Cached = Cached && O.Cached;
    return *this;
  }
  bool operator==(const CompileSplit &O) const;
};

struct FunctionProfile {
  std::string Name; ///< Theano's "Message".
  std::string File; ///< The .graph file, or empty.
  uint64_t Calls = 0;
  double CallSeconds = 0;   ///< Whole calls: binding and checking included.
  double DriverSeconds = 0; ///< In the JIT driver (or the interpreter loop).
  CompileSplit Compile;
  std::string Linker; ///< "c|py", "c" or "py".
  /// "TSC (invariant), 2.904 GHz, calibrated against CLOCK_MONOTONIC_RAW".
  std::string Clock;
  double InstrumentationNsPerApply = 0; ///< Already subtracted.
  std::vector<ApplyProfile> Applies;    ///< In id order.

  /// Time in thunks: the sum of the Applies' seconds.
  double thunkSeconds() const;
  bool operator==(const FunctionProfile &O) const;
};

struct Profile {
  std::string Machine; ///< What ran it (CPU, cores, ...), or empty.
  std::vector<FunctionProfile> Functions;
  bool operator==(const Profile &O) const {
    return Machine == O.Machine && Functions == O.Functions;
  }
};

//===----------------------------------------------------------------------===//
// Building a profile from a graph (for the linkers and the runtime).
//===----------------------------------------------------------------------===//

/// A profile of F with no numbers yet: name, file and one ApplyProfile per
/// Apply in id order (name, op, class, file:line). Compiled is true for
/// every Apply; the linker marks those it runs through perform.
FunctionProfile describeFunction(const FunctionGraph &F);

/// Records what one call of A saw: the tensors and the op's flops and bytes
/// estimates for them. Outputs may be null arrays (not recorded then).
void recordTensors(ApplyProfile &P, const Apply &A,
                   llvm::ArrayRef<NDArray> Inputs,
                   llvm::ArrayRef<NDArray> Outputs);

//===----------------------------------------------------------------------===//
// The report.
//===----------------------------------------------------------------------===//

struct SummaryOptions {
  unsigned NApply = 20; ///< Theano's profiling__n_apply.
  unsigned NOps = 20;   ///< Theano's profiling__n_ops (Class and Ops tables).
  /// The machine's memory bandwidth in GB/s (e.g. the memcpy benchmark);
  /// 0: compare against the best GB/s seen in the same profile.
  double BandwidthGBs = 0;
  bool Tips = true;
  /// Print the input/output lines under each Apply row.
  bool TensorLines = true;
};

/// Prints each function's profile, then, with several functions, the sum of
/// all of them, as Theano's summary() does.
void printSummary(llvm::raw_ostream &OS, const Profile &P,
                  const SummaryOptions &Opts = {});
/// One function's profile: global, Class, Ops, Apply and tips sections.
void printFunctionSummary(llvm::raw_ostream &OS, const FunctionProfile &F,
                          const SummaryOptions &Opts = {},
                          llvm::StringRef Machine = "");

/// The "Sum of all(N) printed profiles at exit" function: totals of every
/// function, Applies kept per function and named "FUNCTION: APPLY".
FunctionProfile sumOfFunctions(const Profile &P);

/// The tips for F, one sentence each (empty: nothing stands out).
std::vector<std::string> computeTips(const FunctionProfile &F,
                                     const SummaryOptions &Opts = {});

//===----------------------------------------------------------------------===//
// JSON (docs/profile-json.md).
//===----------------------------------------------------------------------===//

constexpr int ProfileJSONVersion = 1;

void writeProfileJSON(llvm::raw_ostream &OS, const Profile &P);
/// Errors name the file and the JSON path:
/// "a.json: functions[0].applies[3].calls: expected an integer".
llvm::Expected<Profile> readProfileJSON(llvm::StringRef Text,
                                        llvm::StringRef FileNameForErrors);
/// Reads and parses a file ("-" is stdin).
llvm::Expected<Profile> readProfileJSONFile(llvm::StringRef Path);

//===----------------------------------------------------------------------===//
// Sums of runs and differences.
//===----------------------------------------------------------------------===//

/// Sums runs: functions are matched by (name, file) and their numbers
/// added; a function in only some runs is kept as it is. Matched functions
/// must have the same Applies (same ids, names and ops) and linker, or the
/// result is an error naming the runs (Names, parallel to Profiles, may be
/// empty) and what differs.
llvm::Expected<Profile> mergeProfiles(llvm::ArrayRef<Profile> Profiles,
                                      llvm::ArrayRef<std::string> Names = {});

struct DiffRow {
  enum Status { Added, Removed, Changed, Same };
  std::string Function; ///< Apply rows: the function; else empty.
  std::string Key;      ///< The Apply, Op or Class name.
  std::string Loc;      ///< Apply rows: B's file:line (A's if removed).
  Status State = Same;
  double SecondsA = 0, SecondsB = 0;
  uint64_t CallsA = 0, CallsB = 0;
  double difference() const { return SecondsB - SecondsA; }
};

struct ProfileDiff {
  double ThunkSecondsA = 0, ThunkSecondsB = 0;
  double CallSecondsA = 0, CallSecondsB = 0;
  uint64_t CallsA = 0, CallsB = 0;
  std::vector<std::string> FunctionsAdded, FunctionsRemoved;
  /// Each sorted by |difference|, largest first.
  std::vector<DiffRow> Classes, Ops, Applies;
};

/// A against B. Functions are matched by name; Applies by (function, Apply
/// name), the k-th Apply of a name in A with the k-th of that name in B,
/// since ids shift when a graph changes. Ops by op name, Classes by class.
ProfileDiff diffProfiles(const Profile &A, const Profile &B);

void printDiff(llvm::raw_ostream &OS, const ProfileDiff &D,
               llvm::StringRef NameA, llvm::StringRef NameB,
               const SummaryOptions &Opts = {});

} // namespace graphjit

#endif
