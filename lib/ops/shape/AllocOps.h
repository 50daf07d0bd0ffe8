//===- AllocOps.h - alloc, zeros_like and ones_like op classes --*- C++ -*-===//
//
// The op classes of AllocOps.cpp: AllocOp (alloc) and FillLikeOp (zeros_like,
// ones_like). Both are class "Alloc" in profiles, as in Theano, so only their
// kinds tell them apart. They are declared here so that the rewrites,
// lowerings and the GPU path dispatch on them with isa<> and dyn_cast<>,
// not by className().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ALLOCOPS_H
#define GRAPHJIT_OPS_ALLOCOPS_H

#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/Op.h"
#include <string>
#include <vector>

namespace graphjit {

/// alloc(v, shape=[...]): v broadcast to the shape, in v's dtype.
class AllocOp final : public Op {
public:
  AllocOp(AttrMap Attrs, std::vector<ShapeEntry> Target)
      : Op("alloc", std::move(Attrs), OpKind::Alloc),
        Target(std::move(Target)) {}

  /// The shape is a parameter here (an input in Theano's Alloc), so the
  /// name spells it: ops with equal names are merged as equal.
  std::string name() const override {
    return "Alloc{shape=[" + shapeEntriesStr(Target) + "]}";
  }
  llvm::StringRef className() const override { return "Alloc"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::Alloc; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  /// Checks that v broadcasts to the shape and creates the output.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  /// The shape of this call's output, if v broadcasts to it.
  llvm::Expected<Shape> outputShape(const NDArray &V,
                                    const ExecContext &Ctx) const;

private:
  std::vector<ShapeEntry> Target;
};

/// zeros_like(x) and ones_like(x): x's dtype and shape, filled.
class FillLikeOp final : public Op {
public:
  FillLikeOp(std::string FormatName, AttrMap Attrs, double Value)
      : Op(std::move(FormatName), std::move(Attrs), OpKind::FillLike),
        Value(Value) {}

  std::string name() const override {
    return Value == 0 ? "ZerosLike" : "OnesLike";
  }
  llvm::StringRef className() const override { return "Alloc"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::FillLike; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override {
    return std::vector<TensorType>{In[0]};
  }

  /// New arrays are zero-filled: zeros_like has nothing left to compute.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override {
    return createOutput(Out[0], In[0].dtype(), In[0].shape());
  }

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  AllocFill fill() const {
    return Value == 0 ? AllocFill::Zeros : AllocFill::Ones;
  }
  /// Only the output is written; the input's values are not read.
  double bytesMoved(llvm::ArrayRef<NDArray>,
                    llvm::ArrayRef<NDArray> Out) const override {
    return Out.empty() ? 0 : double(Out[0].numBytes());
  }

private:
  double Value;
};

} // namespace graphjit

#endif
