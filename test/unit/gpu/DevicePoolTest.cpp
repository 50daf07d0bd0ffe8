//===- DevicePoolTest.cpp - The caching device allocator -----------------===//
//
// The pool on a fake device that only counts (and can run out of memory)
// for exact accounting, and on the emulated device where buffers are real
// memory, for concurrency and the process-wide counters of graphjit/Gpu.h.
//
//===----------------------------------------------------------------------===//

#include "gpu/DevicePool.h"
#include "graphjit/Gpu.h"
#include "gtest/gtest.h"
#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <thread>

using namespace graphjit;
using namespace llvm;

namespace {

/// Hands out addresses it never touches, counting what it is asked for;
/// fails allocations that would exceed Capacity bytes held.
class FakeDevice final : public Device {
public:
  explicit FakeDevice(size_t Capacity = SIZE_MAX) : Capacity(Capacity) {}

  std::string name() const override { return "fake device"; }
  std::string arch() const override { return "sm_90"; }

  Expected<DeviceAddress> rawAlloc(size_t Bytes) override {
    std::lock_guard<std::mutex> Guard(Lock);
    if (Bytes > Capacity - Held)
      return createStringError(inconvertibleErrorCode(), "fake out of memory");
    ++RawAllocs;
    Held += Bytes;
    DeviceAddress A = Next;
    Next += Bytes + 4096;
    Sizes[A] = Bytes;
    return A;
  }
  void rawFree(DeviceAddress Addr) override {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Sizes.find(Addr);
    ASSERT_NE(It, Sizes.end()) << "freeing an unknown block";
    ++RawFrees;
    Held -= It->second;
    Sizes.erase(It);
  }

  Error copyToDevice(DeviceAddress, const void *, size_t) override {
    return unsupported();
  }
  Error copyToHost(void *, DeviceAddress, size_t) override {
    return unsupported();
  }
  Error copyOnDevice(DeviceAddress, DeviceAddress, size_t) override {
    return unsupported();
  }
  Expected<std::vector<KernelHandle>>
  loadKernels(const KernelImage &, ArrayRef<std::string>) override {
    return unsupported();
  }
  Error launch(KernelHandle, uint64_t, ArrayRef<uint64_t>) override {
    return unsupported();
  }
  Error gemm(const DeviceGemm &) override { return unsupported(); }
  Expected<TimerMark> mark() override { return unsupported(); }
  Expected<double> elapsedSeconds(TimerMark, TimerMark) override {
    return unsupported();
  }
  void resetMarks() override {}
  Error synchronize() override { return Error::success(); }

  std::mutex Lock;
  size_t Capacity, Held = 0;
  unsigned RawAllocs = 0, RawFrees = 0;
  DeviceAddress Next = 0x100000;
  std::map<DeviceAddress, size_t> Sizes;

private:
  static Error unsupported() {
    return createStringError(inconvertibleErrorCode(), "not on a fake");
  }
};

std::shared_ptr<Buffer> allocOrDie(DevicePool &P, size_t Bytes) {
  Expected<std::shared_ptr<Buffer>> B = P.allocate(Bytes);
  EXPECT_TRUE(bool(B)) << toString(B.takeError());
  return B ? *B : nullptr;
}

DeviceAddress addressOf(const std::shared_ptr<Buffer> &B) {
  return reinterpret_cast<DeviceAddress>(B->data());
}

} // namespace

TEST(DevicePool, SizeClasses) {
  const size_t MiB = 1 << 20;
  EXPECT_EQ(DevicePool::roundUp(0), 512u);
  EXPECT_EQ(DevicePool::roundUp(1), 512u);
  EXPECT_EQ(DevicePool::roundUp(512), 512u);
  EXPECT_EQ(DevicePool::roundUp(513), 1024u);
  EXPECT_EQ(DevicePool::roundUp(MiB - 1), MiB);
  EXPECT_EQ(DevicePool::roundUp(MiB), MiB);
  EXPECT_EQ(DevicePool::roundUp(MiB + 1), 2 * MiB);
  EXPECT_EQ(DevicePool::roundUp(2 * MiB), 2 * MiB);
  EXPECT_EQ(DevicePool::roundUp(2 * MiB + 1), 4 * MiB);
  EXPECT_EQ(DevicePool::roundUp(5 * MiB), 6 * MiB);
}

