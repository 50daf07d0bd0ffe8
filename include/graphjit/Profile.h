//===- graphjit/Profile.h - Profiles of compiled functions -----*- C++ -*-===//
//
// The raw numbers of a profile (per function: calls, call and driver time,
// the compile-time split; per Apply: calls, seconds, flops and bytes, the
// tensors last seen) and every view derived from them: Theano's printed
// report (summary()), the JSON export (docs/profile-json.md), the sum of
// several runs (mergeProfiles) and the differences between two profiles
// (diffProfiles). With profile_optimizer a function's profile also holds
// what the graph optimizer did (FunctionProfile::Optimizer), and every
// Apply says which rewrites made it, so that the run time of each
// rewrite's Applies can be told (rewriteRunTimes). docs/profiling.md
// explains the report.
//
// The model holds facts only; percentages, per-call times, Gflops/s and
// tips are computed when printed, so that JSON written today prints every
// view tomorrow.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PROFILE_H
#define GRAPHJIT_PROFILE_H

#include "graphjit/CompileSteps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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

/// One output of an Apply, for the memory profile.
struct OutputMemory {
  /// The output's Variable id (the graph's numbering), which other
  /// Applies' InputVars name.
  int Var = -1;
  /// The op's declaration: "created", "view" or "inplace".
  std::string Kind = "created";
  /// For views and in-place outputs: the position of the input whose
  /// memory the output shares.
  int Input = -1;
  /// The largest size seen over all calls, and the shape it had then.
  uint64_t Bytes = 0;
  std::vector<int64_t> Shape;
  /// A view or in-place output that was seen in memory of its own: the op
  /// allocated although it declared otherwise.
  bool Allocated = false;
  /// The storage of the memory plan it lives in when the function runs JIT
  /// code without profile_memory (docs/architecture.md, "Planned memory");
  /// -1: the runtime makes it.
  int Storage = -1;
  bool operator==(const OutputMemory &O) const {
    return Var == O.Var && Kind == O.Kind && Input == O.Input &&
           Bytes == O.Bytes && Shape == O.Shape && Allocated == O.Allocated &&
           Storage == O.Storage;
  }
};

/// One Apply's numbers, summed over the calls of its function.
/// Count calls that took from Lower to Upper seconds.
struct TimeBucket {
  double Lower = 0, Upper = 0;
  uint64_t Count = 0;
  bool operator==(const TimeBucket &O) const {
    return Lower == O.Lower && Upper == O.Upper && Count == O.Count;
  }
};

/// An Apply's time per call, its first call left out: a histogram of four
/// buckets per power of two of clock ticks (runtime/TickHistogram.h), so
/// each figure is within about 12% (profiling__distributions), and the
/// figures read from it.
struct TimeDistribution {
  uint64_t Calls = 0;
  double Min = 0, P25 = 0, Median = 0, P75 = 0, P90 = 0, Max = 0;
  std::vector<TimeBucket> Buckets; ///< The non-empty ones, in order.
  /// A merged profile's: each run's median, in the order merged (empty
  /// for a single run), so that a diff can test between runs.
  std::vector<double> RunMedians;
  bool operator==(const TimeDistribution &O) const {
    return Calls == O.Calls && Min == O.Min && P25 == O.P25 &&
           Median == O.Median && P75 == O.P75 && P90 == O.P90 &&
           Max == O.Max && Buckets == O.Buckets && RunMedians == O.RunMedians;
  }
  /// RunMedians, or this run's median alone.
  std::vector<double> runMedians() const;
};

