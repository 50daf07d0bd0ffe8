//===- CompileInParts.cpp - Optimize and codegen on several threads -------===//

#include "CompileInParts.h"
#include "ObjectLinkage.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

using namespace llvm;

namespace graphjit {

/// Below this many instructions of kernels (before optimization), the
/// parts' bitcode round trips, target machines and pipelines eat the gain
/// (the tutorial graph: 133 M instructions in parts, 124 M whole).
static constexpr size_t MinKernelInstructions = 400;
static constexpr unsigned MaxParts = 4;

static bool inlinedEverywhere(const Function &F) {
  return F.hasFnAttribute(Attribute::AlwaysInline);
}

/// Whether F has a loop. A function the driver calls that loops (a
/// planned thunk's softmax, gather or scatter over its rows) is a kernel
/// of its own: in the glue it would be compiled at O0, its loops scalar
/// and unoptimized (a softmax of 150 rows of 3: 13 us instead of 2).
static bool loops(const Function &F) {
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 4> Back;
  FindFunctionBackedges(F, Back);
  return !Back.empty();
}

namespace {

/// The module's functions in groups that must share a part: a function
/// the inliner may inline (not noinline) stays with its callers, unless
/// it loops (loops()). The driver's group is the glue; the others are
/// kernels.
struct Grouping {
  EquivalenceClasses<const Function *> Groups;
  const Function *Driver = nullptr;
  /// Instructions per group leader, the always-inlined kernels counted at
  /// each call.
  std::map<const Function *, size_t> Size;

  Grouping(const Module &M, StringRef Entry) {
    Driver = M.getFunction(Entry);
    for (const Function &F : M) {
      if (F.isDeclaration() || inlinedEverywhere(F))
        continue;
      Groups.insert(&F);
      if (F.hasFnAttribute(Attribute::NoInline) || loops(F))
        continue;
      for (const User *U : F.users())
        if (const auto *Call = dyn_cast<CallBase>(U);
            Call && Call->getCalledFunction() == &F)
          Groups.unionSets(&F, Call->getFunction());
    }
    for (const Function &F : M) {
      if (F.isDeclaration() || inlinedEverywhere(F))
        continue;
      size_t N = F.getInstructionCount();
      for (const Instruction &I : instructions(F))
        if (const auto *Call = dyn_cast<CallBase>(&I))
          if (const Function *G = Call->getCalledFunction();
              G && !G->isDeclaration() && inlinedEverywhere(*G))
            N += G->getInstructionCount();
      Size[Groups.getLeaderValue(&F)] += N;
    }
  }

  const Function *leader(const Function &F) const {
    return Groups.getLeaderValue(&F);
  }
  bool isGlue(const Function &F) const {
    return Driver && leader(F) == leader(*Driver);
  }
};

} // namespace

unsigned compilePartsFor(const Module &M, StringRef Entry) {
  const Function *Driver = M.getFunction(Entry);
  if (!Driver || Driver->isDeclaration() ||
      Driver->hasFnAttribute(Attribute::OptimizeNone))
    return 0;
  Grouping G(M, Entry);
  size_t Kernels = 0, KernelInstructions = 0;
  for (auto &[Leader, N] : G.Size)
    if (!G.isGlue(*Leader)) {
      ++Kernels;
      KernelInstructions += N;
    }
  if (Kernels == 0 || KernelInstructions < MinKernelInstructions)
    return 0;
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<size_t>({Threads, MaxParts, Kernels + 1}));
}

// Locals named and made globals another object may reach
// (ObjectLinkage.h), so that a part can name what another defines; the
// always-inlined kernels stay local, a copy in each part.
static void externalizeLocals(Module &M) {
  for (GlobalValue &GV : M.global_values()) {
    if (GV.isDeclaration() || !GV.hasLocalLinkage())
      continue;
    if (const auto *F = dyn_cast<Function>(&GV); F && inlinedEverywhere(*F))
      continue;
    if (!GV.hasName())
      GV.setName("gj.part.local");
    shareAcrossObjects(GV);
  }
}

/// The glue's compile time per instruction against a kernel's: the glue
/// is compiled at O0 (measured on the train steps: about 0.45).
static constexpr double GlueCost = 0.45;

