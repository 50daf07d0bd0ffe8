//===- GatherOps.cpp - Rows picked and updated by an integer vector -------===//
//
// Indexing by an integer vector along the first axis, as PyMC's models use
// it (a group's parameter for each observation, and its gradient):
//
//   take(x, idx)             x[idx]               Theano's AdvancedSubtensor1
//   inc_rows(x, idx, y)      x with x[idx] += y   AdvancedIncSubtensor1{inc}
//   inc_rows(x, idx, y, set=true)   x[idx] = y    AdvancedIncSubtensor1{set}
//
// Indices follow NumPy: negative ones count from the end, any other out of
// range is an error naming it; inc_rows adds once per occurrence of an
// index (np.add.at), and with set the last occurrence wins. Both make a new
// array; the JIT runs the same loops in IR with planned outputs
// (lib/codegen/GatherLowering.cpp), and compute() words their errors.
//
//===----------------------------------------------------------------------===//

#include "ops/indexing/GatherOps.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include <cstring>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// Checks an index vector's type: rank 1, an integer dtype.
Error checkIndexType(const TensorType &Idx, llvm::StringRef Op) {
  if (Idx.rank() != 1 || !isInteger(Idx.Dtype))
    return opError(Op + " takes a vector of integer indices, not " +
                   Idx.str());
  return Error::success();
}

/// The indices as int64, each checked against Len and made non-negative.
Expected<std::vector<int64_t>> readIndices(const NDArray &Idx, int64_t Len) {
  std::vector<int64_t> R(Idx.dim(0));
  for (int64_t I = 0; I < Idx.dim(0); ++I) {
    int64_t J = Idx.getInt(I);
    if (J < -Len || J >= Len)
      return opError("index " + std::to_string(J) +
                     " is out of bounds for axis 0 with size " +
                     std::to_string(Len));
    R[I] = J < 0 ? J + Len : J;
  }
  return R;
}

/// X's shape without its first dim: the shape of one row.
Shape rowShape(const Shape &S) { return Shape(S.begin() + 1, S.end()); }

/// Runs Row(DstRow, SrcRow) over the elements of one row, for rows that
/// start at the given pointers; the loop operands are made once.
struct RowCopier {
  Shape Row;
  LoopOperand Ops[2];
  RowCopier(const NDArray &Dst, const Shape &SrcRowStrides)
      : Row(rowShape(Dst.shape())),
        Ops{{nullptr, rowShape(Dst.strides())}, {nullptr, SrcRowStrides}} {}

  template <typename Fn> void run(char *Dst, char *Src, Fn &&Element) {
    Ops[0].Base = Dst;
    Ops[1].Base = Src;
    forEachRow(Row, Ops, [&](char **P, const int64_t *St, int64_t N) {
      for (int64_t K = 0; K < N; ++K)
        Element(P[0] + K * St[0], P[1] + K * St[1]);
    });
  }
};

} // namespace

Expected<std::vector<TensorType>>
TakeOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  if (In[0].rank() == 0)
    return opError("take needs an array of rank 1 or more, not " + In[0].str());
  if (Error E = checkIndexType(In[1], "take"))
    return E;
  std::vector<Dim> Dims = {In[1].Dims[0]};
  Dims.insert(Dims.end(), In[0].Dims.begin() + 1, In[0].Dims.end());
  return std::vector<TensorType>{TensorType(In[0].Dtype, std::move(Dims))};
}

Error TakeOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const {
  Shape S = {In[1].dim(0)};
  Shape Row = rowShape(In[0].shape());
  S.insert(S.end(), Row.begin(), Row.end());
  return createOutput(Out[0], In[0].dtype(), S);
}

Error TakeOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const {
  const NDArray &X = In[0];
  Expected<std::vector<int64_t>> Idx = readIndices(In[1], X.dim(0));
  if (!Idx)
    return Idx.takeError();
  size_t Size = X.elementSize();
  RowCopier Copy(Out[0], rowShape(X.strides()));
  for (size_t I = 0; I < Idx->size(); ++I)
    Copy.run(Out[0].data() + int64_t(I) * Out[0].strides()[0],
             X.data() + (*Idx)[I] * X.strides()[0],
             [Size](char *D, char *S) { std::memcpy(D, S, Size); });
  return Error::success();
}

