//===- NodeRewrite.h - One rewrite of the optimizer ------------*- C++ -*-===//
//
// A NodeRewrite looks at one Apply and, when it applies, says which values
// should stand for which (Theano's node rewriter): the pipeline
// (Pipeline.h) makes the replacements, gives the Applies the rewrite made
// the provenance of the one it replaced (and what the rewrite adds: a fused
// Apply stands for every statement it took in), drops what is no longer
// used and revisits what changed. A rewrite has a name and tags, by which
// the options select it. The rewrites themselves are in Merge.cpp,
// ConstantFolding.cpp, Canonicalize.cpp, ShapeRewrites.cpp, Stabilize.cpp,
// Gemm.cpp, Fusion.cpp and Inplace.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_REWRITE_NODEREWRITE_H
#define GRAPHJIT_REWRITE_NODEREWRITE_H

#include "RewriteGraph.h"
#include "llvm/ADT/STLExtras.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {
namespace rewrite {

/// Every use of Old becomes a use of New, which must have Old's type.
struct Replacement {
  RValue *Old;
  RValue *New;
};

class NodeRewrite {
public:
  NodeRewrite(std::string Name, std::vector<std::string> Tags)
      : Name(std::move(Name)), Tags(std::move(Tags)) {}
  virtual ~NodeRewrite() = default;

  const std::string &name() const { return Name; }
  const std::vector<std::string> &tags() const { return Tags; }
  bool hasTag(llvm::StringRef T) const { return llvm::is_contained(Tags, T); }

  /// Tries the rewrite on the live Apply N. Returns the replacements to
  /// make, none when it does not apply. New Applies are made with
  /// G.makeNode; those that end up unused are dropped. An error is a bug
  /// (it stops the optimizer and names the rewrite), not "does not apply".
  virtual llvm::Expected<std::vector<Replacement>> apply(RewriteGraph &G,
                                                         RNode &N) = 0;

private:
  std::string Name;
  std::vector<std::string> Tags;
};

/// merge: identical constants become one, then Applies with equal ops and
/// the same inputs.
std::unique_ptr<NodeRewrite> makeMergeRewrite();
/// constant_folding: an Apply of constants becomes constants.
std::unique_ptr<NodeRewrite> makeConstantFolding();
/// The canonicalize rewrites (x*1, x+0, neg(neg(x)), casts, ...).
std::vector<std::unique_ptr<NodeRewrite>> makeCanonicalizeRewrites();
/// The shape rewrites (Shape_i of a known dim, ...).
std::vector<std::unique_ptr<NodeRewrite>> makeShapeRewrites();
/// The stabilize rewrites (log(softmax(x)) -> log_softmax(x), ...).
std::vector<std::unique_ptr<NodeRewrite>> makeStabilizeRewrites();
/// The gemm rewrites (dot plus a scaled add -> gemm, transposes -> flags).
std::vector<std::unique_ptr<NodeRewrite>> makeGemmRewrites();
/// elemwise_fusion: Elemwise chains and trees -> one Composite.
std::unique_ptr<NodeRewrite> makeElemwiseFusion();
/// elemwise_inplace: an Elemwise writes over an input that dies with it.
std::unique_ptr<NodeRewrite> makeElemwiseInplace();
/// shared_update_inplace: a Gemm or Elemwise computing a shared variable's
/// update writes it over the old value (Theano's Gemm{inplace}).
std::unique_ptr<NodeRewrite> makeSharedUpdateInplace();
/// split_wide_elemwise (Legalize.cpp; tag legalize): an add or mul of
/// more than MaxElemwiseInputs operands -> a chain of narrower ones.
std::unique_ptr<NodeRewrite> makeSplitWideElemwise();
/// gpu_placement and gpu_transfer_cut (GpuPlacement.cpp; tag gpu).
std::vector<std::unique_ptr<NodeRewrite>> makeGpuRewrites();

/// Largest output (in elements) constant folding makes a constant of.
constexpr int64_t MaxFoldedElements = 1000000;
/// The same for Alloc-class ops (alloc, zeros_like, ones_like): larger
/// allocations are cheaper to redo than to keep as constants.
constexpr int64_t MaxFoldedAllocElements = 1024;

// Helpers the rewrites share.

/// N's (first) output replaced by New, if New has exactly its type; no
/// replacement otherwise (the rewrite does not apply).
std::vector<Replacement> replaceBy(RNode &N, RValue *New);
/// Whether V is a constant whose every element equals X (exactly; a bool
/// element counts as 0 or 1). False for a constant with no elements.
bool isConstantAll(const RValue &V, double X);
/// The two source locations name the same place.
bool sameLoc(const SourceLoc &A, const SourceLoc &B);

} // namespace rewrite
} // namespace graphjit

#endif
