//===- SpareLease.cpp - Each thread's first slot --------------------------===//

#include "link/call/SpareLease.h"

unsigned graphjit::spareHome() {
  static std::atomic<unsigned> Threads{0};
  static thread_local unsigned Home =
      Threads.fetch_add(1, std::memory_order_relaxed);
  return Home;
}
