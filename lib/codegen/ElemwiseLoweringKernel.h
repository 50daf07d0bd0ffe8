//===- ElemwiseLoweringKernel.h - One Elemwise element in IR ---*- C++ -*-===//
//
// What the JIT's Elemwise loops compute per element, independent of how they
// walk memory: each input, loaded in its own dtype, is converted to the dtype
// the scalar operation computes in (as perform's astype), and the scalar
// kernels of lib/ops/elemwise/ScalarKernels.h (inlined bitcode) map the
// converted values to the output value. n-ary add and mul fold left, as perform
// does; cast only converts; second passes its second input on; switch tests its
// condition as bool. A fused Elemwise (Composite) takes its inputs in their own
// dtypes and runs its steps in order, each converting its operands to its own
// signature's dtypes first, as the chain of Elemwise Applies it replaced would.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISELOWERINGKERNEL_H
#define GRAPHJIT_OPS_ELEMWISELOWERINGKERNEL_H

#include "ops/composite/CompositeScalar.h"
#include "ops/elemwise/ScalarOps.h"
#include "codegen/ThunkEmitter.h"

namespace graphjit {

class ElementKernel {
public:
  /// The kernel of Elemwise Apply N, or an error if its input dtypes have
  /// no signature (inferTypes would have refused them).
  static llvm::Expected<ElementKernel> get(const Apply &N);
  /// The kernel of ElemwiseOp (class Elemwise, Composites included) on
  /// inputs of InTypes: what a GPU kernel computes per element, where the
  /// Apply's op is a wrapper. An error if the op is not an Elemwise or the
  /// dtypes have no signature.
  static llvm::Expected<ElementKernel> get(const Op &ElemwiseOp,
                                           llvm::ArrayRef<DType> InTypes);

  unsigned numInputs() const { return InTypes.size(); }
  /// The scalar operation of a single-op Elemwise.
  ScalarOpKind kind() const { return Kind; }
  /// What the loop functions' names say the element computation is: the
  /// scalar op's name ("add"), or for a Composite its whole program
  /// ("composite{exp(i0) + i1}"), so that two computations never share a
  /// function.
  const std::string &computationName() const { return Name; }
  /// Input K's dtype in memory.
  DType inputType(unsigned K) const { return InTypes[K]; }
  DType outputType() const {
    return Steps.empty() ? Sig.Out : Steps.back().Out;
  }
  /// Whether the element's value depends on input K's values (second's
  /// first input only lends its shape).
  bool reads(unsigned K) const { return Reads[K]; }

  /// Whether an element calls a function that costs tens of cycles
  /// scalar (exp, log, erfc, pow, the special functions), where a loop
  /// gains most from vectorizing with libmvec.
  bool isCostly() const;

  /// Input K's register value, in its own dtype, in the dtype the scalar
  /// operation takes it in (a Composite's steps convert their operands
  /// themselves: the value as it is). Loop-invariant inputs are converted
  /// once.
  llvm::Value *convertInput(ThunkEmitter &E, unsigned K,
                            llvm::Value *V) const;
  /// The output element from the converted inputs (null where not read).
  llvm::Value *compute(ThunkEmitter &E,
                       llvm::ArrayRef<llvm::Value *> Converted) const;

private:
  ElementKernel() = default;

  ScalarOpKind Kind = ScalarOpKind::Add;
  std::string Name;
  llvm::SmallVector<DType, 4> InTypes;
  llvm::SmallVector<bool, 4> Reads;
  ScalarSignature Sig; ///< A single op's.
  /// A Composite's program and its steps' signatures (empty otherwise).
  CompositeScalar Program;
  std::vector<ScalarSignature> Steps;

  /// One scalar operation K with signature S on converted operands.
  static llvm::Value *computeOne(ThunkEmitter &E, ScalarOpKind K,
                                 const ScalarSignature &S,
                                 llvm::ArrayRef<llvm::Value *> Converted);
};

} // namespace graphjit

#endif
