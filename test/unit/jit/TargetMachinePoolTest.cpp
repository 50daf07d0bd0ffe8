//===- TargetMachinePoolTest.cpp - Target machines kept between compiles --===//
//
// TargetMachinePool lends a machine to one taker at a time, takes it back
// at the level it was made at (a glue part leaves it at O0 with fast
// instruction selection on), and makes a new one only when none is spare;
// machines used again by codegenInParts still make a working program.
//
//===----------------------------------------------------------------------===//
#include "PartsTestUtil.h"
#include "jit/JitEngine.h"
#include "jit/SplitCodegen.h"
#include "jit/TargetMachinePool.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "gtest/gtest.h"

using namespace graphjit;

namespace {

std::unique_ptr<TargetMachinePool> hostPool() {
  llvm::cantFail(JitEngine::get()); // Registers the host target.
  auto JTMB = llvm::cantFail(llvm::orc::JITTargetMachineBuilder::detectHost());
  JTMB.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return std::make_unique<TargetMachinePool>(std::move(JTMB));
}

TEST(TargetMachinePool, TakesMachinesBackAtTheirLevel) {
  auto Pool = hostPool();
  EXPECT_EQ(Pool->made(), 0u);
  std::unique_ptr<llvm::TargetMachine> TM = llvm::cantFail(Pool->take());
  EXPECT_EQ(Pool->made(), 1u);
  EXPECT_EQ(TM->getOptLevel(), llvm::CodeGenOptLevel::Aggressive);
  bool FastISel = TM->Options.EnableFastISel;
  // What compiling a glue part does to it.
  TM->setOptLevel(llvm::CodeGenOptLevel::None);
  TM->setFastISel(!FastISel);
  llvm::TargetMachine *Lent = TM.get();
  Pool->give(std::move(TM));
  TM = llvm::cantFail(Pool->take());
  EXPECT_EQ(TM.get(), Lent);
  EXPECT_EQ(Pool->made(), 1u);
  EXPECT_EQ(TM->getOptLevel(), llvm::CodeGenOptLevel::Aggressive);
  EXPECT_EQ(TM->Options.EnableFastISel, FastISel);
}

TEST(TargetMachinePool, MakesOneMachinePerTakerAtOnce) {
  auto Pool = hostPool();
  auto A = llvm::cantFail(Pool->take()), B = llvm::cantFail(Pool->take());
  EXPECT_NE(A.get(), B.get());
  EXPECT_EQ(Pool->made(), 2u);
  Pool->give(std::move(A));
  Pool->give(std::move(B));
  {
    auto L1 = llvm::cantFail(Pool->lease());
    auto L2 = llvm::cantFail(Pool->lease());
    EXPECT_NE(&*L1, &*L2);
  } // The leases give them back.
  auto C = llvm::cantFail(Pool->take()), D = llvm::cantFail(Pool->take());
  EXPECT_EQ(Pool->made(), 2u);
  Pool->give(std::move(C));
  Pool->give(std::move(D));
}

// entry(x) = twice(x) + 1 through a helper the split puts in another part.
constexpr const char *TwoPartsIR = R"(
define internal i64 @twice(i64 %x) noinline {
  %r = mul i64 %x, 2
  ret i64 %r
}
define i64 @entry(i64 %x) {
  %a = call i64 @twice(i64 %x)
  %r = add i64 %a, 1
  ret i64 %r
}
)";

TEST(TargetMachinePool, MachinesUsedAgainCompileWorkingCode) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  auto Pool = hostPool();
  auto Take = [&] { return Pool->take(); };
  auto GiveBack = [&](std::unique_ptr<llvm::TargetMachine> TM) {
    Pool->give(std::move(TM));
  };
  { // Two spare machines, one for each part's thread.
    auto A = llvm::cantFail(Pool->lease()), B = llvm::cantFail(Pool->lease());
  }
  for (int Round = 0; Round < 2; ++Round) {
    llvm::LLVMContext Ctx;
    std::unique_ptr<llvm::Module> M = parseIR(Ctx, TwoPartsIR);
    ASSERT_TRUE(M);
    M->setDataLayout(Engine.dataLayout());
    M->setTargetTriple(Engine.triple());
    auto Objects = codegenInParts(*M, 2, Take, GiveBack);
    ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
    EXPECT_EQ(Objects->size(), 2u);
    EXPECT_EQ(runEntry(Engine, std::move(*Objects), {20}),
              std::vector<int64_t>{41});
    // The parts ran on the spare machines: none was made.
    EXPECT_EQ(Pool->made(), 2u) << "round " << Round;
  }
}

} // namespace
