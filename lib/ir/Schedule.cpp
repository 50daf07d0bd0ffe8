//===- Schedule.cpp - Execution order and last uses ----------------------===//

#include "graphjit/Schedule.h"

using namespace graphjit;

Schedule graphjit::makeSchedule(const FunctionGraph &F) {
  Schedule S;
  S.Order = F.applies(); // Applies are kept in a topological order.
  std::vector<Variable *> Vars = F.variables();
  S.LastUse.assign(Vars.size(), -1);
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    for (Variable *In : S.Order[Pos]->inputs())
      if (In->kind() == Variable::Result)
        S.LastUse[In->id()] = Pos;
    // An output nobody reads dies right where it is made.
    for (Variable *Out : S.Order[Pos]->outputs())
      if (S.LastUse[Out->id()] < int(Pos))
        S.LastUse[Out->id()] = Pos;
  }
  for (Variable *Out : F.outputs())
    S.LastUse[Out->id()] = -1;
  for (const Update &U : F.updates())
    S.LastUse[U.Value->id()] = -1;
  for (Variable *V : Vars)
    if (V->kind() != Variable::Result)
      S.LastUse[V->id()] = -1;
  return S;
}
