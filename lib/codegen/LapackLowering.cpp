//===- LapackLowering.cpp - The LAPACK ops' planned outputs --------------===//
//
// cholesky, the solves, inv, det, slogdet, lu_factor (LapackOps.h) and
// eigh, svd, pinv, eigh_grad (SpectralOps.h) on one matrix (no batch
// dims) plan their outputs: the thunk computes their dims from the
// inputs', checks what prepare() checks (square, aligned) through
// failUnless, takes the outputs from the planned memory and calls
// gj_compute. Without this each call went through gj_prepare, which made
// the outputs on the heap: about 0.8 us a call of a small matrix against
// 0.3 us in PyTensor's Numba mode. Batches keep gj_prepare.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/linalg/LapackOps.h"
#include "ops/linalg/SpectralOps.h"

using namespace graphjit;
using namespace llvm;

static unsigned rankOf(const Apply &N, unsigned I) {
  return N.inputs()[I]->type().rank();
}

static bool takesB(LapackFn F) {
  return F == LapackFn::SolveTriangular || F == LapackFn::Solve ||
         F == LapackFn::CholeskySolve;
}

static bool plansLapack(const Apply &N, ArrayRef<std::string>) {
  const LapackParams &P = cast<LapackOp>(N.op()).params();
  if (rankOf(N, 0) != 2)
    return false;
  return !takesB(P.Fn) || rankOf(N, 1) == P.BNdim;
}

static void emitLapackDims(ThunkEmitter &E, OutputDims &Dims) {
  const LapackParams &P = cast<LapackOp>(E.Node.op()).params();
  const Variable *A = E.Node.inputs()[0];
  Value *N = E.dim(A, 0);
  E.failUnless(E.B.CreateICmpEQ(N, E.dim(A, 1)), "square");
  if (takesB(P.Fn)) {
    const Variable *Rhs = E.Node.inputs()[1];
    E.failUnless(E.B.CreateICmpEQ(E.dim(Rhs, 0), N), "aligned");
    for (unsigned D = 0; D < P.BNdim; ++D)
      Dims[0].push_back(E.dim(Rhs, D));
    return;
  }
  switch (P.Fn) {
  case LapackFn::Det:
  case LapackFn::SLogDet:
    return; // scalars
  case LapackFn::LUFactor:
    Dims[0] = {N, N};
    Dims[1] = {N};
    return;
  default:
    Dims[0] = {N, N};
    return;
  }
}

static bool plansSpectral(const Apply &N, ArrayRef<std::string>) {
  const SpectralParams &P = cast<SpectralOp>(N.op()).params();
  if (P.Fn == SpectralFn::EighGrad)
    return rankOf(N, 0) == 1 && rankOf(N, 1) == 2 && rankOf(N, 2) == 1 &&
           rankOf(N, 3) == 2;
  for (unsigned I = 0; I < N.inputs().size(); ++I)
    if (rankOf(N, I) != 2)
      return false;
  return true;
}

static void emitSpectralDims(ThunkEmitter &E, OutputDims &Dims) {
  const SpectralParams &P = cast<SpectralOp>(E.Node.op()).params();
  const auto &In = E.Node.inputs();
  if (P.Fn == SpectralFn::EighGrad) {
    Value *N = E.dim(In[1], 0);
    E.failUnless(E.B.CreateICmpEQ(N, E.dim(In[1], 1)), "square");
    for (unsigned I : {0u, 2u})
      E.failUnless(E.B.CreateICmpEQ(E.dim(In[I], 0), N), "aligned");
    E.failUnless(E.B.CreateICmpEQ(E.dim(In[3], 0), N), "aligned");
    E.failUnless(E.B.CreateICmpEQ(E.dim(In[3], 1), N), "aligned");
    Dims[0] = {N, N};
    return;
  }
  Value *M = E.dim(In[0], 0), *N = E.dim(In[0], 1);
  switch (P.Fn) {
  case SpectralFn::Eigh:
    E.failUnless(E.B.CreateICmpEQ(M, N), "square");
    if (In.size() == 2) {
      E.failUnless(E.B.CreateICmpEQ(E.dim(In[1], 0), N), "aligned");
      E.failUnless(E.B.CreateICmpEQ(E.dim(In[1], 1), N), "aligned");
    }
    Dims[0] = {N};
    Dims[1] = {N, N};
    return;
  case SpectralFn::SVD: {
    Value *K = E.B.CreateSelect(E.B.CreateICmpSLT(M, N), M, N, "k");
    if (!P.ComputeUV)
      Dims[0] = {K};
    else if (P.FullMatrices)
      Dims[0] = {M, M}, Dims[1] = {K}, Dims[2] = {N, N};
    else
      Dims[0] = {M, K}, Dims[1] = {K}, Dims[2] = {K, N};
    return;
  }
  case SpectralFn::Pinv:
    Dims[0] = {N, M};
    return;
  default:
    return;
  }
}

void graphjit::registerLapackLowerings() {
  Lowering L{/*NeedsPrepare=*/true, emitComputeCall, nullptr};
  L.SharedThunk = "gj_thunk.compute";
  L.EmitOutputDims = emitLapackDims;
  L.PlansOutputs = plansLapack;
  registerLowering(OpKind::Lapack, L);
  L.EmitOutputDims = emitSpectralDims;
  L.PlansOutputs = plansSpectral;
  registerLowering(OpKind::Spectral, L);
}
