//===- Plugin.cpp - graphjit's passes as an opt plugin --------------------===//
//
// opt-19 -load-pass-plugin=GraphjitPasses.so -passes=graphjit-instrument
//
//===----------------------------------------------------------------------===//

#include "passes/InstrumentApplies.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT ::llvm::PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "graphjit", LLVM_VERSION_STRING,
          graphjit::registerGraphjitPasses};
}
