//===- StructuralUtil.cpp - Helpers of the shape, indexing, reduction ops -===//

#include "ops/StructuralUtil.h"
#include "ops/Strided.h"
#include <set>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

std::string graphjit::compactShapeStr(llvm::ArrayRef<int64_t> S) {
  std::string R = "(";
  for (size_t I = 0; I < S.size(); ++I)
    R += (I ? "," : "") + std::to_string(S[I]);
  return R + (S.size() == 1 ? ",)" : ")");
}

std::string graphjit::compactDimsStr(llvm::ArrayRef<Dim> Dims) {
  std::string R = "(";
  for (size_t I = 0; I < Dims.size(); ++I)
    R += (I ? "," : "") + Dims[I].str();
  return R + (Dims.size() == 1 ? ",)" : ")");
}

std::string graphjit::intListStr(llvm::ArrayRef<int64_t> V) {
  std::string R = "[";
  for (size_t I = 0; I < V.size(); ++I)
    R += (I ? ", " : "") + std::to_string(V[I]);
  return R + "]";
}

Error graphjit::axisOutOfBounds(int64_t Axis, unsigned Rank) {
  return opError("axis " + std::to_string(Axis) +
                 " is out of bounds for array of dimension " +
                 std::to_string(Rank));
}

Expected<unsigned> graphjit::checkAxis(int64_t Axis, unsigned Rank) {
  if (std::optional<unsigned> A = validAxis(Axis, Rank))
    return *A;
  return axisOutOfBounds(Axis, Rank);
}

std::optional<unsigned> graphjit::validAxis(int64_t Axis, unsigned Rank) {
  // Compare before adding: Axis may be near INT64_MIN.
  if (Axis >= int64_t(Rank) || Axis < -int64_t(Rank))
    return std::nullopt;
  return unsigned(Axis < 0 ? Axis + int64_t(Rank) : Axis);
}

Expected<std::vector<unsigned>>
graphjit::checkAxes(llvm::ArrayRef<int64_t> Axes, unsigned Rank) {
  std::vector<unsigned> R;
  std::vector<bool> Seen(Rank, false);
  for (int64_t A : Axes) {
    Expected<unsigned> N = checkAxis(A, Rank);
    if (!N)
      return N.takeError();
    if (Seen[*N])
      return opError("duplicate value in 'axis'");
    Seen[*N] = true;
    R.push_back(*N);
  }
  return R;
}

Expected<std::vector<ShapeEntry>>
graphjit::readShapeAttr(const AttrReader &R, llvm::StringRef OpName,
                        llvm::StringRef Key, bool AllowInfer) {
  const AttrValue *V = R.get(Key);
  if (!V)
    return attrError(Key.str(),
                     "op '" + OpName + "' needs attribute '" + Key + "'");
  std::vector<AttrValue> Elts =
      V->K == AttrValue::List ? V->Elts : std::vector<AttrValue>{*V};
  std::vector<ShapeEntry> Out;
  bool SawInfer = false;
  for (const AttrValue &E : Elts) {
    ShapeEntry S;
    if (E.K == AttrValue::Ident) {
      S.Symbol = E.S;
    } else if (E.K == AttrValue::Int) {
      S.Size = E.I;
      if (E.I == -1 && AllowInfer) {
        if (SawInfer)
          return attrError(Key.str(), "can only specify one unknown "
                                      "dimension (-1) in '" +
                                          Key + "' of '" + OpName + "'");
        SawInfer = true;
      } else if (E.I < 0) {
        return attrError(Key.str(),
                         "negative dimension " + std::to_string(E.I) +
                             " in '" + Key + "' of '" + OpName + "'" +
                             (AllowInfer ? " (only -1 is allowed)" : ""));
      }
    } else {
      return attrError(Key.str(), "attribute '" + Key + "' of '" + OpName +
                                      "' must list sizes or names of "
                                      "symbolic dims, not '" +
                                      V->str() + "'");
    }
    Out.push_back(std::move(S));
  }
  return Out;
}

std::vector<Dim> graphjit::shapeEntryDims(llvm::ArrayRef<ShapeEntry> Entries) {
  std::vector<Dim> Dims;
  for (const ShapeEntry &E : Entries)
    Dims.push_back(E.isSymbol()     ? Dim::symbolic(E.Symbol)
                   : E.isInferred() ? Dim::unknown()
                                    : Dim::known(E.Size));
  return Dims;
}

