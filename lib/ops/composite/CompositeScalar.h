//===- CompositeScalar.h - The scalar program of a fused Elemwise -*- C++ -*-//
//
// A Composite (Theano's scalar Composite) is a small DAG of scalar
// operations that one Elemwise applies per element: what elemwise fusion
// makes of a chain or tree of Elemwise Applies. Its meaning is exactly that
// of the chain it replaces: each step converts its operands to its own
// ScalarSignature (from the operands' dtypes, a step's result having the
// dtype its signature outputs), computes, and yields its output dtype.
//
// Here: the program's structure and checks, its Theano spelling
// ("((i0 + i1) + i2) * i3") and the parser of that spelling (the graph
// format's `composite(..., expr="...")`), and the dtypes of every step.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_COMPOSITESCALAR_H
#define GRAPHJIT_OPS_COMPOSITESCALAR_H

#include "ops/elemwise/ScalarOps.h"
#include <string>
#include <vector>

namespace graphjit {

/// One scalar operation of a fused Elemwise. Args name its operands: an
/// Arg below NumInputs is the Composite's input Arg; Arg >= NumInputs is the
/// result of step Arg - NumInputs (an earlier step).
struct CompositeStep {
  ScalarOpKind Kind;
  DType CastTo = DType::F64; // Cast's target, unused otherwise
  llvm::SmallVector<unsigned, 3> Args;
};

/// The scalar program of a fused Elemwise (Theano's Composite); the last
/// step's result is the output.
struct CompositeScalar {
  unsigned NumInputs = 0;
  std::vector<CompositeStep> Steps;
  /// Theano's spelling: "((i0 + i1) + i2) * i3", "exp(-i0)",
  /// "switch(i0, i1, i2)".
  std::string str() const;
  /// The spelling of operand Arg (an input "i2", or a step's expression).
  std::string operandStr(unsigned Arg) const;
};

/// Whether C is well formed: at least one step, every step with an arity
/// its operation takes, Args in range and naming earlier steps only, every
/// input used (unless EveryInputUsed is false) and every step but the last
/// used by a later one (so that str() shows the whole computation). An
/// error in words otherwise.
llvm::Error checkComposite(const CompositeScalar &C,
                           bool EveryInputUsed = true);

/// The signature of every step of (well-formed) C applied to inputs of
/// these dtypes. Fails, naming the step, where a step's operand dtypes
/// have no signature (neg of a bool) and where a pow step would compute in
/// an integer dtype: integer powers refuse negative exponents before
/// computing anything, which a fused step cannot do.
llvm::Expected<std::vector<ScalarSignature>>
compositeSignatures(const CompositeScalar &C, llvm::ArrayRef<DType> Inputs);

/// Whether C reads input K's values (second's first operand only lends its
/// shape).
bool compositeReadsInput(const CompositeScalar &C, unsigned K);

/// Parses the spelling str() writes (and ordinary precedence: comparisons,
/// then + -, then * / // %, then unary -, then ** binding right) into the
/// program of a Composite with NumInputs inputs i0, i1, ...; functions are
/// the graph format's scalar op names (`exp(i0)`, `switch(i0, i1, i2)`,
/// `add(i0, i1, i2)`) and `Cast{float32}(x)`. An unparenthesized chain
/// `a + b + c` is one n-ary add (mul alike); identical subexpressions
/// become one step. The result is checked (checkComposite; with
/// EveryInputUsed false, some inputs may go unread: one of several
/// programs over the same inputs, as a scalar loop's updates).
llvm::Expected<CompositeScalar> parseComposite(llvm::StringRef Expr,
                                               unsigned NumInputs,
                                               bool EveryInputUsed = true);

} // namespace graphjit

#endif
