//===- InstrumentApplies.cpp - Time every Apply with cycle counters -------===//
//
// Finds the calls marked !graphjit.apply, checks every marking before
// changing anything, then instruments each function in three steps: the
// descriptor and the enter call, a clock read before every Apply (shared
// with the end of the Apply before it where they chain), and the counter
// updates and the exit calls. See InstrumentApplies.h and
// docs/instrumentation.md ("Profiling").
//
//===----------------------------------------------------------------------===//

#include "passes/InstrumentApplies.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include <cstddef>
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

#define DEBUG_TYPE "graphjit-instrument"

using namespace llvm;
using namespace graphjit;

STATISTIC(NumFunctions, "Functions instrumented");
STATISTIC(NumApplies, "Apply calls instrumented");
STATISTIC(NumChained, "Apply boundaries that share one clock read");
STATISTIC(NumHooked, "Calls of the C allocator routed to the memory hooks");

// The runtime's ABI is one header, shared with the runtime and the lowering
// as LLVM shares InstrProfData.inc; the pass links nothing of the runtime.
static constexpr unsigned ProfileAbiVersion = GRAPHJIT_RUNTIME_ABI_VERSION;
static constexpr int64_t MaxApplies = GJ_PROFILE_MAX_APPLIES;
static constexpr const char *ApplyKind = "graphjit.apply";

// The descriptor is built below as IR structs of natural alignment; these
// are the C structs they must lay out as.
static_assert(offsetof(gj_profile_apply, name) == 8 &&
                  offsetof(gj_profile_apply, kind) == 24 &&
                  sizeof(gj_profile_apply) == 32,
              "gj_profile_apply is {i32, ptr, ptr, ptr}");
static_assert(offsetof(gj_profile_desc, num_counters) == 4 &&
                  offsetof(gj_profile_desc, function) == 8 &&
                  offsetof(gj_profile_desc, num_applies) == 16 &&
                  offsetof(gj_profile_desc, applies) == 24 &&
                  offsetof(gj_profile_desc, clock) == 32,
              "gj_profile_desc is {i32, i32, ptr, i32, ptr, i32}");
static_assert(unsigned(CounterClock::Tsc) == GJ_PROFILE_CLOCK_TSC &&
                  unsigned(CounterClock::Call) == GJ_PROFILE_CLOCK_CALL &&
                  unsigned(CounterClock::Sample) == GJ_PROFILE_CLOCK_SAMPLE,
              "the pass's clocks are the descriptor's");

namespace {

/// One marked call, its metadata checked.
struct MarkedApply {
  CallInst *Call;
  uint32_t Id;
  StringRef Name, Loc, Kind;
};

/// A diagnostic of this pass, printed as "graphjit-instrument: MESSAGE".
class InstrumentDiagnostic : public DiagnosticInfo {
  const Twine &Msg;

public:
  InstrumentDiagnostic(const Twine &Msg, DiagnosticSeverity Severity)
      : DiagnosticInfo(kind(), Severity), Msg(Msg) {}
  void print(DiagnosticPrinter &DP) const override {
    DP << InstrumentAppliesPass::PassName << ": " << Msg;
  }
  static int kind() {
    static const int Kind = getNextAvailablePluginDiagnosticKind();
    return Kind;
  }
};

std::string describeCall(const Instruction &I) {
  if (const auto *CB = dyn_cast<CallBase>(&I))
    if (const Function *Callee = CB->getCalledFunction())
      return "the call to '" + Callee->getName().str() + "'";
  std::string S;
  raw_string_ostream OS(S);
  I.print(OS);
  return "'" + StringRef(S).trim().str() + "'";
}

Error markingError(const Instruction &I, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "in function '" + I.getFunction()->getName() +
                               "': !" + ApplyKind + " on " + describeCall(I) +
                               ": " + Why);
}

