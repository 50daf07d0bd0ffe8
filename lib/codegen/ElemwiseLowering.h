//===- ElemwiseLowering.h - Tuning of the Elemwise lowering ----*- C++ -*-===//
//
// The knobs of the Elemwise lowering (ElemwiseLowering.cpp): from which
// output size on the flat loop streams its output to memory with
// non-temporal stores instead of writing it through the cache, and from
// which on it runs on several threads (runtime/ParallelRuntime.h).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISELOWERING_H
#define GRAPHJIT_OPS_ELEMWISELOWERING_H

#include <cstdint>

namespace graphjit {

/// Outputs of at least this many bytes are streamed. The default is half
/// the host's last-level cache (8 MiB if unknown).
uint64_t elemwiseStreamingThreshold();
/// Changes it for functions compiled from now on (tests use 0 to stream
/// everything).
void setElemwiseStreamingThreshold(uint64_t Bytes);

/// Flat loops over outputs of at least this many bytes are cut into
/// pieces for gj_parallel_for (default 4 MiB; 0: never, for functions
/// compiled from now on). How many threads run them is the runtime's
/// (GRAPHJIT_THREADS).
uint64_t elemwiseParallelThreshold();
void setElemwiseParallelThreshold(uint64_t Bytes);

} // namespace graphjit

#endif
