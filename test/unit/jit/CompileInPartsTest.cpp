//===- CompileInPartsTest.cpp - Optimize and codegen in parts ---------------===//
//
// compileInParts() (through JitEngine::optimizeAndCodegen) cuts an
// unoptimized module into the glue (the driver and what it may inline) and
// the kernels (noinline, or looping) spread over the threads' parts, the always-inlined
// scalar helper copied into each kernel's part; the objects link back into
// one program that computes what the module says. compilePartsFor() leaves
// small modules, and long drivers (optnone), whole.
//
//===----------------------------------------------------------------------===//
#include "jit/CompileInParts.h"
#include "PartsTestUtil.h"
#include "jit/JitEngine.h"
#include "llvm/IR/LLVMContext.h"
#include "gtest/gtest.h"
#include <map>
#include <set>
#include <thread>

using namespace graphjit;

namespace {

// entry(x) = k1(x) + k2(x) + k3(x) + glue(x), where kI(x) sums
// scale(x + i) * I + @zero over i < 100 and scale (always inlined)
// multiplies by a private constant, 3; glue(x) = x + @offset (11),
// inlinable. The kernels' parts read @zero from the glue's. Kernels are
// noinline, or with Inlinable as a planned thunk is, inlinable: they loop,
// so their own parts still take them.
std::string programIR(int Kernels, bool LongDriver, bool Inlinable = false) {
  std::string IR = R"(
@three = private constant i64 3
@offset = internal global i64 11
@zero = internal global i64 0
define internal i64 @scale(i64 %x) alwaysinline {
  %c = load i64, ptr @three
  %r = mul i64 %x, %c
  ret i64 %r
}
define internal i64 @glue(i64 %x) {
  %o = load i64, ptr @offset
  %r = add i64 %x, %o
  ret i64 %r
}
)";
  for (int K = 1; K <= Kernels; ++K) {
    std::string N = std::to_string(K);
    IR += "define internal i64 @k" + N + "(i64 %x)" +
          (Inlinable ? "" : " noinline") + R"( {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s1, %loop ]
  %xi = add i64 %x, %i
  %v = call i64 @scale(i64 %xi)
  %w = mul i64 %v, )" + N + R"(
  %z = load volatile i64, ptr @zero
  %wz = add i64 %w, %z
  %s1 = add i64 %s, %wz
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, 100
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s1
}
)";
  }
  IR += std::string("define i64 @entry(i64 %x)") +
        (LongDriver ? " noinline optnone" : "") + " {\n  %g = call i64 @glue(i64 %x)\n";
  std::string Sum = "%g";
  for (int K = 1; K <= Kernels; ++K) {
    std::string N = std::to_string(K);
    IR += "  %r" + N + " = call i64 @k" + N + "(i64 %x)\n";
    IR += "  %s" + N + " = add i64 " + Sum + ", %r" + N + "\n";
    Sum = "%s" + N;
  }
  IR += "  ret i64 " + Sum + "\n}\n";
  return IR;
}

// What entry computes, in C++.
int64_t expected(int64_t X, int Kernels) {
  int64_t R = X + 11;
  for (int K = 1; K <= Kernels; ++K)
    for (int64_t I = 0; I < 100; ++I)
      R += (X + I) * 3 * K;
  return R;
}

// programIR(Kernels, false, Inlinable) optimized at O2 and compiled in
// parts on Threads threads.
llvm::Expected<ObjectFiles> compileProgram(JitEngine &Engine, int Kernels,
                                           unsigned Threads, PartTimes &Times,
                                           bool Inlinable = false) {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M =
      parseIR(Ctx, programIR(Kernels, false, Inlinable));
  if (!M)
    return llvm::createStringError("the test's IR does not parse");
  M->setDataLayout(Engine.dataLayout());
  M->setTargetTriple(Engine.triple());
  Engine.setTarget(*M);
  return Engine.optimizeAndCodegen(*M, "entry", Threads, Optimization{}, "",
                                   Times);
}

// The parts k1 ... kKernels are defined in: each in exactly one part,
// never the driver's (a test failure otherwise).
std::set<size_t>
kernelParts(const std::map<std::string, std::set<size_t>> &DefinedIn,
            int Kernels) {
  std::set<size_t> Parts;
  auto Entry = DefinedIn.find("entry");
  for (int K = 1; K <= Kernels; ++K) {
    std::string Name = "k" + std::to_string(K);
    auto It = DefinedIn.find(Name);
    if (It == DefinedIn.end() || It->second.size() != 1) {
      ADD_FAILURE() << Name << " is not defined in exactly one part";
      continue;
    }
    size_t Part = *It->second.begin();
    if (Entry != DefinedIn.end() && Entry->second.count(Part))
      ADD_FAILURE() << Name << " is in the driver's part";
    Parts.insert(Part);
  }
  return Parts;
}

