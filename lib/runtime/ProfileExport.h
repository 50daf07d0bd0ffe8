//===- ProfileExport.h - Any instrumented program's profile ----*- C++ -*-===//
//
// IR that the instrumentation pass marked and timed need not come from
// graphjit: any program that links it with the runtime (libgraphjit_runtime)
// can write what its counters hold as graphjit's profile JSON
// (docs/profile-json.md), which `graphjit-prof summary` prints as the
// Theano report, with the Apply names, lines and C/Py kinds of the
// program's markings. It writes at exit when GRAPHJIT_PROFILE_JSON names a
// file, or when the program calls gj_profile_write (RuntimeABI.h).
//
// This is the runtime's own view: per instrumented function, its calls,
// the driver's ticks and each Apply's, in seconds on the descriptor's
// clock with the instrumentation's cost subtracted; no shapes, flops or
// compile times, which only graphjit's linkers know.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_PROFILEEXPORT_H
#define GRAPHJIT_RUNTIME_PROFILEEXPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace graphjit {

/// Every descriptor with counters, as a profile JSON (version 3).
void writeRuntimeProfile(llvm::raw_ostream &OS);
/// The same into the file Path.
llvm::Error writeRuntimeProfile(llvm::StringRef Path);
/// Called on a thread's first call of a new descriptor: the first time,
/// arranges the write at exit if GRAPHJIT_PROFILE_JSON is set.
void arrangeProfileAtExit();

} // namespace graphjit

#endif
