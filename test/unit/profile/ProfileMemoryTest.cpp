//===- ProfileMemoryTest.cpp - The memory profile -------------------------===//
//
// simulateMemory() on small graphs whose peaks are worked out by hand in
// the comments, the Memory Profile section of the report, and memory in
// merges, diffs and JSON.
//
// Variables 0-9 are the function's inputs (no memory); Applies make 10 on.
//
//===----------------------------------------------------------------------===//
#include "ProfileTestUtil.h"
#include "profile/MemoryReport.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace graphjit;
using namespace graphjit::test;

namespace {

std::string section(const FunctionProfile &F, SummaryOptions Opts = {}) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  profile::printMemoryProfile(OS, F, Opts);
  return S;
}

std::string summary(const Profile &P, SummaryOptions Opts = {}) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printSummary(OS, P, Opts);
  return S;
}

/// x -> a (100) -> b (200) -> c (400).
FunctionProfile chain(std::vector<int> Kept) {
  return memFunction("chain",
                     {memApply(0, "A", {0}, {created(10, 100)}),
                      memApply(1, "B", {10}, {created(11, 200)}),
                      memApply(2, "C", {11}, {created(12, 400)})},
                     std::move(Kept));
}

/// Two big temporaries, each reduced, then added. The schedule makes both
/// temporaries first; making and reducing one at a time needs half.
FunctionProfile diamond(uint64_t Big = 1000, uint64_t Small = 10) {
  return memFunction("diamond",
                     {memApply(0, "Exp", {0}, {created(10, Big)}),
                      memApply(1, "Log", {0}, {created(11, Big)}),
                      memApply(2, "Sum", {10}, {created(12, Small)}),
                      memApply(3, "Sum", {11}, {created(13, Small)}),
                      memApply(4, "Add", {12, 13}, {created(14, Small)})},
                     {14});
}

TEST(ProfileMemory, ChainFreesWhatWasLastUsed) {
  // A: 100 (peak 100). B: 300 (peak), then a is freed: 200. C: 600
  // (peak), then b: 400. Without gc everything adds up: 700.
  MemorySimulation S = simulateMemory(chain({12}));
  EXPECT_EQ(S.NoGC, 700u);
  EXPECT_EQ(S.GC, 600u);
  EXPECT_TRUE(S.MinPeakExact);
  EXPECT_EQ(S.MinPeak, 600u); // The only order.
  EXPECT_EQ(S.MinPeakSkipped, "");
}

TEST(ProfileMemory, KeptVariablesAreNeverFreed) {
  // a kept: after B 300 stays 300; C: 700. b is still freed after C.
  MemorySimulation S = simulateMemory(chain({10, 12}));
  EXPECT_EQ(S.NoGC, 700u);
  EXPECT_EQ(S.GC, 700u);
  EXPECT_EQ(S.MinPeak, 700u);
}

TEST(ProfileMemory, MinimumPeakBeatsTheSchedulesOrder) {
  // Schedule: Exp 1000, Log 2000, Sum 2010 (peak; then the Exp's output is
  // freed: 1010), Sum 1020 (then 20), Add 30.
  // Best: Exp 1000, Sum 1010 (then 10), Log 1010, Sum 1020 (then 20), Add
  // 30: the peak is 1020.
  MemorySimulation S = simulateMemory(diamond());
  EXPECT_EQ(S.NoGC, 2030u);
  EXPECT_EQ(S.GC, 2010u);
  ASSERT_TRUE(S.MinPeakExact);
  EXPECT_EQ(S.MinPeak, 1020u);
  EXPECT_LT(S.MinPeak, S.GC);
  EXPECT_GE(S.MinPeakSeconds, 0.0);
}

TEST(ProfileMemory, ManyBranchesSearchExactly) {
  // K branches big (1000) -> sum (10), then one Add of the K sums (10).
  // Schedule: all bigs, then the sums: K * 1000 + 10 at the first sum.
  // Best: one branch at a time; the last branch's sum has the K - 1
  // earlier sums, its big and itself live: 1010 + (K - 1) * 10.
  const int K = 8;
  std::vector<ApplyProfile> Applies;
  std::vector<int> Sums;
  for (int I = 0; I < K; ++I)
    Applies.push_back(memApply(I, "Big", {0}, {created(10 + I, 1000)}));
  for (int I = 0; I < K; ++I) {
    Applies.push_back(
        memApply(K + I, "Sum", {10 + I}, {created(10 + K + I, 10)}));
    Sums.push_back(10 + K + I);
  }
  Applies.push_back(memApply(2 * K, "Add", Sums, {created(100, 10)}));
  MemorySimulation S = simulateMemory(memFunction("wide", Applies, {100}));
  EXPECT_EQ(S.GC, uint64_t(K * 1000 + 10));
  ASSERT_TRUE(S.MinPeakExact);
  EXPECT_EQ(S.MinPeak, uint64_t(1010 + (K - 1) * 10));
}

