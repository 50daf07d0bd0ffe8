//===- ShapeOps.h - dimshuffle, reshape and Shape_i op classes --*- C++ -*-===//
//
// The op classes of ShapeOps.cpp: DimShuffleOp (dimshuffle, transpose),
// ReshapeOp (reshape, flatten) and ShapeIOp (shape). They are declared here
// so that the rewrites, lowerings and the GPU path dispatch on them with
// isa<> and dyn_cast<> (their OpKind), not by className().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_SHAPEOPS_H
#define GRAPHJIT_OPS_SHAPEOPS_H

#include "ops/StructuralUtil.h"
#include "ops/shape/ViewOp.h"
#include "graphjit/Op.h"
#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

/// Theano's DimShuffle: output dim k is input dim Pattern[k], or a new
/// broadcastable dim where Pattern[k] is Broadcast ('x'). Input dims left out
/// must be broadcastable. transpose() is the reversed pattern, which is only
/// known once the input's rank is: that op learns it in inferTypes.
class DimShuffleOp final : public ViewOp {
public:
  static constexpr int Broadcast = -1;

  DimShuffleOp(std::string FormatName, AttrMap Attrs, std::vector<int> Pattern,
               bool IsTranspose)
      : ViewOp(std::move(FormatName), std::move(Attrs), OpKind::DimShuffle),
        Pattern(std::move(Pattern)), IsTranspose(IsTranspose) {}

  std::string name() const override;
  llvm::StringRef className() const override { return "DimShuffle"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::DimShuffle; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  /// The pattern for an input of rank Rank (transpose's depends on it).
  std::vector<int> patternFor(unsigned Rank) const {
    return IsTranspose ? reversed(int(Rank)) : Pattern;
  }

private:
  std::vector<int> Pattern;
  bool IsTranspose;
  /// transpose: the input rank seen by inferTypes; -1 before.
  mutable std::atomic<int> BoundRank{-1};

  static std::vector<int> reversed(int Rank);

  static llvm::Error checkPattern(llvm::ArrayRef<int> P, const TensorType &X);
};

/// NumPy's reshape (C order) to a shape given by a `shape=[...]` attribute,
/// or flatten (IsFlatten, no entries) to 1-D.
class ReshapeOp final : public ViewOp {
public:
  ReshapeOp(std::string FormatName, AttrMap Attrs,
            std::vector<ShapeEntry> Target, bool IsFlatten)
      : ViewOp(std::move(FormatName), std::move(Attrs), OpKind::Reshape),
        Target(std::move(Target)), IsFlatten(IsFlatten) {}

  /// Theano's Reshape{2} (the output rank) takes the shape as an input;
  /// here it is a parameter, so the name spells it too: ops with equal
  /// names are merged as equal.
  std::string name() const override;
  llvm::StringRef className() const override { return "Reshape"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::Reshape; }
  double bytesMoved(llvm::ArrayRef<NDArray> In,
                    llvm::ArrayRef<NDArray> Out) const override {
    return viewBytesMoved(In, Out);
  }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  llvm::ArrayRef<ShapeEntry> target() const { return Target; }
  bool isFlatten() const { return IsFlatten; }

private:
  std::vector<ShapeEntry> Target;
  bool IsFlatten;

  static llvm::Error setOutput(NDArray &Out, llvm::Expected<NDArray> V);

  static Dim flatDim(const TensorType &X);

  /// Checks the element counts where they are known and fills in the -1
  /// dim where it follows: the known sizes, plus symbols that appear on
  /// both sides and cancel.
  llvm::Error inferStatically(const TensorType &X,
                              std::vector<Dim> &Dims) const;
};

/// The size of one dim as an i64 scalar (Theano's Shape_i).
class ShapeIOp final : public Op {
public:
  ShapeIOp(AttrMap Attrs, int64_t Axis)
      : Op("shape", std::move(Attrs), OpKind::ShapeI), Axis(Axis) {}

  std::string name() const override {
    return "Shape_i{" + std::to_string(Axis) + "}";
  }
  llvm::StringRef className() const override { return "Shape_i"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::ShapeI; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  /// The dim read, for an input of rank Rank; nullopt if out of range.
  std::optional<unsigned> normalizedAxis(unsigned Rank) const {
    return validAxis(Axis, Rank);
  }
  double bytesMoved(llvm::ArrayRef<NDArray>,
                    llvm::ArrayRef<NDArray>) const override {
    return sizeof(int64_t);
  }

private:
  int64_t Axis;
};

} // namespace graphjit

#endif
