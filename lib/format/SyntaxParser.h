//===- SyntaxParser.h - Tokens to syntax tree -------------------*- C++ -*-===//
//
// Reads the tokens of a .graph file into a ModuleAST, reporting syntax
// errors (and the checks that need no other declaration: dtype names,
// number ranges, shared dims and initialisers) and recovering at the next
// statement or top-level item so that one run reports every problem.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FORMAT_SYNTAXPARSER_H
#define GRAPHJIT_FORMAT_SYNTAXPARSER_H

#include "AST.h"
#include "Diagnostics.h"
#include "Lexer.h"

namespace graphjit {
namespace format {

ModuleAST parseSyntax(const std::vector<Token> &Tokens, Diagnostics &Diags);

} // namespace format
} // namespace graphjit

#endif