TEST(ProfileMemory, ViewKeepsItsBaseAlive) {
  // a = Exp(x) 800; v = view of a; b = Neg(x) 400; c = Add(v, b) 800.
  // Exp 800. View 800 (nothing new); a's last use, but v shares its
  // buffer: still 800. Neg 1200. Add 2000 (peak), then v frees a's buffer
  // and b is freed: 800. Were the buffer freed with a, the peak would be
  // 1200.
  FunctionProfile F =
      memFunction("view",
                  {memApply(0, "Exp", {0}, {created(10, 800)}),
                   memApply(1, "DimShuffle", {10}, {sharing(11, 0, 800)}),
                   memApply(2, "Neg", {0}, {created(12, 400)}),
                   memApply(3, "Add", {11, 12}, {created(13, 800)})},
                  {13});
  MemorySimulation S = simulateMemory(F);
  EXPECT_EQ(S.NoGC, 2000u); // The view allocates nothing.
  EXPECT_EQ(S.GC, 2000u);
  EXPECT_EQ(S.MinPeak, 2000u); // The Add needs all three buffers.
}

TEST(ProfileMemory, InplaceSharesUnlessItAllocated) {
  // a = Exp(x) 800; b = a + y in place of a; c = Mul(b, b) 800.
  // Exp 800. Add 800: a is released but b holds the buffer. Mul 1600
  // (peak), then b is freed: 800. Without gc: 1600.
  std::vector<ApplyProfile> Applies = {
      memApply(0, "Exp", {0}, {created(10, 800)}),
      memApply(1, "Add", {10, 1}, {sharing(11, 0, 800, "inplace")}),
      memApply(2, "Mul", {11, 11}, {created(12, 800)})};
  MemorySimulation S = simulateMemory(memFunction("inplace", Applies, {12}));
  EXPECT_EQ(S.NoGC, 1600u);
  EXPECT_EQ(S.GC, 1600u);
  // Seen allocating: the Add makes a buffer of its own (1600, then a is
  // freed: 800); without gc all three add up.
  Applies[1].OutputMem[0].Allocated = true;
  S = simulateMemory(memFunction("inplace", Applies, {12}));
  EXPECT_EQ(S.NoGC, 2400u);
  EXPECT_EQ(S.GC, 1600u);
}

TEST(ProfileMemory, InplaceRunsAfterTheOtherReaders) {
  // a = Exp(x) 800; d = Mul(a) 800; b = Big(x) 1000; c = a + b in place of
  // a; e = Add(c, d) 800. Mul reads a, so it runs before the in-place Add
  // overwrites a: Exp, Mul and Big are all live then (2600). Running Mul
  // after the Add would peak at 2400 (Big 1000, Exp 1800, Add 1800 then
  // 800, Mul 1600, Add 2400), but would read an overwritten a.
  FunctionProfile F = memFunction(
      "destroy",
      {memApply(0, "Exp", {0}, {created(10, 800)}),
       memApply(1, "Mul", {10}, {created(13, 800)}),
       memApply(2, "Big", {0}, {created(11, 1000)}),
       memApply(3, "AddInplace", {10, 11}, {sharing(12, 0, 800, "inplace")}),
       memApply(4, "Add", {12, 13}, {created(14, 800)})},
      {14});
  MemorySimulation S = simulateMemory(F);
  EXPECT_EQ(S.GC, 2600u);
  EXPECT_EQ(S.MinPeak, 2600u);
}

TEST(ProfileMemory, ViewOfAFunctionInputTakesNoMemory) {
  // v views input x: nothing allocated. c = Exp(v) 80.
  FunctionProfile F =
      memFunction("input view",
                  {memApply(0, "DimShuffle", {0}, {sharing(10, 0, 80)}),
                   memApply(1, "Exp", {10}, {created(11, 80)})},
                  {11});
  MemorySimulation S = simulateMemory(F);
  EXPECT_EQ(S.NoGC, 80u);
  EXPECT_EQ(S.GC, 80u);
  EXPECT_EQ(S.MinPeak, 80u);
}

TEST(ProfileMemory, OutputNobodyReadsDiesAtOnce) {
  // Apply 0 makes a (500, unread) and m (100): 600 (peak), then a dies:
  // 100. G(m) 300: 400, then m: 300.
  FunctionProfile F = memFunction(
      "unread",
      {memApply(0, "Split", {0}, {created(10, 500), created(11, 100)}),
       memApply(1, "G", {11}, {created(12, 300)})},
      {12});
  MemorySimulation S = simulateMemory(F);
  EXPECT_EQ(S.NoGC, 900u);
  EXPECT_EQ(S.GC, 600u);
  EXPECT_EQ(S.MinPeak, 600u);
}

