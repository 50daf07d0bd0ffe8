//===- graphjit/Parser.h - Reading .graph files ----------------*- C++ -*-===//
//
// Parses and type-checks the graph text format (docs/graph-format.md) into a
// GraphModule, through the same FunctionBuilder as the C++ API. Every
// problem found is reported, each as `FILE:LINE:COL: error: WHAT` with the
// offending line and a caret (llvm::SourceMgr's layout); nothing is built
// when there is any.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PARSER_H
#define GRAPHJIT_PARSER_H

#include "graphjit/Graph.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace graphjit {

/// The diagnostics of a file that did not parse or type-check, already
/// formatted (one or more `FILE:LINE:COL: error: ...` blocks).
class ParseError : public llvm::ErrorInfo<ParseError> {
public:
  static char ID;
  ParseError(std::string Formatted, unsigned Count)
      : Formatted(std::move(Formatted)), Count(Count) {}
  void log(llvm::raw_ostream &OS) const override { OS << Formatted; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  unsigned count() const { return Count; }

private:
  std::string Formatted;
  unsigned Count;
};

/// Parses Text; FileName is used in diagnostics and to resolve npy(...)
/// paths. Shared variables are not given values here
/// (GraphModule::initShared does that).
llvm::Expected<std::unique_ptr<GraphModule>>
parseGraph(llvm::StringRef Text, llvm::StringRef FileName);

/// Reads and parses a file ("cannot open 'x.graph': No such file..." if it
/// cannot be read).
llvm::Expected<std::unique_ptr<GraphModule>>
parseGraphFile(llvm::StringRef Path);

} // namespace graphjit

#endif
