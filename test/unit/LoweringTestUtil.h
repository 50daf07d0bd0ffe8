//===- LoweringTestUtil.h - Helpers of the JIT lowering tests ---*- C++ -*-===//
//
// Shared by the Elemwise and structural lowering tests: compiling a function
// built with the C++ API under a given linker, and comparing two arrays bit
// for bit (the JIT must agree with perform exactly).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_LOWERINGTESTUTIL_H
#define GRAPHJIT_TEST_LOWERINGTESTUTIL_H

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "gtest/gtest.h"
#include <cstring>
#include <functional>

namespace graphjit::testutil {

inline ::testing::AssertionResult sameBits(const NDArray &A,
                                           const NDArray &B) {
  if (A.dtype() != B.dtype() || A.shape() != B.shape())
    return ::testing::AssertionFailure()
           << dtypeName(A.dtype()).str() << " " << shapeStr(A.shape())
           << " vs " << dtypeName(B.dtype()).str() << " "
           << shapeStr(B.shape());
  for (int64_t I = 0; I < A.numElements(); ++I)
    if (std::memcmp(A.data() + A.byteOffsetOf(I), B.data() + B.byteOffsetOf(I),
                    A.elementSize()) != 0)
      return ::testing::AssertionFailure()
             << "element " << I << ": " << A.str() << " vs " << B.str();
  return ::testing::AssertionSuccess();
}

using BuildFn = std::function<void(FunctionBuilder &, std::vector<Variable *>)>;

/// A function and the module it lives in (which outlives it).
struct Compiled {
  std::unique_ptr<GraphModule> M = std::make_unique<GraphModule>();
  std::unique_ptr<Function> Fn;
};

/// A function `f` of inputs x0, x1, ... of these types, built by Build and
/// compiled as built (optimizer=None) with Linker; a test failure (and a
/// null Fn) if it does not compile.
inline Compiled compile(const std::vector<TensorType> &Types,
                        const BuildFn &Build, LinkerKind Linker,
                        EmitOptions Emit = {}) {
  Compiled C;
  FunctionBuilder B(*C.M, "f");
  std::vector<Variable *> Ins;
  for (size_t I = 0; I < Types.size(); ++I)
    Ins.push_back(B.input("x" + std::to_string(I), Types[I]));
  Build(B, Ins);
  FunctionGraph *F = llvm::cantFail(B.finish());
  CompileOptions Opts;
  Opts.Linker = Linker;
  Opts.Emit = std::move(Emit);
  // The Applies as built: these tests check each op's own lowering, which
  // fusion or gemm would replace.
  Opts.Rewrite = RewriteOptions{"None", {}, {}};
  auto Fn = Function::compile(*F, Opts);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return C;
  }
  C.Fn = std::move(*Fn);
  return C;
}

} // namespace graphjit::testutil

#endif