TEST(ProfileMemory, NotRecordedGivesZeros) {
  FunctionProfile F = diamond();
  F.Memory.Recorded = false;
  MemorySimulation S = simulateMemory(F);
  EXPECT_EQ(S.NoGC, 0u);
  EXPECT_EQ(S.GC, 0u);
  EXPECT_FALSE(S.MinPeakExact);
}

std::vector<ApplyProfile> longChain(unsigned N) {
  std::vector<ApplyProfile> Applies;
  for (unsigned I = 0; I < N; ++I)
    Applies.push_back(memApply(I, "Exp", {I ? int(9 + I) : 0},
                               {created(int(10 + I), 8 * (I + 1))}));
  return Applies;
}

TEST(ProfileMemory, SearchLimits) {
  // 64 Applies fill the state's mask: still exact. The peak is at the last
  // Apply: its 512 bytes and its input's 504.
  MemorySimulation S = simulateMemory(memFunction("64", longChain(64), {73}));
  ASSERT_TRUE(S.MinPeakExact) << S.MinPeakSkipped;
  EXPECT_EQ(S.GC, 1016u);
  EXPECT_EQ(S.MinPeak, 1016u);

  S = simulateMemory(memFunction("65", longChain(65), {74}));
  EXPECT_FALSE(S.MinPeakExact);
  EXPECT_EQ(S.MinPeakSkipped,
            "65 Apply nodes; the exact search is limited to 64");
  EXPECT_EQ(S.GC, 1032u); // The schedule's peaks are still simulated.

  S = simulateMemory(diamond(), /*MaxSearchStates=*/2);
  EXPECT_FALSE(S.MinPeakExact);
  EXPECT_EQ(S.MinPeakSkipped, "the exact search stopped after 2 states");
  EXPECT_EQ(S.GC, 2010u);
}

/// The gc peak of F's Applies run in Order, simulated the plain way: last
/// uses from positions, each buffer freed once all its sharers are.
uint64_t peakOfOrder(const FunctionProfile &F,
                     const std::vector<unsigned> &Order) {
  std::map<int, unsigned> Pos, MadeAt; // Var -> position of its producer.
  std::map<int, int> Buffer;           // Var -> buffer (the creating var).
  std::map<int, uint64_t> Bytes;       // Buffer -> bytes.
  for (unsigned P = 0; P < Order.size(); ++P) {
    const ApplyProfile &A = F.Applies[Order[P]];
    for (const OutputMemory &O : A.OutputMem) {
      MadeAt[O.Var] = P;
      if (O.Kind == "created" || O.Allocated) {
        Buffer[O.Var] = O.Var;
        Bytes[O.Var] = O.Bytes;
      } else if (Buffer.count(A.InputVars[O.Input])) {
        Buffer[O.Var] = Buffer[A.InputVars[O.Input]];
      }
    }
  }
  std::map<int, unsigned> LastUse = MadeAt;
  for (unsigned P = 0; P < Order.size(); ++P)
    for (int V : F.Applies[Order[P]].InputVars)
      if (MadeAt.count(V))
        LastUse[V] = std::max(LastUse[V], P);
  std::set<int> Released, Freed;
  uint64_t Running = 0, Peak = 0;
  for (unsigned P = 0; P < Order.size(); ++P) {
    for (const OutputMemory &O : F.Applies[Order[P]].OutputMem)
      if (Bytes.count(O.Var))
        Running += Bytes[O.Var];
    Peak = std::max(Peak, Running);
    for (auto [V, Last] : LastUse)
      if (Last == P && !llvm::is_contained(F.Memory.KeptVars, V))
        Released.insert(V);
    for (auto [B, Size] : Bytes) {
      bool AllReleased = !Freed.count(B) && MadeAt[B] <= P;
      for (auto [V, Of] : Buffer)
        if (Of == B && !Released.count(V))
          AllReleased = false;
      if (AllReleased) {
        Freed.insert(B);
        Running -= Size;
      }
    }
  }
  return Peak;
}

