//===- CallFrame.cpp - The runtime's side of one JIT call ----------------===//

#include "link/call/CallFrame.h"
#include "link/profiling/FunctionProfiler.h"
#include "ir/BufferCache.h"
#include <cstring>

using namespace graphjit;

CallFrame::CallFrame(std::vector<NDArray> &Values,
                     llvm::ArrayRef<Apply *> Nodes, NodeRunner &Runner,
                     const StoragePlan *Plan, const UpdateCommit *Commit)
    : Slots(Values.size()), Values(Values), Nodes(Nodes), Runner(Runner),
      Plan(Plan), Commit(Commit) {
  Abi.slots = Slots.data();
  Abi.impl = this;
  Abi.dims = nullptr;
  for (unsigned V = 0; V < Values.size(); ++V)
    if (!Values[V].isNull())
      syncSlot(V);
  unsigned NumStorages = Plan ? Plan->NumStorages : 0;
  // Empty storages: the first value placed in each asks for memory.
  Storages.assign(NumStorages, gj_storage{nullptr, -1});
  StorageBuffers.resize(NumStorages);
  HandedOutAs.assign(NumStorages, {});
  Abi.storages = Storages.data();
  PlannedVars.assign(Values.size(), nullptr);
  if (Plan)
    for (const Apply *N : Nodes)
      if (N && Plan->PlannedApply[N->id()])
        for (const Variable *Out : N->outputs())
          PlannedVars[Out->id()] = Out;
}

void CallFrame::materialize(unsigned Var) {
  const Variable *V = PlannedVars[Var];
  if (!V || !Values[Var].isNull())
    return;
  const gj_slot &Slot = Slots[Var];
  unsigned Rank = V->type().rank();
  if (int Viewed = Plan->ViewOf[Var]; Viewed >= 0) {
    Shape Dims(Slot.shape, Slot.shape + Rank);
    // A view shares the memory of what it views, whoever made that.
    materialize(Viewed);
    const NDArray &Base = Values[Viewed];
    if (Base.isNull()) // Not expected: copy rather than point nowhere.
      Values[Var] = NDArray::wrap(Slot.data, V->type().Dtype, Dims,
                                  Shape(Slot.strides, Slot.strides + Rank))
                        .copy();
    else
      Values[Var] = Base.view(Dims, Shape(Slot.strides, Slot.strides + Rank),
                              Slot.data - Base.data());
    // A view of a planned value hands its storage out too.
    int Root = Viewed;
    while (Plan->ViewOf[Root] >= 0)
      Root = Plan->ViewOf[Root];
    if (Plan->isPlanned(Root))
      HandedOutAs[Plan->StorageOf[Root]].push_back(Var);
    Materialized.push_back(Var);
    return;
  }
  unsigned S = Plan->StorageOf[Var];
  // Into the value's own shape storage, kept from call to call.
  NDArray::onBufferInto(Values[Var], StorageBuffers[S], V->type().Dtype,
                        llvm::ArrayRef<int64_t>(Slot.shape, Rank));
  Storages[S].capacity = -1;
  HandedOutAs[S].push_back(Var);
  Materialized.push_back(Var);
}

void CallFrame::materializeInputs(const Apply &N) {
  for (const Variable *In : N.inputs())
    materialize(In->id());
}

char *CallFrame::growStorage(int32_t S, int64_t Bytes) {
  // The values materialized from S are dead (the plan gives S to a value
  // only once the one before and its planned views died), unless they are
  // results of an earlier call, which CallState::clear already dropped.
  for (unsigned Var : HandedOutAs[S])
    Values[Var].dropBuffer();
  HandedOutAs[S].clear();
  std::shared_ptr<Buffer> &B = StorageBuffers[S];
  // Reused only if nothing else holds it: not a result the caller kept,
  // nor a view a Py op or gj_prepare made of it.
  if (!B || B.use_count() != 1 || int64_t(B->size()) < Bytes) {
    // Buffers are at least 1 byte, so that a materialized empty value is
    // not null.
    size_t Size = std::max<int64_t>(Bytes, 1);
    void *Memory = tryAllocateBufferMemory(Size);
    if (!Memory)
      return nullptr; // gj_fail words the error.
    B = std::make_shared<Buffer>(Buffer::AdoptTag{}, Memory, Size,
                                 Buffer::Uninitialized);
  }
  Storages[S] = {static_cast<char *>(B->data()), int64_t(B->size())};
  return Storages[S].data;
}

