//===- graphjit/Graph.h - Variables, Apply nodes, FunctionGraphs -*- C++ -*-=//
//
// Theano's graph vocabulary. A Variable is a typed value: a function input,
// a Constant, a read of a shared variable, or the output of an Apply. An
// Apply is one application of an Op to input Variables. A FunctionGraph is
// one function: inputs, outputs, the Applies between them, and the updates
// of shared variables it makes. A GraphModule is one .graph file: its
// shared variables (whose values live across calls) and its functions.
//
// The FunctionGraph owns its Variables and Applies. Applies are kept in a
// topological order (a node is only created once its inputs exist).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GRAPH_H
#define GRAPHJIT_GRAPH_H

#include "graphjit/NDArray.h"
#include "graphjit/Op.h"
#include "graphjit/Type.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

class Apply;
class FunctionGraph;
class GraphModule;

/// Where something was written: file, 1-based line and column. Line 0 means
/// built through the C++ API with no location.
struct SourceLoc {
  std::shared_ptr<const std::string> File;
  unsigned Line = 0;
  unsigned Col = 0;
  bool isValid() const { return Line != 0; }
  /// "file.graph:7" (no column: that is how profiles cite lines).
  std::string fileLine() const;
  /// "file.graph:7:12".
  std::string str() const;
};

/// How a shared variable gets its first value.
struct SharedInit {
  enum Kind { Zeros, Ones, Number, Uniform, Normal, Npy } K = Zeros;
  double A = 0, B = 0; ///< Number: A. Uniform: low, high. Normal: mean, std.
  uint64_t Seed = 0;
  std::string Path;     ///< Npy: as written (relative to the graph file).
  std::string Spelling; ///< Number: the literal as written.
  /// The graph format's spelling: "zeros", "normal(0, 0.05, seed=1)".
  std::string str() const;
};

class SharedVariable {
public:
  std::string Name;
  TensorType Type; ///< Always with known dims.
  SharedInit Init;
  SourceLoc Loc;
  NDArray Value; ///< The current value; set by GraphModule::initShared().
};

class Variable {
public:
  enum Kind { Input, Result, Constant, SharedRead };

  Kind kind() const { return K; }
  const TensorType &type() const { return Ty; }
  unsigned id() const { return Id; }
  /// The name given in the source or by the builder; may be empty.
  const std::string &name() const { return Name; }
  Apply *owner() const { return Owner; }
  unsigned outputIndex() const { return OutIndex; }
  /// Constant: its value (0-d for literals).
  const NDArray &constantValue() const { return Value; }
  /// Constant written as a number literal: its spelling ("2.0").
  const std::string &literalText() const { return Literal; }
  /// True for a number literal whose dtype follows the other operands.
  bool isWeakLiteral() const { return Weak; }
  /// A weak literal written as a float (with '.' or an exponent).
  bool isFloatLiteral() const { return WeakFloat; }
  /// A weak literal whose dtype an Apply has already settled.
  bool isSettledLiteral() const { return Settled; }
  SharedVariable *shared() const { return Shared; }
  const SourceLoc &loc() const { return Loc; }

  /// How a profile names it: its name, "TensorConstant{2.0}", or an unnamed
  /// output as "Elemwise{add,no_inplace}.0".
  std::string displayName() const;

private:
  friend class FunctionGraph;
  friend class FunctionBuilder;
  Kind K = Input;
  TensorType Ty;
  unsigned Id = 0;
  std::string Name;
  Apply *Owner = nullptr;
  unsigned OutIndex = 0;
  NDArray Value;
  std::string Literal;
  bool Weak = false;
  bool WeakFloat = false;
  bool Settled = false;
  SharedVariable *Shared = nullptr;
  SourceLoc Loc;
};

class Apply {
public:
  const Op &op() const { return *TheOp; }
  const OpRef &opRef() const { return TheOp; }
  llvm::ArrayRef<Variable *> inputs() const { return Inputs; }
  llvm::ArrayRef<Variable *> outputs() const { return Outputs; }
  Variable *output(unsigned I = 0) const { return Outputs[I]; }
  /// Position in the function's topological order (the profile's <id>).
  unsigned id() const { return Id; }
  /// The statement (or nested call) that made this node.
  const SourceLoc &loc() const { return Loc; }
  /// The rewrites of the optimizer that made this node ("merge",
  /// "pow_specialize"); empty for a node as written.
  llvm::ArrayRef<std::string> rewrites() const { return Rewrites; }
  /// Every statement this node stands for, loc() first: several when
  /// Applies were merged into it, else just loc().
  llvm::ArrayRef<SourceLoc> sourceLocs() const {
    if (Locs.empty())
      return llvm::ArrayRef<SourceLoc>(Loc);
    return Locs;
  }
  /// "Elemwise{add,no_inplace}(x, TensorConstant{2.0})".
  std::string displayName() const;

private:
  friend class FunctionGraph;
  OpRef TheOp;
  std::vector<Variable *> Inputs;
  std::vector<Variable *> Outputs;
  unsigned Id = 0;
  SourceLoc Loc;
  std::vector<std::string> Rewrites;
  std::vector<SourceLoc> Locs; ///< Empty: just Loc.
};

