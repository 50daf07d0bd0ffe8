//===- graphjit/Flags.h - GRAPHJIT_FLAGS, Theano's flags -------*- C++ -*-===//
//
// Process-wide settings, read once from the environment variable
// GRAPHJIT_FLAGS as THEANO_FLAGS was: comma-separated NAME=VALUE pairs,
// e.g. GRAPHJIT_FLAGS=profile=True,profiling__n_apply=10. The command line
// has an option of the same name for each (-profile, -profiling__n_apply).
// An unknown name or a bad value is an error that lists the known flags.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FLAGS_H
#define GRAPHJIT_FLAGS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace graphjit {

struct Flags {
  /// Profile every compiled function; print each profile, then their sum,
  /// at exit.
  bool Profile = false;
  /// Add the Memory Profile section: measured and simulated peaks (implies
  /// profile for the functions compiled).
  bool ProfileMemory = false;
  /// Add the Optimizer Profile section: what the graph optimizer did, per
  /// phase and per rewrite, and the run time of the Applies each rewrite
  /// made (implies profile for the functions compiled).
  bool ProfileOptimizer = false;
  /// Free intermediates after their last use. False keeps every value
  /// until the call ends (Theano's allow_gc).
  bool AllowGC = true;
  /// Rows of the Apply table, and of the Class and Ops tables.
  unsigned ProfilingNApply = 20;
  unsigned ProfilingNOps = 20;
  /// Where the profiles go at exit: "stdout", "stderr" or a file name.
  std::string ProfilingDestination = "stderr";
  /// Print the function's graph (debugprint) with its profile.
  bool ProfilingDebugprint = false;
  /// Leave each function's first call out of its profile (compilation
  /// warm-up: first-touch page faults, cold caches).
  bool ProfilingIgnoreFirstCall = false;
  /// Keep the distribution of every Apply's per-call time (min, median,
  /// p90, max in the report and the JSON; a noise-aware diff).
  bool ProfilingDistributions = false;
  /// How the Applies are timed: "exact" (a clock read around each) or
  /// "sample" (one store per Apply and a sampler thread that looks every
  /// ProfilingSampleUs microseconds; the times are estimates).
  std::string ProfilingMode = "exact";
  unsigned ProfilingSampleUs = 100;
  /// Write a timeline of every profiled call at exit: one slice per Apply
  /// per call, in Chrome's trace-event JSON that Perfetto's UI and
  /// chrome://tracing open (docs/profiling.md, "Timeline"). Implies
  /// profile for the functions compiled. Empty: none.
  std::string ProfilingTrace;
  /// The most slices the timeline keeps per thread: the last ones.
  unsigned ProfilingTraceEvents = 1000000;
  /// Memory Profile rows whose outputs take fewer bytes are only counted.
  unsigned ProfilingMinMemorySize = 1024;
  /// The graph optimizer (docs/optimizer.md): fast_run, fast_compile,
  /// merge or None; rewrites or tags to leave out and to add, separated
  /// by ':' ("fusion:inplace").
  std::string Optimizer = "fast_run";
  std::string OptimizerExcluding;
  std::string OptimizerIncluding;
  /// Where computing Applies run: cpu, cuda (an NVIDIA GPU through the
  /// CUDA driver), or cuda-emulated (the GPU path run on the host, for
  /// testing without a GPU). docs/gpu.md.
  std::string Device = "cpu";
  /// The most threads the JIT's optimization and code generation use for
  /// one module; 0: as many as are worth it (docs/architecture.md,
  /// "Compile time"). graphjit::setCodegenThreads overrides it.
  unsigned CompileThreads = 0;
  /// At optimization level 2, LLVM's default<O2> pipeline instead of
  /// graphjit's kernel pipeline (CompileOptions::LLVMPipeline).
  bool LLVMPipeline = false;
  /// Where the compile cache keeps objects (Theano's compiledir); empty:
  /// $GRAPHJIT_CACHE_DIR, else ~/.cache/graphjit.
  std::string CompileDir;
  /// What parsing accepted but does not apply: PyTensor's and Theano's
  /// flags with no meaning here (floatX, cxx, ...), one line each.
  /// processFlags() prints them once, as warnings.
  std::vector<std::string> Warnings;
};

/// Parses "NAME=VALUE,NAME=VALUE" over Base. Booleans are True/False (also
/// true/false/1/0).
/// Parses "name=value,..." (Theano's dotted section names too). Theano's
/// and PyTensor's flags are accepted: mode=FAST_RUN and FAST_COMPILE set
/// the optimizer, compiledir the compile cache, and those that have no
/// meaning for graphjit (floatX, cxx, linker, ...) add a warning and are
/// ignored. Unknown names and malformed items are errors.
llvm::Expected<Flags> parseFlags(llvm::StringRef Text, Flags Base = {});

/// The flags of this process: GRAPHJIT_FLAGS parsed on first use (an error
/// there is returned each time), or what setProcessFlags set.
llvm::Expected<const Flags &> processFlags();
void setProcessFlags(const Flags &F);

/// "profile, profiling__n_apply, ..." for messages and --help.
std::string knownFlagNames();

} // namespace graphjit

#endif