int32_t CallFrame::failPlanned(int32_t Id) {
  const Apply &N = *Nodes[Id];
  materializeInputs(N);
  // The compiled checks mirror prepare(): its error is the Apply's.
  llvm::Error E = Runner.run(N, NodeStep::Prepare, Values, *Ctx);
  if (E)
    return fail(std::move(E));
  for (const Variable *Out : N.outputs())
    Values[Out->id()].dropBuffer();
  return fail(nodeError(N, Values,
                        "out of memory for its outputs (the compiled code "
                        "could not place them)"));
}

void CallFrame::reportPlannedApplies(llvm::ArrayRef<Apply *> Order) {
  if (!Profiler || !Profiler->wantsTensors() || !Plan)
    return;
  // Planned values as their slots describe them, each with memory of its
  // own (storages are shared over time, not between live values).
  std::vector<NDArray> Seen = Values;
  for (unsigned Var = 0; Var < PlannedVars.size(); ++Var)
    if (const Variable *V = PlannedVars[Var]) {
      const gj_slot &Slot = Slots[Var];
      unsigned Rank = V->type().rank();
      Seen[Var] = NDArray::wrap(Slot.data, V->type().Dtype,
                                Shape(Slot.shape, Slot.shape + Rank),
                                Shape(Slot.strides, Slot.strides + Rank));
    }
  for (const Apply *N : Order)
    if (Plan->PlannedApply[N->id()])
      Profiler->nodeRan(*N, Seen);
}

void CallFrame::giveUpStorage(unsigned Var) {
  if (!PlannedVars[Var] || !Plan->isPlanned(Var) || Values[Var].isNull())
    return;
  unsigned S = Plan->StorageOf[Var];
  // Only when the storage is the value's one other holder: otherwise the
  // value is copied anyway, and the storage may keep its memory.
  if (StorageBuffers[S] != Values[Var].buffer() ||
      StorageBuffers[S].use_count() != 2)
    return;
  StorageBuffers[S].reset();
  Storages[S] = {nullptr, -1};
  HandedOutAs[S].clear();
}

void CallFrame::begin(const ExecContext &C, llvm::ArrayRef<unsigned> Vars) {
  Ctx = &C;
  Error.clear();
  Committed = false;
  for (unsigned V : Vars)
    syncSlot(V);
}

void CallFrame::end(llvm::ArrayRef<unsigned> Vars) {
  for (unsigned V : Vars)
    Slots[V].data = nullptr;
  for (unsigned V : Materialized)
    Values[V].dropBuffer();
  Materialized.clear();
  Ctx = nullptr;
}

void CallFrame::syncSlot(unsigned Var) {
  const NDArray &A = Values[Var];
  gj_slot &S = Slots[Var];
  S.data = A.data();
  // Ranks above GJ_MAX_RANK only occur around Py-path nodes, which never
  // read slots.
  unsigned Rank = std::min<unsigned>(A.rank(), GJ_MAX_RANK);
  for (unsigned D = 0; D < Rank; ++D) {
    S.shape[D] = A.dim(D);
    S.strides[D] = A.strides()[D];
  }
}

int32_t CallFrame::fail(llvm::Error E) {
  if (Error.empty())
    Error = llvm::toString(std::move(E));
  else
    llvm::consumeError(std::move(E));
  return 1;
}

llvm::Error CallFrame::commit() {
  Committed = true;
  for (const UpdateCommit::InPlace &E : Commit->Entries)
    materializeInputs(*E.Node);
  materialize(Commit->ValueIds);
  // The entries are prepared here, once: their thunks then only compute.
  return commitUpdates(*Commit, Values, Runner, *Ctx,
                       [&](unsigned Var) { syncSlot(Var); });
}

