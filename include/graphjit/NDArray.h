//===- graphjit/NDArray.h - Strided n-dimensional arrays -------*- C++ -*-===//
//
// An NDArray is NumPy's ndarray in C++: a dtype, a shape, byte strides and a
// pointer into a reference-counted buffer. Views (transpose, slices,
// broadcasts) share the buffer and have their own strides; a stride of 0
// repeats an element. Arrays are created C-contiguous, zero-filled by
// create() and zeros(), uninitialised by empty() (for outputs that are
// written in full before anything reads them).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_NDARRAY_H
#define GRAPHJIT_NDARRAY_H

#include "graphjit/DType.h"
#include "graphjit/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace graphjit {

/// Memory owned by one or more arrays. 64-byte aligned; zero-filled unless
/// made with Uninitialized.
class Buffer {
public:
  enum InitKind { Zeroed, Uninitialized };
  explicit Buffer(size_t Bytes, InitKind Init = Zeroed);
  /// Owns Memory, which the buffer allocator gave for Bytes (NDArray's
  /// allocations, which report running out of memory as errors).
  struct AdoptTag {};
  Buffer(AdoptTag, void *Memory, size_t Bytes, InitKind Init);
  /// Wraps caller-owned memory without taking ownership.
  Buffer(void *External, size_t Bytes) : Data(External), Bytes(Bytes) {}
  /// Device memory at Address (the GPU path, lib/gpu/DevicePool.h), which
  /// the host must never read or write; its owner frees it (the shared
  /// pointer's deleter).
  struct OnDeviceTag {};
  Buffer(OnDeviceTag, uint64_t Address, size_t Bytes)
      : Data(reinterpret_cast<void *>(Address)), Bytes(Bytes), Device(true) {}
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  void *data() const { return Data; }
  size_t size() const { return Bytes; }
  bool onDevice() const { return Device; }

private:
  friend class NDArray; // NDArray::wrapInto re-points a wrapper it alone holds.
  void *Data = nullptr;
  size_t Bytes = 0;
  bool Owned = false;
  bool Device = false;
  /// Non-zero when an AllocationObserver saw it allocated (profile_memory).
  uint64_t Tag = 0;
};

class NDArray {
public:
  NDArray() = default;

  /// A new C-contiguous, zero-filled array. Fails if the byte size overflows.
  static llvm::Expected<NDArray> create(DType T, const Shape &S);
  /// As create(), for shapes already known to fit (asserts otherwise).
  static NDArray zeros(DType T, const Shape &S);
  /// As create(), but the elements are uninitialised: for outputs that are
  /// written in full before anything reads them.
  static llvm::Expected<NDArray> empty(DType T, const Shape &S);
  /// As empty(), into Out, reusing the storage of Out's shape and strides:
  /// the only allocation is the buffer's. Out is unchanged on error.
  static llvm::Error emptyInto(NDArray &Out, DType T,
                               llvm::ArrayRef<int64_t> S);
  /// A 0-d array holding V converted to T.
  static NDArray scalar(DType T, double V);
  /// Wraps caller-owned memory; the caller keeps it alive.
  static NDArray wrap(void *Data, DType T, const Shape &S,
                      const Shape &ByteStrides);

  /// As wrap(), into Out, reusing Out's shape and strides and, when Out
  /// alone holds it, its wrapper of caller memory: arguments wrapped anew
  /// on every call (the Python package) allocate nothing.
  static void wrapInto(NDArray &Out, void *Data, DType T,
                       llvm::ArrayRef<int64_t> S,
                       llvm::ArrayRef<int64_t> ByteStrides);

  /// A C-contiguous array on all of B's memory (a device buffer, say).
  static NDArray onBuffer(std::shared_ptr<Buffer> B, DType T, const Shape &S);
  /// As onBuffer(), into Out, reusing Out's shape and strides: planned
  /// values placed anew on every call allocate nothing.
  static void onBufferInto(NDArray &Out, std::shared_ptr<Buffer> B, DType T,
                           llvm::ArrayRef<int64_t> S);