/// The distribution of Buckets (any order; equal buckets are combined):
/// each quantile interpolated within the bucket its rank falls in.
TimeDistribution distributionOf(std::vector<TimeBucket> Buckets);

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

  /// Memory (recorded with profile_memory; see FunctionProfile::Memory):
  /// the Variable ids of the inputs, in order; the outputs; the most bytes
  /// the runtime's allocator gave this Apply in one call; and the buffers
  /// it allocated over all calls.
  std::vector<int> InputVars;
  std::vector<OutputMemory> OutputMem;
  uint64_t AllocatedBytes = 0;
  uint64_t Allocations = 0;

  /// Provenance (Apply::rewrites(), Apply::sourceLocs()): the rewrites of
  /// the optimizer that made this Apply, in order ("pow_specialize",
  /// "merge"); and, for an Apply rewritten or standing for several
  /// statements, every statement it stands for as "file.graph:LINE", Loc
  /// first. Both empty for an Apply as written.
  std::vector<std::string> Rewrites;
  std::vector<std::string> SourceLocs;

  /// Ran on the GPU (a Gpu* op or a transfer): Seconds is the device's own
  /// time for it, read from its timers after each call.
  bool OnDevice = false;

  /// The terms of a sum the function computes that this Apply works for
  /// (a PyMC model's random variables and Potentials, each a term of its
  /// log-density; Function::setApplyTerms): one, or several when shared;
  /// empty when unknown. Gradient: it computes the gradient, not the value.
  /// The report's "Time by model variable" section sums them.
  std::vector<std::string> Terms;
  bool Gradient = false;

  /// The first call's time, apart (it pays page faults and warm-up),
  /// whether or not Seconds includes it; and the steady state's
  /// distribution when it was recorded.
  std::optional<double> FirstCallSeconds;
  std::optional<TimeDistribution> Distribution;

  llvm::StringRef type() const { return Compiled ? "C" : "Py"; }
  bool operator==(const ApplyProfile &O) const;
};

/// Seconds spent compiling, by step of the pipeline.
using CompileSplit = CompileTimes;

/// A function's memory: how it was run, and what the allocator measured.
/// The simulated peaks are computed from the Applies' OutputMem when printed
/// (simulateMemory), so that a saved profile prints them too.
struct FunctionMemory {
  bool Recorded = false; ///< profile_memory was on.
  bool AllowGC = true;   ///< The function freed intermediates (allow_gc).
  /// Variables a call never frees: the outputs and the updates' values.
  std::vector<int> KeptVars;
  /// The largest number of bytes live at once in one call, counting the
  /// buffers the call allocated (never the caller's inputs).
  uint64_t MeasuredPeak = 0;
  uint64_t Calls = 0;       ///< Calls measured.
  uint64_t Allocations = 0; ///< Buffers allocated, all calls.
  bool operator==(const FunctionMemory &O) const {
    return Recorded == O.Recorded && AllowGC == O.AllowGC &&
           KeptVars == O.KeptVars && MeasuredPeak == O.MeasuredPeak &&
           Calls == O.Calls && Allocations == O.Allocations;
  }
};

/// One rewrite in one optimizer run (RewriteStat in graphjit/Rewrite.h):
/// PyTensor's profile_optimizer columns.
struct RewriteProfile {
  std::string Name;
  std::vector<std::string> Tags;
  double Seconds = 0;   ///< Trying it, applied or not.
  uint64_t Applied = 0; ///< Times it changed the graph.
  /// Applies when the first phase running it began and the last ended.
  uint64_t NodesBefore = 0, NodesAfter = 0;
  uint64_t NodesCreated = 0; ///< Applies it made.
  bool operator==(const RewriteProfile &O) const;
};

/// One phase of the pipeline (RewritePhaseStat): its rewrites run over a
/// worklist until none applies.
struct RewritePhaseProfile {
  std::string Name;
  double Seconds = 0;
  uint64_t NodesBefore = 0, NodesAfter = 0;
  uint64_t Visits = 0;          ///< Applies visited.
  bool BudgetExhausted = false; ///< Stopped at its visit budget.
  bool operator==(const RewritePhaseProfile &O) const;
};

