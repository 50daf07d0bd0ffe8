//===- ArgReductionOps.h - argmax, argmin, max_and_argmax -------*- C++ -*-===//
//
// Declares ArgReduceOp (Theano's Argmax) and MaxAndArgmaxOp
// (ArgReductionOps.cpp), so that the other layers dispatch on them with
// isa<>/dyn_cast<> instead of comparing class names.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ARGREDUCTIONOPS_H
#define GRAPHJIT_OPS_ARGREDUCTIONOPS_H

#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/Op.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

/// argmax and argmin (Theano's Argmax class).
class ArgReduceOp final : public Op {
public:
  ArgReduceOp(bool IsMax, AttrMap Attrs, AxisList Axes, bool KeepDims)
      : Op(IsMax ? "argmax" : "argmin", std::move(Attrs), OpKind::ArgReduce),
        IsMax(IsMax), Axes(std::move(Axes)), KeepDims(KeepDims) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::ArgReduce; }

  std::string name() const override {
    return std::string(IsMax ? "Argmax{" : "Argmin{") + axisNameStr(Axes) +
           (KeepDims ? ", keepdims=True}" : "}");
  }
  llvm::StringRef className() const override { return "Argmax"; }
  double flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const override {
    return double(elementCount(In[0]));
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override {
    llvm::Expected<ReducePlan> P = plan(In[0], Out);
    return P ? llvm::Error::success() : P.takeError();
  }

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  std::optional<ReductionInfo> loweringInfo(unsigned Rank) const;

private:
  bool IsMax;
  AxisList Axes;
  bool KeepDims;

  llvm::Error emptyError() const {
    return opError(std::string("attempt to get ") +
                   (IsMax ? "argmax" : "argmin") + " of an empty sequence");
  }

  /// Checks the axes and the shape and creates the output (prepare's work,
  /// shared with perform so that both report the same errors).
  llvm::Expected<ReducePlan> plan(const NDArray &X,
                                  std::vector<NDArray> &Out) const;
};

/// Theano's MaxAndArgmax: (max(x, axis), argmax(x, axis)).
class MaxAndArgmaxOp final : public Op {
public:
  MaxAndArgmaxOp(AttrMap Attrs, AxisList Axes)
      : Op("max_and_argmax", std::move(Attrs), OpKind::MaxAndArgmax),
        Axes(std::move(Axes)) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::MaxAndArgmax; }

  std::string name() const override {
    return "MaxAndArgmax{" + axisNameStr(Axes) + "}";
  }
  llvm::StringRef className() const override { return "MaxAndArgmax"; }
  unsigned numOutputs() const override { return 2; }
  double flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const override {
    return double(elementCount(In[0]));
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override {
    llvm::Expected<ReducePlan> P = plan(In[0], Out);
    return P ? llvm::Error::success() : P.takeError();
  }

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  std::optional<ReductionInfo> loweringInfo(unsigned Rank) const;

private:
  AxisList Axes;

  /// Checks the axis and the shape and creates both outputs.
  llvm::Expected<ReducePlan> plan(const NDArray &X,
                                  std::vector<NDArray> &Out) const;

  static llvm::Error emptyError() {
    return opError("zero-size array to reduction operation maximum which has "
                   "no identity");
  }
};

} // namespace graphjit

#endif
