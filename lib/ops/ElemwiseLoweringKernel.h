//===- ElemwiseLoweringKernel.h - One Elemwise element in IR ---*- C++ -*-===//
//
// What the JIT's Elemwise loops compute per element, independent of how
// they walk memory: each input, loaded in its own dtype, is converted to
// the dtype the scalar operation computes in (as perform's astype), and
// the scalar kernels of lib/ops/ScalarKernels.h (inlined bitcode) map the
// converted values to the output value. n-ary add and mul fold left, as
// perform does; cast only converts; second passes its second input on;
// switch tests its condition as bool.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISELOWERINGKERNEL_H
#define GRAPHJIT_OPS_ELEMWISELOWERINGKERNEL_H

#include "ScalarOps.h"
#include "lower/ThunkEmitter.h"

namespace graphjit {

class ElementKernel {
public:
  /// The kernel of Elemwise Apply N, or an error if its input dtypes have
  /// no signature (inferTypes would have refused them).
  static llvm::Expected<ElementKernel> get(const Apply &N);

  unsigned numInputs() const { return InTypes.size(); }
  ScalarOpKind kind() const { return Kind; }
  /// Input K's dtype in memory.
  DType inputType(unsigned K) const { return InTypes[K]; }
  DType outputType() const { return Sig.Out; }
  /// Whether the element's value depends on input K's values (second's
  /// first input only lends its shape).
  bool reads(unsigned K) const {
    return !(Kind == ScalarOpKind::Second && K == 0);
  }

  /// Input K's register value, in its own dtype, in the dtype the scalar
  /// operation takes it in. Loop-invariant inputs are converted once.
  llvm::Value *convertInput(ThunkEmitter &E, unsigned K,
                            llvm::Value *V) const;
  /// The output element from the converted inputs (null where not read).
  llvm::Value *compute(ThunkEmitter &E,
                       llvm::ArrayRef<llvm::Value *> Converted) const;

private:
  ElementKernel(ScalarOpKind Kind, llvm::SmallVector<DType, 4> InTypes,
                ScalarSignature Sig)
      : Kind(Kind), InTypes(std::move(InTypes)), Sig(std::move(Sig)) {}

  ScalarOpKind Kind;
  llvm::SmallVector<DType, 4> InTypes;
  ScalarSignature Sig;
};

} // namespace graphjit

#endif
