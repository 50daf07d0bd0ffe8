//===- SpareLease.h - Working memory kept from one call for the next -*- C++ -*-===//
//
// A call that needs scratch objects (arrays, a JIT frame) takes the ones
// the last call left in a spare slot, or makes new ones when another call
// has them, and puts them back cleared. So a steady loop of calls makes
// nothing, and concurrent calls never share.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_SPARELEASE_H
#define GRAPHJIT_LINK_SPARELEASE_H

#include <atomic>

namespace graphjit {

/// T has clear(), called when the lease ends.
template <typename T> class SpareLease {
public:
  /// Make() returns a new T (owned by the lease) when the slot is empty.
  template <typename MakeT>
  SpareLease(std::atomic<T *> &Spare, MakeT &&Make)
      : Spare(Spare), P(Spare.exchange(nullptr, std::memory_order_acquire)) {
    if (!P)
      P = Make();
  }
  ~SpareLease() {
    P->clear();
    T *Empty = nullptr;
    if (!Spare.compare_exchange_strong(Empty, P, std::memory_order_release,
                                       std::memory_order_relaxed))
      delete P;
  }
  SpareLease(const SpareLease &) = delete;
  SpareLease &operator=(const SpareLease &) = delete;
  T &operator*() { return *P; }
  T *operator->() { return P; }

private:
  std::atomic<T *> &Spare;
  T *P;
};

} // namespace graphjit

#endif
