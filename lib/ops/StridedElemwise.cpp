//===- ops/StridedElemwise.cpp - Strided element-wise loops for JIT code --===//

#include "ops/StridedElemwise.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <cstring>

using namespace graphjit;

namespace {

constexpr unsigned MaxRank = 8; // the slots' (RuntimeABI.h)
constexpr unsigned MaxInputs = ElemwiseRuntimeMaxInputs;
// A strided input's buffer: a chunk of its row, 64 elements of 8 bytes,
// so that the buffers and the output's chunk stay in L1.
constexpr int64_t BufferBytes = 512;

struct Input {
  char *Data;
  int64_t Bytes;
  bool RowInvariant;
  const int64_t *Strides;
  int64_t rowStride(unsigned R) const { return Strides[R - 1]; }
};

/// The record, decoded.
struct StridedCall {
  uint64_t InplaceKernel, Kernel;
  char *Out;
  int64_t OutBytes;
  unsigned K, R;
  /// The overwritten input, or -1.
  int Anchor;
  bool Tangled;
  const int64_t *Dims, *OutStrides;
  KernelCaller Call;
  Input In[MaxInputs];

  explicit StridedCall(const uint64_t *W)
      : InplaceKernel(W[0]), Kernel(W[1]), Out(reinterpret_cast<char *>(W[2])),
        OutBytes(int64_t(W[3])), K(unsigned(W[4])), R(unsigned(W[5])),
        Anchor(int(W[6]) - 1), Tangled(W[7] != 0),
        Dims(reinterpret_cast<const int64_t *>(W + 8)),
        OutStrides(reinterpret_cast<const int64_t *>(W + 8 + R)) {
    Call = kernelCaller(K, "gj_ew_strided");
    if (R == 0 || R > MaxRank)
      llvm::report_fatal_error("gj_ew_strided: an output of bad rank");
    const uint64_t *P = W + 8 + 2 * R;
    for (unsigned I = 0; I < K; ++I, P += R + 3)
      In[I] = {reinterpret_cast<char *>(P[0]), int64_t(P[1]), P[2] != 0,
               reinterpret_cast<const int64_t *>(P + 3)};
  }

  int64_t rowLength() const { return Dims[R - 1]; }
};

// N elements Stride bytes apart into Dst, one after the other.
void gather(char *Dst, const char *Src, int64_t Stride, int64_t N,
            int64_t Bytes) {
  auto Copy = [&](auto Element) {
    using T = decltype(Element);
    T *D = reinterpret_cast<T *>(Dst);
    for (int64_t J = 0; J < N; ++J)
      std::memcpy(D + J, Src + J * Stride, sizeof(T));
  };
  switch (Bytes) {
  case 8: return Copy(uint64_t());
  case 4: return Copy(uint32_t());
  case 2: return Copy(uint16_t());
  default:
    for (int64_t J = 0; J < N; ++J)
      std::memcpy(Dst + J * Bytes, Src + J * Stride, size_t(Bytes));
  }
}

// An input other than the overwritten one shares the output's memory:
// element by element, in order, each element's inputs copied out before
// it is written (the row-invariant ones once, before the row), as a
// scalar loop would.
void runInOrder(const StridedCall &C, char *OutRow, char *const *Row) {
  alignas(8) char Element[MaxInputs][8];
  char *At[MaxInputs];
  for (unsigned I = 0; I < C.K; ++I) {
    At[I] = Row[I] ? Element[I] : nullptr;
    if (Row[I] && C.In[I].RowInvariant)
      std::memcpy(Element[I], Row[I], size_t(C.In[I].Bytes));
  }
  for (int64_t J = 0, N = C.rowLength(); J < N; ++J) {
    for (unsigned I = 0; I < C.K; ++I)
      if (Row[I] && !C.In[I].RowInvariant)
        std::memcpy(Element[I], Row[I] + J * C.In[I].rowStride(C.R),
                    size_t(C.In[I].Bytes));
    C.Call(C.Kernel, OutRow + J * C.OutBytes, 1, At);
  }
}

void runRow(const StridedCall &C, char *OutRow, char *const *Row) {
  if (C.Tangled)
    return runInOrder(C, OutRow, Row);
  uint64_t Kern = C.Kernel;
  if (C.Anchor >= 0 && OutRow == Row[C.Anchor]) {
    // The output is the overwritten input: its kernel reads it through
    // the output pointer, which needs the two laid out alike.
    if (C.In[C.Anchor].rowStride(C.R) != C.OutBytes)
      return runInOrder(C, OutRow, Row);
    Kern = C.InplaceKernel;
  }
  bool Unit = true;
  for (unsigned I = 0; I < C.K; ++I)
    if (Row[I] && !C.In[I].RowInvariant &&
        C.In[I].rowStride(C.R) != C.In[I].Bytes)
      Unit = false;
  int64_t N = C.rowLength();
  if (Unit)
    return C.Call(Kern, OutRow, N, Row);
  alignas(64) char Buffer[MaxInputs][BufferBytes];
  constexpr int64_t Chunk = BufferBytes / 8;
  char *At[MaxInputs];
  for (int64_t J = 0; J < N; J += Chunk) {
    int64_t Count = std::min(Chunk, N - J);
    for (unsigned I = 0; I < C.K; ++I) {
      const Input &X = C.In[I];
      int64_t Stride = X.rowStride(C.R);
      if (!Row[I] || X.RowInvariant)
        At[I] = Row[I];
      else if (Stride == X.Bytes)
        At[I] = Row[I] + J * Stride;
      else {
        gather(Buffer[I], Row[I] + J * Stride, Stride, Count, X.Bytes);
        At[I] = Buffer[I];
      }
    }
    C.Call(Kern, OutRow + J * C.OutBytes, Count, At);
  }
}

} // namespace

extern "C" void gj_ew_strided(const uint64_t *Record) {
  StridedCall C(Record);
  int64_t Rows = 1;
  for (unsigned D = 0; D + 1 < C.R; ++D)
    Rows *= C.Dims[D];
  if (Rows == 0 || C.rowLength() == 0)
    return;
  char *OutRow = C.Out;
  char *Row[MaxInputs];
  for (unsigned I = 0; I < C.K; ++I)
    Row[I] = C.In[I].Data;
  int64_t Index[MaxRank] = {};
  // The outer dims as an odometer, the last turning fastest.
  for (int64_t N = 0; N < Rows; ++N) {
    runRow(C, OutRow, Row);
    for (int D = int(C.R) - 2; D >= 0; --D) {
      int64_t Back = ++Index[D] < C.Dims[D] ? 1 : 1 - C.Dims[D];
      OutRow += Back * C.OutStrides[D];
      for (unsigned I = 0; I < C.K; ++I)
        if (Row[I])
          Row[I] += Back * C.In[I].Strides[D];
      if (Back == 1)
        break;
      Index[D] = 0;
    }
  }
}

llvm::ArrayRef<RuntimeSymbol> graphjit::stridedElemwiseSymbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_ew_strided", reinterpret_cast<void *>(&gj_ew_strided)},
  };
  return Symbols;
}
