//===- SpareLease.h - Working memory kept from one call for the next -*- C++ -*-===//
//
// A call that needs scratch objects (arrays, a JIT frame) takes ones that
// earlier calls left in a few spare slots, or makes new ones when other
// calls hold them all, and puts them back cleared. So a steady loop of
// calls makes nothing, concurrent calls never share, and a few threads
// calling at once (a sampler's chains) each find one ready rather than
// making and dropping one per call.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_SPARELEASE_H
#define GRAPHJIT_LINK_SPARELEASE_H

#include "llvm/ADT/ArrayRef.h"
#include <atomic>

namespace graphjit {

/// T has clear(), called when the lease ends.
template <typename T> class SpareLease {
public:
  /// Make() returns a new T (owned by the lease) when every slot is empty.
  template <typename MakeT>
  SpareLease(llvm::MutableArrayRef<std::atomic<T *>> Slots, MakeT &&Make)
      : Slots(Slots) {
    for (std::atomic<T *> &S : Slots)
      if (S.load(std::memory_order_relaxed) &&
          (P = S.exchange(nullptr, std::memory_order_acquire)))
        return;
    P = Make();
  }
  ~SpareLease() {
    P->clear();
    for (std::atomic<T *> &S : Slots) {
      T *Empty = nullptr;
      if (S.compare_exchange_strong(Empty, P, std::memory_order_release,
                                    std::memory_order_relaxed))
        return;
    }
    delete P;
  }
  SpareLease(const SpareLease &) = delete;
  SpareLease &operator=(const SpareLease &) = delete;
  T &operator*() { return *P; }
  T *operator->() { return P; }

  /// Deletes what the slots hold (their owner is going away).
  static void release(llvm::MutableArrayRef<std::atomic<T *>> Slots) {
    for (std::atomic<T *> &S : Slots)
      delete S.exchange(nullptr);
  }

private:
  llvm::MutableArrayRef<std::atomic<T *>> Slots;
  T *P = nullptr;
};

} // namespace graphjit

#endif
