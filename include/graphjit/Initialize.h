//===- graphjit/Initialize.h - Making the library ready ---------*- C++ -*-===//
//
// graphjit's layers are registered from the top, as LLVM's targets are:
// initialize() puts the standard ops into OpRegistry::get() and gives the
// JIT the linkers' entry points (JitEngine::registerSymbols). Programs call
// it once before parsing or building graphs (the tools, the Python module
// and the tests do); Function::compile calls it too. Idempotent and safe
// to call from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_INITIALIZE_H
#define GRAPHJIT_INITIALIZE_H

namespace graphjit {

void initialize();

} // namespace graphjit

#endif
