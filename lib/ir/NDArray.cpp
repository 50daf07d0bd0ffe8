//===- NDArray.cpp - Strided n-dimensional arrays ------------------------===//

#include "graphjit/NDArray.h"
#include "runtime/AllocationObserver.h"
#include "BufferCache.h"
#include "graphjit/Op.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Buffer::Buffer(size_t Bytes, InitKind Init)
    : Buffer(AdoptTag{}, allocateBufferMemory(Bytes), Bytes, Init) {}

Buffer::Buffer(AdoptTag, void *Memory, size_t Bytes, InitKind Init)
    : Data(Memory), Bytes(Bytes), Owned(true) {
  if (Init == Zeroed)
    std::memset(Data, 0, bufferCapacity(Bytes));
  if (AllocationObserver *O = ThreadAllocationObserver)
    Tag = O->allocated(Bytes);
}

Buffer::~Buffer() {
  if (!Owned)
    return;
  if (Tag)
    if (AllocationObserver *O = ThreadAllocationObserver)
      O->freed(Bytes, Tag);
  freeBufferMemory(Data, Bytes);
}

namespace {
/// Takes the control blocks of new buffers from the buffer cache too:
/// arrays are made and dropped at the rate of calls.
template <typename T> struct CachedAllocator {
  using value_type = T;
  CachedAllocator() = default;
  template <typename U> CachedAllocator(const CachedAllocator<U> &) {}
  T *allocate(size_t N) {
    return static_cast<T *>(allocateBufferMemory(N * sizeof(T)));
  }
  void deallocate(T *P, size_t N) { freeBufferMemory(P, N * sizeof(T)); }
  template <typename U> bool operator==(const CachedAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const CachedAllocator<U> &) const {
    return false;
  }
};
} // namespace

// C-order byte strides for S, into Strides (resized).
static void fillContiguousStrides(Shape &Strides, llvm::ArrayRef<int64_t> S,
                                  size_t ElementSize) {
  Strides.resize(S.size());
  int64_t Step = ElementSize;
  for (size_t I = S.size(); I-- > 0;) {
    Strides[I] = Step;
    // Strides of an array with a 0 dim are never used to reach memory, so a
    // product that overflows may saturate instead of being undefined.
    if (__builtin_mul_overflow(Step, std::max<int64_t>(S[I], 1), &Step))
      Step = INT64_MAX;
  }
}

Shape graphjit::contiguousStrides(const Shape &S, size_t ElementSize) {
  Shape Strides;
  fillContiguousStrides(Strides, S, ElementSize);
  return Strides;
}

Expected<int64_t> graphjit::checkedNumElements(const Shape &S,
                                               size_t ElementSize) {
  for (int64_t D : S)
    if (D < 0)
      return llvm::createStringError("negative dimension in shape " +
                                     shapeStr(S));
  for (int64_t D : S)
    if (D == 0) // No elements, however large the other dims.
      return 0;
  int64_t N = 1;
  for (int64_t D : S) {
    if (__builtin_mul_overflow(N, D, &N))
      return llvm::createStringError("shape " + shapeStr(S) +
                                     " has more elements than fit in 64 bits");
  }
  int64_t Bytes;
  if (__builtin_mul_overflow(N, (int64_t)ElementSize, &Bytes))
    return llvm::createStringError("shape " + shapeStr(S) +
                                   " needs more bytes than fit in 64 bits");
  return N;
}

// The element count of S without allocating: the common case of the
// checked count, falling back to checkedNumElements() for its errors.
static Expected<int64_t> numElementsChecked(llvm::ArrayRef<int64_t> S,
                                            size_t ElementSize) {
  int64_t N = 1, Bytes;
  bool Ok = true;
  for (int64_t D : S)
    Ok &= D >= 0 && !__builtin_mul_overflow(N, D, &N);
  if (Ok && !__builtin_mul_overflow(N, int64_t(ElementSize), &Bytes))
    return N;
  return checkedNumElements(Shape(S.begin(), S.end()), ElementSize);
}

