//===- UpdateCommit.cpp - Checking a call before updates in place --------===//

#include "link/call/UpdateCommit.h"

using namespace graphjit;

UpdateCommit::UpdateCommit(const FunctionGraph &F, const Schedule &S)
    : Start(S.Order.size()), IsEntry(F.numApplies(), false),
      ByUpdate(F.updates().size(), false), Graph(F) {
  llvm::ArrayRef<Update> Updates = F.updates();
  for (const Update &U : Updates) {
    ValueIds.push_back(U.Value->id());
    Shape Want;
    for (const Dim &D : U.Target->Type.Dims)
      Want.push_back(D.Size);
    TargetShapes.push_back(std::move(Want));
  }
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply *N = S.Order[Pos];
    int Slot = sharedInputOverwritten(*N);
    if (Slot < 0)
      continue;
    // Validation made its output that variable's update.
    for (unsigned I = 0; I < Updates.size(); ++I)
      if (llvm::is_contained(N->outputs(), Updates[I].Value)) {
        Entries.push_back({N, N->inputs()[Slot]->id(), I});
        ByUpdate[I] = true;
      }
    IsEntry[N->id()] = true;
    Start = std::min(Start, Pos);
  }
}

llvm::Error graphjit::updateShapeError(const Update &U, const Shape &Got) {
  return llvm::createStringError(
      U.Loc.str() + ": error: update of '" + U.Target->Name +
      "' computed shape " + shapeStr(Got) + ", but '" + U.Target->Name +
      "' is " + U.Target->Type.str());
}

llvm::Error
graphjit::commitUpdates(const UpdateCommit &C, std::vector<NDArray> &Values,
                        NodeRunner &Runner, const ExecContext &Ctx,
                        llvm::function_ref<void(unsigned)> Changed) {
  llvm::ArrayRef<Update> Updates = C.Graph.updates();
  for (unsigned I = 0; I < Updates.size(); ++I)
    if (!C.ByUpdate[I]) {
      const NDArray &V = Values[C.ValueIds[I]];
      if (V.shape() != C.TargetShapes[I])
        return updateShapeError(Updates[I], V.shape());
    }
  // The call holds the shared value once, and the shared variable once: a
  // third holder must not see it change. (A copy made here is the call's
  // alone; if a check below fails, it is simply dropped.)
  for (const UpdateCommit::InPlace &E : C.Entries) {
    NDArray &Old = Values[E.Target];
    const SharedVariable *Target = Updates[E.Update].Target;
    if (Old.buffer() && Old.buffer().use_count() == 2 &&
        Target->Value.buffer() == Old.buffer())
      continue;
    Old = Old.copy();
    Changed(E.Target);
  }
  for (const UpdateCommit::InPlace &E : C.Entries) {
    if (llvm::Error Err = Runner.run(*E.Node, NodeStep::Prepare, Values, Ctx))
      return Err;
    const NDArray &New = Values[C.ValueIds[E.Update]];
    if (New.shape() != C.TargetShapes[E.Update])
      return updateShapeError(Updates[E.Update], New.shape());
  }
  return llvm::Error::success();
}