/// Checks one instruction's marking.
Expected<MarkedApply> checkMarking(Instruction &I, MDNode &MD) {
  auto *Call = dyn_cast<CallInst>(&I);
  if (isa<InvokeInst>(I))
    return markingError(I, "invokes are not supported: an Apply is timed "
                           "around a call, and a thunk does not unwind");
  if (!Call)
    return markingError(I, "only calls can be marked as Applies");
  if (MD.getNumOperands() != 4)
    return markingError(I, "expected 4 operands (id, name, loc, kind), got " +
                               Twine(MD.getNumOperands()));
  auto *IdMD = dyn_cast_or_null<ConstantAsMetadata>(MD.getOperand(0).get());
  auto *IdC = IdMD ? dyn_cast<ConstantInt>(IdMD->getValue()) : nullptr;
  if (!IdC || !IdC->getType()->isIntegerTy(32))
    return markingError(I, "operand 0 (the Apply id) must be an i32 constant");
  int64_t Id = IdC->getSExtValue();
  if (Id < 0 || Id >= MaxApplies)
    return markingError(I, "Apply id " + Twine(Id) + " is out of range [0, " +
                               Twine(MaxApplies) + ")");
  static const char *const What[] = {"", "name", "loc", "kind"};
  StringRef Strings[4];
  for (unsigned Op = 1; Op < 4; ++Op) {
    auto *S = dyn_cast_or_null<MDString>(MD.getOperand(Op).get());
    if (!S)
      return markingError(I, "operand " + Twine(Op) + " (the " + What[Op] +
                                 ") must be a string");
    Strings[Op] = S->getString();
  }
  // The profile's type column reads the kind: JIT code or perform.
  if (Strings[3] != "C" && Strings[3] != "Py")
    return markingError(I, "operand 3 (the kind) must be \"C\" or \"Py\", "
                           "not \"" + Strings[3] + "\"");
  if (Call->isMustTailCall())
    return markingError(I, "a musttail call cannot be timed");
  return MarkedApply{Call, uint32_t(Id), Strings[1], Strings[2], Strings[3]};
}

/// The marked calls of F in block order, checked; ids unique in F.
Expected<SmallVector<MarkedApply, 0>> collectApplies(Function &F) {
  SmallVector<MarkedApply, 0> Applies;
  DenseMap<uint32_t, CallInst *> Seen;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      MDNode *MD = I.getMetadata(ApplyKind);
      if (!MD)
        continue;
      Expected<MarkedApply> A = checkMarking(I, *MD);
      if (!A)
        return A.takeError();
      auto [It, New] = Seen.try_emplace(A->Id, A->Call);
      if (!New)
        return markingError(
            I, "Apply id " + Twine(A->Id) + " is already used by " +
                   describeCall(*It->second) + " in the same function");
      Applies.push_back(*A);
    }
  return Applies;
}

