//===- DebugPrint.cpp - Theano-style debugprint of a function -------------===//
//
// Draws a function's outputs, then its updates, as trees in the layout of
// Theano's debugprint:
//
//   Elemwise{mul,no_inplace} [id A] 'r'   2   <example.graph:6>   f64[n]
//    |Elemwise{add,no_inplace} [id B] 't'   1   <example.graph:5>   f64[n]
//    | |...
//    |TensorConstant{2.0} [id C]   f64[]
//
// Each variable gets an id (A, B, ..., Z, BA, ... as Theano counts); an
// Apply's inputs are drawn the first time it appears and only its line
// afterwards. The number after the name is the Apply's position in the
// topological order, then where it was written and the type.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Printer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>

using namespace graphjit;

// Theano's char_from_number: base 26 with A as the zero digit.
static std::string idText(unsigned N) {
  std::string S;
  do {
    S += char('A' + N % 26);
    N /= 26;
  } while (N);
  std::reverse(S.begin(), S.end());
  return S;
}

namespace {

class TreePrinter {
public:
  explicit TreePrinter(llvm::raw_ostream &OS) : OS(OS) {}
  void printTree(const Variable *Root, llvm::StringRef FirstPrefix);

private:
  llvm::raw_ostream &OS;
  llvm::DenseMap<const Variable *, unsigned> Ids;
  llvm::DenseSet<const Apply *> Expanded;

  void printLine(const Variable *V);
};

} // namespace

void TreePrinter::printLine(const Variable *V) {
  auto [It, New] = Ids.try_emplace(V, Ids.size());
  (void)New;
  const Apply *A = V->kind() == Variable::Result ? V->owner() : nullptr;
  if (!A) {
    OS << V->displayName() << " [id " << idText(It->second) << "]   "
       << V->type().str() << "\n";
    return;
  }
  OS << A->op().name();
  if (A->outputs().size() > 1)
    OS << "." << V->outputIndex();
  OS << " [id " << idText(It->second) << "] '" << V->name() << "'   "
     << A->id();
  if (A->loc().isValid())
    OS << "   <" << A->loc().fileLine() << ">";
  OS << "   " << V->type().str() << "\n";
}

// Depth-first with an explicit stack: a long chain of Applies must not
// exhaust the C++ stack.
void TreePrinter::printTree(const Variable *Root, llvm::StringRef FirstPrefix) {
  std::vector<std::pair<const Variable *, unsigned>> Stack{{Root, 0}};
  while (!Stack.empty()) {
    auto [V, Depth] = Stack.back();
    Stack.pop_back();
    if (Depth == 0) {
      OS << FirstPrefix;
    } else {
      OS << " ";
      for (unsigned I = 1; I < Depth; ++I)
        OS << "| ";
      OS << "|";
    }
    printLine(V);
    const Apply *A = V->kind() == Variable::Result ? V->owner() : nullptr;
    if (!A || !Expanded.insert(A).second)
      continue;
    for (size_t I = A->inputs().size(); I-- > 0;)
      Stack.push_back({A->inputs()[I], Depth + 1});
  }
}

void graphjit::debugPrint(const FunctionGraph &F, llvm::raw_ostream &OS) {
  TreePrinter P(OS);
  for (const Variable *Out : F.outputs())
    P.printTree(Out, "");
  for (const Update &U : F.updates())
    P.printTree(U.Value, "update " + U.Target->Name + " = ");
}