/// A random function of N Applies: each reads one to three of the inputs
/// (0, 1) and earlier outputs, and makes one or two outputs, created,
/// views or in place, some kept.
FunctionProfile randomFunction(std::mt19937 &Rng, unsigned N) {
  auto Pick = [&](unsigned K) { return unsigned(Rng() % K); };
  std::vector<int> Vars = {0, 1};
  std::vector<ApplyProfile> Applies;
  std::vector<int> Kept;
  int Next = 10;
  for (unsigned I = 0; I < N; ++I) {
    std::vector<int> Inputs;
    for (unsigned K = 0, E = 1 + Pick(3); K < E; ++K)
      Inputs.push_back(Vars[Pick(Vars.size())]);
    std::vector<OutputMemory> Outputs;
    for (unsigned K = 0, E = 1 + Pick(2); K < E; ++K) {
      uint64_t Bytes = 8 * (1 + Pick(100));
      unsigned Kind = Pick(5);
      OutputMemory O = Kind < 3 ? created(Next, Bytes)
                                : sharing(Next, Pick(Inputs.size()), Bytes,
                                          Kind == 3 ? "view" : "inplace");
      O.Allocated = Kind >= 3 && Pick(4) == 0;
      if (Pick(6) == 0)
        Kept.push_back(Next);
      Outputs.push_back(O);
      Vars.push_back(Next++);
    }
    Applies.push_back(memApply(I, "A", Inputs, Outputs));
  }
  return memFunction("random", Applies, Kept);
}

TEST(ProfileMemory, SearchAgreesWithEveryOrderTried) {
  std::mt19937 Rng(12345);
  int Better = 0; // Trials where another order beats the schedule.
  for (int Trial = 0; Trial < 120; ++Trial) {
    FunctionProfile F = randomFunction(Rng, 5 + Trial % 3);
    std::vector<unsigned> Order(F.Applies.size());
    std::iota(Order.begin(), Order.end(), 0u);
    MemorySimulation S = simulateMemory(F);
    ASSERT_EQ(S.GC, peakOfOrder(F, Order)) << "trial " << Trial;
    uint64_t NoGC = 0;
    for (const ApplyProfile &A : F.Applies)
      for (const OutputMemory &O : A.OutputMem)
        NoGC += O.Kind == "created" || O.Allocated ? O.Bytes : 0;
    ASSERT_EQ(S.NoGC, NoGC) << "trial " << Trial;
    // Every permutation whose Applies run after their inputs' makers.
    uint64_t Min = UINT64_MAX;
    do {
      std::set<int> Made;
      std::set<unsigned> Ran;
      bool Valid = true;
      for (unsigned I : Order) {
        const ApplyProfile &A = F.Applies[I];
        for (int V : A.InputVars)
          Valid = Valid && (V < 10 || Made.count(V));
        // Earlier readers of what an in-place output overwrites ran.
        for (const OutputMemory &O : A.OutputMem)
          for (unsigned J = 0; O.Kind == "inplace" && J < I; ++J)
            if (llvm::is_contained(F.Applies[J].InputVars,
                                   A.InputVars[O.Input]))
              Valid = Valid && Ran.count(J);
        for (const OutputMemory &O : A.OutputMem)
          Made.insert(O.Var);
        Ran.insert(I);
      }
      if (Valid)
        Min = std::min(Min, peakOfOrder(F, Order));
    } while (std::next_permutation(Order.begin(), Order.end()));
    ASSERT_TRUE(S.MinPeakExact) << "trial " << Trial;
    ASSERT_EQ(S.MinPeak, Min) << "trial " << Trial;
    Better += Min < S.GC;
  }
  EXPECT_GT(Better, 10);
}

//===----------------------------------------------------------------------===//
// The report's section.
//===----------------------------------------------------------------------===//

/// The diamond with 10KB temporaries, 8-byte scalars, and the measured
/// peak equal to the simulated one.
FunctionProfile reportDiamond() {
  FunctionProfile F = diamond(10240, 8);
  for (unsigned I = 2; I < 5; ++I)
    F.Applies[I].OutputMem[0].Shape = {};
  // Schedule: 10240, 20480, 20488 (peak), ...; no gc: 20504.
  F.Memory.MeasuredPeak = 20488;
  return F;
}

TEST(ProfileMemoryReport, Section) {
  // Best order: 10240, 10248 (then 8), 10248, 10256, ...: 10KB.
  EXPECT_EQ(
      section(reportDiamond()),
      "Memory Profile\n"
      "(Sparse variables are ignored)\n"
      "---\n"
      "    Max if no gc (allow_gc=False): 20KB\n"
      "    Max if linker=c|py: 20KB\n"
      "    Memory saved if gc is enabled (linker=c|py): 0KB\n"
      "    Max if linker=c|py (in use, allow_gc=True): 20KB simulated, "
      "20KB measured (agree)\n"
      "    Minimum peak from all valid apply node orders: 10KB (took "
      "0.000s to compute)\n"
      "\n"
      "    <Sum apply outputs (bytes)> <Allocated (bytes)> <Apply outputs "
      "shape> <created/inplace/view> <Apply node>\n"
      "\n"
      "         10240B     10240B  [(1280,)] c Exp(v0)\n"
      "         10240B     10240B  [(1280,)] c Log(v0)\n"
      "   ... (remaining 3 Apply account for   24B/20504B ((0.12%)) of "
      "the Apply with dense outputs sizes)\n"
      "\n"
      "    <created/inplace/view> is taken from the Op's declaration.\n"
      "    <Allocated> is what the runtime's allocator gave the Apply in "
      "one call (the most over all calls); an Apply marked '!' declared "
      "a view or in-place output but allocated memory for it.\n"
      "\n");
}