/// Instruments one function whose markings were checked.
class FunctionInstrumenter {
public:
  FunctionInstrumenter(Function &F, ArrayRef<MarkedApply> Applies,
                       const InstrumentAppliesOptions &Opts)
      : F(F), M(*F.getParent()), Ctx(F.getContext()), Applies(Applies),
        Clock(Opts.Clock), Memory(Opts.Memory), Trace(Opts.Trace),
        I64(Type::getInt64Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        Ptr(PointerType::getUnqual(Ctx)), CounterTy(StructType::get(I64, I64)) {
  }

  void run();

private:
  Function &F;
  Module &M;
  LLVMContext &Ctx;
  ArrayRef<MarkedApply> Applies;
  CounterClock Clock;
  bool Memory, Trace;
  Type *I64, *I32, *Ptr;
  StructType *CounterTy;
  GlobalVariable *Desc = nullptr;
  Value *Counters = nullptr;
  Value *Ring = nullptr; // With Trace: the thread's gj_trace_ring.
  StringMap<Constant *> Strings;

  Constant *string(StringRef S);
  /// The descriptor, its table by increasing id (in run order for a
  /// sampled chain, whose clock it says).
  GlobalVariable *createDescriptor(bool SampledChain = false);
  Value *readClock(IRBuilder<> &B);
  /// gj_memory_enter at entry, gj_memory_apply around each Apply and
  /// gj_memory_exit before each return.
  void hookMemory(Instruction *EnterAfter);
  void charge(IRBuilder<> &B, const MarkedApply &A, Value *Start, Value *End);
  /// clock=sample: each Apply stores its id in the thread's sample slot
  /// and counts its call; the sampler does the rest.
  void runSampled(Value *CallStart, ArrayRef<int> Next, bool Chain);
  Value *Slot = nullptr; ///< Sampling: the thread's gj_sample_slot.
  void setCurrentApply(IRBuilder<> &B, int32_t Id);
  /// Before every return: Before, the call's end read, gj_profile_exit
  /// with the call's time, then After (given the end read).
  void exitEveryReturn(Value *CallStart,
                       function_ref<void(IRBuilder<> &)> Before,
                       function_ref<void(IRBuilder<> &, Value *End)> After);
  void countCall(IRBuilder<> &B, const MarkedApply &A);
  /// &counters[A.Id], and one of its fields incremented by V.
  Value *counter(IRBuilder<> &B, const MarkedApply &A);
  void increment(IRBuilder<> &B, Value *Field, const Twine &Name, Value *V);
  /// With Trace: the slice of Apply Id (-1: the call) on the timeline.
  void traceSlice(IRBuilder<> &B, int32_t Id, Value *Start, Value *End);
  /// Where the Apply that ends block PB chains to: the first Apply of PB's
  /// only successor that has PB as its unique predecessor; -1 if none.
  int chainSuccessor(BasicBlock &PB, const DenseMap<BasicBlock *, int> &First);
  BasicBlock *splitEdges(BasicBlock *From, BasicBlock *To);
};

Constant *FunctionInstrumenter::string(StringRef S) {
  Constant *&C = Strings[S];
  if (!C) {
    Constant *Init = ConstantDataArray::getString(Ctx, S, /*AddNull=*/true);
    auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true,
                                  GlobalValue::PrivateLinkage, Init,
                                  F.getName() + ".gj_str");
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    GV->setAlignment(Align(1));
    C = GV;
  }
  return C;
}

GlobalVariable *FunctionInstrumenter::createDescriptor(bool SampledChain) {
  // The C structs' layout: natural alignment, as the DataLayout gives it.
  StructType *ApplyTy = StructType::get(I32, Ptr, Ptr, Ptr);
  SmallVector<const MarkedApply *, 0> ById;
  uint32_t MaxId = 0;
  for (const MarkedApply &A : Applies) {
    ById.push_back(&A);
    MaxId = std::max(MaxId, A.Id);
  }
  if (!SampledChain)
    llvm::sort(ById, [](const MarkedApply *L, const MarkedApply *R) {
      return L->Id < R->Id;
    });
  SmallVector<Constant *, 0> Rows;
  for (const MarkedApply *A : ById)
    Rows.push_back(ConstantStruct::get(
        ApplyTy, {ConstantInt::get(I32, A->Id), string(A->Name), string(A->Loc),
                  string(A->Kind)}));
  ArrayType *TableTy = ArrayType::get(ApplyTy, Rows.size());
  auto *Table = new GlobalVariable(
      M, TableTy, /*isConstant=*/true, GlobalValue::PrivateLinkage,
      ConstantArray::get(TableTy, Rows), F.getName() + ".gj_applies");

  StructType *DescTy = StructType::get(I32, I32, Ptr, I32, Ptr, I32);
  Constant *Init = ConstantStruct::get(
      DescTy, {ConstantInt::get(I32, ProfileAbiVersion),
               ConstantInt::get(I32, MaxId + 1), string(F.getName()),
               ConstantInt::get(I32, Rows.size()), Table,
               ConstantInt::get(I32, SampledChain
                                         ? unsigned(GJ_PROFILE_CLOCK_SAMPLE_CHAIN)
                                         : unsigned(Clock))});
  return new GlobalVariable(M, DescTy, /*isConstant=*/true,
                            GlobalValue::ExternalLinkage, Init,
                            profileDescriptorName(F.getName()));
}

Value *FunctionInstrumenter::readClock(IRBuilder<> &B) {
  if (Clock == CounterClock::Tsc)
    return B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {}, nullptr,
                             "gj.t");
  // clock=call, and the whole call under clock=sample.
  FunctionCallee Now = M.getOrInsertFunction(
      "gj_profile_now", FunctionType::get(I64, /*isVarArg=*/false));
  return B.CreateCall(Now, {}, "gj.t");
}

