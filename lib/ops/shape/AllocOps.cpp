//===- AllocOps.cpp - alloc, zeros_like, ones_like -----------------------===//
//
// The ops that create a fresh array of a given shape (Theano's Alloc class):
// alloc broadcasts a value to a shape from a `shape=[n,3]` attribute (NumPy's
// broadcast_to followed by a contiguous copy); zeros_like and ones_like take
// dtype and shape from their input. prepare() checks and creates the output
// for the JIT, whose values ShapeLowering.cpp writes.
//
//===----------------------------------------------------------------------===//

#include "ops/shape/AllocOps.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Expected<std::vector<TensorType>>
AllocOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &V = In[0];
  std::vector<Dim> Dims = shapeEntryDims(Target);
  if (V.rank() > Dims.size())
    return opError("alloc cannot broadcast a value of rank " +
                   std::to_string(V.rank()) + " (" + V.str() +
                   ") to a shape of rank " + std::to_string(Dims.size()));
  size_t Off = Dims.size() - V.rank();
  for (unsigned I = 0; I < V.rank(); ++I) {
    const Dim &From = V.Dims[I], &To = Dims[Off + I];
    if (From.isKnown() && To.isKnown() && From.Size != 1 &&
        From.Size != To.Size)
      return opError("alloc cannot broadcast a value of type " + V.str() +
                     " to shape " + compactDimsStr(Dims) + ": dim " +
                     std::to_string(I) + " has size " +
                     std::to_string(From.Size) + ", not 1 or " +
                     std::to_string(To.Size));
  }
  return std::vector<TensorType>{TensorType(V.Dtype, std::move(Dims))};
}

Error AllocOp::perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                       const ExecContext &Ctx) const {
  if (Error E = prepare(In, Out, Ctx))
    return E;
  copyConvert(In[0], Out[0]);
  return Error::success();
}

Error AllocOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                       const ExecContext &Ctx) const {
  Expected<Shape> S = outputShape(In[0], Ctx);
  if (!S)
    return S.takeError();
  return createOutput(Out[0], In[0].dtype(), *S);
}

Expected<Shape> AllocOp::outputShape(const NDArray &V,
                                     const ExecContext &Ctx) const {
  Expected<Shape> S = resolveShapeEntries(Target, Ctx);
  if (!S)
    return S.takeError();
  bool Fits = V.rank() <= S->size();
  for (unsigned I = 0; Fits && I < V.rank(); ++I) {
    int64_t From = V.dim(I), To = (*S)[S->size() - V.rank() + I];
    Fits = From == 1 || From == To;
  }
  if (!Fits)
    return opError("alloc cannot broadcast a value of shape " +
                   shapeStr(V.shape()) + " to shape " + shapeStr(*S));
  return S;
}

Error FillLikeOp::perform(llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out,
                          const ExecContext &Ctx) const {
  if (Error E = prepare(In, Out, Ctx))
    return E;
  if (Value != 0)
    fillWith(Out[0], Value);
  return Error::success();
}

namespace {

Expected<OpRef> makeAlloc(const AttrMap &Attrs, unsigned) {
  AttrReader R("alloc", Attrs);
  if (Error E = R.checkOnly({"shape"}))
    return E;
  Expected<std::vector<ShapeEntry>> Target =
      readShapeAttr(R, "alloc", "shape", /*AllowInfer=*/false);
  if (!Target)
    return Target.takeError();
  return std::make_shared<AllocOp>(Attrs, std::move(*Target));
}

template <int Value>
Expected<OpRef> makeFillLike(const AttrMap &Attrs, unsigned) {
  const char *Name = Value == 0 ? "zeros_like" : "ones_like";
  AttrReader R(Name, Attrs);
  if (Error E = R.checkOnly({}))
    return E;
  return std::make_shared<FillLikeOp>(Name, Attrs, double(Value));
}

} // namespace

Expected<Shape> graphjit::allocShape(const Op &O, const NDArray &V,
                                     const ExecContext &Ctx) {
  assert(allocFill(O) == AllocFill::Broadcast && "not an alloc");
  return llvm::cast<AllocOp>(O).outputShape(V, Ctx);
}

std::optional<AllocFill> graphjit::allocFill(const Op &O) {
  if (llvm::isa<AllocOp>(O))
    return AllocFill::Broadcast;
  if (const auto *F = llvm::dyn_cast<FillLikeOp>(&O))
    return F->fill();
  return std::nullopt;
}

void graphjit::registerAllocOps(OpRegistry &R) {
  R.add(OpSpec{"alloc", 1, 1, makeAlloc,
               "a new array of the given shape holding v broadcast: "
               "alloc(v, shape=[n,3])"});
  R.add(OpSpec{"zeros_like", 1, 1, makeFillLike<0>,
               "zeros of x's dtype and shape: zeros_like(x)"});
  R.add(OpSpec{"ones_like", 1, 1, makeFillLike<1>,
               "ones of x's dtype and shape: ones_like(x)"});
}
