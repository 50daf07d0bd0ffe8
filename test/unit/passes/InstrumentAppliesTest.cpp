//===- InstrumentAppliesTest.cpp - The pass, JIT-compiled and run ---------===//
//
// A small module that follows the instrumentation contract (a driver
// calling three marked thunks with the driver's error test between them) is
// instrumented in-process, optimized and JIT-compiled by JitEngine, and run:
// every Apply's calls and ticks must add up, on the error path too, and when
// four threads call the function at once. Malformed markings leave the
// module unchanged; the pass is reachable from a pipeline string.
//
//===----------------------------------------------------------------------===//

#include "passes/InstrumentApplies.h"
#include "jit/JitEngine.h"
#include "runtime/ProfileRuntime.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <thread>

using namespace graphjit;
using namespace llvm;

namespace {

// frame: i64 slots. [0] thunk 0's count, [1] thunk 1 fails when non-zero,
// [2] thunk 1's spin count, [3] its scratch, [4] thunk 3's count.
const char *DriverIR = R"IR(
define internal i32 @gj_thunk_0(ptr %frame) {
  %v = load i64, ptr %frame
  %v1 = add i64 %v, 1
  store i64 %v1, ptr %frame
  ret i32 0
}

define internal i32 @gj_thunk_1(ptr %frame) {
entry:
  %fp = getelementptr i64, ptr %frame, i64 1
  %fail = load i64, ptr %fp
  %np = getelementptr i64, ptr %frame, i64 2
  %n = load i64, ptr %np
  %sp = getelementptr i64, ptr %frame, i64 3
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  store volatile i64 %i, ptr %sp
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %f = icmp ne i64 %fail, 0
  %r = select i1 %f, i32 7, i32 0
  ret i32 %r
}

define internal i32 @gj_thunk_3(ptr %frame) {
  %p = getelementptr i64, ptr %frame, i64 4
  %v = load i64, ptr %p
  %v1 = add i64 %v, 1
  store i64 %v1, ptr %p
  ret i32 0
}

define i32 @gj_driver(ptr %frame) {
entry:
  %rc0 = call i32 @gj_thunk_0(ptr %frame), !graphjit.apply !0
  %c0 = icmp ne i32 %rc0, 0
  br i1 %c0, label %failed, label %after0
failed:
  %rc = phi i32 [ %rc0, %entry ], [ %rc1, %after0 ], [ %rc3, %after1 ]
  ret i32 %rc
after0:
  %rc1 = call i32 @gj_thunk_1(ptr %frame), !graphjit.apply !1
  %c1 = icmp ne i32 %rc1, 0
  br i1 %c1, label %failed, label %after1
after1:
  %rc3 = call i32 @gj_thunk_3(ptr %frame), !graphjit.apply !2
  %c3 = icmp ne i32 %rc3, 0
  br i1 %c3, label %failed, label %after3
after3:
  ret i32 0
}

!0 = !{i32 0, !"Elemwise{add,no_inplace}(x, y)", !"t.graph:1", !"C"}
!1 = !{i32 1, !"Spin(n)", !"t.graph:2", !"C"}
!2 = !{i32 3, !"Perform(z)", !"", !"Py"}
)IR";

std::unique_ptr<Module> parse(const char *IR, LLVMContext &Ctx) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Err, Ctx);
  if (!M)
    ADD_FAILURE() << Err.getMessage().str();
  return M;
}

