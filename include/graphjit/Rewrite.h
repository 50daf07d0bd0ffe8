//===- graphjit/Rewrite.h - The graph optimizer ----------------*- C++ -*-===//
//
// The optimizer (Theano's "rewrites"): rewriteFunction() returns a new
// FunctionGraph computing the same outputs and updates as the given one,
// after the rewrites that the options select: merging identical Applies and
// constants, constant folding, canonicalization (x*1 -> x, pow(x, 2) ->
// sqr(x), cast of a cast, ...) and shape rewrites. Every rewrite has a name
// and tags, so that `optimizer=fast_compile` or
// `optimizer_excluding=canonicalize:fusion` select as Theano does. The
// result is validated (well typed, acyclic), and what each rewrite did is
// recorded for the optimizer profile; every Apply of the result says which
// rewrites made it and which statements it stands for
// (Apply::rewrites(), Apply::sourceLocs()). docs/optimizer.md describes
// the pipeline and each rewrite.
//
//   RewriteReport R;
//   auto G = cantFail(rewriteFunction(*M->lookupFunction("train"), {}, &R));
//   auto Fn = cantFail(Function::compile(*G));   // G must outlive Fn
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_REWRITE_H
#define GRAPHJIT_REWRITE_H

#include "graphjit/Graph.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

/// Which rewrites run: Theano's `optimizer`, `optimizer_excluding` and
/// `optimizer_including`.
struct RewriteOptions {
  /// "fast_run" (every rewrite tagged fast_run), "fast_compile" (those
  /// tagged fast_compile: merge), "merge" (those tagged merge) or "None"
  /// (no rewrite but the legalize ones; otherwise the result is a
  /// validated copy).
  std::string Optimizer = "fast_run";
  /// Tags or rewrite names: a rewrite having any of them does not run.
  std::vector<std::string> Excluding;
  /// Tags or rewrite names: rewrites having any of them run too (unless
  /// excluded).
  std::vector<std::string> Including;
  /// device=cuda or cuda-emulated: the gpu phase (placement on the device,
  /// tag "gpu") runs, whatever the optimizer, unless excluded.
  bool Gpu = false;
};

/// The most operands an Elemwise kernel takes: an add or mul of more is
/// split by the rewrite split_wide_elemwise (tag legalize), which runs
/// whatever the optimizer, None included, unless excluded by name.
constexpr size_t MaxElemwiseInputs = 32;
/// Whether an Apply of O on NumInputs operands is one split_wide_elemwise
/// splits (when its operands have the result's dtype).
bool isWideElemwise(const Op &O, size_t NumInputs);

/// Whether rewriteFunction(F, O) would be more than a copy: an optimizer
/// other than None, a device, or an add or mul too wide for a kernel.
bool needsRewriting(const FunctionGraph &F, const RewriteOptions &O);

/// "fusion:inplace" -> {"fusion", "inplace"}; empty entries are dropped.
std::vector<std::string> splitRewriteTags(llvm::StringRef ColonSeparated);

/// The optimizer names RewriteOptions::Optimizer accepts.
std::vector<std::string> rewriteOptimizerNames();
/// The tags Excluding and Including accept besides rewrite names, sorted.
/// Some have no rewrite yet (specialize) and select none.
std::vector<std::string> knownRewriteTags();
/// Every rewrite, in the order the pipeline first runs it.
std::vector<std::string> rewriteNames();

/// The names of the rewrites the options select, in pipeline order. An
/// unknown optimizer name, tag or rewrite name is an error that lists the
/// known ones.
llvm::Expected<std::vector<std::string>>
selectedRewrites(const RewriteOptions &O);

/// What one rewrite did in one rewriteFunction call (PyTensor's
/// profile_optimizer columns).
struct RewriteStat {
  std::string Name;
  std::vector<std::string> Tags;
  /// Time spent trying it, whether it applied or not.
  double Seconds = 0;
  /// How many times it changed the graph.
  unsigned Applied = 0;
  /// Applies in the graph when the first phase running this rewrite began
  /// and when the last one ended.
  unsigned NodesBefore = 0, NodesAfter = 0;
  /// Applies it made (a sqr for a pow, ...), counted when they are made.
  unsigned NodesCreated = 0;
};

/// One phase of the pipeline: its rewrites run over a worklist of Applies
/// until none applies (or the visit budget is spent).
struct RewritePhaseStat {
  std::string Name;
  double Seconds = 0;
  unsigned NodesBefore = 0, NodesAfter = 0;
  /// Applies visited (each visit tries every rewrite of the phase).
  unsigned Visits = 0;
  /// The phase stopped at its visit budget before reaching a fixed point.
  bool BudgetExhausted = false;
};

struct RewriteReport {
  std::string Optimizer;
  /// Each selected rewrite once, in pipeline order; a rewrite running in
  /// several phases (merge) sums them.
  std::vector<RewriteStat> Rewrites;
  std::vector<RewritePhaseStat> Phases;
  /// The whole of rewriteFunction, validation included.
  double Seconds = 0;
  /// Validating the result (the profile's "validate time").
  double ValidateSeconds = 0;
  /// Applies in the given function and in the result.
  unsigned NodesBefore = 0, NodesAfter = 0;
};

/// Rewrites F into a new FunctionGraph, owned by the caller and not added
/// to F's module (module() is F.module(), so file names and shared
/// variables resolve; F must not change while this runs). The result reads
/// and updates the same SharedVariable objects, has the same inputs (names,
/// types, order), outputs and updates in the same order, and keeps the
/// names of variables that survive; a variable replaced by an unnamed one
/// gives it its name. With rewrites selected, Applies that no output or
/// update needs are dropped; with none (optimizer=None) the result is a
/// copy of F. Errors: bad options, a rewrite breaking the graph (the
/// message names it), a result that does not validate.
llvm::Expected<std::unique_ptr<FunctionGraph>>
rewriteFunction(const FunctionGraph &F, const RewriteOptions &O,
                RewriteReport *Report = nullptr);

/// Checks that F is well formed: every Apply's inputs are defined before it
/// (so the graph is acyclic and in topological order), its output types
/// are what its op infers from its input types, outputs and updates are
/// variables of F, each shared variable is updated at most once, with a
/// value of its type. Errors name the Apply, where it was written and the
/// rewrites that made it.
llvm::Error validateFunction(const FunctionGraph &F);

} // namespace graphjit

#endif
