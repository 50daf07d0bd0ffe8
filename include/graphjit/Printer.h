//===- graphjit/Printer.h - Writing graphs back out ------------*- C++ -*-===//
//
// printModule writes the .graph text of a module; parsing it back gives the
// same graph (the round trip the tests check with canonicalDump). debugPrint
// draws a function's graph as a tree in the style of Theano's debugprint.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PRINTER_H
#define GRAPHJIT_PRINTER_H

#include "graphjit/Graph.h"
#include "llvm/Support/raw_ostream.h"

namespace graphjit {

/// The .graph text of every shared variable and function of M.
void printModule(const GraphModule &M, llvm::raw_ostream &OS);
/// The .graph text of one function.
void printFunction(const FunctionGraph &F, llvm::raw_ostream &OS);
/// A structural description of M that is equal for equal graphs whatever the
/// names of unnamed nodes and the order of statements: used to check that
/// parse -> print -> parse round-trips.
std::string canonicalDump(const GraphModule &M);
/// Theano-style tree of F's outputs and updates, one line per node with its
/// Apply id, type and source line.
void debugPrint(const FunctionGraph &F, llvm::raw_ostream &OS);

} // namespace graphjit

#endif