Error NDArray::allocate(DType T, llvm::ArrayRef<int64_t> S,
                       Buffer::InitKind Init) {
  Expected<int64_t> N = numElementsChecked(S, dtypeSize(T));
  if (!N)
    return N.takeError();
  size_t Bytes = size_t(*N) * dtypeSize(T);
  void *Memory = tryAllocateBufferMemory(Bytes);
  if (!Memory)
    return llvm::createStringError(
        "out of memory: cannot allocate " + llvm::Twine(Bytes) +
        " bytes for a " + dtypeName(T) + " array of shape " +
        shapeStr(Shape(S.begin(), S.end())));
  Store = std::allocate_shared<Buffer>(CachedAllocator<Buffer>(),
                                      Buffer::AdoptTag{}, Memory, Bytes, Init);
  Ptr = static_cast<char *>(Store->data());
  Dtype = T;
  // Element by element (emptyInto(A, T, A.shape()) copies onto itself).
  Dims.resize(S.size());
  for (unsigned I = 0; I < S.size(); ++I)
    Dims[I] = S[I];
  fillContiguousStrides(Steps, Dims, dtypeSize(T));
  return Error::success();
}

Expected<NDArray> NDArray::create(DType T, const Shape &S) {
  NDArray A;
  if (Error E = A.allocate(T, S, Buffer::Zeroed))
    return E;
  return A;
}

Expected<NDArray> NDArray::empty(DType T, const Shape &S) {
  NDArray A;
  if (Error E = A.allocate(T, S, Buffer::Uninitialized))
    return E;
  return A;
}

Error NDArray::emptyInto(NDArray &Out, DType T, llvm::ArrayRef<int64_t> S) {
  return Out.allocate(T, S, Buffer::Uninitialized);
}

void NDArray::borrow(const NDArray &Owner) {
  assert(&Owner != this && "an array cannot borrow from itself");
  // The aliasing constructor with an empty owner: a pointer with no
  // control block.
  Store = std::shared_ptr<Buffer>(std::shared_ptr<Buffer>(), Owner.Store.get());
  Ptr = Owner.Ptr;
  Dtype = Owner.Dtype;
  // Element by element: cheaper than vector's memmove for a few dims.
  unsigned Rank = Owner.Dims.size();
  Dims.resize(Rank);
  Steps.resize(Rank);
  for (unsigned I = 0; I < Rank; ++I) {
    Dims[I] = Owner.Dims[I];
    Steps[I] = Owner.Steps[I];
  }
}

NDArray NDArray::zeros(DType T, const Shape &S) {
  return llvm::cantFail(create(T, S));
}

NDArray NDArray::scalar(DType T, double V) {
  NDArray A = zeros(T, {});
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    *A.dataAs<E>() = static_cast<E>(V);
  });
  return A;
}

NDArray NDArray::wrap(void *Data, DType T, const Shape &S,
                      const Shape &ByteStrides) {
  NDArray A;
  A.Store = std::make_shared<Buffer>(Data, 0);
  A.Ptr = static_cast<char *>(Data);
  A.Dtype = T;
  A.Dims = S;
  A.Steps = ByteStrides;
  return A;
}

void NDArray::wrapInto(NDArray &Out, void *Data, DType T,
                       llvm::ArrayRef<int64_t> S,
                       llvm::ArrayRef<int64_t> ByteStrides) {
  Buffer *B = Out.Store.get();
  if (B && Out.Store.use_count() == 1 && !B->Owned && !B->Device && !B->Tag)
    B->Data = Data;
  else
    Out.Store = std::make_shared<Buffer>(Data, 0);
  Out.Ptr = static_cast<char *>(Data);
  Out.Dtype = T;
  Out.Dims.assign(S.begin(), S.end());
  Out.Steps.assign(ByteStrides.begin(), ByteStrides.end());
}

NDArray NDArray::onBuffer(std::shared_ptr<Buffer> B, DType T,
                          const Shape &S) {
  NDArray A;
  A.Ptr = static_cast<char *>(B->data());
  A.Store = std::move(B);
  A.Dtype = T;
  A.Dims = S;
  A.Steps = contiguousStrides(S, dtypeSize(T));
  return A;
}

void NDArray::onBufferInto(NDArray &Out, std::shared_ptr<Buffer> B, DType T,
                           llvm::ArrayRef<int64_t> S) {
  Out.Ptr = static_cast<char *>(B->data());
  Out.Store = std::move(B);
  Out.Dtype = T;
  Out.Dims.assign(S.begin(), S.end());
  fillContiguousStrides(Out.Steps, S, dtypeSize(T));
}

int64_t NDArray::numElements() const { return numElementsOf(Dims); }

bool NDArray::isContiguous() const {
  int64_t Step = elementSize();
  for (size_t I = Dims.size(); I-- > 0;) {
    if (Dims[I] != 1 && Steps[I] != Step)
      return false;
    Step *= Dims[I];
  }
  return true;
}

