//===- Initialize.cpp - Registering every layer from the top --------------===//

#include "graphjit/Initialize.h"
#include "graphjit/OpRegistry.h"
#include "jit/JitEngine.h"
#include "link/CallFrame.h"
#include "ops/FlatElemwise.h"
#include "ops/PairwiseSumKernels.h"
#include "ops/StandardOps.h"
#include <mutex>

void graphjit::initialize() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    registerStandardOps(OpRegistry::process());
    JitEngine::registerSymbols(frameSymbols());
    JitEngine::registerSymbols(pairwiseSumSymbols());
    JitEngine::registerSymbols(flatElemwiseSymbols());
  });
}
