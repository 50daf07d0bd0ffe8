//===- ElemwiseOps.h - The Elemwise op: a scalar operation, broadcast -*- C++ -*-//
//
// Elemwise applies one ScalarOpKind element by element to inputs broadcast
// together by NumPy's rules (Theano's Elemwise). Every elemwise op of the
// graph format (add, exp, switch, cast, ...) is an Elemwise; the JIT finds
// them with isa<Elemwise> and reads scalarOp() and castTo().
//
// An Elemwise may instead apply a Composite, a small program of scalar
// operations (CompositeScalar.h: what elemwise fusion makes), and may write
// its output over one of its inputs (Theano's in-place Elemwise, whose
// destroy_map is outputAlias()).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISEOPS_H
#define GRAPHJIT_OPS_ELEMWISEOPS_H

#include "ops/composite/CompositeScalar.h"
#include "ops/elemwise/ScalarOps.h"
#include "graphjit/Op.h"
#include <memory>

namespace graphjit {

class Elemwise final : public Op {
public:
  /// CastTo is the target dtype of ScalarOpKind::Cast, unused otherwise.
  /// InplaceInput: the input the output overwrites, or -1 (see
  /// withInplace); an `inplace` attribute is added to Attrs for it.
  Elemwise(ScalarOpKind Kind, AttrMap Attrs, DType CastTo = DType::F64,
           int InplaceInput = -1);
  /// A fused Elemwise applying C, which makeCompositeElemwise() has
  /// checked; prefer that function.
  Elemwise(std::shared_ptr<const CompositeScalar> C, int InplaceInput = -1);

  /// The scalar operation; for a composite, its last step's (check
  /// composite() first).
  ScalarOpKind scalarOp() const { return Kind; }
  DType castTo() const { return CastTo; }
  /// The program of a fused Elemwise; null for a single scalar op.
  const CompositeScalar *composite() const { return Comp.get(); }
  /// The input whose buffer the output reuses when it can; -1: the output
  /// is created.
  int inplaceInput() const { return Inplace; }
  /// This computation writing its output into input I's buffer (I must have
  /// the output's dtype, which inferTypes checks). At run time the output
  /// falls back to a new buffer when input I does not have exactly the
  /// output's shape or is not C-contiguous.
  OpRef withInplace(int I) const;

  /// "Elemwise{add,no_inplace}", "Elemwise{Cast{float32}}",
  /// "Elemwise{Composite{(i0 + i1) * i2}}"; in place on input 1:
  /// "Elemwise{add}[(0, 1)]", "Elemwise{Composite{...}}[(0, 1)]".
  std::string name() const override;
  llvm::StringRef className() const override { return "Elemwise"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::Elemwise; }
  unsigned numConditionInputs() const override {
    return !Comp && Kind == ScalarOpKind::Switch ? 1 : 0;
  }
  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> Inputs) const override;
  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  /// Broadcasts the input shapes, makes the C-contiguous output (the JIT's
  /// loops rely on that), or takes the in-place input as the output when
  /// it can, and refuses what perform() refuses before it computes
  /// (integer powers with a negative exponent).
  llvm::Error prepare(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &Ctx) const override;
  OutputAlias outputAlias(unsigned Output) const override {
    (void)Output;
    return Inplace >= 0 ? OutputAlias::inplaceOn(Inplace)
                        : OutputAlias::created();
  }
  double flops(llvm::ArrayRef<Shape> Inputs,
               llvm::ArrayRef<Shape> Outputs) const override;

private:
  ScalarOpKind Kind;
  DType CastTo;
  int Inplace = -1;
  std::shared_ptr<const CompositeScalar> Comp;
  /// Comp->str(), spelled once: the name is asked for often (equality).
  std::string Spelling;

  /// A composite's step signatures for inputs of the dtypes In.
  struct StepSignatures {
    llvm::SmallVector<DType, 8> In;
    std::vector<ScalarSignature> Steps;
  };
  /// The last ones computed (read and written with std::atomic_load and
  /// atomic_store): every call of an Apply asks for the same dtypes, and
  /// computing them walks every step of the program.
  mutable std::shared_ptr<const StepSignatures> LastSteps;

  /// The signatures for inputs of these dtypes: a composite's steps in
  /// Steps, a single op's in Single; errors as inferTypes'.
  llvm::Error signaturesOf(llvm::ArrayRef<DType> DTypes,
                           ScalarSignature *Single,
                           std::shared_ptr<const StepSignatures> *Steps) const;
};

/// The fused Elemwise of C; an error in words if C is malformed
/// (checkComposite). Dtype problems of its steps (an integer pow) show when
/// types are inferred.
llvm::Expected<OpRef> makeCompositeElemwise(CompositeScalar C,
                                            int InplaceInput = -1);

/// The one-step CompositeScalar of a plain (non-composite) Elemwise with
/// NumInputs inputs (Args 0..NumInputs-1), or the Composite itself.
CompositeScalar compositeOf(const Elemwise &E, unsigned NumInputs);

/// The static broadcast of the inputs' dims (NumPy's rules on Dims): a
/// known 1 gives way to anything, equal dims stay, a symbol meeting a known
/// size other than 1 becomes that size (checked when the function runs),
/// two different symbols or an unknown give an unknown dim. Known sizes
/// that differ, neither 1, are an error naming both operands.
llvm::Expected<std::vector<Dim>>
broadcastDims(llvm::ArrayRef<TensorType> Inputs);

} // namespace graphjit

#endif
