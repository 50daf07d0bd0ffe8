//===- Merge.cpp - One Apply for identical computations -------------------===//
//
// Theano's MergeOptimizer, as a node rewrite over a hash table: constants
// with the same dtype, shape and bytes become one, then an Apply whose op
// equals another's (same name, which spells every parameter) and whose
// inputs are the same variables becomes one with it: the one written first
// stays. Visiting Applies
// in topological order merges whole duplicated subgraphs in one pass: by
// the time an Apply is visited, its inputs have been merged. The table is
// never cleaned eagerly; an entry is checked (alive, same op and inputs)
// when it is found.
//
//===----------------------------------------------------------------------===//

#include "NodeRewrite.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

using namespace graphjit;
using namespace graphjit::rewrite;

namespace {

class MergeRewrite final : public NodeRewrite {
public:
  MergeRewrite()
      : NodeRewrite("merge", {"merge", "fast_run", "fast_compile"}) {}

  llvm::Expected<std::vector<Replacement>> apply(RewriteGraph &G,
                                                 RNode &N) override {
    std::vector<Replacement> Reps;
    std::vector<RValue *> Ins = N.Inputs;
    for (RValue *&In : Ins) {
      if (!In->isConstant())
        continue;
      RValue *C = intern(*In);
      if (C == In)
        continue;
      bool Seen = false;
      for (const Replacement &R : Reps)
        Seen |= R.Old == In;
      if (!Seen)
        Reps.push_back({In, C});
      In = C;
    }

    size_t Key = keyOf(N.OpName, Ins);
    llvm::SmallVector<RNode *, 1> &Bucket = Nodes[Key];
    // Dead entries go. A live one whose inputs changed since it was added
    // fails the comparison below; it was added again under its new key
    // when it was revisited.
    llvm::erase_if(Bucket, [](RNode *C) { return C->Dead; });
    for (RNode *&C : Bucket) {
      if (C == &N || C->OpName != N.OpName || C->Inputs != Ins)
        continue;
      // The one written first stays, with its name and place.
      RNode *Kept = C, *Gone = &N;
      if (N.Position < C->Position)
        std::swap(Kept, Gone);
      for (unsigned I = 0; I < N.Outputs.size(); ++I)
        Reps.push_back({Gone->Outputs[I], Kept->Outputs[I]});
      mergeProvenance(*Kept, *Gone);
      C = Kept;
      return Reps;
    }
    if (!llvm::is_contained(Bucket, &N))
      Bucket.push_back(&N);
    return Reps;
  }

private:
  llvm::DenseMap<size_t, llvm::SmallVector<RValue *, 1>> Constants;
  llvm::DenseMap<size_t, llvm::SmallVector<RNode *, 1>> Nodes;

  /// The first constant seen with C's contents.
  RValue *intern(RValue &C) {
    llvm::SmallVector<RValue *, 1> &Bucket =
        Constants[RewriteGraph::constantHash(C)];
    for (RValue *Other : Bucket)
      if (Other == &C || RewriteGraph::sameConstant(*Other, C))
        return Other;
    Bucket.push_back(&C);
    return &C;
  }

  static size_t keyOf(const std::string &OpName, llvm::ArrayRef<RValue *> Ins) {
    llvm::hash_code H = llvm::hash_value(OpName);
    for (RValue *In : Ins)
      H = llvm::hash_combine(H, In->Id);
    return size_t(H);
  }

  /// The Apply kept stands for both now.
  static void mergeProvenance(RNode &Kept, const RNode &Gone) {
    if (Kept.Locs.empty())
      Kept.Locs.push_back(Kept.Loc);
    for (const SourceLoc &L :
         Gone.Locs.empty() ? std::vector<SourceLoc>{Gone.Loc} : Gone.Locs)
      if (llvm::none_of(Kept.Locs,
                        [&](const SourceLoc &K) { return sameLoc(K, L); }))
        Kept.Locs.push_back(L);
    for (const std::string &R : Gone.MadeBy)
      if (!llvm::is_contained(Kept.MadeBy, R))
        Kept.MadeBy.push_back(R);
    if (!llvm::is_contained(Kept.MadeBy, "merge"))
      Kept.MadeBy.push_back("merge");
  }
};

} // namespace

std::unique_ptr<NodeRewrite> rewrite::makeMergeRewrite() {
  return std::make_unique<MergeRewrite>();
}