TEST(ProfileMemoryReport, KilobytesRoundAsPython) {
  EXPECT_EQ(profile::kilobytes(0), "0KB");
  EXPECT_EQ(profile::kilobytes(511), "0KB");
  EXPECT_EQ(profile::kilobytes(512), "0KB");  // round(0.5) == 0
  EXPECT_EQ(profile::kilobytes(1536), "2KB"); // round(1.5) == 2
  EXPECT_EQ(profile::kilobytes(2560), "2KB"); // round(2.5) == 2
  EXPECT_EQ(profile::kilobytes(2600), "3KB");
}

TEST(ProfileMemoryReport, MeasuredPeakMustAgreeToTheByte) {
  FunctionProfile F = reportDiamond();
  F.Memory.MeasuredPeak = 20480; // Same KB, 8 bytes less.
  EXPECT_NE(section(F).find("Max if linker=c|py (in use, allow_gc=True): 20KB "
                            "simulated, 20KB measured (DISAGREE: measured 8 "
                            "bytes less)\n"),
            std::string::npos);
  F.Memory.MeasuredPeak = 30000;
  EXPECT_NE(section(F).find("(DISAGREE: measured 9512 bytes more)"),
            std::string::npos);
  // Without gc the run is compared with the no-gc figure.
  F.Memory.AllowGC = false;
  F.Memory.MeasuredPeak = 20504;
  F.Linker = "py";
  EXPECT_NE(section(F).find("Max if linker=py (in use, allow_gc=False): 20KB "
                            "simulated, 20KB measured (agree)\n"),
            std::string::npos);
}

TEST(ProfileMemoryReport, RowsOrderFilterAndMarks) {
  // Sizes 4096 (two outputs: created and view), 2048 (an in-place output
  // seen allocating), 1024, 1000, 8 (0-d): 8176 in all.
  FunctionProfile F = memFunction(
      "rows",
      {memApply(0, "Small", {0}, {created(10, 1000)}),
       memApply(1, "Pair", {0}, {created(11, 2048), sharing(12, 0, 2048)}),
       memApply(2, "Inc", {11, 1}, {sharing(13, 0, 2048, "inplace")}),
       memApply(3, "Mid", {13}, {created(14, 1024)}),
       memApply(4, "Sum", {14}, {created(15, 8)})},
      {12, 15});
  F.Applies[1].OutputMem[0].Shape = {16, 16};
  F.Applies[2].OutputMem[0].Allocated = true;
  F.Applies[2].AllocatedBytes = 2048;
  F.Applies[4].OutputMem[0].Shape = {};
  std::string S = section(F);
  EXPECT_NE(S.find("          4096B      2048B  [(16, 16), (256,)] c v "
                   "Pair(v0)\n"
                   "          2048B      2048B  [(256,)] i! Inc(v11, v1)\n"
                   "          1024B      1024B  [(128,)] c Mid(v13)\n"
                   "   ... (remaining 2 Apply account for 1008B/8176B "
                   "((12.33%)) of the Apply with dense outputs sizes)\n"),
            std::string::npos)
      << S;
  EXPECT_EQ(S.find("All Apply nodes"), std::string::npos);

  // -n-apply cuts first; -min-memory-size 0 shows every row.
  SummaryOptions Opts;
  Opts.NApply = 1;
  EXPECT_NE(section(F, Opts).find("(remaining 4 Apply account for 4080B/"
                                  "8176B ((49.90%))"),
            std::string::npos);
  Opts.NApply = 20;
  Opts.MinMemorySize = 0;
  EXPECT_NE(section(F, Opts).find("             8B         8B  [()] c "
                                  "Sum(v14)\n   ... (remaining 0 Apply "
                                  "account for    0B/8176B ((0.00%))"),
            std::string::npos);

  // Nothing big enough: Theano's sentence.
  Opts.MinMemorySize = 1 << 20;
  EXPECT_NE(section(F, Opts).find(
                "   ... (remaining 5 Apply account for 8176B/8176B "
                "((100.00%)) of the Apply with dense outputs sizes)\n\n"
                "    All Apply nodes have output sizes that take less than "
                "1048576B.\n"),
            std::string::npos);
}