  bool isNull() const { return !Store; }
  /// Whether the elements live in device memory (the GPU path): only GPU
  /// ops and transfers may touch them.
  bool onDevice() const { return Store && Store->onDevice(); }
  /// Makes this array null, dropping its reference to the buffer, but
  /// leaves its shape and strides as they were, so that copying, borrowing
  /// or allocating into it later allocates nothing and rarely resizes: for
  /// arrays reused across calls. Only isNull() is meaningful until then.
  void dropBuffer() {
    Store.reset();
    Ptr = nullptr;
  }
  /// Makes this a non-owning copy of Owner: the same memory, shape and strides,
  /// but no reference to the buffer, so that copying it touches no reference
  /// count. Valid only while Owner's buffer lives: for the arrays handed to an
  /// op during one call (lib/link/call/NodeRunner.h). Copies and views of a
  /// borrowed array borrow too.
  void borrow(const NDArray &Owner);
  /// Whether this array borrows its buffer (see borrow()).
  bool isBorrowed() const { return Store && Store.use_count() == 0; }
  /// If this array borrows the buffer that Owner holds, shares Owner's
  /// ownership of it instead.
  void reown(const NDArray &Owner) {
    if (isBorrowed() && Store == Owner.Store)
      Store = Owner.Store;
  }
  DType dtype() const { return Dtype; }
  unsigned rank() const { return Dims.size(); }
  const Shape &shape() const { return Dims; }
  /// Byte strides, NumPy's convention.
  const Shape &strides() const { return Steps; }
  int64_t dim(unsigned I) const { return Dims[I]; }
  int64_t numElements() const;
  size_t elementSize() const { return dtypeSize(Dtype); }
  size_t numBytes() const { return numElements() * elementSize(); }
  bool isContiguous() const;
  char *data() const { return Ptr; }
  template <typename T> T *dataAs() const { return reinterpret_cast<T *>(Ptr); }
  const std::shared_ptr<Buffer> &buffer() const { return Store; }
  /// True if both arrays may touch the same memory.
  bool sharesBufferWith(const NDArray &O) const { return Store == O.Store; }

  /// A view of the same memory with another shape, strides and start.
  NDArray view(const Shape &NewShape, const Shape &NewStrides,
               int64_t ByteOffset = 0) const;
  /// A C-contiguous copy (always a new buffer).
  NDArray copy() const;
  /// A copy converted to T with C++ conversion semantics (NumPy's astype).
  NDArray astype(DType T) const;
  /// This array if it is already contiguous, else a contiguous copy.
  NDArray contiguous() const;

  /// Element at a flat C-order index, converted to double (for tests and
  /// printing).
  double getDouble(int64_t FlatIndex) const;
  /// Element at a flat C-order index as int64 (exact for integer dtypes).
  int64_t getInt(int64_t FlatIndex) const;
  /// Byte offset of a flat C-order index from data().
  int64_t byteOffsetOf(int64_t FlatIndex) const;

  /// Element-wise equality of dtype, shape and values (NaN equals NaN).
  bool identical(const NDArray &O) const;

  /// NumPy-like text: "array([1., 2.], dtype=float64)"-ish, truncated with
  /// "..." beyond MaxElements.
  std::string str(int64_t MaxElements = 20) const;

private:
  /// Makes this a new C-contiguous array; on error, leaves it unchanged.
  llvm::Error allocate(DType T, llvm::ArrayRef<int64_t> S,
                       Buffer::InitKind Init);

  std::shared_ptr<Buffer> Store;
  char *Ptr = nullptr;
  DType Dtype = DType::F64;
  Shape Dims;
  Shape Steps;
};

/// C-order byte strides for a shape.
Shape contiguousStrides(const Shape &S, size_t ElementSize);
/// Product of dims, or an error naming the shape if it overflows int64 or
/// the byte count overflows.
llvm::Expected<int64_t> checkedNumElements(const Shape &S, size_t ElementSize);

} // namespace graphjit

#endif
