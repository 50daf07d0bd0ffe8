//===- TraceFile.h - The process's timeline, in a file ---------*- C++ -*-===//
//
// GRAPHJIT_FLAGS=profiling__trace=FILE (graphjit -profile-trace=FILE): the
// first function compiled with it turns the trace runtime on
// (runtime/TraceRuntime.h) and arranges for the file to be written at exit;
// writeProcessTrace() writes it sooner. The file is Chrome's trace-event
// JSON, which Perfetto's UI and chrome://tracing open: per thread, one
// slice per call of a function and, inside it, one per Apply, with the
// Apply's id, location and type (C or Py) as arguments; timestamps in
// microseconds (three decimals: nanoseconds) from the first slice, from
// the calibrated clock. docs/profiling.md, "Timeline".
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_TRACEFILE_H
#define GRAPHJIT_LINK_TRACEFILE_H

#include "graphjit/Flags.h"
#include "runtime/TraceRuntime.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace graphjit {

/// Turns the trace on for Fl's file, once per process.
void startProcessTrace(const Flags &Fl);

/// Writes Threads as trace-event JSON to OS.
void writeTraceEvents(llvm::raw_ostream &OS,
                      const std::vector<ThreadTrace> &Threads);

} // namespace graphjit

#endif
