//===- CallFrame.cpp - The runtime's side of one JIT call ----------------===//

#include "link/CallFrame.h"
#include "link/FunctionProfiler.h"
#include <cstring>

using namespace graphjit;

CallFrame::CallFrame(std::vector<NDArray> &Values,
                     llvm::ArrayRef<Apply *> Nodes, NodeRunner &Runner)
    : Slots(Values.size()), Values(Values), Nodes(Nodes), Runner(Runner) {
  Abi.slots = Slots.data();
  Abi.impl = this;
  for (unsigned V = 0; V < Values.size(); ++V)
    if (!Values[V].isNull())
      syncSlot(V);
}

void CallFrame::begin(const ExecContext &C, llvm::ArrayRef<unsigned> Vars) {
  Ctx = &C;
  Error.clear();
  for (unsigned V : Vars)
    syncSlot(V);
}

void CallFrame::end(llvm::ArrayRef<unsigned> Vars) {
  for (unsigned V : Vars)
    Slots[V].data = nullptr;
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

int32_t CallFrame::runNode(int32_t Id, int Step) {
  const Apply &N = *Nodes[Id];
  if (llvm::Error E = Runner.run(N, NodeStep(Step), Values, *Ctx))
    return fail(std::move(E));
  for (const Variable *Out : N.outputs())
    syncSlot(Out->id());
  if (Profiler)
    Profiler->nodeRan(N, Values);
  return 0;
}

int32_t CallFrame::compute(int32_t Id) {
  if (llvm::Error E = Runner.compute(*Nodes[Id], Values, *Ctx))
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

int32_t gj_runtime_abi_version(void) { return GRAPHJIT_RUNTIME_ABI_VERSION; }
}

llvm::ArrayRef<RuntimeSymbol> graphjit::frameSymbols() {
  static const RuntimeSymbol Symbols[] = {
      {"gj_prepare", reinterpret_cast<void *>(&gj_prepare)},
      {"gj_perform", reinterpret_cast<void *>(&gj_perform)},
      {"gj_release", reinterpret_cast<void *>(&gj_release)},
      {"gj_compute", reinterpret_cast<void *>(&gj_compute)},
      {"gj_runtime_abi_version",
       reinterpret_cast<void *>(&gj_runtime_abi_version)},
  };
  return Symbols;
}