void FunctionInstrumenter::charge(IRBuilder<> &B, const MarkedApply &A,
                                  Value *Start, Value *End) {
  Value *Counter = counter(B, A);
  Value *Ticks = B.CreateStructGEP(CounterTy, Counter, 0, "gj.ticks.p");
  Value *Calls = B.CreateStructGEP(CounterTy, Counter, 1, "gj.calls.p");
  Value *Delta = B.CreateSub(End, Start, "gj.dt");
  increment(B, Ticks, "gj.ticks", Delta);
  increment(B, Calls, "gj.calls", ConstantInt::get(I64, 1));
  traceSlice(B, int32_t(A.Id), Start, End);
}

void FunctionInstrumenter::countCall(IRBuilder<> &B, const MarkedApply &A) {
  Value *Calls = B.CreateStructGEP(CounterTy, counter(B, A), 1, "gj.calls.p");
  increment(B, Calls, "gj.calls", ConstantInt::get(I64, 1));
}

Value *FunctionInstrumenter::counter(IRBuilder<> &B, const MarkedApply &A) {
  return B.CreateInBoundsGEP(CounterTy, Counters, ConstantInt::get(I64, A.Id),
                             "gj.ctr");
}

// *Field += V with plain loads and stores: the block is the thread's own.
void FunctionInstrumenter::increment(IRBuilder<> &B, Value *Field,
                                     const Twine &Name, Value *V) {
  // gj_apply_counter's alignment, whatever the module's DataLayout says.
  const Align A8(8);
  Value *Old = B.CreateAlignedLoad(I64, Field, A8, Name);
  B.CreateAlignedStore(B.CreateAdd(Old, V, Name + ".new"), Field, A8);
}

// slot->apply = Id, atomically (the sampler reads it from its thread).
void FunctionInstrumenter::setCurrentApply(IRBuilder<> &B, int32_t Id) {
  StructType *SlotTy = StructType::get(Ptr, Ptr, I32);
  StoreInst *S = B.CreateAlignedStore(
      ConstantInt::get(I32, Id, /*IsSigned=*/true),
      B.CreateStructGEP(SlotTy, Slot, 2, "gj.current.p"), Align(4));
  S->setAtomic(AtomicOrdering::Monotonic);
}

// Chain: the Applies run one after another from the entry block (Next),
// so that only the ways out of the chain count (see
// GJ_PROFILE_CLOCK_SAMPLE_CHAIN); else every Apply counts its call.
void FunctionInstrumenter::runSampled(Value *CallStart, ArrayRef<int> Next,
                                      bool Chain) {
  for (unsigned I = 0; I < Applies.size(); ++I) {
    const MarkedApply &A = Applies[I];
    IRBuilder<> BA(A.Call);
    setCurrentApply(BA, int32_t(A.Id));
    if (!Chain) {
      countCall(BA, A);
      continue;
    }
    BasicBlock *BB = A.Call->getParent();
    if (Next[I] < 0 || Applies[Next[I]].Call->getParent() == BB)
      continue;
    // The other ways out of A's block leave the chain after A.
    BasicBlock *NextBB = Applies[Next[I]].Call->getParent();
    SmallVector<BasicBlock *, 4> Others;
    for (BasicBlock *Succ : successors(BB))
      if (Succ != NextBB && !llvm::is_contained(Others, Succ))
        Others.push_back(Succ);
    for (BasicBlock *Succ : Others) {
      IRBuilder<> BE(splitEdges(BB, Succ)->getTerminator());
      countCall(BE, A);
    }
  }
  exitEveryReturn(CallStart, [&](IRBuilder<> &B) { setCurrentApply(B, -1); },
                  [](IRBuilder<> &, Value *) {});
}

