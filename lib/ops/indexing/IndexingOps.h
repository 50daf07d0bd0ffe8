//===- IndexingOps.h - subtensor and concatenate op classes -----*- C++ -*-===//
//
// The op classes of IndexingOps.cpp: SubtensorOp (subtensor) and JoinOp
// (concatenate). They are declared here so that the rewrites, lowerings and
// the GPU path dispatch on them with isa<> and dyn_cast<> (their OpKind),
// not by className().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_INDEXINGOPS_H
#define GRAPHJIT_OPS_INDEXINGOPS_H

#include "ops/StructuralUtil.h"
#include "ops/shape/ViewOp.h"
#include "graphjit/Op.h"
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

/// A Python slice `x[start:stop:step]` of one axis, as a view.
class SubtensorOp final : public ViewOp {
public:
  SubtensorOp(AttrMap Attrs, int64_t Axis, std::optional<int64_t> Start,
              std::optional<int64_t> Stop, std::optional<int64_t> Step)
      : ViewOp("subtensor", std::move(Attrs), OpKind::Subtensor), Axis(Axis),
        Start(Start), Stop(Stop), Step(Step) {}

  std::string name() const override;
  llvm::StringRef className() const override { return "Subtensor"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::Subtensor; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  int64_t axis() const { return Axis; }
  std::optional<int64_t> start() const { return Start; }
  std::optional<int64_t> stop() const { return Stop; }
  std::optional<int64_t> step() const { return Step; }

private:
  int64_t Axis;
  std::optional<int64_t> Start, Stop, Step;
};

/// NumPy's concatenate along one axis, into a new array of the promoted
/// dtype.
class JoinOp final : public Op {
public:
  JoinOp(AttrMap Attrs, int64_t Axis)
      : Op("concatenate", std::move(Attrs), OpKind::Join), Axis(Axis) {}

  std::string name() const override {
    return "Join{axis=" + std::to_string(Axis) + "}";
  }
  llvm::StringRef className() const override { return "Join"; }
  static bool classof(const Op *O) { return O->kind() == OpKind::Join; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;

  /// Checks ranks and dims and creates the output of the promoted dtype.
  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override;

  /// The joined axis for inputs of rank Rank; nullopt if out of range.
  std::optional<unsigned> normalizedAxis(unsigned Rank) const {
    return validAxis(Axis, Rank);
  }

private:
  int64_t Axis;

  template <typename RankOf>
  static llvm::Error checkRanks(unsigned Rank, size_t N, RankOf &&RankAt);

  static llvm::Error dimMismatch(unsigned D, size_t I, int64_t SizeI,
                                 size_t J, int64_t SizeJ);

  /// The concatenated dim: the sum when every size is known.
  static Dim joinedDim(llvm::ArrayRef<TensorType> In, unsigned D);
};

} // namespace graphjit

#endif
