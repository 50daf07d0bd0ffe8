//===- FlatElemwise.h - Large element-wise loops for JIT code ---*- C++ -*-===//
//
// gj_ew_flat, which JIT code calls for the flat loop of an Elemwise over a
// large output (lib/codegen/ElemwiseLowering.cpp): it runs the Apply's
// loop kernel on the runtime's threads in pieces (gj_parallel_for) and
// streams outputs larger than the cache to memory with non-temporal
// stores. Written once here, not as three more functions per kernel
// signature in every module, which had cost a fifth of a small module's
// compile time (docs/BENCHMARKS.md, issue 17).
//
// gj_ew_pack copies a strided line of elements into a unit-stride buffer,
// and gj_ew_unpack back, for the row kernel of a strided row or of a
// column (packed rows and columns): one call in the runtime, not a copy
// loop per operand in every Apply's code.
//
// The call's record is an array of 8-byte words, built on the JIT code's
// stack:
//   [0] the kernel, `void (ptr out, i64 n, ptr in...)`, for the output
//   [1] the same kernel writing elsewhere (for chunks into a buffer):
//       [0] itself, or, in place, the kernel that does not read an input
//       through the output pointer
//   [2] the output, [3] bytes per output element, [4] K, the inputs
//   [5, 5+K) the inputs, [5+K, 5+2K) each input's bytes per element (0:
//       the same element throughout, or unread)
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_FLATELEMWISE_H
#define GRAPHJIT_RUNTIME_FLATELEMWISE_H

#include "runtime/ProfileRuntime.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

extern "C" {
/// Runs the record's kernel over N elements (see above).
void gj_ew_flat(const uint64_t *Record, int64_t N);
/// Copies N elements of Size bytes (1, 2, 4 or 8), Stride bytes apart
/// from Src, to Dst one after another.
void gj_ew_pack(char *Dst, const char *Src, int64_t Stride, int64_t N,
                int64_t Size);
/// The other way: N elements one after another from Src to Dst, Stride
/// bytes apart.
void gj_ew_unpack(char *Dst, const char *Src, int64_t Stride, int64_t N,
                  int64_t Size);
}

namespace graphjit {

/// The most kernel inputs gj_ew_flat takes; JIT code calls a kernel with
/// more directly, on one thread, through the cache.
constexpr unsigned FlatElemwiseMaxInputs = 16;

/// Outputs of at least this many bytes are streamed. The default is half
/// the host's last-level cache (8 MiB if unknown); tests use 0 to stream
/// everything.
uint64_t elemwiseStreamingThreshold();
void setElemwiseStreamingThreshold(uint64_t Bytes);

/// Flat loops over outputs of at least this many bytes are cut into
/// pieces for gj_parallel_for (default 4 MiB; 0: never). How many threads
/// run them is the runtime's (GRAPHJIT_THREADS).
uint64_t elemwiseParallelThreshold();
void setElemwiseParallelThreshold(uint64_t Bytes);

/// Both are read on every call of gj_ew_flat. JIT code calls it from the
/// smaller of the two as they were when the function was compiled.
uint64_t elemwiseFlatCallThreshold();

/// gj_ew_flat, gj_ew_pack and gj_ew_unpack by name, for binding in the
/// JIT.
llvm::ArrayRef<RuntimeSymbol> flatElemwiseSymbols();

} // namespace graphjit

#endif
