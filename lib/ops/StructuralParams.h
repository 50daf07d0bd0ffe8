//===- StructuralParams.h - The structural ops' parameters ------*- C++ -*-===//
//
// What an op of the shape, indexing, reduction and nn families computes, as
// plain data: the static parameters, with axes already normalized against the
// input's rank. The JIT lowerings (lib/codegen/*Lowering*.cpp) emit code from
// them, and so do the GPU kernels, the device placement, the GPU ops and the
// rewrites that look into a softmax: semantics, not codegen, which is why they
// live with the ops. Each function returns nullopt when the op is not of its
// class (dyn_cast on its OpKind) or its parameters do not fit the rank, in
// which case the lowering declines and perform reports it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRUCTURALPARAMS_H
#define GRAPHJIT_OPS_STRUCTURALPARAMS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace graphjit {

class Op;

/// A reduction: which input dims it reduces and what it computes there.
struct ReductionInfo {
  /// Sum to Any: CAReduce and Mean (ReductionOps.cpp); the rest: Argmax and
  /// MaxAndArgmax (ArgReductionOps.cpp).
  enum Kind {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
    All,
    Any,
    Argmax,
    Argmin,
    MaxAndArgmax
  };
  Kind K = Sum;
  std::vector<bool> Reduced; ///< One entry per input dim.
  bool KeepDims = false;
};

/// CAReduce (sum prod max min all any) and Mean.
std::optional<ReductionInfo> reductionInfo(const Op &O, unsigned Rank);
/// Argmax (argmax, argmin) and MaxAndArgmax.
std::optional<ReductionInfo> argReductionInfo(const Op &O, unsigned Rank);

/// What an op of class Alloc writes into its new array.
enum class AllocFill { Broadcast, Zeros, Ones };
std::optional<AllocFill> allocFill(const Op &O);

/// One entry of a shape an op is given: a size (-1: inferred) or, where
/// Symbol is set, a symbolic dim, whose size the call binds.
struct TargetDim {
  int64_t Size = 0;
  std::string Symbol;
};
/// Reshape and flatten: the target shape (flatten: {-1}).
std::optional<std::vector<TargetDim>> reshapeTarget(const Op &O);

/// cumsum and cumprod: the running product or sum, along Axis (nullopt:
/// over the flattened input).
struct CumulativeInfo {
  bool Product = false;
  std::optional<unsigned> Axis;
};
std::optional<CumulativeInfo> cumulativeInfo(const Op &O, unsigned Rank);

/// Shape_i's dim and Join's axis.
std::optional<unsigned> shapeIAxis(const Op &O, unsigned Rank);
std::optional<unsigned> joinAxis(const Op &O, unsigned Rank);

/// Subtensor: the slice `start:stop:step` of one axis (Step never 0, and
/// at least -INT64_MAX, as Python clamps it).
struct SliceInfo {
  unsigned Axis = 0;
  std::optional<int64_t> Start, Stop;
  int64_t Step = 1;
};
std::optional<SliceInfo> sliceInfo(const Op &O, unsigned Rank);

/// Softmax and LogSoftmax.
struct SoftmaxInfo {
  bool Log = false;
  unsigned Axis = 0;
};
std::optional<SoftmaxInfo> softmaxInfo(const Op &O, unsigned Rank);
/// Rows of at least this many elements, computed in the output's dtype,
/// keep their exps in the output and sum them pairwise (NNOps.cpp's
/// softmaxRow, the JIT code alike); shorter rows sum in order.
inline constexpr int64_t SoftmaxKeepExpsFrom = 16;

} // namespace graphjit

#endif
