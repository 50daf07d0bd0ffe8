//===- UpdateCommit.cpp - Checking a call before updates in place --------===//

#include "UpdateCommit.h"

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

llvm::Error graphjit::commitUpdates(const UpdateCommit &C,
                                    std::vector<NDArray> &Values,
                                    NodeRunner &Runner, const ExecContext &Ctx,
                                    bool KeepPrepared,
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
  std::vector<Shape> OutShapes;
  for (const UpdateCommit::InPlace &E : C.Entries) {
    const Apply &N = *E.Node;
    if (KeepPrepared) {
      if (llvm::Error Err = Runner.run(N, NodeStep::Prepare, Values, Ctx))
        return Err;
      OutShapes.clear();
      for (const Variable *Out : N.outputs())
        OutShapes.push_back(Values[Out->id()].shape());
    } else if (llvm::Error Err = Runner.check(N, Values, Ctx, OutShapes)) {
      return Err;
    }
    unsigned Out = llvm::find(N.outputs(), Updates[E.Update].Value) -
                   N.outputs().begin();
    if (OutShapes[Out] != C.TargetShapes[E.Update])
      return updateShapeError(Updates[E.Update], OutShapes[Out]);
  }
  return llvm::Error::success();
}
