//===- FlatElemwise.cpp - Large element-wise loops for JIT code -----------===//

#include "runtime/FlatElemwise.h"
#include "runtime/ParallelRuntime.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <unistd.h>
#include <utility>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace graphjit;

namespace {

// The chunks a streamed loop computes into a buffer on the stack: small
// enough to stay in L1, a whole number of cache lines.
constexpr int64_t ChunkBytes = 1024;
constexpr int64_t LineBytes = 64;

// Outputs from half the last-level cache on are streamed: they would
// evict most of it anyway (memcpy's rule is similar).
std::atomic<uint64_t> &streamingBytes() {
  static std::atomic<uint64_t> Bytes([] {
    long LLC = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    LLC = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return LLC > 0 ? uint64_t(LLC) / 2 : uint64_t(8) << 20;
  }());
  return Bytes;
}

// Below a couple of MiB the pieces' wake-up costs more than a second
// core gains (measured: docs/BENCHMARKS.md, "Threads").
std::atomic<uint64_t> ParallelBytes{uint64_t(4) << 20};

template <size_t> using Ptr = void *;

/// Calls a kernel of K inputs, K the length of the index sequence.
template <size_t... I>
void callWith(uint64_t Kernel, char *Out, int64_t N, char *const *In,
              std::index_sequence<I...>) {
  using Fn = void (*)(void *, int64_t, Ptr<I>...);
  reinterpret_cast<Fn>(Kernel)(Out, N, In[I]...);
}

template <size_t K>
void callArity(uint64_t Kernel, char *Out, int64_t N, char *const *In) {
  callWith(Kernel, Out, N, In, std::make_index_sequence<K>());
}

using Caller = void (*)(uint64_t, char *, int64_t, char *const *);

template <size_t... K>
constexpr std::array<Caller, sizeof...(K)> callers(std::index_sequence<K...>) {
  return {&callArity<K>...};
}

/// The caller of a kernel of K inputs, for K up to the most.
constexpr std::array<Caller, FlatElemwiseMaxInputs + 1> Callers =
    callers(std::make_index_sequence<FlatElemwiseMaxInputs + 1>());

/// The record, decoded.
struct FlatCall {
  uint64_t Kernel, Plain;
  char *Out;
  int64_t OutBytes;
  unsigned K;
  Caller Call;
  char *In[FlatElemwiseMaxInputs];
  int64_t Step[FlatElemwiseMaxInputs];

  explicit FlatCall(const uint64_t *R)
      : Kernel(R[0]), Plain(R[1]), Out(reinterpret_cast<char *>(R[2])),
        OutBytes(int64_t(R[3])), K(unsigned(R[4])) {
    // JIT code calls kernels of more inputs directly (ElemwiseLowering).
    if (K > FlatElemwiseMaxInputs)
      llvm::report_fatal_error("gj_ew_flat: a kernel of too many inputs");
    Call = Callers[K];
    for (unsigned I = 0; I < K; ++I) {
      In[I] = reinterpret_cast<char *>(R[5 + I]);
      Step[I] = int64_t(R[5 + K + I]);
    }
  }

