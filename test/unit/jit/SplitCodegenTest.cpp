//===- SplitCodegenTest.cpp - Machine code in parts, on threads -----------===//
//
// codegenInParts() cuts a module whose functions call one another through
// internal symbols, and read a private constant, into object files that
// link back into one working program; codegenPartsFor() leaves small
// modules whole.
//
//===----------------------------------------------------------------------===//
#include "PartsTestUtil.h"
#include "jit/JitEngine.h"
#include "jit/ObjectLinkage.h"
#include "jit/SplitCodegen.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "gtest/gtest.h"
#include <map>
#include <set>
#include <thread>

using namespace graphjit;

namespace {

// entry(x) = twice(x) + thrice(x) + the constant's 7, through internal
// fastcc helpers in what will be other parts, which read a variable of
// entry's (0).
constexpr const char *ProgramIR = R"(
@seven = private constant i64 7
@zero = internal global i64 0
define internal fastcc i64 @twice(i64 %x) noinline {
  %z = load volatile i64, ptr @zero
  %m = mul i64 %x, 2
  %r = add i64 %m, %z
  ret i64 %r
}
define internal fastcc i64 @thrice(i64 %x) noinline {
  %z = load volatile i64, ptr @zero
  %m = mul i64 %x, 3
  %r = add i64 %m, %z
  ret i64 %r
}
define i64 @entry(i64 %x) {
  %a = call fastcc i64 @twice(i64 %x)
  %b = call fastcc i64 @thrice(i64 %x)
  %s = add i64 %a, %b
  %c = load i64, ptr @seven
  store volatile i64 0, ptr @zero
  %r = add i64 %s, %c
  ret i64 %r
}
)";

TEST(SplitCodegen, PartsLinkBackIntoOneProgram) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M = parseIR(Ctx, ProgramIR);
  ASSERT_TRUE(M);
  M->setDataLayout(Engine.dataLayout());
  M->setTargetTriple(Engine.triple());
  // The engine's code model (jit/ObjectLinkage.h).
  auto MakeTM = [] {
    auto JTMB = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!JTMB)
      return llvm::Expected<std::unique_ptr<llvm::TargetMachine>>(
          JTMB.takeError());
    useSmallCodeModel(*JTMB);
    return JTMB->createTargetMachine();
  };
  auto Objects = codegenInParts(*M, 3, MakeTM);
  ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
  EXPECT_EQ(Objects->size(), 3u);
  // Each function is defined in exactly one object, and not all in one:
  // the objects must link to one another to run entry.
  std::map<std::string, std::set<size_t>> DefinedIn = definedIn(*Objects);
  std::set<size_t> Used;
  for (const char *Fn : {"entry", "twice", "thrice"}) {
    ASSERT_EQ(DefinedIn[Fn].size(), 1u) << Fn;
    Used.insert(*DefinedIn[Fn].begin());
  }
  EXPECT_GT(Used.size(), 1u);
  // SplitModule makes what the parts share hidden, which would be read
  // directly; the parts reach it through the GOT and stubs instead.
  EXPECT_EQ(directReferencesAcrossObjects(*Objects),
            std::vector<std::string>{});
  EXPECT_EQ(runEntry(Engine, std::move(*Objects), {5, -4}),
            (std::vector<int64_t>{5 * 2 + 5 * 3 + 7, -4 * 5 + 7}));
}

TEST(SplitCodegen, SmallModulesStayWhole) {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M = parseIR(Ctx, ProgramIR);
  ASSERT_TRUE(M);
  EXPECT_EQ(codegenPartsFor(*M), 1u);
  // Many instructions in several functions: as many parts as threads
  // allow, up to 4.
  std::string Big;
  for (int F = 0; F < 6; ++F) {
    Big += "define i64 @f" + std::to_string(F) + "(i64 %x0) {\n";
    for (int I = 1; I <= 200; ++I)
      Big += "  %x" + std::to_string(I) + " = mul i64 %x" +
             std::to_string(I - 1) + ", 3\n";
    Big += "  ret i64 %x200\n}\n";
  }
  std::unique_ptr<llvm::Module> Large = parseIR(Ctx, Big.c_str());
  ASSERT_TRUE(Large);
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(codegenPartsFor(*Large), std::min(Threads, 4u));
}

} // namespace
