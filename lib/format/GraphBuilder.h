//===- GraphBuilder.h - Syntax tree to GraphModule --------------*- C++ -*-===//
//
// The semantic half of the parser: declares the shared variables, then
// builds each function through FunctionBuilder, resolving names (statements
// may refer to names defined further down), detecting cycles and undefined
// names, and reporting type errors from the ops at the right token.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FORMAT_GRAPHBUILDER_H
#define GRAPHJIT_FORMAT_GRAPHBUILDER_H

#include "AST.h"
#include "Diagnostics.h"
#include "graphjit/Graph.h"

namespace graphjit {
namespace format {

/// Adds the shared variables and functions of AST to M, reporting every
/// problem to Diags. M is only meaningful when Diags has no errors.
void buildModule(const ModuleAST &AST, const llvm::SourceMgr &SM,
                 Diagnostics &Diags, GraphModule &M);

} // namespace format
} // namespace graphjit

#endif