void FunctionInstrumenter::exitEveryReturn(
    Value *CallStart, function_ref<void(IRBuilder<> &)> Before,
    function_ref<void(IRBuilder<> &, Value *End)> After) {
  FunctionCallee Exit = M.getOrInsertFunction(
      "gj_profile_exit",
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr, I64}, false));
  SmallVector<ReturnInst *, 4> Returns;
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(Ret);
  for (ReturnInst *Ret : Returns) {
    IRBuilder<> BR(Ret);
    Before(BR);
    Value *End = readClock(BR);
    BR.CreateCall(Exit,
                  {Desc, Counters, BR.CreateSub(End, CallStart, "gj.dt")});
    After(BR, End);
  }
  ++NumFunctions;
  NumApplies += Applies.size();
}

// slots[next] = {desc, id, start, end}; next = next + 1 == capacity ? 0 :
// next + 1; ++written: gj_trace_ring and gj_trace_slot (RuntimeABI.h),
// written inline, no branch and no call.
void FunctionInstrumenter::traceSlice(IRBuilder<> &B, int32_t Id,
                                      Value *Start, Value *End) {
  if (!Trace)
    return;
  StructType *RingTy = StructType::get(Ptr, I64, I64, I64);
  StructType *SlotTy = StructType::get(Ptr, I32, I64, I64);
  const Align A8(8);
  Value *Slots = B.CreateAlignedLoad(Ptr, Ring, A8, "gj.slots");
  Value *NextP = B.CreateStructGEP(RingTy, Ring, 1, "gj.next.p");
  Value *Next = B.CreateAlignedLoad(I64, NextP, A8, "gj.next");
  Value *Slot = B.CreateInBoundsGEP(SlotTy, Slots, Next, "gj.slot");
  B.CreateAlignedStore(Desc, B.CreateStructGEP(SlotTy, Slot, 0), A8);
  B.CreateAlignedStore(ConstantInt::get(I32, Id, /*IsSigned=*/true),
                       B.CreateStructGEP(SlotTy, Slot, 1), Align(4));
  B.CreateAlignedStore(Start, B.CreateStructGEP(SlotTy, Slot, 2), A8);
  B.CreateAlignedStore(End, B.CreateStructGEP(SlotTy, Slot, 3), A8);
  Value *Capacity = B.CreateAlignedLoad(
      I64, B.CreateStructGEP(RingTy, Ring, 2), A8, "gj.capacity");
  Value *After = B.CreateAdd(Next, ConstantInt::get(I64, 1));
  B.CreateAlignedStore(B.CreateSelect(B.CreateICmpEQ(After, Capacity),
                                      ConstantInt::get(I64, 0), After),
                       NextP, A8);
  Value *WrittenP = B.CreateStructGEP(RingTy, Ring, 3, "gj.written.p");
  B.CreateAlignedStore(
      B.CreateAdd(B.CreateAlignedLoad(I64, WrittenP, A8, "gj.written"),
                  ConstantInt::get(I64, 1)),
      WrittenP, A8);
}

int FunctionInstrumenter::chainSuccessor(
    BasicBlock &PB, const DenseMap<BasicBlock *, int> &First) {
  Instruction *T = PB.getTerminator();
  // Only edges that can be split get the end read of the other paths.
  if (!T || !(isa<BranchInst>(T) || isa<SwitchInst>(T)))
    return -1;
  int Found = -1;
  for (BasicBlock *Succ : successors(&PB)) {
    auto It = First.find(Succ);
    if (It == First.end() || Succ == &PB || Succ->getUniquePredecessor() != &PB)
      continue;
    if (Found >= 0 && Applies[Found].Call->getParent() != Succ)
      return -1; // Two Apply paths out of PB: read at the end of the call.
    Found = It->second;
  }
  return Found;
}

BasicBlock *FunctionInstrumenter::splitEdges(BasicBlock *From, BasicBlock *To) {
  BasicBlock *Edge =
      BasicBlock::Create(Ctx, From->getName() + ".gj.exit", &F, To);
  BranchInst::Create(To, Edge);
  Instruction *T = From->getTerminator();
  for (unsigned S = 0; S < T->getNumSuccessors(); ++S)
    if (T->getSuccessor(S) == To)
      T->setSuccessor(S, Edge);
  // Several edges From -> To are now one Edge -> To: one PHI entry each.
  for (PHINode &Phi : To->phis()) {
    bool Kept = false;
    for (int I = int(Phi.getNumIncomingValues()) - 1; I >= 0; --I) {
      if (Phi.getIncomingBlock(I) != From)
        continue;
      if (Kept)
        Phi.removeIncomingValue(I, /*DeletePHIIfEmpty=*/false);
      else
        Phi.setIncomingBlock(I, Edge);
      Kept = true;
    }
  }
  return Edge;
}

