//===- GpuBlas.cpp - dot and gemm on the device, through cuBLAS -----------===//
//
// GpuProgram::runBlas (GpuProgram.h): a product's operands as cuBLAS takes
// them (a row-major matrix, or the transpose memory holds; vectors as a
// row on the left and a column on the right), copied on the device where
// their strides allow neither; gemm's c broadcast into the output first.
//
//===----------------------------------------------------------------------===//

#include "DevicePool.h"
#include "GpuOps.h"
#include "GpuProgram.h"
#include "ops/GemmOp.h"
#include "ops/StructuralUtil.h"

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// A row-major Rows x Cols operand of a product as cuBLAS takes it: its
/// address, whether memory holds its transpose, and the leading dimension.
struct MatrixOperand {
  DeviceAddress Addr = 0;
  bool Trans = false;
  int64_t Ld = 1;
};

/// X seen as Rows x Cols with these byte strides, if the strides allow it.
std::optional<MatrixOperand> asMatrix(const NDArray &X, int64_t Rows,
                                      int64_t Cols, int64_t RowStride,
                                      int64_t ColStride) {
  int64_t E = X.elementSize();
  if (RowStride % E || ColStride % E)
    return std::nullopt;
  int64_t RS = RowStride / E, CS = ColStride / E;
  // A dim of size 1 is never stepped over: any stride fits it.
  if (Cols == 1)
    CS = 1;
  if (Rows == 1)
    RS = std::max<int64_t>(Cols, 1);
  MatrixOperand M;
  M.Addr = DeviceAddress(X.data());
  if (CS == 1 && RS >= std::max<int64_t>(Cols, 1)) {
    M.Ld = RS;
    return M;
  }
  if (Rows == 1 && Cols > 1)
    return std::nullopt;
  if (RS == 1 && CS >= std::max<int64_t>(Rows, 1)) {
    M.Trans = true;
    M.Ld = CS;
    return M;
  }
  return std::nullopt;
}

} // namespace

Error GpuProgram::runBlas(const Apply &N, llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out) {
  const Op &H = gpuOpOf(N.op())->hostOp();
  std::optional<GemmParams> G = gemmParams(H);
  const NDArray &A0 = G ? In[1] : In[0];
  const NDArray &B0 = G ? In[2] : In[1];
  bool TA = G && G->TransA, TB = G && G->TransB;
  // op(A) is M x K, op(B) is K x N; a vector is a row (left) or a column
  // (right).
  int64_t M = A0.rank() == 2 ? A0.dim(TA ? 1 : 0) : 1;
  int64_t KA = A0.dim(A0.rank() == 2 && TA ? 0 : A0.rank() - 1);
  int64_t KB = B0.dim(B0.rank() == 2 && TB ? 1 : 0);
  int64_t Ncols = B0.rank() == 2 ? B0.dim(TB ? 0 : 1) : 1;
  if (KA != KB) // The host's words.
    return llvm::createStringError("shapes " + compactShapeStr(A0.shape()) + " and " +
                    compactShapeStr(B0.shape()) + " not aligned: " +
                    llvm::Twine(KA) + " (dim " + llvm::Twine(A0.rank() - 1) +
                    ") != " + llvm::Twine(KB) + " (dim 0)");
  Shape OutShape;
  if (A0.rank() == 2)
    OutShape.push_back(M);
  if (B0.rank() == 2)
    OutShape.push_back(Ncols);
  Expected<NDArray> C = Pool.empty(N.output(0)->type().Dtype, OutShape);
  if (!C)
    return C.takeError();
  double Beta = 0;
  if (G) {
    // out = c broadcast, then out = alpha * op(a) op(b) + beta * out.
    if (Error E = copyInto(*C, In[0]))
      return E;
    Beta = G->Beta;
  }
  // Copies made for the product live until it is queued (a block given
  // back earlier could be reused by the next copy before the product ran).
  NDArray Copies[2];
  auto Operand = [&](const NDArray &X, bool Trans, bool Left, int64_t Rows,
                     int64_t Cols) -> Expected<MatrixOperand> {
    int64_t E = X.elementSize();
    int64_t RS, CS;
    if (X.rank() == 2) {
      RS = X.strides()[Trans ? 1 : 0];
      CS = X.strides()[Trans ? 0 : 1];
    } else {
      RS = Left ? Cols * E : X.strides()[0];
      CS = Left ? X.strides()[0] : E;
    }
    if (std::optional<MatrixOperand> Mo = asMatrix(X, Rows, Cols, RS, CS))
      return *Mo;
    Expected<NDArray> Copy = contiguous(X);
    if (!Copy)
      return Copy.takeError();
    Copies[Left ? 0 : 1] = *Copy;
    X.rank() == 2 ? (RS = Copy->strides()[Trans ? 1 : 0],
                     CS = Copy->strides()[Trans ? 0 : 1])
                  : (RS = Left ? Cols * E : E, CS = E);
    std::optional<MatrixOperand> Mo = asMatrix(*Copy, Rows, Cols, RS, CS);
    if (!Mo)
      return llvm::createStringError("internal error: no matrix layout after a copy");
    return *Mo;
  };
  Expected<MatrixOperand> A = Operand(A0, TA, /*Left=*/true, M, KA);
  if (!A)
    return A.takeError();
  Expected<MatrixOperand> B = Operand(B0, TB, /*Left=*/false, KB, Ncols);
  if (!B)
    return B.takeError();
  Out[0] = std::move(*C);
  if (Out[0].numElements() == 0)
    return Error::success();
  DeviceGemm D;
  D.Dtype = Out[0].dtype();
  D.TransA = A->Trans;
  D.TransB = B->Trans;
  D.M = M;
  D.N = Ncols;
  D.K = KA;
  D.Alpha = G ? G->Alpha : 1.0;
  D.Beta = Beta;
  D.A = A->Addr;
  D.LdA = A->Ld;
  D.B = B->Addr;
  D.LdB = B->Ld;
  D.C = DeviceAddress(Out[0].data());
  D.LdC = std::max<int64_t>(Ncols, 1);
  return Dev.gemm(D);
}