int32_t CallFrame::runNode(int32_t Id, int Step) {
  const Apply &N = *Nodes[Id];
  // The first update in place checks the call before anything is written
  // over (UpdateCommit.h; the driver runs them after every other Apply),
  // and prepares them all: their gj_prepare has nothing left to do.
  bool IsEntry = Commit && Commit->IsEntry[Id];
  if (IsEntry && !Committed)
    if (llvm::Error E = commit())
      return fail(std::move(E));
  if (!IsEntry || NodeStep(Step) != NodeStep::Prepare) {
    materializeInputs(N);
    if (llvm::Error E = Runner.run(N, NodeStep(Step), Values, *Ctx))
      return fail(std::move(E));
  }
  // A planned view that asked prepare (reshape of a strided input) holds
  // what prepare made until the call ends, as a materialized value does.
  for (const Variable *Out : N.outputs())
    if (PlannedVars[Out->id()] && !Values[Out->id()].isNull())
      Materialized.push_back(Out->id());
  for (const Variable *Out : N.outputs())
    syncSlot(Out->id());
  if (Profiler)
    Profiler->nodeRan(N, Values);
  return 0;
}

int32_t CallFrame::compute(int32_t Id) {
  // Library code reads and writes the planned values in place and keeps
  // none of them: they are lent as arrays on their slots, not handed out.
  const Apply &N = *Nodes[Id];
  llvm::SmallVector<unsigned, 4> Lent;
  for (llvm::ArrayRef<Variable *> List : {N.inputs(), N.outputs()})
    for (const Variable *V : List)
      if (PlannedVars[V->id()] && Values[V->id()].isNull()) {
        const gj_slot &Slot = Slots[V->id()];
        unsigned Rank = V->type().rank();
        NDArray::wrapInto(Values[V->id()], Slot.data, V->type().Dtype,
                          llvm::ArrayRef<int64_t>(Slot.shape, Rank),
                          llvm::ArrayRef<int64_t>(Slot.strides, Rank));
        Lent.push_back(V->id());
      }
  llvm::Error E = Runner.compute(N, Values, *Ctx);
  for (unsigned V : Lent)
    Values[V].dropBuffer();
  if (E)
    return fail(std::move(E));
  return 0;
}

void CallFrame::release(int32_t Var) {
  Values[Var].dropBuffer(); // Frees the buffer, keeps the shape's capacity.
  Slots[Var].data = nullptr;
}

extern "C" {

int32_t gj_prepare(gj_frame *F, int32_t Node) {
  return CallFrame::of(F).runNode(Node, int(NodeStep::Prepare));
}

int32_t gj_perform(gj_frame *F, int32_t Node) {
  return CallFrame::of(F).runNode(Node, int(NodeStep::Perform));
}

int32_t gj_compute(gj_frame *F, int32_t Node) {
  return CallFrame::of(F).compute(Node);
}

void gj_release(gj_frame *F, int32_t Var) { CallFrame::of(F).release(Var); }

char *gj_storage_grow(gj_frame *F, gj_storage *Storage, int64_t Bytes) {
  return CallFrame::of(F).growStorage(Storage - F->storages, Bytes);
}

int32_t gj_fail(gj_frame *F, int32_t Node) {
  return CallFrame::of(F).failPlanned(Node);
}

int32_t gj_runtime_abi_version(void) { return GRAPHJIT_RUNTIME_ABI_VERSION; }
}

llvm::ArrayRef<RuntimeSymbol> graphjit::frameSymbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_prepare", reinterpret_cast<void *>(&gj_prepare)},
      {"gj_perform", reinterpret_cast<void *>(&gj_perform)},
      {"gj_release", reinterpret_cast<void *>(&gj_release)},
      {"gj_compute", reinterpret_cast<void *>(&gj_compute)},
      {"gj_storage_grow", reinterpret_cast<void *>(&gj_storage_grow)},
      {"gj_fail", reinterpret_cast<void *>(&gj_fail)},
      {"gj_runtime_abi_version",
       reinterpret_cast<void *>(&gj_runtime_abi_version)},
  };
  return Symbols;
}