std::string print(const Module &M) {
  std::string S;
  raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

// The JIT binds the runtime's entry points in its main JITDylib; where it
// does not yet bind the profiling ones, the test does.
void bindProfileSymbols(JitEngine &Engine) {
  static bool Done = false;
  if (Done)
    return;
  auto Ctx = std::make_unique<LLVMContext>();
  auto M = parse("define i32 @gj_nothing() {\n  ret i32 0\n}\n", *Ctx);
  M->setDataLayout(Engine.dataLayout());
  M->setTargetTriple(Engine.triple());
  CompiledCode Code = cantFail(Engine.compile(
      std::move(M), std::move(Ctx), "gj_nothing", Optimization{0}));
  orc::ExecutionSession &ES = Code.Dylib->getExecutionSession();
  orc::JITDylib *Main = ES.getJITDylibByName("main");
  ASSERT_NE(Main, nullptr);
  orc::SymbolMap Missing;
  for (const RuntimeSymbol &S : ProfileRuntime::symbols()) {
    auto Found =
        ES.lookup(orc::makeJITDylibSearchOrder(Main), ES.intern(S.Name));
    if (Found)
      continue;
    consumeError(Found.takeError());
    Missing[ES.intern(S.Name)] = {orc::ExecutorAddr::fromPtr(S.Address),
                                  JITSymbolFlags::Exported};
  }
  if (!Missing.empty())
    cantFail(Main->define(orc::absoluteSymbols(std::move(Missing))));
  Engine.release(Code);
  Done = true;
}

struct Compiled {
  CompiledCode Code;
  int32_t (*Driver)(int64_t *) = nullptr;
  const gj_profile_desc *Desc = nullptr;
};

Compiled compileInstrumented(CounterClock Clock) {
  JitEngine &Engine = cantFail(JitEngine::get());
  bindProfileSymbols(Engine);
  auto Ctx = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> M = parse(DriverIR, *Ctx);
  M->setDataLayout(Engine.dataLayout());
  M->setTargetTriple(Engine.triple());
  InstrumentAppliesOptions Opts;
  Opts.Clock = Clock;
  InstrumentAppliesResult R = cantFail(instrumentApplies(*M, Opts));
  EXPECT_EQ(R.Functions, 1u);
  EXPECT_EQ(R.Applies, 3u);
  EXPECT_FALSE(verifyModule(*M, &errs()));
  Compiled C;
  C.Code =
      cantFail(Engine.compile(std::move(M), std::move(Ctx), "gj_driver",
                                        Optimization{}));
  C.Driver = reinterpret_cast<int32_t (*)(int64_t *)>(C.Code.Driver);
  orc::ExecutionSession &ES = C.Code.Dylib->getExecutionSession();
  orc::ExecutorSymbolDef Sym =
      cantFail(ES.lookup(orc::makeJITDylibSearchOrder(C.Code.Dylib),
                         ES.intern("gj_driver.gj_profile")));
  C.Desc = Sym.getAddress().toPtr<const gj_profile_desc *>();
  return C;
}

void release(Compiled &C) {
  ProfileRuntime::forget(*C.Desc);
  cantFail(JitEngine::get()).release(C.Code);
}

TEST(InstrumentApplies, JitCodeCountsEveryApply) {
  Compiled C = compileInstrumented(CounterClock::Tsc);
  const gj_profile_desc &D = *C.Desc;
  EXPECT_EQ(D.abi_version, uint32_t(GRAPHJIT_RUNTIME_ABI_VERSION));
  EXPECT_EQ(D.num_counters, 4u);
  EXPECT_STREQ(D.function, "gj_driver");
  ASSERT_EQ(D.num_applies, 3u);
  EXPECT_EQ(D.applies[2].id, 3);
  EXPECT_STREQ(D.applies[0].name, "Elemwise{add,no_inplace}(x, y)");
  EXPECT_STREQ(D.applies[1].loc, "t.graph:2");
  EXPECT_STREQ(D.applies[2].loc, "");
  EXPECT_STREQ(D.applies[2].kind, "Py");
  EXPECT_EQ(D.clock, uint32_t(GJ_PROFILE_CLOCK_TSC));

  int64_t Frame[5] = {0, 0, 20000, 0, 0};
  for (int I = 0; I < 100; ++I)
    ASSERT_EQ(C.Driver(Frame), 0);
  Frame[1] = 1; // thunk 1 fails: thunk 3 does not run
  EXPECT_EQ(C.Driver(Frame), 7);
  EXPECT_EQ(Frame[0], 101);
  EXPECT_EQ(Frame[4], 100);

  ProfileTotals T = ProfileRuntime::totals(D);
  EXPECT_EQ(T.Calls, 101u);
  ASSERT_EQ(T.Applies.size(), 4u);
  EXPECT_EQ(T.Applies[0].calls, 101u);
  EXPECT_EQ(T.Applies[1].calls, 101u);
  EXPECT_EQ(T.Applies[2].calls, 0u);
  EXPECT_EQ(T.Applies[3].calls, 100u);
  // The spinning Apply dominates, and the Applies fit in the calls.
  EXPECT_GT(T.Applies[1].ticks, T.Applies[0].ticks);
  EXPECT_GT(T.Applies[1].ticks, T.Applies[3].ticks);
  EXPECT_LE(T.Applies[0].ticks + T.Applies[1].ticks + T.Applies[3].ticks,
            T.DriverTicks);
  release(C);
}

TEST(InstrumentApplies, ThreadsCallingAtOnceLoseNothing) {
  Compiled C = compileInstrumented(CounterClock::Tsc);
  constexpr int Threads = 4, Calls = 20000;
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back([&C, Calls] {
      int64_t Frame[5] = {0, 0, 10, 0, 0};
      for (int I = 0; I < Calls; ++I)
        C.Driver(Frame);
      EXPECT_EQ(Frame[0], Calls);
    });
  for (std::thread &T : Ts)
    T.join();
  ProfileTotals T = ProfileRuntime::totals(*C.Desc);
  EXPECT_EQ(T.Threads, unsigned(Threads));
  EXPECT_EQ(T.Calls, uint64_t(Threads) * Calls);
  for (unsigned Id : {0u, 1u, 3u})
    EXPECT_EQ(T.Applies[Id].calls, uint64_t(Threads) * Calls) << Id;
  release(C);
}

TEST(InstrumentApplies, CallClockCountsNanoseconds) {
  Compiled C = compileInstrumented(CounterClock::Call);
  EXPECT_EQ(C.Desc->clock, uint32_t(GJ_PROFILE_CLOCK_CALL));
  int64_t Frame[5] = {0, 0, 1'000'000, 0, 0};
  uint64_t Begin = gj_profile_now();
  ASSERT_EQ(C.Driver(Frame), 0);
  uint64_t Elapsed = gj_profile_now() - Begin;
  ProfileTotals T = ProfileRuntime::totals(*C.Desc);
  EXPECT_EQ(T.Calls, 1u);
  EXPECT_GT(T.Applies[1].ticks, 0u);
  EXPECT_LE(T.Applies[1].ticks, T.DriverTicks);
  EXPECT_LE(T.DriverTicks, Elapsed);
  release(C);
}

TEST(InstrumentApplies, MalformedMarkingLeavesTheModuleAlone) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(R"IR(
declare i32 @t(ptr)
define i32 @f(ptr %p) {
  %a = call i32 @t(ptr %p), !graphjit.apply !0
  %b = call i32 @t(ptr %p), !graphjit.apply !0
  ret i32 %b
}
!0 = !{i32 4, !"n", !"", !"C"}
)IR",
                                    Ctx);
  std::string Before = print(*M);
  Expected<InstrumentAppliesResult> R = instrumentApplies(*M);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            "in function 'f': !graphjit.apply on the call to 't': Apply id 4 "
            "is already used by the call to 't' in the same function");
  EXPECT_EQ(print(*M), Before);
}

