//===- CanonicalDump.cpp - A structural description of a module -----------===//
//
// canonicalDump describes a module so that two modules get the same text
// exactly when they are the same graph: the same shared variables, and
// functions with the same inputs, the same ops (name and attributes) wired
// the same way, the same constants (dtype and value), types, names given in
// the source, outputs and updates. Unnamed nodes are numbered in an order
// that depends only on the structure (a post-order walk from the outputs,
// updates and named values), not on creation order, so a printed and
// re-parsed module dumps the same as the original.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Printer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

using namespace graphjit;

static std::string constantText(const Variable &V) {
  const NDArray &C = V.constantValue();
  std::string S = "const " + V.type().str() + " ";
  if (C.rank() != 0)
    return S + C.str(1 << 20);
  if (isFloat(C.dtype()))
    return S + formatFloatLiteral(C.getDouble(0));
  return S + std::to_string(C.getInt(0));
}

namespace {

class Dumper {
public:
  Dumper(const FunctionGraph &F, llvm::raw_ostream &OS) : F(F), OS(OS) {}
  void run();

private:
  const FunctionGraph &F;
  llvm::raw_ostream &OS;
  llvm::DenseMap<const Apply *, unsigned> Number;
  std::vector<const Apply *> Order;

  void visit(const Apply *Root);
  std::string ref(const Variable *V) const;
};

} // namespace

// Post-order from Root through the inputs, with an explicit stack: graphs
// can be far deeper than the C++ stack.
void Dumper::visit(const Apply *Root) {
  if (Number.count(Root))
    return;
  std::vector<std::pair<const Apply *, size_t>> Stack{{Root, 0}};
  Number[Root] = ~0u; // on the stack
  while (!Stack.empty()) {
    auto &[A, Next] = Stack.back();
    if (Next < A->inputs().size()) {
      const Variable *In = A->inputs()[Next++];
      const Apply *Owner = In->owner();
      if (In->kind() == Variable::Result && !Number.count(Owner)) {
        Number[Owner] = ~0u;
        Stack.push_back({Owner, 0});
      }
      continue;
    }
    Number[A] = Order.size();
    Order.push_back(A);
    Stack.pop_back();
  }
}

std::string Dumper::ref(const Variable *V) const {
  std::string Name = V->name().empty() ? "" : " '" + V->name() + "'";
  switch (V->kind()) {
  case Variable::Input:
    return "input" + Name;
  case Variable::SharedRead:
    return "shared '" + V->shared()->Name + "'";
  case Variable::Constant:
    return "(" + constantText(*V) + Name + ")";
  case Variable::Result:
    return "%" + std::to_string(Number.lookup(V->owner())) + "." +
           std::to_string(V->outputIndex());
  }
  return "?";
}

void Dumper::run() {
  OS << "func " << F.name() << "\n";
  for (const Variable *In : F.inputs())
    OS << "  input '" << In->name() << "': " << In->type().str() << "\n";
  auto VisitVar = [&](const Variable *V) {
    if (V->kind() == Variable::Result)
      visit(V->owner());
  };
  for (const Variable *V : F.outputs())
    VisitVar(V);
  for (const Update &U : F.updates())
    VisitVar(U.Value);
  std::vector<const Variable *> Named;
  for (const Variable *V : F.variables())
    if (V->kind() == Variable::Result && !V->name().empty())
      Named.push_back(V);
  std::sort(Named.begin(), Named.end(),
            [](const Variable *A, const Variable *B) {
              if (A->name() != B->name())
                return A->name() < B->name();
              return A->id() < B->id();
            });
  for (const Variable *V : Named)
    VisitVar(V);
  for (const Apply *A : F.applies())
    visit(A);

  for (const Apply *A : Order) {
    OS << "  %" << Number[A] << " = " << A->op().formatName() << " ["
       << A->op().name() << "]";
    for (const auto &[Key, Value] : A->op().attrs())
      OS << " " << Key << "=" << Value.str();
    OS << " (";
    llvm::ListSeparator Sep(", ");
    for (const Variable *In : A->inputs())
      OS << Sep << ref(In);
    OS << ") ->";
    for (const Variable *Out : A->outputs()) {
      OS << " " << Out->type().str();
      if (!Out->name().empty())
        OS << " '" << Out->name() << "'";
    }
    OS << "\n";
  }
  for (const Variable *V : F.outputs())
    OS << "  output " << ref(V) << " : " << V->type().str() << "\n";
  for (const Update &U : F.updates())
    OS << "  update '" << U.Target->Name << "' = " << ref(U.Value) << "\n";
}

std::string graphjit::canonicalDump(const GraphModule &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  for (const auto &Sh : M.sharedVariables())
    OS << "shared '" << Sh->Name << "': " << Sh->Type.str() << " = "
       << Sh->Init.str() << "\n";
  for (const auto &F : M.functions())
    Dumper(*F, OS).run();
  return S;
}
