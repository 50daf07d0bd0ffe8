//===- graphjit/Builder.h - Building graphs from C++ -----------*- C++ -*-===//
//
// The C++ API that builds the same graphs as the text format: the parser is
// written on top of it. apply() looks the op up by its graph-format name,
// gives number literals the dtype of the other operands (as Python scalars
// do in NumPy), infers and checks the output types, and records where the
// node came from.
//
//   GraphModule M;
//   FunctionBuilder B(M, "example");
//   Variable *X = B.input("x", TensorType(DType::F64, {Dim::symbolic("n")}));
//   Variable *Y = B.input("y", TensorType(DType::F64, {Dim::symbolic("n")}));
//   Variable *S = cantFail(B.apply("add", {X, Y}));
//   Variable *R = cantFail(B.apply("mul", {S, B.literal(2.0)}));
//   B.output(R);
//   FunctionGraph *F = cantFail(B.finish());
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_BUILDER_H
#define GRAPHJIT_BUILDER_H

#include "graphjit/Graph.h"

namespace graphjit {

/// Whether a value of type From can update a shared variable of type To:
/// same dtype and rank, and no dim known in both that differs.
bool storableIn(const TensorType &From, const TensorType &To);

class FunctionBuilder {
public:
  FunctionBuilder(GraphModule &M, std::string Name, SourceLoc Loc = {});

  FunctionGraph &graph() { return *F; }

  Variable *input(std::string Name, TensorType T, SourceLoc Loc = {});
  /// A number literal; its dtype is settled by the Apply that uses it.
  /// Spelling is how it prints ("2.0"); empty: printed from the value.
  Variable *literal(double V, std::string Spelling = {}, SourceLoc Loc = {});
  Variable *literal(int64_t V, std::string Spelling = {}, SourceLoc Loc = {});
  /// A constant of a fixed dtype and shape.
  Variable *constant(NDArray Value, SourceLoc Loc = {});
  /// Reads shared variable Name of the module (once per function).
  llvm::Expected<Variable *> shared(llvm::StringRef Name, SourceLoc Loc = {});

  /// Applies a single-output op.
  llvm::Expected<Variable *> apply(llvm::StringRef OpName,
                                   llvm::ArrayRef<Variable *> Inputs,
                                   const AttrMap &Attrs = {},
                                   SourceLoc Loc = {});
  /// Applies an op and returns all its outputs.
  llvm::Expected<std::vector<Variable *>>
  applyMulti(llvm::StringRef OpName, llvm::ArrayRef<Variable *> Inputs,
             const AttrMap &Attrs = {}, SourceLoc Loc = {});
  /// Applies an op made elsewhere (a scan's, made by makeScanOp), typed
  /// as the registry's are; returns all its outputs.
  llvm::Expected<std::vector<Variable *>>
  applyOp(OpRef TheOp, llvm::ArrayRef<Variable *> Inputs, SourceLoc Loc = {});

  void name(Variable *V, std::string Name) { F->setName(V, std::move(Name)); }
  /// Name: the output's name where it is not V's (FunctionGraph::addOutput).
  void output(Variable *V, std::string Name = "") {
    F->addOutput(V, std::move(Name));
  }
  /// `update NAME = V`: checks that NAME is shared and V has its type.
  llvm::Error update(llvm::StringRef SharedName, Variable *V,
                     SourceLoc Loc = {});

  /// Checks the function as a whole (at least one output) and returns it.
  llvm::Expected<FunctionGraph *> finish();

private:
  GraphModule &M;
  FunctionGraph *F;
  /// Gives Inputs' unsettled literals their dtype. The first NumConditions
  /// inputs (switch's condition) neither give nor take the values' dtype.
  llvm::Error settleLiterals(llvm::ArrayRef<Variable *> Inputs,
                             unsigned NumConditions);
};

/// The dtype a weak number literal takes among operands of dtype Others:
/// theirs, except that a float literal among integers or bools is f64 and an
/// integer literal among bools is i64. With no other operand: f64 for a
/// float literal, i64 for an integer one.
DType literalDType(bool LiteralIsFloat, llvm::ArrayRef<DType> Others);

} // namespace graphjit

#endif
