//===- IRPipeline.cpp - The passes that optimize a module's IR ------------===//

#include "IRPipeline.h"
#include "VectorMath.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/ErrorHandling.h"

using namespace graphjit;
using namespace llvm;

std::string Optimization::name() const {
  return "O" + std::to_string(Level) +
         (usesKernelPipeline() ? " kernel pipeline" : " LLVM pipeline");
}

StringRef graphjit::kernelPipeline() {
  return
      // The scalar kernels are always inlined; a small module's driver
      // inlines its thunks, as O2 would (InlineParams of O2).
      "cgscc(inline),"
      "function<eager-inv>("
      // One round of cleanup after inlining; the second CSE (through
      // memory) merges the math two inlined kernels share, e.g. the
      // exp(-|x|) of softplus(x) and softplus(-x).
      "sroa<modify-cfg>,early-cse<>,instcombine<max-iterations=1;no-verify-fixpoint>,"
      "simplifycfg<switch-range-to-icmp;keep-loops>,early-cse<memssa>,"
      // Loops in the form the vectorizer wants: rotated, invariant loads
      // (a broadcast scalar operand) hoisted, induction variables
      // canonical.
      "loop-mssa(loop-rotate<header-duplication>,licm<allowspeculation>),"
      "loop(indvars),"
      // The vectorizer, with libmvec's vector math (VectorMath.h).
      "inject-tli-mappings,loop-vectorize,infer-alignment,"
      // O2's cleanup after vectorizing; without the last InstCombine the
      // unrolled reductions keep dead code.
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "simplifycfg<forward-switch-cond;switch-range-to-icmp;switch-to-lookup;"
      "no-keep-loops;hoist-common-insts;sink-common-insts;speculate-blocks;"
      "simplify-cond-branch>,"
      "loop-unroll<O2>,instcombine<max-iterations=1;no-verify-fixpoint>,"
      "loop-mssa(licm<allowspeculation>),"
      // Calls in tail position become jumps, as at O2.
      "tailcallelim,simplifycfg),"
      "globaldce";
}

void graphjit::optimizeIR(Module &M, TargetMachine &TM, Optimization Opt) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PipelineTuningOptions PTO;
  // The new pass manager skips optnone functions (the long drivers) only
  // through these callbacks; they also give -time-passes its report.
  PassInstrumentationCallbacks PIC;
  StandardInstrumentations SI(M.getContext(), /*DebugLogging=*/false);
  SI.registerCallbacks(PIC, &MAM);
  PassBuilder PB(&TM, PTO, std::nullopt, &PIC);
  // Registered before the defaults, so that this one is used: libmvec's
  // vector functions for the loop vectorizer.
  TargetLibraryInfoImpl TLII(TM.getTargetTriple());
  addVectorMathFunctions(TLII, TM.getTargetTriple());
  FAM.registerPass([&] { return TargetLibraryAnalysis(TLII); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  ModulePassManager MPM;
  if (Opt.usesKernelPipeline()) {
    // A constant text, parsed by a unit test too: it cannot fail here.
    if (Error E = PB.parsePassPipeline(MPM, kernelPipeline()))
      report_fatal_error(std::move(E));
  } else if (Opt.Level == 0) {
    MPM = PB.buildO0DefaultPipeline(OptimizationLevel::O0);
  } else {
    MPM = PB.buildPerModuleDefaultPipeline(
        Opt.Level == 1   ? OptimizationLevel::O1
        : Opt.Level == 2 ? OptimizationLevel::O2
                         : OptimizationLevel::O3);
  }
  MPM.run(M, MAM);
}