std::string graphjit::shapeEntriesStr(llvm::ArrayRef<ShapeEntry> Entries) {
  std::string R;
  for (size_t I = 0; I < Entries.size(); ++I)
    R += (I ? ", " : "") + (Entries[I].isSymbol()
                               ? Entries[I].Symbol
                               : std::to_string(Entries[I].Size));
  return R;
}

Expected<Shape>
graphjit::resolveShapeEntries(llvm::ArrayRef<ShapeEntry> Entries,
                              const ExecContext &Ctx) {
  Shape S;
  for (const ShapeEntry &E : Entries) {
    if (!E.isSymbol()) {
      S.push_back(E.Size);
      continue;
    }
    if (!Ctx.Dims || !Ctx.Dims->count(E.Symbol))
      return opError("symbolic dim '" + E.Symbol +
                     "' has no size in this call");
    int64_t Size = Ctx.Dims->lookup(E.Symbol);
    if (Size < 0)
      return opError("symbolic dim '" + E.Symbol + "' has negative size " +
                     std::to_string(Size));
    S.push_back(Size);
  }
  return S;
}

void graphjit::copyConvert(const NDArray &Src, const NDArray &Dst) {
  const Shape &S = Dst.shape();
  LoopOperand Ops[2] = {{Dst.data(), Dst.strides()},
                        {Src.data(), broadcastStrides(Src, S)}};
  dispatchDType(Src.dtype(), [&](auto SrcTag) {
    using SrcT = typename decltype(SrcTag)::type;
    dispatchDType(Dst.dtype(), [&](auto DstTag) {
      using DstT = typename decltype(DstTag)::type;
      forEachRow(S, Ops, [](char **P, const int64_t *St, int64_t N) {
        char *D = P[0];
        const char *X = P[1];
        for (int64_t I = 0; I < N; ++I, D += St[0], X += St[1])
          *reinterpret_cast<DstT *>(D) =
              convertElement<DstT>(*reinterpret_cast<const SrcT *>(X));
      });
    });
  });
}

void graphjit::fillWith(const NDArray &Dst, double V) {
  LoopOperand Ops[1] = {{Dst.data(), Dst.strides()}};
  dispatchDType(Dst.dtype(), [&](auto Tag) {
    using T = typename decltype(Tag)::type;
    const T Value = convertElement<T>(V);
    forEachRow(Dst.shape(), Ops, [&](char **P, const int64_t *St, int64_t N) {
      char *D = P[0];
      for (int64_t I = 0; I < N; ++I, D += St[0])
        *reinterpret_cast<T *>(D) = Value;
    });
  });
}

double graphjit::viewBytesMoved(llvm::ArrayRef<NDArray> Inputs,
                                llvm::ArrayRef<NDArray> Outputs) {
  if (Inputs.empty() || Outputs.empty() || Outputs[0].isNull() ||
      Outputs[0].sharesBufferWith(Inputs[0]))
    return 0;
  return 2.0 * double(Outputs[0].numBytes());
}

Expected<Shape> graphjit::checkedContiguousStrides(const Shape &S,
                                                   size_t ElementSize) {
  // As contiguousStrides(): the dims (0 counting as 1) times the element
  // size, from the last dim on.
  Shape Strides(S.size());
  int64_t Step = int64_t(ElementSize);
  for (size_t I = S.size(); I-- > 0;) {
    Strides[I] = Step;
    if (S[I] < 0 ||
        __builtin_mul_overflow(Step, std::max<int64_t>(S[I], 1), &Step))
      return opError("shape " + shapeStr(S) + " is too large");
  }
  return Strides;
}

Error graphjit::createOutput(NDArray &Out, DType T, const Shape &S) {
  // NDArray::create computes these strides unchecked; check them first.
  if (Expected<Shape> St = checkedContiguousStrides(S, dtypeSize(T)); !St)
    return St.takeError();
  Expected<NDArray> A = NDArray::create(T, S);
  if (!A)
    return A.takeError();
  Out = std::move(*A);
  return Error::success();
}

int64_t graphjit::elementCount(const Shape &S) {
  for (int64_t D : S)
    if (D == 0)
      return 0;
  return numElementsOf(S);
}
