//===- CheckOps.h - specify_shape and assert: checked views -----*- C++ -*-===//
//
// Declares CheckOp (OpKind::Check): ops whose output is their first input
// as it is, after a run-time check (PyTensor's SpecifyShape and
// CheckAndRaise/Assert). The JIT checks in IR and writes the view's slot
// (ShapeLowering.cpp); a failed check asks prepare() for the words.
// CheckOps.cpp says what each checks.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_CHECKOPS_H
#define GRAPHJIT_OPS_CHECKOPS_H

#include "ops/shape/ViewOp.h"
#include <string>
#include <vector>

namespace graphjit {

class CheckOp final : public ViewOp {
public:
  /// specify_shape: Shape[k] is the size dim k must have, or -1 for any.
  /// assert: every input after the first must be nonzero.
  CheckOp(llvm::StringRef FormatName, AttrMap Attrs, bool IsAssert,
          std::vector<int64_t> Shape)
      : ViewOp(FormatName.str(), std::move(Attrs), OpKind::Check),
        IsAssert(IsAssert), Sizes(std::move(Shape)) {}

  static bool classof(const Op *O) { return O->kind() == OpKind::Check; }

  std::string name() const override;
  llvm::StringRef className() const override {
    return IsAssert ? "CheckAndRaise" : "SpecifyShape";
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape>) const override {
    return 0;
  }

  bool isAssert() const { return IsAssert; }
  llvm::ArrayRef<int64_t> sizes() const { return Sizes; }

private:
  bool IsAssert;
  std::vector<int64_t> Sizes;
};

} // namespace graphjit

#endif
