//===- graphjit/SpareSlots.h - Working memory between calls -----*- C++ -*-===//
//
// A Function and a C entry keep the working memory of their last calls in
// a few slots, one per thread of a few calling at once (a sampler's
// chains). Each slot has a cache line of its own, and each thread looks in
// its own slot first: two chains that took and gave back through one line
// paid a transfer of it between cores on every call (ar2's gradient,
// 0.6 -> 1.0 us a call from two threads). lib/link/call/SpareLease.h uses them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_SPARESLOTS_H
#define GRAPHJIT_SPARESLOTS_H

#include <array>
#include <atomic>

namespace graphjit {

template <typename T> struct alignas(64) SpareSlot {
  std::atomic<T *> Held{nullptr};
};

template <typename T> using SpareSlots = std::array<SpareSlot<T>, 4>;

} // namespace graphjit

#endif