TEST(InstrumentApplies, SecondRunSkipsWithAWarning) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(DriverIR, Ctx);
  cantFail(instrumentApplies(*M));
  std::string Once = print(*M);
  InstrumentAppliesResult R = cantFail(instrumentApplies(*M));
  EXPECT_EQ(R.Functions, 0u);
  ASSERT_EQ(R.Warnings.size(), 1u);
  EXPECT_NE(R.Warnings[0].find("already instrumented"), std::string::npos);
  EXPECT_EQ(print(*M), Once);
}

TEST(InstrumentApplies, ParsedFromAPipelineString) {
  PassBuilder PB;
  registerGraphjitPasses(PB);
  ModulePassManager MPM;
  EXPECT_FALSE(bool(PB.parsePassPipeline(MPM, "graphjit-instrument")));
  EXPECT_FALSE(
      bool(PB.parsePassPipeline(MPM, "graphjit-instrument<clock=call>")));
  EXPECT_FALSE(
      bool(PB.parsePassPipeline(MPM, "graphjit-instrument<clock=sample>")));
  Expected<InstrumentAppliesOptions> Bad =
      InstrumentAppliesPass::parseParams("clock=wall");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "invalid graphjit-instrument parameter 'clock=wall' (expected "
            "clock=tsc, clock=call, clock=sample, memory or trace)");
}

} // namespace