void FunctionInstrumenter::run() {
  // The chains, found on the code as it was: Next[A] is the Apply whose
  // start read ends A.
  DenseMap<BasicBlock *, int> First;
  for (int A = int(Applies.size()) - 1; A >= 0; --A)
    First[Applies[A].Call->getParent()] = A;
  SmallVector<int, 0> Next(Applies.size(), -1);
  for (unsigned A = 0; A < Applies.size(); ++A) {
    BasicBlock *BB = Applies[A].Call->getParent();
    if (A + 1 < Applies.size() && Applies[A + 1].Call->getParent() == BB)
      Next[A] = A + 1;
    else
      Next[A] = chainSuccessor(*BB, First);
  }

  // Sampled, a chain from the entry block needs no count per Apply.
  bool SampledChain = Clock == CounterClock::Sample && !Applies.empty() &&
                      Applies[0].Call->getParent() == &F.getEntryBlock();
  for (unsigned A = 0; SampledChain && A + 1 < Applies.size(); ++A)
    SampledChain = Next[A] == int(A + 1);
  Desc = createDescriptor(SampledChain);
  BasicBlock &Entry = F.getEntryBlock();
  BasicBlock::iterator At = Entry.getFirstInsertionPt();
  while (isa<AllocaInst>(*At))
    ++At;
  IRBuilder<> B(&Entry, At);
  FunctionCallee Enter = M.getOrInsertFunction(
      "gj_profile_enter", FunctionType::get(Ptr, {Ptr}, false));
  Counters = B.CreateCall(Enter, {Desc}, "gj.counters");
  if (Trace)
    Ring = B.CreateCall(M.getOrInsertFunction(
                            "gj_trace_enter", FunctionType::get(Ptr, false)),
                        {}, "gj.ring");
  // Before the clock reads: the hooks' own cost stays out of the Applies
  // where it can (docs/instrumentation.md).
  if (Memory)
    hookMemory(cast<Instruction>(Counters));
  if (Clock == CounterClock::Sample) {
    Slot = B.CreateCall(M.getOrInsertFunction(
                            "gj_sample_enter",
                            FunctionType::get(Ptr, {Ptr, Ptr}, false)),
                        {Desc, Counters}, "gj.sample");
    return runSampled(readClock(B), Next, SampledChain);
  }
  Value *CallStart = readClock(B);

  // A read before every Apply: its start, and the end of the Apply before.
  SmallVector<Value *, 0> Start(Applies.size());
  for (unsigned A = 0; A < Applies.size(); ++A) {
    IRBuilder<> BA(Applies[A].Call);
    Start[A] = readClock(BA);
    // An Apply right at the start of the call starts with it.
    if (cast<Instruction>(Start[A])->getPrevNode() == CallStart) {
      cast<Instruction>(Start[A])->eraseFromParent();
      Start[A] = CallStart;
    }
  }
  for (unsigned A = 0; A < Applies.size(); ++A) {
    CallInst *Call = Applies[A].Call;
    if (Next[A] < 0) {
      IRBuilder<> BA(Call->getNextNode());
      charge(BA, Applies[A], Start[A], readClock(BA));
      continue;
    }
    ++NumChained;
    CallInst *NextCall = Applies[Next[A]].Call;
    IRBuilder<> BN(NextCall);
    charge(BN, Applies[A], Start[A], Start[Next[A]]);
    BasicBlock *BB = Call->getParent();
    if (NextCall->getParent() == BB)
      continue;
    // The other ways out of A's block (the driver's error exit) end A there.
    SmallVector<BasicBlock *, 4> Others;
    for (BasicBlock *Succ : successors(BB))
      if (Succ != NextCall->getParent() && !llvm::is_contained(Others, Succ))
        Others.push_back(Succ);
    for (BasicBlock *Succ : Others) {
      BasicBlock *Edge = splitEdges(BB, Succ);
      IRBuilder<> BE(Edge->getTerminator());
      charge(BE, Applies[A], Start[A], readClock(BE));
    }
  }

  exitEveryReturn(CallStart, [](IRBuilder<> &) {},
                  [&](IRBuilder<> &B, Value *End) {
                    traceSlice(B, -1, CallStart, End);
                  });
}

