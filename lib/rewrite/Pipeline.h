//===- Pipeline.h - Phases of rewrites run to a fixed point ----*- C++ -*-===//
//
// The optimizer's driver. A pipeline is an ordered list of phases; a phase
// is a list of NodeRewrites run over a worklist of Applies (first in
// topological order) until none applies: each Apply visited is offered to
// every rewrite of the phase in order; when one applies, its replacements
// are made, and the Applies it made and those whose inputs changed are
// visited again. A visit budget bounds a phase whatever the rewrites do.
// The driver records, per rewrite, its time, how often it applied and the
// Applies it made, and per phase its time and node counts.
//
// The standard pipeline (fast_run), in Theano's order:
//   merge1        merge
//   canonicalize  merge, constant_folding, the canonicalize rewrites, the
//                 shape rewrites
//   stabilize     merge, the stabilize rewrites
//   gemm          merge, the gemm rewrites
//   fusion        elemwise_fusion
//   merge2        merge
//   gpu           gpu_placement, gpu_transfer_cut (with device=cuda or
//                 cuda-emulated; before inplace, which must know where
//                 values live)
//   inplace       elemwise_inplace (last: no later rewrite adds a reader)
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_REWRITE_PIPELINE_H
#define GRAPHJIT_REWRITE_PIPELINE_H

#include "NodeRewrite.h"
#include "graphjit/Rewrite.h"
#include <functional>

namespace graphjit {
namespace rewrite {

struct Phase {
  std::string Name;
  std::vector<NodeRewrite *> Rewrites;
};

struct Pipeline {
  /// Every rewrite, in the order the phases first run them.
  std::vector<std::unique_ptr<NodeRewrite>> Rewrites;
  std::vector<Phase> Phases;

  /// Drops the rewrites Keep refuses, the phases left empty and those
  /// left with the same rewrites as the phase before.
  void keepOnly(const std::function<bool(const NodeRewrite &)> &Keep);
  /// The rewrite named Name, or null.
  NodeRewrite *lookup(llvm::StringRef Name) const;
};

/// The standard pipeline with every rewrite there is.
Pipeline standardPipeline();

/// How many visits a phase may make per Apply it starts with (plus a
/// constant): far more than any rewrite here needs, a bound all the same.
constexpr unsigned VisitsPerNode = 16;

/// Runs the phases on G, adding what each rewrite and phase did to Report
/// (Rewrites, Phases). An error is a rewrite's bug: it names the rewrite
/// and the Apply it was looking at.
llvm::Error runPipeline(RewriteGraph &G, const Pipeline &P,
                        RewriteReport &Report);

} // namespace rewrite
} // namespace graphjit

#endif
