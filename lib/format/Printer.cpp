//===- Printer.cpp - Writing graphs as .graph text ------------------------===//
//
// Prints a module so that parsing the text gives the same graph. Applies
// are printed in topological order, one statement each, except that an
// unnamed single-output result used exactly once is written as a nested
// call where it is used, the way one would write it by hand. Names are
// invented (`_t1`, ...) only where the graph has none and the text needs
// one: outputs, results used several times, outputs of multi-output ops.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Printer.h"
#include "AST.h"
#include "Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>

using namespace graphjit;
using namespace graphjit::format;

namespace {

class FunctionPrinter {
public:
  FunctionPrinter(const FunctionGraph &F, llvm::raw_ostream &Out)
      : F(F), Out(Out), OS(BodyText) {}
  void print();

private:
  const FunctionGraph &F;
  llvm::raw_ostream &Out;
  /// The statements, written before the header so that the header can
  /// mention the constants found unprintable on the way.
  std::string BodyText;
  llvm::raw_string_ostream OS;
  llvm::DenseMap<const Variable *, std::string> Names;
  llvm::DenseMap<const Variable *, unsigned> Uses;
  llvm::DenseMap<const Apply *, bool> Inline;
  llvm::StringSet<> Taken;
  unsigned NextFresh = 1;
  /// Constants the format cannot spell, with the name printed for them.
  std::vector<const Variable *> Unprintable;

  std::string fresh();
  void countUses();
  void assignNames();
  void chooseInlining();
  void printRef(const Variable *V);
  void printCall(const Apply &A);
  bool isInlined(const Variable *V) const {
    return V->kind() == Variable::Result && Inline.lookup(V->owner());
  }
};

} // namespace

std::string FunctionPrinter::fresh() {
  for (;;) {
    std::string N = "_t" + std::to_string(NextFresh++);
    if (Taken.insert(N).second)
      return N;
  }
}

void FunctionPrinter::countUses() {
  for (Apply *A : F.applies())
    for (Variable *In : A->inputs())
      ++Uses[In];
  for (Variable *O : F.outputs())
    Uses[O] += 2; // an output always needs a name
  for (const Update &U : F.updates())
    ++Uses[U.Value];
}

// Keeps every valid, unique name of the graph and invents the missing ones.
void FunctionPrinter::assignNames() {
  for (const auto &S : F.module()->sharedVariables())
    Taken.insert(S->Name);
  std::vector<Variable *> Vars = F.variables();
  llvm::StringSet<> Used;
  for (const auto &S : F.module()->sharedVariables())
    Used.insert(S->Name);
  // Inputs first: their names are the function's signature.
  std::vector<Variable *> Order(F.inputs().begin(), F.inputs().end());
  for (Variable *V : Vars)
    if (V->kind() != Variable::Input)
      Order.push_back(V);
  for (Variable *V : Order) {
    if (V->kind() == Variable::SharedRead) {
      Names[V] = V->shared()->Name;
      continue;
    }
    if (isIdentifier(V->name()) && Used.insert(V->name()).second) {
      Names[V] = V->name();
      Taken.insert(V->name());
    }
  }
  auto Need = [&](const Variable *V) {
    if (!Names.count(V))
      Names[V] = fresh();
  };
  for (Variable *V : F.inputs())
    Need(V);
  for (Variable *V : F.outputs())
    Need(V);
  for (Apply *A : F.applies()) {
    bool Multi = A->outputs().size() != 1;
    for (Variable *O : A->outputs())
      if (Multi || Uses.lookup(O) > 1)
        Need(O);
  }
}

// Decides which Applies print as nested calls, keeping each statement's
// nesting within what the parser accepts.
void FunctionPrinter::chooseInlining() {
  llvm::DenseMap<const Apply *, unsigned> Height;
  auto AttrHeight = [](const AttrValue &V) {
    // Lists nest; walk them without recursion.
    unsigned Max = 1;
    std::vector<std::pair<const AttrValue *, unsigned>> Work{{&V, 1}};
    while (!Work.empty()) {
      auto [A, H] = Work.back();
      Work.pop_back();
      Max = std::max(Max, H);
      for (const AttrValue &E : A->Elts)
        Work.push_back({&E, H + 1});
    }
    return Max;
  };
  for (Apply *A : F.applies()) {
    Variable *Out = A->output(0);
    Inline[A] =
        A->outputs().size() == 1 && !Names.count(Out) && Uses.lookup(Out) == 1;
    unsigned Own = 1;
    for (const auto &KV : A->op().attrs())
      Own = std::max(Own, AttrHeight(KV.second));
    unsigned H = Own;
    for (Variable *In : A->inputs())
      H = std::max(H, isInlined(In) ? Height[In->owner()] : 1u);
    if (H + 1 > MaxNesting) {
      // Too deep: its nested inputs become statements of their own.
      for (Variable *In : A->inputs())
        if (isInlined(In)) {
          Inline[In->owner()] = false;
          Names[In] = fresh();
        }
      H = Own;
    }
    Height[A] = H + 1;
  }
}