/// What the graph optimizer did to a function (RewriteReport's facts,
/// copied so that a profile needs no graph), recorded with
/// profile_optimizer.
struct OptimizerProfile {
  bool Recorded = false; ///< profile_optimizer was on: the report has the
                         ///< Optimizer Profile section.
  /// The settings: "fast_run" (or "None": nothing ran), and
  /// optimizer_excluding and optimizer_including as given ("fusion:inplace").
  /// Merged runs of different settings join them with "; ".
  std::string Name, Excluding, Including;
  uint64_t Runs = 0; ///< Optimizer runs summed here (merged profiles).
  /// The whole optimizer, validation included; validation alone.
  double Seconds = 0, ValidateSeconds = 0;
  /// Applies in the function as written and after rewriting.
  uint64_t NodesBefore = 0, NodesAfter = 0;
  std::vector<RewritePhaseProfile> Phases; ///< In pipeline order.
  std::vector<RewriteProfile> Rewrites;    ///< Each selected one, in order.
  bool operator==(const OptimizerProfile &O) const;
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
  FunctionMemory Memory;
  OptimizerProfile Optimizer;
  /// The GPU path (docs/gpu.md): the device's name, empty when everything
  /// ran on the host; the ops that stayed on the host with why
  /// ("Argmax{axis=[1]}: Argmax has no GPU form"); and the device memory
  /// of the process when the profile was taken (the pool's counters):
  /// the peak of live arrays and the peak the pool held, cache included.
  std::string Device;
  std::vector<std::string> HostOnly;
  uint64_t GpuPeakBytes = 0, GpuPeakReservedBytes = 0;
  /// The first call, whole (unset: no call ran).
  std::optional<double> FirstCallSeconds;
  /// Whether the totals (calls and seconds, the function's and the
  /// Applies') include that first call (profiling__ignore_first_call off),
  /// so that the diff can leave it out.
  bool FirstCallInTotals = false;
  /// A loop body's profile (a scan's, docs/ops-scan.md): the Apply of the
  /// function it runs in ("Apply 3 Scan{...} of 'f'"). Its time is already
  /// that Apply's, so the sum of functions leaves it out. Empty otherwise.
  std::string InnerOf;

  /// Time in thunks: the sum of the Applies' seconds.
  double thunkSeconds() const;
  bool operator==(const FunctionProfile &O) const;
};

/// How a profile's Machine line marks an OpenBLAS kernel set without AVX on a
/// CPU with AVX2 (lib/ops/linalg/BlasInfo.h); the report's tips look for it.
inline constexpr const char *FallbackKernelMark =
    " (no AVX on a CPU with AVX2)";

struct Profile {
  /// What ran it: the CPU, its threads, the BLAS and its kernel (marked
  /// FallbackKernelMark where it is a fallback); or empty.
  std::string Machine;
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

/// The join of the optimizer's profile and the run-time profile: for one
/// rewrite, the time in thunks of the Applies of F it made (those whose
/// Rewrites name it), over all calls.
struct RewriteRunTime {
  std::string Rewrite;
  double Seconds = 0;
  uint64_t Calls = 0;   ///< Calls of those Applies.
  unsigned Applies = 0; ///< How many Applies of F it made.
};

/// One row per rewrite of F.Optimizer (in its order, also those that made
/// no Apply), then per other rewrite an Apply names. An Apply made by
/// several rewrites (fusion, then inplace) counts for each of them.
std::vector<RewriteRunTime> rewriteRunTimes(const FunctionProfile &F);

/// Records what one call of A saw: the tensors and the op's flops and bytes
/// estimates for them. Outputs may be null arrays (not recorded then).
void recordTensors(ApplyProfile &P, const Apply &A,
                   llvm::ArrayRef<NDArray> Inputs,
                   llvm::ArrayRef<NDArray> Outputs);

//===----------------------------------------------------------------------===//
// Memory simulation (the Memory Profile section).
//===----------------------------------------------------------------------===//

/// The peaks of F's Applies run in id order (the schedule), as Theano's
/// memory profile simulates them: each created output allocates its
/// largest size, views and in-place outputs share their input's memory
/// (unless seen Allocated), and with gc a buffer is freed after the Apply
/// that last uses any Variable sharing it. Kept variables are never freed.
struct MemorySimulation {
  uint64_t NoGC = 0;       ///< Max if no gc (allow_gc=False).
  uint64_t GC = 0;         ///< Max with gc, in the schedule's order.
  /// The smallest peak with gc over every valid order (each Apply after
  /// those that make its inputs, and an in-place output's Apply after the
  /// other readers of the input it overwrites), when MinPeakExact.
  uint64_t MinPeak = 0;
  bool MinPeakExact = false;
  /// Why the minimum was not computed ("78 Apply nodes; the exact search
  /// is limited to 64", "the exact search stopped after 1048576 states"),
  /// when it was not.
  std::string MinPeakSkipped;
  double MinPeakSeconds = 0; ///< Time the search took.
  /// With gc, in the schedule's order: each Apply's id and the bytes live
  /// while it runs (its outputs made, its dead inputs not yet freed);
  /// GC is their largest.
  std::vector<std::pair<unsigned, uint64_t>> GCSteps;
};

/// Simulates F's Applies. MaxSearchStates bounds the exact minimum's
/// search (it is skipped beyond; see MemorySimulation::MinPeakSkipped); 0
/// skips the search. A function whose memory was not recorded gives zeros.
MemorySimulation simulateMemory(const FunctionProfile &F,
                                uint64_t MaxSearchStates = 1u << 20);

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
  /// The Memory Profile section (for functions whose memory was
  /// recorded); rows whose outputs take fewer bytes are only counted, as
  /// Theano's profiling__min_memory_size.
  bool Memory = true;
  uint64_t MinMemorySize = 1024;
  /// The Optimizer Profile section (for functions whose optimizer was
  /// recorded, profile_optimizer).
  bool Optimizer = true;
};

