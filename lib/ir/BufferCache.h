//===- BufferCache.h - Recycling small array buffers per thread -*- C++ -*-===//
//
// Calling a compiled function makes and frees the same few small buffers
// over and over, and glibc's aligned_alloc is slow for them (it carves each
// from a larger chunk and frees the rest). Buffers of up to 4 KiB come in
// power-of-two classes from 64 bytes and are recycled through short
// per-thread free lists. From 256 KiB on, a few freed buffers are kept
// (up to 8, 1 GiB in all) and reused for the same size: glibc would hand
// them back to the system, and a fresh buffer page-faults on every page
// it writes (Theano kept buffers between calls for the same reason). Under
// AddressSanitizer or MemorySanitizer nothing is recycled, so that they
// still see every use after free and every read of memory never written.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GRAPH_BUFFERCACHE_H
#define GRAPHJIT_GRAPH_BUFFERCACHE_H

#include <cstddef>

namespace graphjit {

/// 64-byte aligned memory of at least Bytes bytes (Bytes may be 0), its
/// contents undefined. Stops the process when the system has no more.
void *allocateBufferMemory(size_t Bytes);
/// The same, or null when the memory cannot be had (allocateBufferMemory
/// then stops the process; arrays that may be large use this and report).
void *tryAllocateBufferMemory(size_t Bytes);
/// Frees what allocateBufferMemory(Bytes) returned, with the same Bytes.
void freeBufferMemory(void *P, size_t Bytes);
/// The bytes allocateBufferMemory(Bytes) makes usable (memset may clear
/// them all).
size_t bufferCapacity(size_t Bytes);

} // namespace graphjit

#endif
