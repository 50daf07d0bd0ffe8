//===- AllocationObserver.h - Watching array buffers come and go -*- C++ -*-===//
//
// Every array buffer the runtime makes goes through Buffer's constructor and
// destructor (NDArray.h), which the IR layer builds on this hook. While a
// function runs under profile_memory, the
// memory runtime (runtime/MemoryRuntime.h) installs an observer on the
// calling thread and sees each buffer allocated and freed there. The
// observer tags the buffers it sees allocated, so that freeing a buffer
// made elsewhere (by another call, another thread, before the call) is not
// counted against the call.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_ALLOCATIONOBSERVER_H
#define GRAPHJIT_RUNTIME_ALLOCATIONOBSERVER_H

#include <cstddef>
#include <cstdint>

namespace graphjit {

class AllocationObserver {
public:
  virtual ~AllocationObserver();
  /// A buffer of Bytes was allocated; returns its tag (0: not watched).
  virtual uint64_t allocated(size_t Bytes) = 0;
  /// A buffer of Bytes that was tagged Tag (non-zero) is being freed.
  virtual void freed(size_t Bytes, uint64_t Tag) = 0;
};

/// The calling thread's observer, or null (trivially initialised: no TLS
/// guard on the allocation path).
extern thread_local AllocationObserver *ThreadAllocationObserver;

} // namespace graphjit

#endif
