//===- CumulativeOps.h - cumsum and cumprod along an axis -------*- C++ -*-===//
//
// Declares CumOp (OpKind::Cumulative) so that other layers (the lowerings,
// the rewrites) dispatch on it with isa<>/dyn_cast<> rather than by class
// name. CumulativeOps.cpp says what it computes.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_CUMULATIVEOPS_H
#define GRAPHJIT_OPS_CUMULATIVEOPS_H

#include "ops/ComputedOp.h"
#include <optional>

namespace graphjit {

/// cumsum and cumprod (Theano's CumOp): the running sum or product along
/// Axis, or over the flattened array when there is none.
class CumOp final : public ComputedOp {
public:
  CumOp(llvm::StringRef FormatName, AttrMap Attrs, bool Product,
        std::optional<int64_t> Axis)
      : ComputedOp(FormatName.str(), std::move(Attrs), OpKind::Cumulative),
        Product(Product), Axis(Axis) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Cumulative; }

  std::string name() const override {
    return std::string("CumOp{") + (Axis ? std::to_string(*Axis) : "None") +
           ", " + (Product ? "mul" : "add") + "}";
  }
  llvm::StringRef className() const override { return "CumOp"; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape> Out) const override;

  bool isProduct() const { return Product; }
  std::optional<int64_t> axis() const { return Axis; }

private:
  bool Product;
  std::optional<int64_t> Axis;
};

} // namespace graphjit

#endif
