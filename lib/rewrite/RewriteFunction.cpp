//===- RewriteFunction.cpp - The optimizer's entry point -----------------===//
//
// rewriteFunction: options to a selection of the standard pipeline's
// rewrites (by optimizer name and tags, as Theano's optimizer queries),
// then build the mutable graph, run the pipeline, write the result out and
// validate it.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"
#include "graphjit/Rewrite.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <chrono>
#include <set>

using namespace graphjit;
using namespace graphjit::rewrite;
using llvm::Expected;

namespace {

/// Tags with no rewrite yet, accepted so that the options Theano users
/// write (optimizer_excluding=fusion:inplace) work today.
const char *const FutureTags[] = {"specialize"};

struct OptimizerName {
  const char *Name;
  const char *Tag; ///< The tag that selects its rewrites; null: none.
};
const OptimizerName Optimizers[] = {{"fast_run", "fast_run"},
                                    {"fast_compile", "fast_compile"},
                                    {"merge", "merge"},
                                    {"None", nullptr}};

std::string joinWords(const std::vector<std::string> &Words) {
  std::string S;
  for (const std::string &W : Words)
    S += (S.empty() ? "" : " ") + W;
  return S;
}

std::vector<std::string> tagsOf(const Pipeline &P) {
  std::set<std::string> Tags(std::begin(FutureTags), std::end(FutureTags));
  for (const auto &R : P.Rewrites)
    Tags.insert(R->tags().begin(), R->tags().end());
  return std::vector<std::string>(Tags.begin(), Tags.end());
}

/// P: the standard pipeline with only the rewrites O selects, and the
/// legalize ones when Legalize (a graph has an Apply they change).
llvm::Error selectPipeline(const RewriteOptions &O, bool Legalize,
                           Pipeline &P) {
  P = standardPipeline();
  const OptimizerName *Opt = nullptr;
  for (const OptimizerName &N : Optimizers)
    if (O.Optimizer == N.Name)
      Opt = &N;
  if (!Opt)
    return llvm::createStringError(
        "unknown optimizer '" + O.Optimizer +
        "'; expected one of: " + joinWords(rewriteOptimizerNames()));

  std::vector<std::string> Tags = tagsOf(P);
  auto Check = [&](const std::vector<std::string> &List,
                   const char *Option) -> llvm::Error {
    for (const std::string &T : List)
      if (!llvm::is_contained(Tags, T) && !P.lookup(T))
        return llvm::createStringError(
            "unknown tag or rewrite '" + T + "' in " + Option +
            "; the tags are: " + joinWords(Tags) +
            "; the rewrites are: " + joinWords(rewriteNames()));
    return llvm::Error::success();
  };
  if (llvm::Error E = Check(O.Excluding, "optimizer_excluding"))
    return E;
  if (llvm::Error E = Check(O.Including, "optimizer_including"))
    return E;

  auto Matches = [](const NodeRewrite &R,
                    const std::vector<std::string> &List) {
    return llvm::any_of(List, [&](const std::string &T) {
      return R.hasTag(T) || R.name() == T;
    });
  };
  P.keepOnly([&](const NodeRewrite &R) {
    // The device's placement is not an optimization: it runs whenever a
    // device is asked for, and never otherwise.
    if (R.hasTag("gpu"))
      return O.Gpu && !Matches(R, O.Excluding);
    // Nor is legalizing: the code generator needs it where it applies.
    if (R.hasTag("legalize"))
      return Legalize && !Matches(R, O.Excluding);
    bool In = (Opt->Tag && R.hasTag(Opt->Tag)) || Matches(R, O.Including);
    return In && !Matches(R, O.Excluding);
  });
  return llvm::Error::success();
}

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

} // namespace

static bool hasWideElemwise(const FunctionGraph &F) {
  return llvm::any_of(F.applies(), [](const Apply *N) {
    return isWideElemwise(N->op(), N->inputs().size());
  });
}

bool graphjit::needsRewriting(const FunctionGraph &F, const RewriteOptions &O) {
  return O.Optimizer != "None" || O.Gpu || hasWideElemwise(F);
}

std::vector<std::string> graphjit::splitRewriteTags(llvm::StringRef S) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  S.split(Parts, ':', -1, /*KeepEmpty=*/false);
  std::vector<std::string> R;
  for (llvm::StringRef P : Parts)
    if (!P.trim().empty())
      R.push_back(P.trim().str());
  return R;
}

std::vector<std::string> graphjit::rewriteOptimizerNames() {
  std::vector<std::string> R;
  for (const OptimizerName &N : Optimizers)
    R.push_back(N.Name);
  return R;
}

std::vector<std::string> graphjit::knownRewriteTags() {
  return tagsOf(standardPipeline());
}

std::vector<std::string> graphjit::rewriteNames() {
  std::vector<std::string> R;
  for (const auto &Rw : standardPipeline().Rewrites)
    R.push_back(Rw->name());
  return R;
}

Expected<std::vector<std::string>>
graphjit::selectedRewrites(const RewriteOptions &O) {
  Pipeline P;
  if (llvm::Error E = selectPipeline(O, /*Legalize=*/false, P))
    return E;
  std::vector<std::string> R;
  for (const auto &Rw : P.Rewrites)
    R.push_back(Rw->name());
  return R;
}

Expected<std::unique_ptr<FunctionGraph>>
graphjit::rewriteFunction(const FunctionGraph &F, const RewriteOptions &O,
                          RewriteReport *Report) {
  auto T0 = std::chrono::steady_clock::now();
  Pipeline P;
  if (llvm::Error E = selectPipeline(O, hasWideElemwise(F), P))
    return E;
  RewriteReport R;
  R.Optimizer = O.Optimizer;
  R.NodesBefore = F.numApplies();

  std::unique_ptr<RewriteGraph> G = RewriteGraph::build(F);
  // With nothing to run but legalizing the result is a copy; otherwise, as
  // in Theano's FunctionGraph, only what the outputs and updates need is
  // kept.
  bool Copy = llvm::all_of(P.Rewrites, [](const auto &R) {
    return R->hasTag("legalize");
  });
  if (!Copy) {
    G->removeUnreachable();
    // Every rewrite assumes no Apply writes over its inputs (constant
    // folding would hand an in-place Apply a constant to overwrite): in-place
    // Applies become plain, and the inplace phase decides anew at the end.
    G->dropInplace();
  }
  if (llvm::Error E = runPipeline(*G, P, R))
    return llvm::createStringError("optimizing function '" + F.name() +
                                   "': " + llvm::toString(std::move(E)));
  Expected<std::unique_ptr<FunctionGraph>> Out = G->write(/*KeepUnused=*/Copy);
  if (!Out)
    return llvm::createStringError("optimizing function '" + F.name() +
                                   "': " + llvm::toString(Out.takeError()));

  auto TV = std::chrono::steady_clock::now();
  llvm::Error E = validateFunction(**Out);
  R.ValidateSeconds = secondsSince(TV);
  if (E)
    return llvm::createStringError("after optimizing: " +
                                   llvm::toString(std::move(E)));
  R.NodesAfter = (*Out)->numApplies();
  R.Seconds = secondsSince(T0);
  if (Report)
    *Report = std::move(R);
  return Out;
}
