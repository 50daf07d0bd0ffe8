//===- AST.h - The syntax tree of a .graph file -----------------*- C++ -*-===//
//
// What the syntax parser reads, before names are resolved: statements of a
// function are declarations that may refer to each other in any order, so
// the whole function is read first and the graph built afterwards
// (GraphBuilder). Every node keeps its location for diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FORMAT_AST_H
#define GRAPHJIT_FORMAT_AST_H

#include "graphjit/Attr.h"
#include "graphjit/Graph.h"
#include "graphjit/Type.h"
#include "llvm/Support/SMLoc.h"
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace graphjit {
namespace format {

/// The deepest nesting of calls and lists the parser accepts. It bounds the
/// recursion of everything that walks expressions; the printer nests no
/// deeper either, so what it prints parses back.
constexpr unsigned MaxNesting = 256;

struct NameRef {
  std::string Name;
  llvm::SMLoc Loc;
};

struct NumberLit {
  bool IsFloat = false;
  int64_t I = 0;
  double F = 0;
  std::string Spelling;
};

struct AttrArg {
  std::string Key;
  llvm::SMLoc KeyLoc;
  AttrValue Value;
};

struct Expr {
  enum Kind { NameRef, Number, Call } K = NameRef;
  llvm::SMLoc Loc;  ///< The name, the literal, or the op name of a call.
  std::string Name; ///< Name: the variable. Call: the op.
  NumberLit Num;
  std::vector<std::unique_ptr<Expr>> Args;
  std::vector<AttrArg> Attrs;
};

struct Stmt {
  bool IsUpdate = false;
  /// The names defined (`A, B = ...`), or for an update its one target.
  std::vector<NameRef> Names;
  llvm::SMLoc EqualLoc;
  std::unique_ptr<Expr> Value;
};

struct InputDecl {
  NameRef Name;
  TensorType Type;
  bool TypeOK = true; ///< False after a type error (already reported).
};

struct FuncDecl {
  NameRef Name;
  std::vector<InputDecl> Inputs;
  std::vector<NameRef> Outputs;
  std::vector<Stmt> Body;
  llvm::SMLoc CloseLoc; ///< The closing brace (or where it was missing).
  /// Names defined by statements that did not parse: uses of them are not
  /// reported again.
  std::set<std::string, std::less<>> Poisoned;
  /// Whether a statement had a syntax error (the function is incomplete).
  bool HadErrors = false;
};

struct SharedDecl {
  NameRef Name;
  TensorType Type;
  SharedInit Init;
};

struct ModuleAST {
  std::vector<FuncDecl> Functions;
  std::vector<SharedDecl> Shared;
  /// Shared variables whose declaration did not parse.
  std::set<std::string, std::less<>> PoisonedShared;
  /// Whether any `func` was written, even one that did not parse.
  bool SawFunc = false;
};

} // namespace format
} // namespace graphjit

#endif
