//===- ParallelRuntime.cpp - Large loops on several threads ---------------===//

#include "runtime/ParallelRuntime.h"
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

using namespace graphjit;

namespace {

/// Workers that sleep until a loop is posted, each then running the
/// pieces it takes, and the caller's lock (one loop at a time).
class WorkerPool {
public:
  explicit WorkerPool(unsigned Workers)
      : NumWorkers(Workers), Pieces(Workers + 1) {
    for (unsigned I = 0; I < Workers; ++I)
      std::thread([this] { work(); }).detach();
  }

  /// Runs Body over [0, N) in pieces, or returns false (the pool is busy,
  /// or has no workers) having run nothing.
  bool run(void (*Body)(void *, int64_t, int64_t), void *Ctx, int64_t N,
           int64_t Align) {
    std::unique_lock<std::mutex> Caller(CallerLock, std::try_to_lock);
    if (!Caller || NumWorkers == 0)
      return false;
    {
      std::lock_guard<std::mutex> G(Lock);
      this->Body = Body;
      this->Ctx = Ctx;
      this->N = N;
      this->Align = std::max<int64_t>(Align, 1);
      Unfinished = Pieces - 1;
      // Released after the loop's fields: a worker that takes a piece
      // (acquiring) reads them, even one that never waited on Posted.
      NextPiece.store(1, std::memory_order_release);
      ++Generation;
    }
    Posted.notify_all();
    runPiece(0);
    // Pieces the workers have not started yet, the caller takes too.
    for (unsigned P; (P = NextPiece.fetch_add(1, std::memory_order_acq_rel)) <
                      Pieces;)
      finish(P);
    std::unique_lock<std::mutex> G(Lock);
    Finished.wait(G, [&] { return Unfinished == 0; });
    return true;
  }

private:
  std::mutex CallerLock;
  std::mutex Lock;
  std::condition_variable Posted, Finished;
  const unsigned NumWorkers;
  const unsigned Pieces; ///< One per thread, the caller's included.
  uint64_t Generation = 0;
  // The loop posted (under Lock).
  void (*Body)(void *, int64_t, int64_t) = nullptr;
  void *Ctx = nullptr;
  int64_t N = 0, Align = 1;
  unsigned Unfinished = 0;
  std::atomic<unsigned> NextPiece{0};

  /// Piece P's range: equal shares, each boundary a multiple of Align.
  void runPiece(unsigned P) {
    auto Boundary = [&](unsigned K) {
      if (K >= Pieces)
        return N;
      int64_t At = int64_t((__int128)N * K / Pieces);
      return std::min(N, At - At % Align);
    };
    int64_t Begin = Boundary(P), End = Boundary(P + 1);
    if (Begin < End)
      Body(Ctx, Begin, End);
  }

  void finish(unsigned P) {
    runPiece(P);
    std::lock_guard<std::mutex> G(Lock);
    if (--Unfinished == 0)
      Finished.notify_one();
  }

  void work() {
    uint64_t Seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> G(Lock);
        Posted.wait(G, [&] { return Generation != Seen; });
        Seen = Generation;
      }
      for (unsigned P;
           (P = NextPiece.fetch_add(1, std::memory_order_acq_rel)) < Pieces;)
        finish(P);
    }
  }
};

unsigned configuredThreads() {
  if (const char *Env = std::getenv("GRAPHJIT_THREADS")) {
    long T = std::strtol(Env, nullptr, 10);
    if (T >= 1)
      return unsigned(std::min<long>(T, 256));
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

std::atomic<WorkerPool *> Pool{nullptr};

/// The process's pool, started on first use. Pools are never freed: a
/// worker may still be waking from the last loop. A child after fork()
/// has none of its parent's threads, so it forgets that pool.
WorkerPool &pool() {
  WorkerPool *P = Pool.load(std::memory_order_acquire);
  if (P)
    return *P;
  static std::mutex Starting;
  std::lock_guard<std::mutex> G(Starting);
  P = Pool.load(std::memory_order_acquire);
  if (!P) {
    static bool AtFork = [] {
      return pthread_atfork(nullptr, nullptr, [] {
               Pool.store(nullptr, std::memory_order_relaxed);
             }) == 0;
    }();
    (void)AtFork;
    P = new WorkerPool(configuredThreads() - 1);
    Pool.store(P, std::memory_order_release);
  }
  return *P;
}

} // namespace

extern "C" void gj_parallel_for(void (*Body)(void *, int64_t, int64_t),
                                void *Ctx, int64_t N, int64_t Align) {
  if (N <= 0)
    return;
  if (!pool().run(Body, Ctx, N, Align))
    Body(Ctx, 0, N);
}

unsigned ParallelRuntime::threads() { return configuredThreads(); }

llvm::ArrayRef<RuntimeSymbol> ParallelRuntime::symbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_parallel_for", reinterpret_cast<void *>(&gj_parallel_for)},
  };
  return Symbols;
}