TEST(DevicePool, ReusesFreedBlocksOfTheSameClass) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::shared_ptr<Buffer> A = allocOrDie(*P, 1000);
  ASSERT_TRUE(A);
  EXPECT_TRUE(A->onDevice());
  EXPECT_EQ(A->size(), 1000u);
  DeviceAddress First = addressOf(A);
  A.reset();
  EXPECT_EQ(D.RawFrees, 0u) << "a freed block is cached, not freed";

  // 600 bytes is the same class (1024): the cached block, no new one.
  std::shared_ptr<Buffer> B = allocOrDie(*P, 600);
  EXPECT_EQ(addressOf(B), First);
  EXPECT_EQ(D.RawAllocs, 1u);
  // 2000 bytes is another class: a new block.
  std::shared_ptr<Buffer> C = allocOrDie(*P, 2000);
  EXPECT_NE(addressOf(C), First);
  EXPECT_EQ(D.RawAllocs, 2u);
  EXPECT_EQ(D.Sizes[addressOf(C)], 2048u) << "blocks are size-class sized";

  GpuMemoryStats S = P->stats();
  EXPECT_EQ(S.Allocations, 3u);
  EXPECT_EQ(S.CacheHits, 1u);
  EXPECT_EQ(S.DeviceAllocations, 2u);
}

TEST(DevicePool, ZeroBytesGetDistinctBlocks) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::shared_ptr<Buffer> A = allocOrDie(*P, 0), B = allocOrDie(*P, 0);
  EXPECT_NE(addressOf(A), addressOf(B));
  EXPECT_EQ(P->stats().Allocated, 0u);
  EXPECT_EQ(P->stats().Reserved, 1024u);
}

TEST(DevicePool, CountsLiveReservedAndPeaksExactly) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::shared_ptr<Buffer> A = allocOrDie(*P, 100);  // class 512
  std::shared_ptr<Buffer> B = allocOrDie(*P, 3000); // class 3072
  GpuMemoryStats S = P->stats();
  EXPECT_EQ(S.Allocated, 3100u);
  EXPECT_EQ(S.PeakAllocated, 3100u);
  EXPECT_EQ(S.Reserved, 512u + 3072u);
  EXPECT_EQ(S.PeakReserved, 512u + 3072u);

  B.reset();
  S = P->stats();
  EXPECT_EQ(S.Allocated, 100u);
  EXPECT_EQ(S.PeakAllocated, 3100u);
  EXPECT_EQ(S.Reserved, 512u + 3072u) << "the freed block is still held";

  std::shared_ptr<Buffer> C = allocOrDie(*P, 2900); // class 3072: cached
  S = P->stats();
  EXPECT_EQ(S.Allocated, 3000u);
  EXPECT_EQ(S.PeakAllocated, 3100u);
  EXPECT_EQ(S.Reserved, 512u + 3072u);
  EXPECT_EQ(S.Allocations, 3u);
  EXPECT_EQ(S.CacheHits, 1u);
  EXPECT_EQ(S.DeviceAllocations, 2u);

  A.reset();
  C.reset();
  S = P->stats();
  EXPECT_EQ(S.Allocated, 0u);
  EXPECT_EQ(S.Reserved, 512u + 3072u);
  P->releaseCached();
  S = P->stats();
  EXPECT_EQ(S.Reserved, 0u);
  EXPECT_EQ(S.PeakReserved, 512u + 3072u);
  EXPECT_EQ(D.RawFrees, 2u);
  EXPECT_EQ(D.Held, 0u);
}

