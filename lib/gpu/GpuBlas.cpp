//===- GpuBlas.cpp - dot and gemm on the device, through cuBLAS -----------===//
//
// GpuProgram::runBlas (GpuProgram.h): a product's operands seen as the host's
// BLAS sees them (lib/ops/linalg/MatrixProduct.h: a row-major matrix or the
// transpose memory holds; vectors as a row on the left and a column on the
// right), copied on the device where their strides allow neither; gemm's c
// broadcast into the output first.
//
//===----------------------------------------------------------------------===//

#include "DevicePool.h"
#include "ops/gpu/GpuOps.h"
#include "GpuProgram.h"
#include "ops/linalg/GemmOp.h"
#include "ops/linalg/MatrixProduct.h"
#include "ops/StructuralUtil.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Error GpuProgram::runBlas(const Apply &N, llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out) {
  const Op &H = gpuOpOf(N.op())->hostOp();
  std::optional<GemmParams> G = gemmParams(H);
  const NDArray &A0 = G ? In[1] : In[0];
  const NDArray &B0 = G ? In[2] : In[1];
  bool TA = G && G->TransA, TB = G && G->TransB;
  // op(A) is M x K, op(B) is K x N: the host's views (MatrixProduct.h), a
  // vector being a row on the left and a column on the right.
  auto View = [](const NDArray &X, bool Left, bool Trans) {
    MatView V = Left ? leftView(X) : rightView(X);
    return Trans ? V.transposed() : V;
  };
  MatView VA = View(A0, true, TA), VB = View(B0, false, TB);
  if (VA.Cols != VB.Rows) // The host's words.
    return llvm::createStringError(
        "shapes " + compactShapeStr(A0.shape()) + " and " +
        compactShapeStr(B0.shape()) + " not aligned: " + llvm::Twine(VA.Cols) +
        " (dim " + llvm::Twine(A0.rank() - 1) + ") != " +
        llvm::Twine(VB.Rows) + " (dim 0)");
  Shape OutShape;
  if (A0.rank() == 2)
    OutShape.push_back(VA.Rows);
  if (B0.rank() == 2)
    OutShape.push_back(VB.Cols);
  Expected<NDArray> C = Pool.empty(N.output(0)->type().Dtype, OutShape);
  if (!C)
    return C.takeError();
  if (G) // out = c broadcast, then out = alpha op(a) op(b) + beta out.
    if (Error E = copyInto(*C, In[0]))
      return E;
  // How cuBLAS reads each operand: as it is, or a contiguous copy of it.
  // The copies live until the product is queued (a block given back
  // earlier could be reused by the next copy before the product ran).
  NDArray Copies[2];
  auto Layout = [&](const NDArray &X, MatView &V, bool Left,
                    bool Trans) -> Expected<BlasLayout> {
    if (std::optional<BlasLayout> L = blasLayout(V, X.elementSize()))
      return *L;
    Expected<NDArray> Copy = contiguous(X);
    if (!Copy)
      return Copy.takeError();
    Copies[Left ? 0 : 1] = *Copy;
    V = View(*Copy, Left, Trans);
    if (std::optional<BlasLayout> L = blasLayout(V, X.elementSize()))
      return *L;
    return llvm::createStringError(
        "internal error: no BLAS layout after a copy");
  };
  Expected<BlasLayout> LA = Layout(A0, VA, true, TA);
  if (!LA)
    return LA.takeError();
  Expected<BlasLayout> LB = Layout(B0, VB, false, TB);
  if (!LB)
    return LB.takeError();
  Out[0] = std::move(*C);
  if (Out[0].numElements() == 0)
    return Error::success();
  DeviceGemm D;
  D.Dtype = Out[0].dtype();
  D.TransA = LA->Trans;
  D.TransB = LB->Trans;
  D.M = VA.Rows;
  D.N = VB.Cols;
  D.K = VA.Cols;
  D.Alpha = G ? G->Alpha : 1.0;
  D.Beta = G ? G->Beta : 0.0;
  D.A = DeviceAddress(VA.Data);
  D.LdA = LA->Ld;
  D.B = DeviceAddress(VB.Data);
  D.LdB = LB->Ld;
  D.C = DeviceAddress(Out[0].data());
  D.LdC = std::max<int64_t>(VB.Cols, 1);
  return Dev.gemm(D);
}
