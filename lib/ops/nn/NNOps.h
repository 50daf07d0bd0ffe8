//===- NNOps.h - softmax and log_softmax ------------------------*- C++ -*-===//
//
// Declares SoftmaxOp, Theano's Softmax and LogSoftmax (NNOps.cpp), so that
// the other layers dispatch on it with isa<>/dyn_cast<> instead of comparing
// class names.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_NNOPS_H
#define GRAPHJIT_OPS_NNOPS_H

#include "ops/StructuralUtil.h"
#include "graphjit/Op.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

/// softmax and log_softmax along one axis (Softmax and LogSoftmax).
class SoftmaxOp final : public Op {
public:
  SoftmaxOp(bool Log, AttrMap Attrs, int64_t Axis)
      : Op(Log ? "log_softmax" : "softmax", std::move(Attrs), OpKind::Softmax),
        Log(Log), Axis(Axis) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Softmax; }

  std::string name() const override {
    return std::string(Log ? "LogSoftmax" : "Softmax") + "{axis=" +
           std::to_string(Axis) + "}";
  }
  llvm::StringRef className() const override {
    return Log ? "LogSoftmax" : "Softmax";
  }
  double flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const override {
    return 5.0 * double(elementCount(In[0]));
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  /// Checks the axis and creates the output.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  /// The axis for an input of rank Rank; nullopt if out of range.
  std::optional<unsigned> normalizedAxis(unsigned Rank) const {
    return validAxis(Axis, Rank);
  }
  bool isLog() const { return Log; }

private:
  bool Log;
  int64_t Axis;
};

} // namespace graphjit

#endif
