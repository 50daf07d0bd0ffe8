//===- ArrayFnRegistry.cpp - The array functions' attributes, registered --===//
//
// Reads each array function's attributes (ArrayFnOps.cpp says what they
// mean) and registers the ops with their one-line summaries.
//
//===----------------------------------------------------------------------===//

#include "ops/arrayfn/ArrayFnOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

Expected<OpRef> makeArrayFn(ArrayFn F, const AttrMap &Attrs) {
  const char *Name = arrayFnFormatName(F).data();
  AttrReader R(Name, Attrs);
  ArrayFnParams P;
  P.Fn = F;
  auto Int = [&](llvm::StringRef Key, int64_t Default,
                 int64_t &Into) -> Error {
    Expected<int64_t> V = R.getInt(Key, Default);
    if (!V)
      return V.takeError();
    Into = *V;
    return Error::success();
  };
  switch (F) {
  case ArrayFn::Arange: {
    if (Error E = R.checkOnly({"dtype"}))
      return E;
    if (R.has("dtype")) {
      Expected<std::string> D = R.getIdent("dtype");
      if (!D)
        return D.takeError();
      std::optional<DType> T = parseDType(*D);
      if (!T || *T == DType::Bool)
        return attrError("dtype", "arange: no dtype '" + *D + "'");
      P.Dtype = *T;
    }
    break;
  }
  case ArrayFn::Diagonal:
  case ArrayFn::AllocDiag:
    if (Error E = R.checkOnly({"offset", "axis1", "axis2"}))
      return E;
    if (Error E = Int("offset", 0, P.Offset))
      return E;
    if (Error E = Int("axis1", 0, P.Axis1))
      return E;
    if (Error E = Int("axis2", 1, P.Axis2))
      return E;
    break;
  case ArrayFn::Sort:
  case ArrayFn::Argsort:
    if (Error E = R.checkOnly({"axis"}))
      return E;
    if (R.has("axis")) {
      int64_t A = 0;
      if (Error E = Int("axis", -1, A))
        return E;
      P.Axis = A;
    }
    break;
  case ArrayFn::PivotToPermutation: {
    if (Error E = R.checkOnly({"inverse"}))
      return E;
    Expected<bool> V = R.getBool("inverse", false);
    if (!V)
      return V.takeError();
    P.Inverse = *V;
    break;
  }
  case ArrayFn::ReshapeTo:
  case ArrayFn::SplitBy: {
    bool Split = F == ArrayFn::SplitBy;
    if (Error E = Split ? R.checkOnly({"axis", "n"}) : R.checkOnly({"ndim"}))
      return E;
    int64_t K = 1;
    if (Error E = Int(Split ? "n" : "ndim", 1, K))
      return E;
    if (K < (Split ? 1 : 0) || K > 64)
      return attrError(Split ? "n" : "ndim",
                       std::string(Name) + ": " + (Split ? "n" : "ndim") +
                           " from " + (Split ? "1" : "0") + " to 64, not " +
                           std::to_string(K));
    P.MaskRank = unsigned(K);
    if (Split)
      if (Error E = Int("axis", 0, P.Axis1))
        return E;
    break;
  }
  case ArrayFn::Repeat:
    if (Error E = R.checkOnly({"axis"}))
      return E;
    if (R.has("axis")) {
      int64_t A = 0;
      if (Error E = Int("axis", 0, A))
        return E;
      P.Axis = A;
    }
    break;
  case ArrayFn::Nonzero: {
    if (Error E = R.checkOnly({"axis", "rank"}))
      return E;
    if (Error E = Int("axis", 0, P.Axis1))
      return E;
    int64_t Rank = 1;
    if (Error E = Int("rank", 1, Rank))
      return E;
    if (Rank < 1 || Rank > 32)
      return attrError("rank", "nonzero: a mask rank from 1 to 32, not " +
                                   std::to_string(Rank));
    P.MaskRank = unsigned(Rank);
    break;
  }
  case ArrayFn::AdvancedSubtensor:
  case ArrayFn::AdvancedIncSubtensor: {
    if (Error E = R.checkOnly({"pattern", "set"}))
      return E;
    Expected<std::vector<int64_t>> Pat = R.getIntList("pattern");
    if (!Pat)
      return Pat.takeError();
    P.Pattern = *Pat;
    Expected<bool> Set = R.getBool("set", false);
    if (!Set)
      return Set.takeError();
    P.Set = *Set;
    break;
  }
  default:
    if (Error E = R.checkOnly({}))
      return E;
  }
  return std::make_shared<ArrayFnOp>(Name, Attrs, P);
}

} // namespace