TEST(DevicePool, ResetPeaksStartsFromTheCurrentValues) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::shared_ptr<Buffer> A = allocOrDie(*P, 4096);
  std::shared_ptr<Buffer> B = allocOrDie(*P, 8192);
  B.reset();
  P->resetPeaks();
  GpuMemoryStats S = P->stats();
  EXPECT_EQ(S.PeakAllocated, 4096u);
  EXPECT_EQ(S.PeakReserved, 4096u + 8192u);
  EXPECT_EQ(S.Allocations, 2u) << "only the peaks are reset";

  P->releaseCached();
  P->resetPeaks();
  EXPECT_EQ(P->stats().PeakReserved, 4096u);
  std::shared_ptr<Buffer> C = allocOrDie(*P, 1000);
  S = P->stats();
  EXPECT_EQ(S.PeakAllocated, 5096u);
  EXPECT_EQ(S.PeakReserved, 4096u + 1024u);
}

TEST(DevicePool, ReleaseCachedReturnsEveryFreeBlock) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::vector<std::shared_ptr<Buffer>> Bs;
  const size_t Sizes[] = {10, 10, 700, 5000, size_t(3) << 20};
  for (size_t Bytes : Sizes)
    Bs.push_back(allocOrDie(*P, Bytes));
  std::shared_ptr<Buffer> Live = allocOrDie(*P, 64);
  Bs.clear();
  EXPECT_EQ(D.RawAllocs, 6u);
  EXPECT_EQ(D.RawFrees, 0u);
  P->releaseCached();
  EXPECT_EQ(D.RawFrees, 5u);
  EXPECT_EQ(P->stats().Reserved, 512u) << "the live block stays";
  Live.reset();
  P->releaseCached();
  EXPECT_EQ(D.RawFrees, 6u);
  EXPECT_EQ(D.Held, 0u);
}

TEST(DevicePool, OutOfMemoryReleasesTheCacheAndRetries) {
  FakeDevice D(4096);
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  allocOrDie(*P, 2000).reset(); // A cached 2048-byte block.
  // 3072 more would exceed 4096: the pool frees its cache and tries again.
  std::shared_ptr<Buffer> B = allocOrDie(*P, 3000);
  ASSERT_TRUE(B);
  EXPECT_EQ(D.RawFrees, 1u);
  EXPECT_EQ(D.RawAllocs, 2u);
  GpuMemoryStats S = P->stats();
  EXPECT_EQ(S.Reserved, 3072u);
  EXPECT_EQ(S.Allocated, 3000u);

  // Nothing cached to give back: the error says what and where.
  Expected<std::shared_ptr<Buffer>> C = P->allocate(2000);
  ASSERT_FALSE(bool(C));
  std::string Msg = toString(C.takeError());
  EXPECT_NE(Msg.find("cannot allocate 2000 bytes on fake device"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("fake out of memory"), std::string::npos) << Msg;
  S = P->stats();
  EXPECT_EQ(S.Allocated, 3000u) << "a failure counts nothing";
  EXPECT_EQ(S.Allocations, 2u);
}

TEST(DevicePool, BuffersKeepTheirPoolAlive) {
  FakeDevice D;
  std::shared_ptr<DevicePool> P = DevicePool::create(D);
  std::weak_ptr<DevicePool> Weak = P;
  std::shared_ptr<Buffer> A = allocOrDie(*P, 256);
  P.reset();
  EXPECT_FALSE(Weak.expired()) << "the buffer holds the pool";
  EXPECT_EQ(D.RawFrees, 0u);
  A.reset();
  // The last buffer gave its block back to the pool, which then ended and
  // returned everything to the device.
  EXPECT_TRUE(Weak.expired());
  EXPECT_EQ(D.RawFrees, 1u);
  EXPECT_EQ(D.Held, 0u);
}

TEST(DevicePool, EmptyMakesADeviceArray) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  std::shared_ptr<DevicePool> P = DevicePool::create(*D);
  Expected<NDArray> A = P->empty(DType::F32, {3, 4});
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_TRUE(A->onDevice());
  EXPECT_EQ(A->shape(), (Shape{3, 4}));
  EXPECT_EQ(A->strides(), (Shape{16, 4}));
  EXPECT_EQ(A->dtype(), DType::F32);
  EXPECT_EQ(P->stats().Allocated, 48u);
  *A = NDArray();
  EXPECT_EQ(P->stats().Allocated, 0u);

  Expected<NDArray> Huge =
      P->empty(DType::F64, {int64_t(1) << 40, int64_t(1) << 40});
  EXPECT_FALSE(bool(Huge));
  consumeError(Huge.takeError());
}

