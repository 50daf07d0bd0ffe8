//===- RewriteGraph.h - The optimizer's mutable graph ----------*- C++ -*-===//
//
// FunctionGraph is append-only and always in topological order, so the
// optimizer works on a graph of its own: built from a FunctionGraph,
// changed in place by rewrites (values replaced everywhere they are used,
// Applies dropped once nothing uses them), then written out as a new
// FunctionGraph in topological order. Every value knows its clients and how
// many uses it has, so that replacing a value and dropping dead code cost
// what they change, not the size of the graph.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_REWRITE_REWRITEGRAPH_H
#define GRAPHJIT_REWRITE_REWRITEGRAPH_H

#include "graphjit/Graph.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {
namespace rewrite {

struct RNode;

/// A variable: an input, a constant, a read of a shared variable or an
/// output of an Apply.
struct RValue {
  Variable::Kind Kind = Variable::Result;
  TensorType Type;
  std::string Name;
  /// Creation order: values made by rewrites come after the imported ones.
  unsigned Id = 0;
  SourceLoc Loc;
  // Constants.
  NDArray Value;
  std::string Literal;
  bool Weak = false, Settled = false;
  /// The hash of dtype, shape and bytes (computed on first use).
  size_t ContentHash = 0;
  bool Hashed = false;
  // Shared reads.
  SharedVariable *Shared = nullptr;
  // Results.
  RNode *Owner = nullptr;
  unsigned OutIndex = 0;
  /// Applies that used this value at some point; may hold dead ones and
  /// ones that no longer use it (checked where it matters).
  std::vector<RNode *> Clients;
  /// Input slots of live Applies, outputs and updates that refer to it.
  unsigned Uses = 0;
  /// Set when every use was moved to another value; outputs and updates
  /// follow it (RewriteGraph::resolve).
  RValue *ReplacedBy = nullptr;

  bool isConstant() const { return Kind == Variable::Constant; }
  bool isResult() const { return Kind == Variable::Result; }
};

/// An Apply.
struct RNode {
  OpRef Op;
  /// Op->name(), kept: merge compares and hashes it.
  std::string OpName;
  std::vector<RValue *> Inputs;
  std::vector<RValue *> Outputs;
  /// Creation order.
  unsigned Id = 0;
  /// Where it goes in the written graph, as far as its inputs allow: an
  /// imported Apply's own place, or that of the Apply a rewrite made it
  /// for, so that the result keeps the order of the statements.
  unsigned Position = 0;
  SourceLoc Loc;
  /// Every statement it stands for, Loc first.
  std::vector<SourceLoc> Locs;
  /// The rewrites that made it, in the order they did.
  std::vector<std::string> MadeBy;
  bool Dead = false;
  /// Waiting in the worklist of the running phase.
  bool Queued = false;

  const graphjit::Op &op() const { return *Op; }
  /// The Op's class ("Elemwise", "Shape_i"), for matching.
  llvm::StringRef className() const { return Op->className(); }
};

class RewriteGraph {
public:
  /// Builds the graph of F: every Apply, input, constant and shared read.
  static std::unique_ptr<RewriteGraph> build(const FunctionGraph &F);

  /// Writes the live Applies out as a new FunctionGraph of F's module, in
  /// topological order. KeepUnused: also the constants and shared reads
  /// that nothing uses (a plain copy keeps them). A cycle is an error
  /// naming an Apply on it and the rewrites that made it.
  llvm::Expected<std::unique_ptr<FunctionGraph>> write(bool KeepUnused) const;

  const FunctionGraph &source() const { return Source; }
  /// Every Apply ever made, dead ones included, in creation order.
  const std::vector<std::unique_ptr<RNode>> &nodes() const { return Nodes; }
  unsigned numNodesMade() const { return Nodes.size(); }
  unsigned numLiveNodes() const { return LiveNodes; }
  /// The live Applies in a topological order (by Position where it
  /// allows); empty with a cycle.
  std::vector<RNode *> topologicalOrder() const;
  /// The function's inputs.
  llvm::ArrayRef<RValue *> inputs() const { return Inputs; }
  /// The outputs' and the updates' values as imported (resolve() them);
  /// update I's target is source().updates()[I].Target.
  llvm::ArrayRef<RValue *> outputValues() const { return OutputValues; }
  llvm::ArrayRef<RValue *> updateValues() const { return UpdateValues; }
  /// The symbolic dim names with the input and dim that bind each (the
  /// first input having it).
  const llvm::StringMap<std::pair<RValue *, unsigned>> &boundDims() const {
    return BoundDims;
  }

  /// Follows ReplacedBy to the value that stands for V now.
  static RValue *resolve(RValue *V);

  /// Makes an Apply of a registered op (by its format name) or of an op
  /// already made, inferring its output types; the error is the op's.
  llvm::Expected<RNode *> makeNode(llvm::StringRef FormatName,
                                   llvm::ArrayRef<RValue *> Inputs,
                                   const AttrMap &Attrs = {});
  llvm::Expected<RNode *> makeNode(OpRef Op, llvm::ArrayRef<RValue *> Inputs);
  /// A new constant of a fixed dtype (not a weak literal).
  RValue *makeConstant(NDArray Value, SourceLoc Loc);

  /// Moves every use of Old (input slots, outputs, updates) to New. The
  /// live Applies whose inputs changed are appended to Touched.
  void replaceAllUses(RValue *Old, RValue *New, std::vector<RNode *> &Touched);
  /// Drops N if nothing uses its outputs, then the Applies only it used.
  void removeIfUnused(RNode *N);
  /// Drops every Apply that no output or update needs.
  void removeUnreachable();
  /// Makes every in-place Elemwise and Gemm write a new buffer (its plain
  /// op).
  void dropInplace();

  /// Whether two constants have the same dtype, shape and bytes.
  static bool sameConstant(RValue &A, RValue &B);
  static size_t constantHash(RValue &C);

private:
  explicit RewriteGraph(const FunctionGraph &F) : Source(F) {}
  RValue *newValue(Variable::Kind K, TensorType T);
  void addUse(RValue *V, RNode *Client);
  /// topologicalOrder(), and an Apply on a cycle if there is one.
  std::vector<RNode *> order(RNode **OnCycle) const;

  const FunctionGraph &Source;
  std::vector<std::unique_ptr<RValue>> Values;
  std::vector<std::unique_ptr<RNode>> Nodes;
  unsigned LiveNodes = 0;
  std::vector<RValue *> Inputs;
  /// Outputs and update values as imported; resolve() them.
  std::vector<RValue *> OutputValues;
  std::vector<RValue *> UpdateValues;
  llvm::StringMap<std::pair<RValue *, unsigned>> BoundDims;
};

/// Whether N writes its output over a shared variable it reads (a shared
/// variable's update in place; graphjit::sharedInputOverwritten): such
/// Applies are written after all others.
bool overwritesShared(const RNode &N);

/// "Apply 3 (Elemwise{sqr,no_inplace}, at f.graph:7, made by
/// pow_specialize)": how errors name an Apply.
std::string describeNode(const RNode &N);

} // namespace rewrite
} // namespace graphjit

#endif
