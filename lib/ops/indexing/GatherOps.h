//===- GatherOps.h - take and inc_rows: rows picked by an index -*- C++ -*-===//
//
// Declares TakeOp (OpKind::Take) and IncRowsOp (OpKind::IncRows) so that
// other layers (the lowerings, the rewrites) dispatch on them with
// isa<>/dyn_cast<> rather than by class name. GatherOps.cpp says what they
// compute.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_GATHEROPS_H
#define GRAPHJIT_OPS_GATHEROPS_H

#include "ops/ComputedOp.h"

namespace graphjit {

/// take(x, idx): x[idx], the rows of x an integer vector picks (Theano's
/// AdvancedSubtensor1).
class TakeOp final : public ComputedOp {
public:
  explicit TakeOp(AttrMap Attrs)
      : ComputedOp("take", std::move(Attrs), OpKind::Take) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Take; }

  std::string name() const override { return "AdvancedSubtensor1"; }
  llvm::StringRef className() const override { return "AdvancedSubtensor1"; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

  double bytesMoved(llvm::ArrayRef<NDArray> In,
                    llvm::ArrayRef<NDArray> Out) const override {
    // The rows read, not all of x.
    return 2.0 * double(Out[0].numBytes()) + double(In[1].numBytes());
  }
};

/// inc_rows(x, idx, y): x with y added to the rows idx picks, once per
/// occurrence; with set, stored instead (Theano's AdvancedIncSubtensor1).
class IncRowsOp final : public ComputedOp {
public:
  IncRowsOp(AttrMap Attrs, bool Set)
      : ComputedOp("inc_rows", std::move(Attrs), OpKind::IncRows), Set(Set) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::IncRows; }

  std::string name() const override {
    return std::string("AdvancedIncSubtensor1{") + (Set ? "set" : "inc") +
           "}";
  }
  llvm::StringRef className() const override {
    return "AdvancedIncSubtensor1";
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const override;

  double flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const override;

  /// Stores y's rows rather than adding them.
  bool isSet() const { return Set; }

private:
  bool Set;

  /// The shape of x[idx]: what y broadcasts to.
  static Shape pickedShape(llvm::ArrayRef<NDArray> In);

  static llvm::Error checkBroadcast(llvm::ArrayRef<NDArray> In);
};

} // namespace graphjit

#endif