TEST(DevicePool, ConcurrentAllocationsEndAtZero) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  std::shared_ptr<DevicePool> P = DevicePool::create(*D);
  constexpr int Threads = 4, Rounds = 2000;
  std::atomic<int> Failures{0};
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back([&, T] {
      std::mt19937 Rng(T);
      std::vector<std::shared_ptr<Buffer>> Held;
      for (int R = 0; R < Rounds; ++R) {
        size_t Bytes = Rng() % 5000;
        Expected<std::shared_ptr<Buffer>> B = P->allocate(Bytes);
        if (!B) {
          consumeError(B.takeError());
          ++Failures;
          continue;
        }
        // Emulated device memory is host memory: use all of it, so that
        // AddressSanitizer sees two threads sharing a block.
        std::memset((*B)->data(), T, Bytes);
        Held.push_back(std::move(*B));
        if (Held.size() > 8 || Rng() % 2)
          Held.erase(Held.begin() + Rng() % Held.size());
      }
    });
  for (std::thread &T : Ts)
    T.join();
  EXPECT_EQ(Failures.load(), 0);
  GpuMemoryStats S = P->stats();
  EXPECT_EQ(S.Allocated, 0u);
  EXPECT_EQ(S.Allocations, uint64_t(Threads) * Rounds);
  EXPECT_EQ(S.CacheHits + S.DeviceAllocations, S.Allocations);
  EXPECT_GT(S.CacheHits, 0u);
  EXPECT_LE(S.PeakAllocated, uint64_t(Threads) * 9 * 5000);
  P->releaseCached();
  EXPECT_EQ(P->stats().Reserved, 0u);
}

TEST(DevicePool, GpuAllocatedFollowsLiveArrays) {
  Expected<DevicePool &> P = devicePool(DeviceKind::CudaEmulated);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  Expected<DevicePool &> Again = devicePool(DeviceKind::CudaEmulated);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(&*P, &*Again) << "one pool per device";
  Expected<Device &> D = openDevice(DeviceKind::CudaEmulated);
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(&P->device(), &*D);

  uint64_t Before = gpu_allocated();
  gpu_reset_peak();
  {
    Expected<NDArray> A = P->empty(DType::F64, {100});
    ASSERT_TRUE(bool(A)) << toString(A.takeError());
    EXPECT_EQ(gpu_allocated(), Before + 800);
    NDArray View = *A; // Another reference to the same buffer.
    *A = NDArray();
    EXPECT_EQ(gpu_allocated(), Before + 800) << "the view keeps it alive";
    Expected<NDArray> B = P->empty(DType::F32, {10, 10});
    ASSERT_TRUE(bool(B));
    EXPECT_EQ(gpu_allocated(), Before + 1200);
    EXPECT_EQ(gpu_memory_stats().Allocated, Before + 1200);
  }
  EXPECT_EQ(gpu_allocated(), Before);
  EXPECT_EQ(gpu_peak_allocated(), Before + 1200);
  EXPECT_GT(gpu_memory_stats().Reserved, 0u);
  gpu_reset_peak();
  EXPECT_EQ(gpu_peak_allocated(), Before);
  gpu_empty_cache();
  if (P->stats().Allocated == 0) {
    EXPECT_EQ(P->stats().Reserved, 0u) << "every block was cached";
  }
}
