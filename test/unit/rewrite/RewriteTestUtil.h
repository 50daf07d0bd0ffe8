//===- RewriteTestUtil.h - Helpers of the optimizer's tests ----*- C++ -*-===//
//
// Parsing a graph, rewriting its first function, and reading the result
// and the report, for RewriteTest.cpp and RewritePipelineTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_REWRITETESTUTIL_H
#define GRAPHJIT_TEST_REWRITETESTUTIL_H

#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "graphjit/Rewrite.h"
#include "gtest/gtest.h"

namespace graphjit::test {


inline std::unique_ptr<GraphModule> parse(const std::string &Text) {
  auto M = parseGraph(Text, "rw.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

struct Rewritten {
  std::unique_ptr<GraphModule> M;
  std::unique_ptr<FunctionGraph> G;
  RewriteReport R;
  std::string Text; ///< The rewritten function as .graph text.
};

/// Parses Text and rewrites its first function.
inline Rewritten rewriteText(const std::string &Text, RewriteOptions O = {}) {
  Rewritten W;
  W.M = parse(Text);
  if (!W.M)
    return W;
  auto G = rewriteFunction(*W.M->functions().front(), O, &W.R);
  if (!G) {
    ADD_FAILURE() << llvm::toString(G.takeError());
    return W;
  }
  W.G = std::move(*G);
  llvm::raw_string_ostream OS(W.Text);
  printFunction(*W.G, OS);
  return W;
}

/// fast_run without fusion and in-place: the tests of the earlier phases
/// read their Applies as written.
inline RewriteOptions withoutFusion() {
  RewriteOptions O;
  O.Excluding = {"fusion", "inplace"};
  return O;
}

inline unsigned countOps(const FunctionGraph &F, llvm::StringRef Name) {
  unsigned N = 0;
  for (const Apply *A : F.applies())
    N += A->op().name() == Name;
  return N;
}

inline const RewriteStat *stat(const RewriteReport &R, llvm::StringRef Name) {
  for (const RewriteStat &S : R.Rewrites)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

inline unsigned applied(const RewriteReport &R, llvm::StringRef Name) {
  const RewriteStat *S = stat(R, Name);
  return S ? S->Applied : 0;
}

inline std::string names(llvm::ArrayRef<std::string> V) {
  std::string S;
  for (const std::string &X : V)
    S += (S.empty() ? "" : ",") + X;
  return S;
}


} // namespace graphjit::test

#endif
