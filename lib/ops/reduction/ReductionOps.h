//===- ReductionOps.h - sum, prod, max, min, all, any, mean -----*- C++ -*-===//
//
// Declares ReduceOp, Theano's CAReduce and Mean (ReductionOps.cpp), so that
// the other layers dispatch on it with isa<>/dyn_cast<> instead of comparing
// class names.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_REDUCTIONOPS_H
#define GRAPHJIT_OPS_REDUCTIONOPS_H

#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/Op.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

enum class ReduceKind { Sum, Prod, Max, Min, Mean, All, Any };

/// The names of one reduction kind.
struct ReduceKindInfo {
  ReduceKind K;
  const char *FormatName;  ///< "sum"
  const char *ProfileName; ///< "Sum"
  const char *UfuncName;   ///< NumPy's name in messages: "maximum"
};

/// sum, prod, max, min, all, any (CAReduce) and mean (Mean).
class ReduceOp final : public Op {
public:
  ReduceOp(const ReduceKindInfo &Info, AttrMap Attrs, AxisList Axes,
           bool KeepDims)
      : Op(Info.FormatName, std::move(Attrs), OpKind::Reduce), Info(Info),
        Axes(std::move(Axes)), KeepDims(KeepDims) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Reduce; }

  std::string name() const override {
    return std::string(Info.ProfileName) + "{" + axisNameStr(Axes) +
           (KeepDims ? ", keepdims=True}" : "}");
  }
  llvm::StringRef className() const override {
    return Info.K == ReduceKind::Mean ? "Mean" : "CAReduce";
  }
  double flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const override {
    return double(elementCount(In[0]));
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override {
    llvm::Expected<ReducePlan> P = plan(In[0], Out[0]);
    return P ? llvm::Error::success() : P.takeError();
  }

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  /// What the JIT lowering needs: the kind and the reduced dims of an input
  /// of rank Rank.
  std::optional<ReductionInfo> loweringInfo(unsigned Rank) const;

private:
  const ReduceKindInfo &Info;
  AxisList Axes;
  bool KeepDims;

  bool hasIdentity() const {
    return Info.K != ReduceKind::Max && Info.K != ReduceKind::Min;
  }
  llvm::Error noIdentity() const {
    return opError(std::string("zero-size array to reduction operation ") +
                   Info.UfuncName + " which has no identity");
  }

  /// Checks the axes and the shape and creates the output (prepare's work,
  /// shared with perform so that both report the same errors).
  llvm::Expected<ReducePlan> plan(const NDArray &X, NDArray &Out) const;
};

} // namespace graphjit

#endif