  /// Kern (the record's Kernel or Plain) over N elements from element
  /// Begin, writing to Dst.
  void run(uint64_t Kern, char *Dst, int64_t Begin, int64_t N) const {
    char *At[FlatElemwiseMaxInputs];
    for (unsigned I = 0; I < K; ++I)
      At[I] = In[I] ? In[I] + Begin * Step[I] : nullptr;
    Call(Kern, Dst, N, At);
  }
};

// A line of the buffer to the output, bypassing the cache.
void streamLine(char *Dst, const char *Src) {
#if defined(__x86_64__)
  for (int64_t B = 0; B < LineBytes; B += 16)
    _mm_stream_si128(reinterpret_cast<__m128i *>(Dst + B),
                     _mm_load_si128(reinterpret_cast<const __m128i *>(Src + B)));
#else
  std::memcpy(Dst, Src, LineBytes);
#endif
}

// Elements [Begin, End): chunks computed into a buffer on the stack and
// streamed out a line at a time (the vectorized kernel's element stores
// cannot be non-temporal), then the rest in place.
void streamRange(const FlatCall &C, int64_t Begin, int64_t End) {
  alignas(LineBytes) char Chunk[ChunkBytes];
  int64_t PerChunk = ChunkBytes / C.OutBytes;
  int64_t I = Begin;
  for (; End - I >= PerChunk; I += PerChunk) {
    C.run(C.Plain, Chunk, I, PerChunk);
    char *Dst = C.Out + I * C.OutBytes;
    for (int64_t L = 0; L < ChunkBytes; L += LineBytes)
      streamLine(Dst + L, Chunk + L);
  }
  C.run(C.Kernel, C.Out + I * C.OutBytes, I, End - I);
  // Non-temporal stores are weakly ordered: visible before anything after
  // the Apply (another thread, say) looks at the output.
#if defined(__x86_64__)
  _mm_sfence();
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void runRange(const FlatCall &C, int64_t Begin, int64_t End) {
  char *Dst = C.Out + Begin * C.OutBytes;
  uint64_t Bytes = uint64_t(End - Begin) * uint64_t(C.OutBytes);
  // Cache-line-aligned outputs only (prepare()'s and the plan's are).
  if (Bytes >= streamingBytes().load(std::memory_order_relaxed) &&
      reinterpret_cast<uintptr_t>(Dst) % LineBytes == 0)
    return streamRange(C, Begin, End);
  C.run(C.Kernel, Dst, Begin, End - Begin);
}

void runPiece(void *Ctx, int64_t Begin, int64_t End) {
  runRange(*static_cast<const FlatCall *>(Ctx), Begin, End);
}

} // namespace

extern "C" void gj_ew_flat(const uint64_t *Record, int64_t N) {
  FlatCall C(Record);
  uint64_t Parallel = ParallelBytes.load(std::memory_order_relaxed);
  if (Parallel && uint64_t(N) * uint64_t(C.OutBytes) >= Parallel)
    // Pieces a whole number of cache lines of the output each.
    return gj_parallel_for(&runPiece, &C, N,
                           std::max<int64_t>(1, LineBytes / C.OutBytes));
  runRange(C, 0, N);
}

namespace {
// Pack: Src steps by Stride bytes, Dst by one element; unpack the other
// way. The unit side's stride is a constant, which the loop needs to run
// at a store an element (a run-time stride on both sides cost packed rows
// a fifth of their time).
template <bool Pack, typename T>
void copyElements(char *Dst, const char *Src, int64_t Stride, int64_t N) {
  for (int64_t I = 0; I < N; ++I)
    std::memcpy(Dst + I * (Pack ? int64_t(sizeof(T)) : Stride),
                Src + I * (Pack ? Stride : int64_t(sizeof(T))), sizeof(T));
}

template <bool Pack>
void copyLine(char *Dst, const char *Src, int64_t Stride, int64_t N,
              int64_t Size) {
  switch (Size) {
  case 8: return copyElements<Pack, uint64_t>(Dst, Src, Stride, N);
  case 4: return copyElements<Pack, uint32_t>(Dst, Src, Stride, N);
  case 2: return copyElements<Pack, uint16_t>(Dst, Src, Stride, N);
  default: return copyElements<Pack, uint8_t>(Dst, Src, Stride, N);
  }
}
} // namespace

extern "C" void gj_ew_pack(char *Dst, const char *Src, int64_t Stride,
                           int64_t N, int64_t Size) {
  copyLine</*Pack=*/true>(Dst, Src, Stride, N, Size);
}

extern "C" void gj_ew_unpack(char *Dst, const char *Src, int64_t Stride,
                             int64_t N, int64_t Size) {
  copyLine</*Pack=*/false>(Dst, Src, Stride, N, Size);
}

uint64_t graphjit::elemwiseStreamingThreshold() {
  return streamingBytes().load();
}

void graphjit::setElemwiseStreamingThreshold(uint64_t Bytes) {
  streamingBytes().store(Bytes);
}

uint64_t graphjit::elemwiseParallelThreshold() { return ParallelBytes.load(); }

void graphjit::setElemwiseParallelThreshold(uint64_t Bytes) {
  ParallelBytes.store(Bytes);
}

uint64_t graphjit::elemwiseFlatCallThreshold() {
  uint64_t Parallel = elemwiseParallelThreshold();
  uint64_t Streaming = elemwiseStreamingThreshold();
  return Parallel ? std::min(Parallel, Streaming) : Streaming;
}

llvm::ArrayRef<RuntimeSymbol> graphjit::flatElemwiseSymbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_ew_flat", reinterpret_cast<void *>(&gj_ew_flat)},
      {"gj_ew_pack", reinterpret_cast<void *>(&gj_ew_pack)},
      {"gj_ew_unpack", reinterpret_cast<void *>(&gj_ew_unpack)},
  };
  return Symbols;
}