Expected<std::vector<TensorType>>
IncRowsOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0], &Y = In[2];
  if (X.rank() == 0)
    return opError("inc_rows needs an array of rank 1 or more, not " + X.str());
  if (Error E = checkIndexType(In[1], "inc_rows"))
    return E;
  if (Y.Dtype != X.Dtype)
    return opError("inc_rows adds values of x's dtype: x is " + X.str() +
                   ", y is " + Y.str());
  if (Y.rank() > X.rank())
    return opError("inc_rows: y (" + Y.str() + ") has more dims than "
                   "x[idx]");
  return std::vector<TensorType>{X};
}

Error IncRowsOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                         const ExecContext &) const {
  if (Error E = checkBroadcast(In))
    return E;
  return createOutput(Out[0], In[0].dtype(), In[0].shape());
}

Error IncRowsOp::compute(llvm::ArrayRef<NDArray> In,
                         llvm::ArrayRef<NDArray> Out,
                         const ExecContext &) const {
  const NDArray &X = In[0], &Y = In[2];
  Expected<std::vector<int64_t>> Idx = readIndices(In[1], X.dim(0));
  if (!Idx)
    return Idx.takeError();
  // prepare() checked that y broadcasts to x[idx].
  copyConvert(X, Out[0]);
  Shape Picked = pickedShape(In);
  Shape YStrides = broadcastStrides(Y, Picked);
  RowCopier Rows(Out[0], rowShape(YStrides));
  dispatchDType(X.dtype(), [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (size_t I = 0; I < Idx->size(); ++I)
      Rows.run(Out[0].data() + (*Idx)[I] * Out[0].strides()[0],
               Y.data() + int64_t(I) * YStrides[0],
               [this](char *D, char *S) {
                 E &To = *reinterpret_cast<E *>(D);
                 E V = *reinterpret_cast<const E *>(S);
                 if constexpr (std::is_same_v<E, bool>)
                   To = Set ? V : (To || V);
                 else
                   To = Set ? V : E(To + V);
               });
  });
  return Error::success();
}

double IncRowsOp::flops(llvm::ArrayRef<Shape> In, llvm::ArrayRef<Shape>) const {
  if (Set || In[0].empty())
    return 0;
  return double(In[1].empty() ? 0 : In[1][0]) *
         double(elementCount(rowShape(In[0])));
}

Shape IncRowsOp::pickedShape(llvm::ArrayRef<NDArray> In) {
  Shape S = {In[1].dim(0)};
  Shape Row = rowShape(In[0].shape());
  S.insert(S.end(), Row.begin(), Row.end());
  return S;
}

Error IncRowsOp::checkBroadcast(llvm::ArrayRef<NDArray> In) {
  Shape Picked = pickedShape(In);
  Expected<Shape> B = broadcastShapes({Picked, In[2].shape()});
  if (!B || *B != Picked) {
    if (!B)
      llvm::consumeError(B.takeError());
    return opError("inc_rows: y of shape " + shapeStr(In[2].shape()) +
                   " does not broadcast to x[idx]'s shape " +
                   shapeStr(Picked));
  }
  return Error::success();
}

namespace {

Expected<OpRef> makeTake(const AttrMap &Attrs, unsigned) {
  if (Error E = AttrReader("take", Attrs).checkOnly({}))
    return E;
  return std::make_shared<TakeOp>(Attrs);
}

Expected<OpRef> makeIncRows(const AttrMap &Attrs, unsigned) {
  AttrReader R("inc_rows", Attrs);
  if (Error E = R.checkOnly({"set"}))
    return E;
  Expected<bool> Set = R.getBool("set", false);
  if (!Set)
    return Set.takeError();
  return std::make_shared<IncRowsOp>(Attrs, *Set);
}

} // namespace

void graphjit::registerGatherOps(OpRegistry &R) {
  R.add(OpSpec{"take", 2, 2, makeTake,
               "rows of x picked by an integer vector, x[idx] (NumPy's "
               "take along axis 0): take(x, idx)"});
  R.add(OpSpec{"inc_rows", 3, 3, makeIncRows,
               "x with y added to the rows idx picks, once per occurrence "
               "(np.add.at); set=true stores instead: inc_rows(x, idx, y)"});
}
