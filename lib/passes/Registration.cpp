//===- Registration.cpp - graphjit's passes in a PassBuilder --------------===//
//
// Kept apart from the passes: PassBuilder.h is slow to compile.
//
//===----------------------------------------------------------------------===//

#include "passes/InstrumentApplies.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

void graphjit::registerGraphjitPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (!PassBuilder::checkParametrizedPassName(
                Name, InstrumentAppliesPass::PassName))
          return false;
        auto Opts = PassBuilder::parsePassParameters(
            InstrumentAppliesPass::parseParams, Name,
            InstrumentAppliesPass::PassName);
        if (!Opts) {
          // The parser would only say "unknown pass name": say why.
          errs() << "error: " << toString(Opts.takeError()) << "\n";
          return false;
        }
        MPM.addPass(InstrumentAppliesPass(*Opts));
        return true;
      });
}