TEST(CompileInParts, PartsLinkBackIntoOneProgram) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  PartTimes Times;
  auto Objects = compileProgram(Engine, 3, /*Threads=*/2, Times);
  ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
  // The glue's part and both threads' kernel parts.
  EXPECT_EQ(Objects->size(), 3u);
  EXPECT_GT(Times.Optimize, 0);
  EXPECT_GT(Times.Codegen, 0);
  std::map<std::string, std::set<size_t>> DefinedIn = definedIn(*Objects);
  // The driver, its inlinable helper and the variable in one part; each
  // kernel in exactly one part, none of them the driver's.
  ASSERT_EQ(DefinedIn["entry"].size(), 1u);
  size_t GluePart = *DefinedIn["entry"].begin();
  EXPECT_EQ(DefinedIn["glue"], std::set<size_t>{GluePart});
  EXPECT_EQ(DefinedIn["offset"], std::set<size_t>{GluePart});
  EXPECT_EQ(kernelParts(DefinedIn, 3).size(), 2u);
  // The kernels reach @zero, and the glue the kernels, through the GOT
  // and stubs: never a 32-bit reference into another object.
  EXPECT_EQ(directReferencesAcrossObjects(*Objects),
            std::vector<std::string>{});
  EXPECT_EQ(runEntry(Engine, std::move(*Objects), {5, -40}),
            (std::vector<int64_t>{expected(5, 3), expected(-40, 3)}));
}

// Inlinable functions that loop (planned thunks: a softmax, a gather)
// are kernels too: in the glue they would be compiled at O0.
TEST(CompileInParts, LoopingInlinableFunctionsLeaveTheGlue) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  PartTimes Times;
  auto Objects = compileProgram(Engine, 3, /*Threads=*/2, Times,
                                /*Inlinable=*/true);
  ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
  EXPECT_EQ(Objects->size(), 3u);
  std::map<std::string, std::set<size_t>> DefinedIn = definedIn(*Objects);
  ASSERT_EQ(DefinedIn["entry"].size(), 1u);
  // The helper without a loop stays with the driver.
  EXPECT_EQ(DefinedIn["glue"], DefinedIn["entry"]);
  EXPECT_EQ(kernelParts(DefinedIn, 3).size(), 2u);
  EXPECT_EQ(runEntry(Engine, std::move(*Objects), {5, -40}),
            (std::vector<int64_t>{expected(5, 3), expected(-40, 3)}));
}

// On four threads three workers compile a kernel each, each started as
// soon as its part is cut, while this thread cuts and compiles the glue
// and the fourth kernel: five parts that link into the same program.
TEST(CompileInParts, WorkersStartAsTheirPartsAreCut) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  PartTimes Times;
  auto Objects = compileProgram(Engine, 4, /*Threads=*/4, Times);
  ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
  EXPECT_EQ(Objects->size(), 5u);
  EXPECT_EQ(kernelParts(definedIn(*Objects), 4).size(), 4u);
  EXPECT_EQ(runEntry(Engine, std::move(*Objects), {7, -3}),
            (std::vector<int64_t>{expected(7, 4), expected(-3, 4)}));
}

// On one thread (compile_threads=1, or one core) the glue still has a
// part of its own, compiled at O0, and the kernels theirs.
TEST(CompileInParts, OneThreadStillCutsOffTheGlue) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  PartTimes Times;
  auto Objects = compileProgram(Engine, 2, /*Threads=*/1, Times);
  ASSERT_TRUE(bool(Objects)) << llvm::toString(Objects.takeError());
  ASSERT_EQ(Objects->size(), 2u);
  std::map<std::string, std::set<size_t>> DefinedIn = definedIn(*Objects);
  ASSERT_EQ(DefinedIn["entry"].size(), 1u);
  ASSERT_EQ(DefinedIn["k1"].size(), 1u);
  EXPECT_NE(*DefinedIn["entry"].begin(), *DefinedIn["k1"].begin());
  EXPECT_EQ(DefinedIn["k1"], DefinedIn["k2"]);
  EXPECT_EQ(runEntry(Engine, std::move(*Objects), {7}),
            std::vector<int64_t>{expected(7, 2)});
}

TEST(CompileInParts, SmallModulesAndLongDriversStayWhole) {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> Glue = parseIR(Ctx, programIR(0, false));
  ASSERT_TRUE(Glue);
  EXPECT_EQ(compilePartsFor(*Glue, "entry"), 0u);
  std::unique_ptr<llvm::Module> Small = parseIR(Ctx, programIR(1, false));
  ASSERT_TRUE(Small);
  EXPECT_EQ(compilePartsFor(*Small, "entry"), 0u);
  std::unique_ptr<llvm::Module> Long = parseIR(Ctx, programIR(40, true));
  ASSERT_TRUE(Long);
  EXPECT_EQ(compilePartsFor(*Long, "entry"), 0u);
  // The same kernels under an ordinary driver: as many threads as the
  // hardware has, up to 4.
  std::unique_ptr<llvm::Module> Large = parseIR(Ctx, programIR(40, false));
  ASSERT_TRUE(Large);
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(compilePartsFor(*Large, "entry"), std::min(Threads, 4u));
}

} // namespace