/// Prints each function's profile, then, with several functions, the sum of
/// all of them, as Theano's summary() does.
void printSummary(llvm::raw_ostream &OS, const Profile &P,
                  const SummaryOptions &Opts = {});
/// One function's profile: global, Class, Ops, Apply, Memory, Optimizer
/// and tips sections.
void printFunctionSummary(llvm::raw_ostream &OS, const FunctionProfile &F,
                          const SummaryOptions &Opts = {},
                          llvm::StringRef Machine = "");

/// The "Sum of all(N) printed profiles at exit" function: totals of every
/// function but loop bodies (InnerOf), Applies kept per function and named
/// "FUNCTION: APPLY". Its
/// memory is not recorded: the functions' variables and peaks do not add.
/// Its optimizer profile is the sum of the functions' when every one
/// recorded it (node counts added).
FunctionProfile sumOfFunctions(const Profile &P);

/// The tips for F, one sentence each (empty: nothing stands out).
std::vector<std::string> computeTips(const FunctionProfile &F,
                                     const SummaryOptions &Opts = {});

//===----------------------------------------------------------------------===//
// JSON (docs/profile-json.md).
//===----------------------------------------------------------------------===//

/// The version written; readers take every version from 1 (version 1 has
/// no memory: Memory.Recorded is false; versions 1 and 2 have no optimizer
/// profile, provenance or validate time).
constexpr int ProfileJSONVersion = 3;
constexpr int OldestProfileJSONVersion = 1;

void writeProfileJSON(llvm::raw_ostream &OS, const Profile &P);
/// P as one self-contained HTML page of SVG charts (docs/profiling.md,
/// "Pictures"): per function, the time by Op and by Apply, with
/// distributions the time per call, with memory the bytes live over one
/// call; as many rows as Opts' n_ops and n_apply.
void writeProfileHTML(llvm::raw_ostream &OS, const Profile &P,
                      const SummaryOptions &Opts);
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
/// empty) and what differs. Memory is kept only where every run of a
/// function recorded it, and so is the optimizer's profile (rewrites and
/// phases matched by name and summed; docs/profile-json.md, "Merging").
llvm::Expected<Profile> mergeProfiles(llvm::ArrayRef<Profile> Profiles,
                                      llvm::ArrayRef<std::string> Names = {});

struct DiffRow {
  /// Noise: an Apply whose time per call moved no more than its
  /// distributions' spread (both sides recorded them; see Significant).
  enum Status { Added, Removed, Changed, Same, Noise };
  std::string Function; ///< Apply rows: the function; else empty.
  std::string Key;      ///< The Apply, Op or Class name.
  std::string Loc;      ///< Apply rows: B's file:line (A's if removed).
  Status State = Same;
  double SecondsA = 0, SecondsB = 0;
  uint64_t CallsA = 0, CallsB = 0;
  /// Apply rows whose two sides have distributions: the steady state's
  /// median per call on each side.
  std::optional<double> MedianA, MedianB;
  /// Apply rows tested between runs: the test's p-value and the runs.
  std::optional<double> PValue;
  unsigned RunsA = 1, RunsB = 1;
  double difference() const { return SecondsB - SecondsA; }
};

/// Whether an Apply's time per call changed beyond the noise, from its
/// distributions on both sides (the first call left out of both).
struct ChangeTest {
  bool Significant = false;
  /// Tested between runs: both sides are merged profiles of 2 or more
  /// runs each. Else within each run.
  bool BetweenRuns = false;
  unsigned RunsA = 1, RunsB = 1;
  /// The medians compared: of the runs' medians between runs, else of
  /// the distributions.
  double MedianA = 0, MedianB = 0;
  std::optional<double> PValue; ///< Between runs: Mann-Whitney's.
};