void FunctionInstrumenter::hookMemory(Instruction *EnterAfter) {
  Type *Void = Type::getVoidTy(Ctx);
  FunctionCallee Enter = M.getOrInsertFunction(
      "gj_memory_enter", FunctionType::get(Ptr, {Ptr}, false));
  FunctionCallee SetApply = M.getOrInsertFunction(
      "gj_memory_apply", FunctionType::get(Void, {Ptr, I32}, false));
  FunctionCallee Exit = M.getOrInsertFunction(
      "gj_memory_exit", FunctionType::get(Void, {Ptr}, false));
  IRBuilder<> B(EnterAfter->getNextNode());
  Value *State = B.CreateCall(Enter, {Desc}, "gj.memory");
  for (const MarkedApply &A : Applies) {
    IRBuilder<> Before(A.Call);
    Before.CreateCall(SetApply, {State, ConstantInt::get(I32, A.Id)});
    IRBuilder<> After(A.Call->getNextNode());
    After.CreateCall(SetApply, {State, ConstantInt::get(I32, -1, true)});
  }
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      IRBuilder<>(Ret).CreateCall(Exit, {State});
}

/// The C allocator's functions and the hooks that replace them.
struct AllocatorHook {
  const char *Function, *Hook;
  FunctionType *Type;
};

SmallVector<AllocatorHook, 5> allocatorHooks(LLVMContext &Ctx) {
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  return {{"malloc", "gj_memory_malloc", FunctionType::get(Ptr, {I64}, false)},
          {"calloc", "gj_memory_calloc",
           FunctionType::get(Ptr, {I64, I64}, false)},
          {"realloc", "gj_memory_realloc",
           FunctionType::get(Ptr, {Ptr, I64}, false)},
          {"aligned_alloc", "gj_memory_aligned_alloc",
           FunctionType::get(Ptr, {I64, I64}, false)},
          {"free", "gj_memory_free",
           FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false)}};
}

/// Routes every direct call of the C allocator in M (with the C types) to
/// its hook; returns how many.
unsigned hookAllocatorCalls(Module &M) {
  unsigned Hooked = 0;
  for (const AllocatorHook &H : allocatorHooks(M.getContext())) {
    Function *Original = M.getFunction(H.Function);
    if (!Original || Original->getFunctionType() != H.Type)
      continue;
    FunctionCallee Hook = M.getOrInsertFunction(H.Hook, H.Type);
    for (User *U : make_early_inc_range(Original->users())) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != Original ||
          CB->getFunction()->isDeclaration())
        continue;
      CB->setCalledFunction(Hook);
      ++Hooked;
    }
  }
  NumHooked += Hooked;
  return Hooked;
}

/// The runtime functions the pass declares, if M already has them, must
/// have the ABI's types.
Error checkRuntimeDeclarations(Module &M) {
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  Type *Void = Type::getVoidTy(Ctx);
  SmallVector<std::pair<const char *, FunctionType *>, 12> Expected = {
      {"gj_profile_enter", FunctionType::get(Ptr, {Ptr}, false)},
      {"gj_profile_exit", FunctionType::get(Void, {Ptr, Ptr, I64}, false)},
      {"gj_profile_now", FunctionType::get(I64, false)},
      {"gj_sample_enter", FunctionType::get(Ptr, {Ptr, Ptr}, false)},
      {"gj_memory_enter", FunctionType::get(Ptr, {Ptr}, false)},
      {"gj_memory_apply", FunctionType::get(Void, {Ptr, I32}, false)},
      {"gj_memory_exit", FunctionType::get(Void, {Ptr}, false)}};
  for (const AllocatorHook &H : allocatorHooks(Ctx))
    Expected.push_back({H.Hook, H.Type});
  for (auto &[Name, Ty] : Expected) {
    GlobalValue *GV = M.getNamedValue(Name);
    if (!GV)
      continue;
    auto *Fn = dyn_cast<Function>(GV);
    if (!Fn || Fn->getFunctionType() != Ty) {
      std::string S;
      raw_string_ostream OS(S);
      Ty->print(OS);
      return createStringError(inconvertibleErrorCode(),
                               Twine("'") + Name +
                                   "' is already in the module with a type "
                                   "other than the runtime ABI's " +
                                   S);
    }
  }
  return Error::success();
}

} // namespace