NDArray NDArray::view(const Shape &NewShape, const Shape &NewStrides,
                      int64_t ByteOffset) const {
  NDArray V = *this;
  V.Dims = NewShape;
  V.Steps = NewStrides;
  V.Ptr = Ptr + ByteOffset;
  return V;
}

int64_t NDArray::byteOffsetOf(int64_t Flat) const {
  int64_t Off = 0;
  for (size_t I = Dims.size(); I-- > 0;) {
    int64_t D = Dims[I];
    Off += (Flat % D) * Steps[I];
    Flat /= D;
  }
  return Off;
}

NDArray NDArray::astype(DType T) const {
  // Every element is written below.
  NDArray R = llvm::cantFail(empty(T, Dims));
  int64_t N = numElements();
  dispatchDType(Dtype, [&](auto SrcTag) {
    using S = typename decltype(SrcTag)::type;
    dispatchDType(T, [&](auto DstTag) {
      using D = typename decltype(DstTag)::type;
      D *Out = R.dataAs<D>();
      if (isContiguous()) {
        const S *In = dataAs<S>();
        for (int64_t I = 0; I < N; ++I)
          Out[I] = static_cast<D>(In[I]);
        return;
      }
      for (int64_t I = 0; I < N; ++I)
        Out[I] = static_cast<D>(
            *reinterpret_cast<const S *>(Ptr + byteOffsetOf(I)));
    });
  });
  return R;
}

NDArray NDArray::copy() const { return astype(Dtype); }

NDArray NDArray::contiguous() const { return isContiguous() ? *this : copy(); }

double NDArray::getDouble(int64_t Flat) const {
  const char *P = Ptr + byteOffsetOf(Flat);
  return dispatchDType(Dtype, [&](auto Tag) -> double {
    using E = typename decltype(Tag)::type;
    return static_cast<double>(*reinterpret_cast<const E *>(P));
  });
}

int64_t NDArray::getInt(int64_t Flat) const {
  const char *P = Ptr + byteOffsetOf(Flat);
  return dispatchDType(Dtype, [&](auto Tag) -> int64_t {
    using E = typename decltype(Tag)::type;
    return static_cast<int64_t>(*reinterpret_cast<const E *>(P));
  });
}

bool NDArray::identical(const NDArray &O) const {
  if (Dtype != O.Dtype || Dims != O.Dims)
    return false;
  int64_t N = numElements();
  for (int64_t I = 0; I < N; ++I) {
    if (isFloat(Dtype)) {
      double A = getDouble(I), B = O.getDouble(I);
      if (!(A == B || (std::isnan(A) && std::isnan(B))))
        return false;
    } else if (getInt(I) != O.getInt(I)) {
      return false;
    }
  }
  return true;
}

static void printElement(llvm::raw_ostream &OS, const NDArray &A, int64_t I) {
  if (A.dtype() == DType::Bool)
    OS << (A.getInt(I) ? "True" : "False");
  else if (!isFloat(A.dtype()))
    OS << A.getInt(I);
  else if (double V = A.getDouble(I); std::isnan(V))
    OS << "nan"; // As NumPy prints it, whatever its sign bit ("-nan").
  else
    OS << llvm::format(A.dtype() == DType::F32 ? "%.8g" : "%.17g", V);
}

std::string NDArray::str(int64_t MaxElements) const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (onDevice())
    return "<device array, dtype=" + std::string(dtypeName(Dtype)) +
           ", shape=" + shapeStr(Dims) + ">";
  int64_t N = numElements();
  if (rank() == 0) {
    printElement(OS, *this, 0);
    return OS.str();
  }
  // Nested brackets in C order, cut after MaxElements elements.
  int64_t Printed = 0;
  std::vector<int64_t> Index(rank(), 0);
  for (unsigned I = 0; I < rank(); ++I)
    OS << '[';
  for (int64_t Flat = 0; Flat < N; ++Flat) {
    if (Printed == MaxElements) {
      OS << "...";
      break;
    }
    printElement(OS, *this, Flat);
    ++Printed;
    // Advance the index; close and open brackets where dims roll over.
    unsigned Closed = 0;
    for (unsigned D = rank(); D-- > 0;) {
      if (++Index[D] < Dims[D])
        break;
      Index[D] = 0;
      ++Closed;
    }
    if (Flat + 1 == N)
      break;
    for (unsigned C = 0; C < Closed; ++C)
      OS << ']';
    OS << (Closed ? ",\n " : ", ");
    for (unsigned C = 0; C < Closed; ++C)
      OS << '[';
  }
  for (unsigned I = 0; I < rank(); ++I)
    OS << ']';
  return OS.str();
}
