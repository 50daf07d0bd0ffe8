//===- SplitCodegen.cpp - Machine code of a module on several threads -----===//

#include "SplitCodegen.h"
#include "ObjectLinkage.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/SplitModule.h"
#include <algorithm>
#include <thread>

using namespace llvm;

namespace graphjit {

/// Below this many instructions (after optimization), a module's codegen
/// takes a few ms: each part's bitcode round trip, TargetMachine and pass
/// pipeline would eat the gain. The logistic-regression step has about
/// 1,200 and takes 45 ms.
static constexpr size_t MinInstructions = 600;
static constexpr unsigned MaxParts = 4;

unsigned codegenPartsFor(const Module &M) {
  size_t Defined = 0, Instructions = 0;
  for (const Function &F : M)
    if (!F.isDeclaration()) {
      ++Defined;
      Instructions += F.getInstructionCount();
    }
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  if (Defined < 2 || Instructions < MinInstructions)
    return 1;
  return unsigned(std::min<size_t>({Threads, MaxParts, Defined}));
}

Expected<std::vector<std::unique_ptr<MemoryBuffer>>> codegenInParts(
    Module &M, unsigned Parts,
    const std::function<Expected<std::unique_ptr<TargetMachine>>()> &MakeTM,
    const std::function<void(std::unique_ptr<TargetMachine>)> &GiveBackTM) {
  std::vector<SmallString<0>> Bitcode;
  SplitModule(M, Parts, [&](std::unique_ptr<Module> Part) {
    shareNonLocalSymbols(*Part);
    Bitcode.emplace_back();
    raw_svector_ostream OS(Bitcode.back());
    WriteBitcodeToFile(*Part, OS);
  });
  std::vector<std::unique_ptr<MemoryBuffer>> Objects(Bitcode.size());
  std::vector<std::string> Errors(Bitcode.size());
  auto CompilePart = [&](size_t I) {
    auto Fail = [&](Error E) { Errors[I] = toString(std::move(E)); };
    LLVMContext Ctx;
    Expected<std::unique_ptr<Module>> Part = parseBitcodeFile(
        MemoryBufferRef(Bitcode[I].str(), "part"), Ctx);
    if (!Part)
      return Fail(Part.takeError());
    Expected<std::unique_ptr<TargetMachine>> TM = MakeTM();
    if (!TM)
      return Fail(TM.takeError());
    Expected<std::unique_ptr<MemoryBuffer>> Obj =
        orc::SimpleCompiler(**TM)(**Part);
    if (GiveBackTM)
      GiveBackTM(std::move(*TM));
    if (!Obj)
      return Fail(Obj.takeError());
    Objects[I] = std::move(*Obj);
  };
  // This thread compiles the first part while the others compile theirs.
  std::vector<std::thread> Workers;
  for (size_t I = 1; I < Bitcode.size(); ++I)
    Workers.emplace_back(CompilePart, I);
  if (!Bitcode.empty())
    CompilePart(0);
  for (std::thread &W : Workers)
    W.join();
  for (const std::string &E : Errors)
    if (!E.empty())
      return createStringError("code generation failed: " + E);
  return Objects;
}

} // namespace graphjit
