//===- LapackBatch.cpp - Batches of matrices for the LAPACK ops -----------===//
//
// The batch broadcasting and the error wording of LapackBatch.h.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/LapackBatch.h"

using namespace graphjit;
using namespace graphjit::lapack;
using llvm::Error;
using llvm::Expected;

DType lapack::resultDType(llvm::ArrayRef<DType> In) {
  for (DType T : In)
    if (T != DType::F32)
      return DType::F64;
  return DType::F32;
}

Expected<std::vector<Dim>> lapack::batchDims(llvm::ArrayRef<TensorType> In,
                                             llvm::ArrayRef<unsigned> Core,
                                             llvm::StringRef Name) {
  size_t Rank = 0;
  for (size_t I = 0; I < In.size(); ++I) {
    if (In[I].rank() < Core[I])
      return opError(llvm::Twine(Name) + ": input " + llvm::Twine(I) +
                     " has rank " + llvm::Twine(In[I].rank()) + ", at least " +
                     llvm::Twine(Core[I]) + " expected");
    Rank = std::max<size_t>(Rank, In[I].rank() - Core[I]);
  }
  std::vector<Dim> Out(Rank, Dim::known(1));
  for (size_t I = 0; I < In.size(); ++I) {
    size_t B = In[I].rank() - Core[I];
    for (size_t K = 0; K < B; ++K) {
      const Dim &D = In[I].Dims[K];
      Dim &O = Out[Rank - B + K];
      if (D.isKnown() && D.Size == 1)
        continue;
      if (O.isKnown() && O.Size == 1)
        O = D;
      else if (D.isKnown() && O.isKnown() && D.Size != O.Size)
        return opError(llvm::Twine(Name) + ": batch dims " +
                       compactDimsStr(In[0].Dims) + " and " +
                       compactDimsStr(In[I].Dims) + " do not broadcast");
      else if (!O.isKnown())
        O = D.isKnown() ? D : O;
    }
  }
  return Out;
}

Expected<Batch> lapack::runBatch(llvm::ArrayRef<NDArray> In,
                                 llvm::ArrayRef<unsigned> Core,
                                 llvm::StringRef Name) {
  Batch B;
  size_t Rank = 0;
  for (size_t I = 0; I < In.size(); ++I) {
    if (In[I].rank() < Core[I])
      return opError(llvm::Twine(Name) + ": input " + llvm::Twine(I) +
                     " has rank " + llvm::Twine(In[I].rank()));
    Rank = std::max<size_t>(Rank, In[I].rank() - Core[I]);
  }
  B.Dims.assign(Rank, 1);
  for (size_t I = 0; I < In.size(); ++I) {
    size_t R = In[I].rank() - Core[I];
    for (size_t K = 0; K < R; ++K) {
      int64_t D = In[I].dim(K), &O = B.Dims[Rank - R + K];
      if (D != 1 && O != 1 && D != O)
        return opError(llvm::Twine(Name) + ": batch shapes " +
                       compactShapeStr(In[0].shape()) + " and " +
                       compactShapeStr(In[I].shape()) + " do not broadcast");
      if (O == 1)
        O = D;
    }
  }
  for (size_t I = 0; I < In.size(); ++I) {
    size_t R = In[I].rank() - Core[I];
    llvm::SmallVector<int64_t, 4> S(Rank, 0);
    for (size_t K = 0; K < R; ++K)
      if (In[I].dim(K) != 1)
        S[Rank - R + K] = In[I].strides()[K];
    B.Strides.push_back(std::move(S));
  }
  return B;
}

int64_t lapack::batchOffset(const Batch &B, size_t I, int64_t Flat) {
  int64_t Off = 0;
  for (size_t K = B.Dims.size(); K-- > 0;) {
    Off += (Flat % B.Dims[K]) * B.Strides[I][K];
    Flat /= B.Dims[K];
  }
  return Off;
}

Error lapack::linAlgError(const llvm::Twine &Msg) {
  return opError("LinAlgError: " + Msg);
}