Expected<std::vector<std::unique_ptr<MemoryBuffer>>>
compileInParts(Module &M, StringRef Entry, unsigned Threads,
               const PartCompiler &Compiler, PartTimes &Times) {
  // Part 0 is the glue, with every global variable; part 1 + T has the
  // kernels thread T compiles. The kernel groups go, largest first, to the
  // thread with the least work so far, thread 0 starting with the glue.
  DenseMap<const Function *, unsigned> PartOf;
  {
    Grouping G(M, Entry);
    std::vector<double> Load(Threads, 0);
    std::vector<std::pair<size_t, const Function *>> Kernels;
    for (auto &[Leader, N] : G.Size) {
      if (G.isGlue(*Leader)) {
        PartOf[Leader] = 0;
        Load[0] += GlueCost * double(N);
      } else {
        Kernels.push_back({N, Leader});
      }
    }
    llvm::sort(Kernels, [](auto &A, auto &B) {
      return A.first != B.first ? A.first > B.first
                                : A.second->getName() < B.second->getName();
    });
    for (auto &[N, Leader] : Kernels) {
      unsigned T = unsigned(std::min_element(Load.begin(), Load.end()) -
                            Load.begin());
      PartOf[Leader] = 1 + T;
      Load[T] += double(N);
    }
    for (const Function &F : M)
      if (!F.isDeclaration() && !inlinedEverywhere(F))
        PartOf[&F] = PartOf[G.leader(F)];
  }
  externalizeLocals(M);

  // Parts 0 and 1 are compiled on this thread, so they stay in M's
  // context; the other threads' parts move to contexts of their own
  // through bitcode (writing and reading it back cost the logistic step's
  // compile 10 M instructions on this thread when every part did). Part
  // 0, the glue, is M itself once the others are cut from it: no copy.
  unsigned Parts = 1 + Threads;
  std::unique_ptr<Module> Part1;
  std::vector<SmallString<0>> Bitcode(Parts);
  std::vector<std::unique_ptr<MemoryBuffer>> Objects(Parts);
  std::vector<std::string> Errors(Parts);
  std::vector<PartTimes> Spent(Parts);
  auto CompilePart = [&](unsigned I) {
    using Clock = std::chrono::steady_clock;
    auto Fail = [&](Error E) { Errors[I] = toString(std::move(E)); };
    std::optional<LLVMContext> Ctx;
    std::unique_ptr<Module> Parsed;
    Module *Part = I == 0 ? &M : I == 1 ? Part1.get() : nullptr;
    if (I >= 2 && !Bitcode[I].empty()) {
      Ctx.emplace();
      Expected<std::unique_ptr<Module>> M =
          parseBitcodeFile(MemoryBufferRef(Bitcode[I].str(), "part"), *Ctx);
      if (!M)
        return Fail(M.takeError());
      Parsed = std::move(*M);
      Part = Parsed.get();
    }
    if (!Part)
      return;
    Expected<std::unique_ptr<TargetMachine>> TM = Compiler.MakeTM();
    if (!TM)
      return Fail(TM.takeError());
    auto Start = Clock::now();
    bool Glue = I == 0;
    if (Glue)
      (*TM)->setOptLevel(CodeGenOptLevel::None);
    Compiler.Optimize(*Part, **TM, Glue);
    auto Optimized = Clock::now();
    Expected<std::unique_ptr<MemoryBuffer>> Obj =
        orc::SimpleCompiler(**TM)(*Part);
    Spent[I].Optimize =
        std::chrono::duration<double>(Optimized - Start).count();
    Spent[I].Codegen =
        std::chrono::duration<double>(Clock::now() - Optimized).count();
    if (Compiler.GiveBackTM)
      Compiler.GiveBackTM(std::move(*TM));
    if (!Obj)
      return Fail(Obj.takeError());
    Objects[I] = std::move(*Obj);
  };
  // The other threads' parts are cut first, each thread starting as soon
  // as its part is written; then this thread cuts and compiles the glue
  // and its kernels.
  std::vector<std::thread> Workers;
  for (unsigned P = Parts; P-- > 1;) {
    bool Any = false;
    for (auto &Entry : PartOf)
      Any |= Entry.second == P;
    if (!Any)
      continue;
    ValueToValueMapTy Map;
    std::unique_ptr<Module> Part =
        CloneModule(M, Map, [&](const GlobalValue *GV) {
          if (const auto *F = dyn_cast<Function>(GV))
            return inlinedEverywhere(*F) || PartOf.lookup(F) == P;
          return false; // Variables, aliases: the glue's part defines them.
        });
    // Appending arrays (llvm.used and the like) stay with the glue's.
    for (GlobalVariable &GV : make_early_inc_range(Part->globals()))
      if (GV.getName().starts_with("llvm."))
        GV.eraseFromParent();
    if (P == 1) {
      Part1 = std::move(Part);
      continue;
    }
    raw_svector_ostream OS(Bitcode[P]);
    WriteBitcodeToFile(*Part, OS);
    Workers.emplace_back(CompilePart, P);
  }
  // What is left of M is the glue: declarations of the other parts'.
  for (Function &F : M)
    if (!F.isDeclaration() && !inlinedEverywhere(F) && PartOf.lookup(&F) != 0)
      F.deleteBody();
  CompilePart(0);
  CompilePart(1);
  for (std::thread &W : Workers)
    W.join();
  for (const std::string &E : Errors)
    if (!E.empty())
      return createStringError("compiling in parts failed: " + E);
  std::vector<std::unique_ptr<MemoryBuffer>> Compiled;
  for (unsigned I = 0; I < Parts; ++I) {
    Times.Optimize += Spent[I].Optimize;
    Times.Codegen += Spent[I].Codegen;
    if (Objects[I])
      Compiled.push_back(std::move(Objects[I]));
  }
  return Compiled;
}

} // namespace graphjit