// A constant's spelling: its literal text, a number, or alloc() of a
// constant array whose elements are all equal. False for the rest, which
// the format cannot spell.
static bool spellConstant(const Variable *V, std::string &Out) {
  if (!V->literalText().empty()) {
    Out = V->literalText();
    return true;
  }
  const NDArray &C = V->constantValue();
  auto Scalar = [&](int64_t I) {
    if (isFloat(C.dtype()))
      return formatFloatLiteral(C.getDouble(I));
    return std::to_string(C.getInt(I));
  };
  if (C.rank() == 0) {
    Out = Scalar(0);
    return true;
  }
  if (C.numElements() == 0)
    return false;
  for (int64_t I = 1; I < C.numElements(); ++I)
    if (Scalar(I) != Scalar(0))
      return false;
  Out = "alloc(" + Scalar(0) +
        ", shape=" + AttrValue::intList(C.shape()).str() + ")";
  return true;
}

void FunctionPrinter::printRef(const Variable *V) {
  if (isInlined(V)) {
    printCall(*V->owner());
    return;
  }
  auto It = Names.find(V);
  if (It != Names.end()) {
    OS << It->second;
    return;
  }
  std::string Text;
  if (V->kind() == Variable::Constant && spellConstant(V, Text)) {
    OS << Text;
    return;
  }
  // No spelling: print a name that the header comment explains, so that
  // the text fails to parse here rather than mean something else.
  Names[V] = fresh();
  Unprintable.push_back(V);
  OS << Names[V];
}

// Nesting is bounded by chooseInlining, so this recursion is too.
void FunctionPrinter::printCall(const Apply &A) {
  OS << A.op().formatName() << "(";
  // A composite's number literals would settle their dtype against all its
  // inputs when read back, not against the operands of the step that uses
  // them: their dtype is spelled out.
  bool TypedLiterals = A.op().formatName() == "composite";
  bool First = true;
  for (const Variable *In : A.inputs()) {
    OS << (First ? "" : ", ");
    First = false;
    std::string Text;
    if (TypedLiterals && In->kind() == Variable::Constant &&
        !Names.count(In) && In->type().rank() == 0 && spellConstant(In, Text)) {
      OS << "cast(" << Text << ", dtype=" << dtypeName(In->type().Dtype)
         << ")";
      continue;
    }
    printRef(In);
  }
  for (const auto &[Key, Value] : A.op().attrs()) {
    OS << (First ? "" : ", ") << Key << "=" << Value.str();
    First = false;
  }
  OS << ")";
}

void FunctionPrinter::print() {
  countUses();
  assignNames();
  chooseInlining();
  // Named constants (outputs that are literals) are statements of their own.
  for (Variable *V : F.variables()) {
    std::string Text;
    if (V->kind() != Variable::Constant || !Names.count(V))
      continue;
    if (spellConstant(V, Text))
      OS << "  " << Names[V] << " = " << Text << "\n";
    else
      Unprintable.push_back(V);
  }
  for (Apply *A : F.applies()) {
    if (Inline.lookup(A))
      continue;
    OS << "  ";
    for (unsigned I = 0; I < A->outputs().size(); ++I)
      OS << (I ? ", " : "") << Names[A->output(I)];
    OS << " = ";
    printCall(*A);
    OS << "\n";
  }
  // Outputs the signature names apart from their variable (q = w).
  std::vector<std::string> OutNames;
  for (unsigned I = 0; I < F.outputs().size(); ++I) {
    std::string Name = F.outputName(I), &Var = Names[F.outputs()[I]];
    bool Alias = Name != Var && isIdentifier(Name) && !Taken.count(Name) &&
                 !llvm::is_contained(OutNames, Name);
    if (Alias)
      OS << "  " << Name << " = " << Var << "\n";
    OutNames.push_back(Alias ? Name : Var);
  }
  for (const Update &U : F.updates()) {
    OS << "  update " << U.Target->Name << " = ";
    printRef(U.Value);
    OS << "\n";
  }

  for (const Variable *C : Unprintable)
    Out << "# '" << Names[C] << "' stands for a constant the format cannot "
        << "spell: " << C->type().str() << "\n";
  Out << "func " << F.name() << "(";
  for (unsigned I = 0; I < F.inputs().size(); ++I) {
    const Variable *In = F.inputs()[I];
    Out << (I ? ", " : "") << Names[In] << ": " << In->type().str();
  }
  Out << ") -> (";
  for (unsigned I = 0; I < OutNames.size(); ++I)
    Out << (I ? ", " : "") << OutNames[I];
  Out << ") {\n" << BodyText << "}\n";
}

void graphjit::printFunction(const FunctionGraph &F, llvm::raw_ostream &OS) {
  FunctionPrinter(F, OS).print();
}

void graphjit::printModule(const GraphModule &M, llvm::raw_ostream &OS) {
  for (const auto &S : M.sharedVariables())
    OS << "shared " << S->Name << ": " << S->Type.str() << " = "
       << S->Init.str() << "\n";
  bool First = M.sharedVariables().empty();
  for (const auto &F : M.functions()) {
    if (!First)
      OS << "\n";
    First = false;
    printFunction(*F, OS);
  }
}