void graphjit::registerArrayFnOps(OpRegistry &R) {
  struct Spec {
    ArrayFn Fn;
    unsigned MinIn;
    int MaxIn;
    const char *Summary;
  };
  const Spec Specs[] = {
      {ArrayFn::AllocTo, 1, -1,
       "v broadcast into a new array of the shape its 0-d integer inputs "
       "give: alloc_to(v, n, m)"},
      {ArrayFn::Arange, 3, 3,
       "np.arange(start, stop, step) from 0-d inputs: arange(a, b, s, "
       "dtype=i64)"},
      {ArrayFn::Copy, 1, 1, "a new C-contiguous array equal to x: copy(x)"},
      {ArrayFn::Diagonal, 1, 1,
       "np.diagonal, as a new array: diagonal(x, offset=0, axis1=0, "
       "axis2=1)"},
      {ArrayFn::AllocDiag, 1, 1,
       "zeros with v's last dim on a diagonal (np.diag of a vector): "
       "alloc_diag(v, offset=0, axis1=0, axis2=1)"},
      {ArrayFn::Sort, 1, 1,
       "np.sort along an axis (NaN last; no axis: the flattened array): "
       "sort(x, axis=-1)"},
      {ArrayFn::Argsort, 1, 1,
       "np.argsort along an axis, stable: argsort(x, axis=-1)"},
      {ArrayFn::PivotToPermutation, 1, 1,
       "?getrf's 0-based pivots as a permutation (or its inverse): "
       "pivot_to_permutation(p, inverse=false)"},
      {ArrayFn::AdvancedSubtensor, 2, -1,
       "NumPy's integer-array indexing x[i0, :, i1]: "
       "advanced_subtensor(x, i0, i1, pattern=[0, -1, 1])"},
      {ArrayFn::AdvancedIncSubtensor, 3, -1,
       "x with y added at x[i0, :, i1] once per index (np.add.at), or set: "
       "advanced_inc_subtensor(x, y, i0, i1, pattern=[0, -1, 1], set=false)"},
      {ArrayFn::Nonzero, 2, 2,
       "a boolean index as integer arrays, mask.nonzero(), checked against "
       "x's dims from axis on: nonzero(mask, x, axis=0, rank=1)"},
      {ArrayFn::ReshapeTo, 2, 2,
       "np.reshape to a shape vector known at run time, as a new array: "
       "reshape_to(x, shape, ndim=2)"},
      {ArrayFn::SplitBy, 2, 2,
       "np.split into pieces whose sizes a vector gives at run time: "
       "a, b = split_by(x, sizes, axis=0, n=2)"},
      {ArrayFn::BlockDiag, 1, -1,
       "scipy.linalg.block_diag of matrices, zeros elsewhere: "
       "block_diag(a, b)"},
      {ArrayFn::Repeat, 2, 2,
       "np.repeat: repeat(x, repeats, axis=0); no axis: of the flattened "
       "array"},
  };
  for (const Spec &S : Specs) {
    ArrayFn Fn = S.Fn;
    R.add(OpSpec{arrayFnFormatName(Fn).str(), S.MinIn, S.MaxIn,
                 [Fn](const AttrMap &A, unsigned) { return makeArrayFn(Fn, A); },
                 S.Summary});
  }
}