/// The shared variable an Apply writes its output over (Theano's in-place
/// update: a Gemm or Elemwise computing a shared variable's new value in
/// its memory), as the input slot it reads it in; -1 for any other Apply.
/// Such an Apply runs after every other (docs/architecture.md, "Updates
/// in place").
int sharedInputOverwritten(const Apply &A);

struct Update {
  SharedVariable *Target;
  Variable *Value;
  SourceLoc Loc;
};

class FunctionGraph {
public:
  FunctionGraph(GraphModule *M, std::string Name)
      : Module(M), Name(std::move(Name)) {}

  const std::string &name() const { return Name; }
  GraphModule *module() const { return Module; }
  const SourceLoc &loc() const { return Loc; }
  void setLoc(SourceLoc L) { Loc = std::move(L); }

  llvm::ArrayRef<Variable *> inputs() const { return Inputs; }
  llvm::ArrayRef<Variable *> outputs() const { return Outputs; }
  llvm::ArrayRef<Update> updates() const { return Updates; }
  /// What the function calls output I: its signature's name (several
  /// outputs may be one variable, an input or a shared variable), else
  /// the variable's display name.
  std::string outputName(unsigned I) const {
    return OutputNames[I].empty() ? Outputs[I]->displayName()
                                  : OutputNames[I];
  }
  /// Applies in topological order; Apply::id() is the index here.
  std::vector<Apply *> applies() const;
  size_t numApplies() const { return Nodes.size(); }
  /// Every variable, in creation order; Variable::id() is the index here.
  std::vector<Variable *> variables() const;
  /// The variable that reads shared variable S in this function, if any.
  Variable *sharedRead(const SharedVariable *S) const;
  /// The Applies that use V, in topological order.
  std::vector<Apply *> clients(const Variable *V) const;
  /// The symbolic dim names: the inputs' in order of first appearance, then
  /// those only ops use (e.g. `reshape(x, shape=[m, -1])`).
  std::vector<std::string> symbolicDims() const;
  /// The symbolic dims the inputs bind, in order of first appearance: a
  /// call knows their sizes from its inputs (gj_frame::dims, in this order).
  std::vector<std::string> inputSymbols() const;

  // Construction (used by FunctionBuilder and the parser).
  Variable *addInput(std::string Name, TensorType T, SourceLoc Loc = {});
  Variable *addConstant(NDArray Value, std::string Literal, bool Weak,
                        SourceLoc Loc = {});
  Variable *addSharedRead(SharedVariable *S, SourceLoc Loc = {});
  /// Adds an Apply whose output types were already inferred. The optimizer
  /// also gives the rewrites that made it and the statements it stands for
  /// (Loc first; see Apply::rewrites() and Apply::sourceLocs()).
  Apply *addApply(OpRef TheOp, std::vector<Variable *> Inputs,
                  const std::vector<TensorType> &OutTypes, SourceLoc Loc,
                  std::vector<std::string> Rewrites = {},
                  std::vector<SourceLoc> Locs = {});
  void setName(Variable *V, std::string N) { V->Name = std::move(N); }
  /// Gives a weak literal its final dtype (the value is converted).
  void retypeLiteral(Variable *V, DType T);
  /// Name: what the function's signature calls the output (`q` in
  /// `-> (q)`, even where `q = w` makes it w's value); empty for none.
  void addOutput(Variable *V, std::string Name = "") {
    Outputs.push_back(V);
    OutputNames.push_back(std::move(Name));
  }
  void addUpdate(SharedVariable *S, Variable *V, SourceLoc Loc) {
    Updates.push_back({S, V, std::move(Loc)});
  }

private:
  GraphModule *Module;
  std::string Name;
  SourceLoc Loc;
  std::vector<std::unique_ptr<Variable>> Vars;
  std::vector<std::unique_ptr<Apply>> Nodes;
  std::vector<Variable *> Inputs;
  std::vector<Variable *> Outputs;
  std::vector<std::string> OutputNames;
  std::vector<Update> Updates;
  llvm::DenseMap<const SharedVariable *, Variable *> SharedReads;
  Variable *newVariable(Variable::Kind K, TensorType T);
};

class GraphModule {
public:
  explicit GraphModule(std::string FileName = "<api>")
      : File(std::make_shared<const std::string>(std::move(FileName))) {}

  const std::string &fileName() const { return *File; }
  const std::shared_ptr<const std::string> &fileNameRef() const { return File; }

  llvm::ArrayRef<std::unique_ptr<SharedVariable>> sharedVariables() const {
    return Shared;
  }
  llvm::ArrayRef<std::unique_ptr<FunctionGraph>> functions() const {
    return Functions;
  }
  SharedVariable *lookupShared(llvm::StringRef Name) const;
  FunctionGraph *lookupFunction(llvm::StringRef Name) const;

  SharedVariable *addShared(std::string Name, TensorType T, SharedInit Init,
                            SourceLoc Loc = {});
  FunctionGraph *addFunction(std::string Name);

  /// Gives every shared variable its initial value (npy paths are relative
  /// to the graph file's folder). Errors name the variable.
  llvm::Error initShared();

private:
  std::shared_ptr<const std::string> File;
  std::vector<std::unique_ptr<SharedVariable>> Shared;
  std::vector<std::unique_ptr<FunctionGraph>> Functions;
};

} // namespace graphjit

#endif
