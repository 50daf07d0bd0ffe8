//===- Initialize.cpp - Registering every layer from the top --------------===//

#include "graphjit/Initialize.h"
#include "graphjit/OpRegistry.h"
#include "jit/JitEngine.h"
#include "link/call/CallFrame.h"
#include "runtime/FlatElemwise.h"
#include "ops/reduction/PairwiseSumKernels.h"
#include "ops/elemwise/SpecialFunctions.h"
#include "ops/StandardOps.h"
#include <mutex>
#include <vector>

void graphjit::initialize() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    registerStandardOps(OpRegistry::process());
    JitEngine::registerSymbols(frameSymbols());
    JitEngine::registerSymbols(pairwiseSumSymbols());
    JitEngine::registerSymbols(flatElemwiseSymbols());
    // The scalar kernels of psi, erfcx, gammainc, ... call these.
    size_t Count = 0;
    const special::GjSpecialSymbol *Special = special::gjSpecialSymbols(Count);
    std::vector<RuntimeSymbol> Symbols;
    for (size_t I = 0; I < Count; ++I)
      Symbols.push_back({Special[I].Name, Special[I].Address});
    JitEngine::registerSymbols(Symbols);
  });
}
