//===- CompileSteps.cpp - The compile pipeline's steps and times ----------===//

#include "graphjit/CompileSteps.h"
#include <algorithm>

using namespace graphjit;

static constexpr const char *StepNames[NumCompileSteps] = {
    "rewrite", "schedule", "lower",   "instrument",
    "optimize", "codegen", "link",    "kernels"};

const char *graphjit::compileStepName(CompileStep S) {
  return StepNames[unsigned(S)];
}

bool graphjit::parseCompileStep(const std::string &Name, CompileStep &S) {
  for (unsigned I = 0; I < NumCompileSteps; ++I)
    if (Name == StepNames[I]) {
      S = CompileStep(I);
      return true;
    }
  return false;
}

double &CompileTimes::of(CompileStep S) {
  switch (S) {
  case CompileStep::Rewrite: return Rewrite;
  case CompileStep::Schedule: return Schedule;
  case CompileStep::Lower: return Lower;
  case CompileStep::Instrument: return Instrument;
  case CompileStep::Optimize: return Optimize;
  case CompileStep::Codegen: return Codegen;
  case CompileStep::Link: return Link;
  case CompileStep::Kernels: return Kernels;
  }
  return Rewrite;
}

double CompileTimes::total() const {
  double T = 0;
  for (unsigned I = 0; I < NumCompileSteps; ++I)
    T += of(CompileStep(I));
  return T;
}

double CompileTimes::hostTotal() const {
  double T = 0;
  for (const auto &Step : Host)
    T += Step.second;
  return T;
}

CompileTimes &CompileTimes::operator+=(const CompileTimes &O) {
  for (unsigned I = 0; I < NumCompileSteps; ++I)
    of(CompileStep(I)) += O.of(CompileStep(I));
  for (const auto &Step : O.Host) {
    auto Same = [&](const auto &Mine) { return Mine.first == Step.first; };
    auto It = std::find_if(Host.begin(), Host.end(), Same);
    if (It == Host.end())
      Host.push_back(Step);
    else
      It->second += Step.second;
  }
  Validate += O.Validate;
  Cached = Cached && O.Cached;
  PartThreads = std::max(PartThreads, O.PartThreads);
  return *this;
}

bool CompileTimes::operator==(const CompileTimes &O) const {
  for (unsigned I = 0; I < NumCompileSteps; ++I)
    if (of(CompileStep(I)) != O.of(CompileStep(I)))
      return false;
  return Validate == O.Validate && Cached == O.Cached &&
         PartThreads == O.PartThreads && Host == O.Host;
}