/// The medians' change must exceed the histograms' resolution (12% of the
/// larger) and FloorSeconds (what the clock resolves: the instrumentation's
/// cost per Apply). Between runs, the runs' medians must also differ by
/// Mann-Whitney's two-sided test at p < 0.05; within runs, the medians
/// must be further apart than the two interquartile ranges together.
/// docs/profiling.md, "Diffs".
ChangeTest testChange(const TimeDistribution &A, const TimeDistribution &B,
                      double FloorSeconds);

/// Mann-Whitney's U test, two-sided: the probability, were A and B drawn
/// from one distribution, of a U at least as far from its mean. Exact
/// (without a tie correction) up to 50 values per side, else the normal
/// approximation. 1 when a side is empty.
double mannWhitneyPValue(llvm::ArrayRef<double> A, llvm::ArrayRef<double> B);

/// A function's memory in A and in B (recorded in both): the measured
/// peaks and the simulated ones (simulateMemory).
struct MemoryDiffRow {
  std::string Function;
  uint64_t MeasuredA = 0, MeasuredB = 0;
  uint64_t NoGCA = 0, NoGCB = 0; ///< Max if no gc.
  uint64_t GCA = 0, GCB = 0;     ///< Max with gc, in the schedule's order.
  int64_t difference() const { return int64_t(MeasuredB) - int64_t(MeasuredA); }
};

/// An Apply's output bytes (the sum over its outputs, views included, as
/// the Memory Profile's rows) in A and B, matched as DiffRow's Applies.
struct ApplyMemoryDiffRow {
  std::string Function, Key, Loc;
  DiffRow::Status State = DiffRow::Same;
  uint64_t BytesA = 0, BytesB = 0;
  int64_t difference() const { return int64_t(BytesB) - int64_t(BytesA); }
};

struct ProfileDiff {
  double ThunkSecondsA = 0, ThunkSecondsB = 0;
  /// The graph optimizer's time (CompileSplit::Rewrite), and validation's.
  double RewriteSecondsA = 0, RewriteSecondsB = 0;
  double ValidateSecondsA = 0, ValidateSecondsB = 0;
  double CallSecondsA = 0, CallSecondsB = 0;
  uint64_t CallsA = 0, CallsB = 0;
  std::vector<std::string> FunctionsAdded, FunctionsRemoved;
  /// Whether a side's first call was left out of its rows (its totals
  /// included it, and it was kept apart).
  bool FirstCallLeftOutA = false, FirstCallLeftOutB = false;
  /// Apply rows compared by their distributions, and of those the ones
  /// that changed beyond the noise.
  unsigned AppliesWithDistributions = 0, SignificantApplies = 0;
  /// Of AppliesWithDistributions, those tested between runs; the most
  /// runs any Apply had on each side.
  unsigned AppliesTestedBetweenRuns = 0, RunsA = 1, RunsB = 1;
  /// Each sorted by |difference|, largest first.
  std::vector<DiffRow> Classes, Ops, Applies;
  /// Functions whose optimizer was recorded in A and B: their rewrites,
  /// matched by (function, name); Calls are the times applied. Sorted as
  /// the others.
  std::vector<DiffRow> Rewrites;
  /// Functions with memory recorded in A and B, in A's order; and their
  /// Applies, sorted by |difference| of output bytes, largest first.
  std::vector<MemoryDiffRow> Memory;
  std::vector<ApplyMemoryDiffRow> MemoryApplies;
};

/// A against B. Functions are matched by name; Applies by (function, Apply
/// name), the k-th Apply of a name in A with the k-th of that name in B,
/// since ids shift when a graph changes. Ops by op name, Classes by class.
ProfileDiff diffProfiles(const Profile &A, const Profile &B);

void printDiff(llvm::raw_ostream &OS, const ProfileDiff &D,
               llvm::StringRef NameA, llvm::StringRef NameB,
               const SummaryOptions &Opts = {});

namespace profile {
/// "from f.graph:5,6,7 (fusion, inplace)": the statements a rewritten
/// Apply stands for (grouped by file, each line once, in increasing order)
/// and the rewrites that made it. Empty for an Apply as written (no Rewrites,
/// at most its Loc).
std::string provenanceText(const ApplyProfile &A);
} // namespace profile

} // namespace graphjit

#endif
