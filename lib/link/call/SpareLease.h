//===- SpareLease.h - Working memory kept for the next call -----*- C++ -*-===//
//
// A call that needs scratch objects (arrays, a JIT frame) takes ones that
// earlier calls left in a few spare slots, or makes new ones when other
// calls hold them all, and puts them back cleared. So a steady loop of
// calls makes nothing, concurrent calls never share, and a few threads
// calling at once (a sampler's chains) each find one ready rather than
// making and dropping one per call. A thread starts at a slot of its own
// (graphjit/SpareSlots.h), so the chains do not share a cache line.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_SPARELEASE_H
#define GRAPHJIT_LINK_SPARELEASE_H

#include "graphjit/SpareSlots.h"
#include "llvm/ADT/ArrayRef.h"
#include <atomic>

namespace graphjit {

/// The slot a thread looks in first: threads numbered as they first lease.
unsigned spareHome();

/// T has clear(), called when the lease ends.
template <typename T> class SpareLease {
public:
  /// Make() returns a new T (owned by the lease) when every slot is empty.
  template <typename MakeT>
  SpareLease(llvm::MutableArrayRef<SpareSlot<T>> Slots, MakeT &&Make)
      : Slots(Slots), Home(spareHome() % Slots.size()) {
    for (size_t K = 0; K < Slots.size(); ++K) {
      std::atomic<T *> &S = slot(K);
      if (S.load(std::memory_order_relaxed) &&
          (P = S.exchange(nullptr, std::memory_order_acquire)))
        return;
    }
    P = Make();
  }
  ~SpareLease() {
    P->clear();
    for (size_t K = 0; K < Slots.size(); ++K) {
      T *Empty = nullptr;
      if (slot(K).compare_exchange_strong(Empty, P, std::memory_order_release,
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
  static void release(llvm::MutableArrayRef<SpareSlot<T>> Slots) {
    for (SpareSlot<T> &S : Slots)
      delete S.Held.exchange(nullptr);
  }

private:
  /// The K-th slot this thread tries, from its own (K < size: no division
  /// on the call path).
  std::atomic<T *> &slot(size_t K) {
    size_t I = Home + K;
    return Slots[I < Slots.size() ? I : I - Slots.size()].Held;
  }

  llvm::MutableArrayRef<SpareSlot<T>> Slots;
  size_t Home;
  T *P = nullptr;
};

} // namespace graphjit

#endif