Expected<InstrumentAppliesResult>
graphjit::instrumentApplies(Module &M, const InstrumentAppliesOptions &Opts) {
  InstrumentAppliesResult Result;
  if (Opts.Trace && Opts.Clock == CounterClock::Sample)
    return createStringError(inconvertibleErrorCode(),
                             "clock=sample cannot record a timeline (trace): "
                             "a slice needs each Apply's own times");
  // Check everything first: an error leaves the module as it was.
  SmallVector<std::pair<Function *, SmallVector<MarkedApply, 0>>, 0> Work;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    Expected<SmallVector<MarkedApply, 0>> Applies = collectApplies(F);
    if (!Applies)
      return Applies.takeError();
    if (Applies->empty())
      continue;
    if (!F.hasName())
      return createStringError(inconvertibleErrorCode(),
                               "an unnamed function has marked Applies; the "
                               "descriptor is named after the function");
    if (M.getNamedValue(profileDescriptorName(F.getName()))) {
      Result.Warnings.push_back(
          "function '" + F.getName().str() + "' is already instrumented (@" +
          profileDescriptorName(F.getName()) + " exists); left as it is");
      continue;
    }
    Work.emplace_back(&F, std::move(*Applies));
  }
  if (!Work.empty())
    if (Error E = checkRuntimeDeclarations(M))
      return E;
  for (auto &[F, Applies] : Work) {
    FunctionInstrumenter(*F, Applies, Opts).run();
    ++Result.Functions;
    Result.Applies += Applies.size();
  }
  if (Opts.Memory && !Work.empty())
    Result.HookedAllocations = hookAllocatorCalls(M);
  return Result;
}

PreservedAnalyses InstrumentAppliesPass::run(Module &M,
                                             ModuleAnalysisManager &) {
  Expected<InstrumentAppliesResult> R = instrumentApplies(M, Opts);
  if (!R) {
    std::string Msg = toString(R.takeError());
    M.getContext().diagnose(InstrumentDiagnostic(Msg, DS_Error));
    return PreservedAnalyses::all();
  }
  for (const std::string &W : R->Warnings)
    M.getContext().diagnose(InstrumentDiagnostic(W, DS_Warning));
  return R->Functions ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

void InstrumentAppliesPass::printPipeline(
    raw_ostream &OS, function_ref<StringRef(StringRef)> MapClassName2PassName) {
  OS << PassName << "<clock="
     << (Opts.Clock == CounterClock::Tsc    ? "tsc"
         : Opts.Clock == CounterClock::Call ? "call"
                                            : "sample")
     << (Opts.Memory ? ";memory" : "") << ">";
}

Expected<InstrumentAppliesOptions>
InstrumentAppliesPass::parseParams(StringRef Params) {
  InstrumentAppliesOptions Opts;
  while (!Params.empty()) {
    StringRef Param;
    std::tie(Param, Params) = Params.split(';');
    if (Param == "clock=tsc")
      Opts.Clock = CounterClock::Tsc;
    else if (Param == "clock=call")
      Opts.Clock = CounterClock::Call;
    else if (Param == "clock=sample")
      Opts.Clock = CounterClock::Sample;
    else if (Param == "memory")
      Opts.Memory = true;
    else if (Param == "trace")
      Opts.Trace = true;
    else
      return createStringError(
          inconvertibleErrorCode(),
          Twine("invalid ") + PassName + " parameter '" + Param +
              "' (expected clock=tsc, clock=call, clock=sample, memory or "
              "trace)");
  }
  return Opts;
}