TEST(ProfileMemoryReport, SectionPlacementAndWhenItIsLeftOut) {
  Profile P;
  P.Functions.push_back(reportDiamond());
  std::string S = summary(P);
  size_t Apply = S.find("Apply\n------\n"), Memory = S.find("Memory Profile");
  size_t Tips = S.find("Here are tips");
  ASSERT_NE(Memory, std::string::npos);
  EXPECT_LT(Apply, Memory);
  EXPECT_LT(Memory, Tips);

  SummaryOptions NoMemory;
  NoMemory.Memory = false;
  EXPECT_EQ(summary(P, NoMemory).find("Memory Profile"), std::string::npos);

  P.Functions[0].Memory.Recorded = false;
  EXPECT_EQ(summary(P).find("Memory Profile"), std::string::npos);

  // The sum of several functions has no memory of its own.
  P.Functions[0].Memory.Recorded = true;
  P.Functions.push_back(chain({12}));
  S = summary(P);
  size_t Sum = S.find("Message: Sum of all(2)");
  ASSERT_NE(Sum, std::string::npos);
  EXPECT_EQ(S.find("Memory Profile", Sum), std::string::npos);
  EXPECT_FALSE(sumOfFunctions(P).Memory.Recorded);

  // No functions with an empty memory: zeros, no crash.
  EXPECT_NE(section(memFunction("empty", {}))
                .find("Minimum peak from all valid apply node orders: 0KB"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Merge, diff and JSON.
//===----------------------------------------------------------------------===//

Profile memoryRun(uint64_t Big, uint64_t Peak, bool AllowGC = true) {
  Profile P;
  P.Functions.push_back(diamond(Big));
  FunctionProfile &F = P.Functions[0];
  F.Memory.AllowGC = AllowGC;
  F.Memory.MeasuredPeak = Peak;
  F.Memory.Allocations = 5;
  return P;
}

TEST(ProfileMemoryMerge, LargestPeaksAndSummedBuffers) {
  Profile A = memoryRun(1000, 2010), B = memoryRun(1500, 3010);
  B.Functions[0].Applies[0].OutputMem[0].Shape = {3, 50};
  B.Functions[0].Applies[1].OutputMem[0].Bytes = 900; // Smaller: A's stays.
  B.Functions[0].Applies[2].OutputMem[0].Allocated = true;
  llvm::Expected<Profile> S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  const FunctionProfile &F = S->Functions[0];
  EXPECT_TRUE(F.Memory.Recorded);
  EXPECT_EQ(F.Memory.MeasuredPeak, 3010u);
  EXPECT_EQ(F.Memory.Calls, 2u);
  EXPECT_EQ(F.Memory.Allocations, 10u);
  EXPECT_EQ(F.Applies[0].OutputMem[0].Bytes, 1500u);
  EXPECT_EQ(F.Applies[0].OutputMem[0].Shape, (std::vector<int64_t>{3, 50}));
  EXPECT_EQ(F.Applies[1].OutputMem[0].Bytes, 1000u);
  EXPECT_EQ(F.Applies[1].OutputMem[0].Shape, (std::vector<int64_t>{125}));
  EXPECT_TRUE(F.Applies[2].OutputMem[0].Allocated);
  EXPECT_EQ(F.Applies[0].AllocatedBytes, 1500u);
  EXPECT_EQ(F.Applies[0].Allocations, 2u);
}

TEST(ProfileMemoryMerge, KeptOnlyWhenEveryRunRecordedIt) {
  Profile A = memoryRun(1000, 2010), B = memoryRun(1000, 2010),
          C = memoryRun(1000, 2010);
  B.Functions[0].Memory = FunctionMemory();
  llvm::Expected<Profile> S = mergeProfiles({A, B, C});
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  const FunctionProfile &F = S->Functions[0];
  EXPECT_FALSE(F.Memory.Recorded);
  EXPECT_TRUE(F.Applies[0].OutputMem.empty());
  EXPECT_EQ(F.Applies[0].AllocatedBytes, 0u);
  EXPECT_EQ(summary(*S).find("Memory Profile"), std::string::npos);
}

TEST(ProfileMemoryMerge, RefusesDifferentGcOrVariables) {
  Profile A = memoryRun(1000, 2010), B = memoryRun(1000, 2030, false);
  llvm::Expected<Profile> S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(llvm::toString(S.takeError()),
            "cannot merge a.json and b.json: function 'diamond' (t.graph): "
            "allow_gc=True in a.json but allow_gc=False in b.json");

  B = memoryRun(1000, 2010);
  B.Functions[0].Applies[4].InputVars = {13, 12};
  S = mergeProfiles({A, B}, {"a.json", "b.json"});
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(llvm::toString(S.takeError()),
            "cannot merge a.json and b.json: function 'diamond' (t.graph): "
            "Apply 4 reads or makes other variables in a.json than in b.json");
}

TEST(ProfileMemoryDiff, PeaksAndOutputBytes) {
  Profile A = memoryRun(1000, 2010), B = memoryRun(1000, 1020);
  // B: the Log's output halves; the Add is gone and a Mul replaces it.
  B.Functions[0].Applies[1].OutputMem[0].Bytes = 500;
  B.Functions[0].Applies[4].Name = "Mul(v12, v13)";
  ProfileDiff D = diffProfiles(A, B);
  ASSERT_EQ(D.Memory.size(), 1u);
  const MemoryDiffRow &M = D.Memory[0];
  EXPECT_EQ(M.Function, "diamond");
  EXPECT_EQ(M.MeasuredA, 2010u);
  EXPECT_EQ(M.MeasuredB, 1020u);
  EXPECT_EQ(M.difference(), -990);
  EXPECT_EQ(M.NoGCA, 2030u);
  EXPECT_EQ(M.NoGCB, 1530u);
  EXPECT_EQ(M.GCA, 2010u);
  EXPECT_EQ(M.GCB, 1510u); // 1000 + 500 + 10 at the first Sum.
  ASSERT_EQ(D.MemoryApplies.size(), 6u);
  EXPECT_EQ(D.MemoryApplies[0].Key, "Log(v0)");
  EXPECT_EQ(D.MemoryApplies[0].State, DiffRow::Changed);
  EXPECT_EQ(D.MemoryApplies[0].difference(), -500);
  // Removed and added by 10 bytes each, name order; then the same rows.
  EXPECT_EQ(D.MemoryApplies[1].Key, "Add(v12, v13)");
  EXPECT_EQ(D.MemoryApplies[1].State, DiffRow::Removed);
  EXPECT_EQ(D.MemoryApplies[2].Key, "Mul(v12, v13)");
  EXPECT_EQ(D.MemoryApplies[2].State, DiffRow::Added);
  EXPECT_EQ(D.MemoryApplies[5].State, DiffRow::Same);

  std::string S;
  llvm::raw_string_ostream OS(S);
  SummaryOptions Opts;
  Opts.NApply = 2;
  printDiff(OS, D, "a.json", "b.json", Opts);
  EXPECT_NE(S.find("Memory\n------\n"
                   "<measured peak A> <measured peak B> <difference> <no gc "
                   "A> <no gc B> <gc A> <gc B> <Function>\n"
                   "        2010B        1020B         -990B        2030B    "
                   "    1530B        2010B        1510B  diamond\n"
                   "<output bytes A> <output bytes B> <difference> <status> "
                   "<Apply name>\n"
                   "        1000B         500B         -500B  changed  "
                   "diamond: Log(v0)\n"
                   "          10B           0B          -10B  removed  "
                   "diamond: Add(v12, v13)\n"
                   "   ... (remaining 4 Apply instances account for +10B of "
                   "the difference)\n"),
            std::string::npos)
      << S;

  // Memory in only one of them: no Memory part.
  B.Functions[0].Memory.Recorded = false;
  D = diffProfiles(A, B);
  EXPECT_TRUE(D.Memory.empty());
  EXPECT_TRUE(D.MemoryApplies.empty());
  S.clear();
  printDiff(OS, D, "a.json", "b.json");
  EXPECT_EQ(S.find("Memory\n"), std::string::npos);
}

std::string toJSON(const Profile &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeProfileJSON(OS, P);
  return S;
}

TEST(ProfileMemoryJSON, RoundTrip) {
  Profile P = memoryRun(1000, 2010);
  P.Functions.push_back(function("no memory", {apply(0, "Dot", "Dot", 1, 1)}));
  FunctionProfile &F = P.Functions[0];
  F.Applies[1].OutputMem.push_back(sharing(20, 0, 16));
  F.Applies[1].OutputMem[1].Allocated = true;
  F.Applies[2].OutputMem[0].Shape = {};
  F.Applies[3].AllocatedBytes = 12345;
  F.Applies[3].Allocations = 7;
  F.Memory.KeptVars = {14, 20};
  F.Memory.AllowGC = false;
  std::string Text = toJSON(P);
  EXPECT_NE(Text.find("\"graphjit_profile\": 3"), std::string::npos);
  EXPECT_NE(Text.find("\"outputs_memory\""), std::string::npos);
  llvm::Expected<Profile> Back = readProfileJSON(Text, "t.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->Functions[0].Memory == F.Memory);
  EXPECT_TRUE(Back->Functions[0] == F);
  EXPECT_TRUE(*Back == P);
  EXPECT_EQ(toJSON(*Back), Text);
  // A function without memory writes none.
  size_t NoMemory = Text.find("\"name\": \"no memory\"");
  ASSERT_NE(NoMemory, std::string::npos);
  EXPECT_EQ(Text.find("\"memory\"", NoMemory), std::string::npos);
  EXPECT_EQ(Text.find("\"input_vars\"", NoMemory), std::string::npos);
}

std::string errorOf(llvm::StringRef Text) {
  llvm::Expected<Profile> P = readProfileJSON(Text, "a.json");
  if (P)
    return "(no error)";
  return llvm::toString(P.takeError());
}

const char *WithMemory = R"J({"graphjit_profile": VERSION, "functions": [
  {"name": "f", "calls": 1, "call_seconds": 1, "driver_seconds": 0.5,
   "memory": {"recorded": true, "allow_gc": true, "kept_vars": [11],
              "measured_peak": 16, "calls": 1, "allocations": 2},
   "applies": [{"id": 0, "name": "A(x)", "op": "A", "op_class": "A",
                "type": "C", "calls": 1, "seconds": 0.25,
                "input_vars": [0], "allocated_bytes": 8,
                "outputs_memory": [{"var": 10, "kind": "created", "bytes": 8,
                                    "shape": [1]}]},
               {"id": 1, "name": "B(a)", "op": "B", "op_class": "B",
                "type": "C", "calls": 1, "seconds": 0.25,
                "input_vars": [10],
                "outputs_memory": [{"var": 11, "kind": "view", "input": 0,
                                    "bytes": 8, "shape": []}]}]}]})J";

std::string withMemory(llvm::StringRef Version, llvm::StringRef From = "",
                       llvm::StringRef To = "") {
  std::string S = WithMemory;
  S.replace(S.find("VERSION"), 7, Version.str());
  if (!From.empty()) {
    size_t At = S.find(From.str());
    EXPECT_NE(At, std::string::npos) << From.str();
    S.replace(At, From.size(), To.str());
  }
  return S;
}

TEST(ProfileMemoryJSON, ReadsVersion2AndVersion1) {
  llvm::Expected<Profile> P = readProfileJSON(withMemory("2"), "m.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const FunctionProfile &F = P->Functions[0];
  EXPECT_TRUE(F.Memory.Recorded);
  EXPECT_EQ(F.Memory.KeptVars, std::vector<int>{11});
  EXPECT_EQ(F.Memory.MeasuredPeak, 16u);
  EXPECT_EQ(F.Applies[0].AllocatedBytes, 8u);
  EXPECT_EQ(F.Applies[0].OutputMem[0].Input, -1); // Defaults.
  EXPECT_FALSE(F.Applies[0].OutputMem[0].Allocated);
  EXPECT_EQ(F.Applies[1].OutputMem[0].Kind, "view");
  EXPECT_EQ(simulateMemory(F).GC, 8u);

  // Version 1 had no memory: whatever such a file holds, none is read.
  P = readProfileJSON(withMemory("1"), "m.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_FALSE(P->Functions[0].Memory.Recorded);
  EXPECT_TRUE(P->Functions[0].Applies[0].OutputMem.empty());
  EXPECT_TRUE(P->Functions[0].Applies[0].InputVars.empty());
}

TEST(ProfileMemoryJSON, ErrorsNameThePath) {
  EXPECT_EQ(errorOf(withMemory("4")),
            "a.json: graphjit_profile: version 4 is not supported (this "
            "build reads versions 1 to 3)");
  EXPECT_EQ(
      errorOf(withMemory("2", "\"kind\": \"view\"", "\"kind\": \"alias\"")),
      "a.json: functions[0].applies[1].outputs_memory[0].kind: "
      "expected \"created\", \"view\" or \"inplace\", not \"alias\"");
  EXPECT_EQ(errorOf(withMemory("2", "\"input\": 0", "\"input\": 1")),
            "a.json: functions[0].applies[1].outputs_memory[0].input: "
            "expected the position of one of the 1 input_vars");
  EXPECT_EQ(errorOf(withMemory("2", "\"var\": 10", "\"var\": 1e12")),
            "a.json: functions[0].applies[0].outputs_memory[0].var: "
            "expected a 32-bit integer");
  EXPECT_EQ(errorOf(withMemory("2", "\"input_vars\": [10]",
                               "\"input_vars\": [\"a\"]")),
            "a.json: functions[0].applies[1].input_vars[0]: expected a "
            "32-bit integer");
  EXPECT_EQ(errorOf(withMemory("2", "\"kind\": \"created\", \"bytes\": 8",
                               "\"kind\": \"created\", \"bytes\": -8")),
            "a.json: functions[0].applies[0].outputs_memory[0].bytes: "
            "expected an integer >= 0");
  EXPECT_EQ(errorOf(withMemory("2", "\"recorded\": true, ", "")),
            "a.json: functions[0].memory.recorded: missing");
  EXPECT_EQ(errorOf(withMemory("2", "\"measured_peak\": 16",
                               "\"measured_peak\": true")),
            "a.json: functions[0].memory.measured_peak: expected an integer "
            ">= 0");
}

} // namespace
