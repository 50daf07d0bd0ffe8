//===- GraphBuilder.cpp - Syntax tree to GraphModule ----------------------===//
//
// Statements are declarations: `a = add(b, 1.0)` may come before
// `b = neg(x)`. Each statement is built once all the statements it names are
// built, by a depth-first walk with an explicit stack (long chains of
// statements must not exhaust the C++ stack); meeting a statement still on
// the stack is a cycle. A statement whose inputs failed fails silently, so
// one mistake gives one message.
//
// A statement whose value is a number literal (`c = 2.0`) names the literal
// the way a Python variable names a Python scalar: every use is its own
// literal, whose dtype follows the operands it meets.
//
//===----------------------------------------------------------------------===//

#include "GraphBuilder.h"
#include "graphjit/Builder.h"
#include "llvm/ADT/StringMap.h"

using namespace graphjit;
using namespace graphjit::format;
using llvm::SMLoc;

namespace {

/// What a name stands for once resolved: a variable, or a named literal.
struct Value {
  Variable *Var = nullptr;
  const NumberLit *Literal = nullptr;
  SMLoc LiteralLoc;
  explicit operator bool() const { return Var || Literal; }
};

class FunctionSema {
public:
  FunctionSema(const FuncDecl &F, const ModuleAST &AST,
               const llvm::StringMap<SMLoc> &SharedLocs,
               const llvm::SourceMgr &SM, Diagnostics &Diags, GraphModule &M)
      : F(F), AST(AST), SharedLocs(SharedLocs), SM(SM), Diags(Diags), M(M),
        B(M, F.Name.Name, toLoc(F.Name.Loc)) {}
  void run();

private:
  struct Def {
    bool IsInput;
    unsigned Index; ///< Input or statement.
    unsigned Output;
    SMLoc Loc;
  };
  enum State { NotStarted, InProgress, Done, Failed };
  struct StmtInfo {
    State St = NotStarted;
    bool InCycle = false;
    std::vector<Variable *> Outs;
    Value Alias; ///< `r = NAME` or `r = 2.0`: what r stands for.
  };
  /// A statement another one depends on, and the name it used.
  struct Dep {
    unsigned Stmt;
    llvm::StringRef Name;
  };
  struct Frame {
    unsigned Stmt;
    std::vector<Dep> Deps;
    size_t Next = 0;
  };

  const FuncDecl &F;
  const ModuleAST &AST;
  const llvm::StringMap<SMLoc> &SharedLocs; ///< Where each is declared.
  const llvm::SourceMgr &SM;
  Diagnostics &Diags;
  GraphModule &M;
  FunctionBuilder B;
  llvm::StringMap<Def> Defs;
  std::vector<Variable *> InputVars;
  std::vector<StmtInfo> Stmts;
  llvm::StringMap<SMLoc> Updated;
  /// Updates written in place (`update W = gemm(W, ..., inplace=true)`):
  /// their operands are made where the statement is, their Applies after
  /// every other, as validation wants of updates in place.
  struct DeferredUpdate {
    const Stmt *S;
    std::vector<Variable *> Ins;
  };
  std::vector<DeferredUpdate> Deferred;
  /// Set when an output could not be resolved (reported or not).
  bool Incomplete = false;

  SourceLoc toLoc(SMLoc L) const {
    auto [Line, Col] = SM.getLineAndColumn(L);
    return SourceLoc{M.fileNameRef(), Line, Col};
  }
  void declareInputs();
  void declareStatements();
  void collectDeps(const Expr &E, std::vector<Dep> &Out) const;
  void build(unsigned Root);
  void reportCycle(const std::vector<Frame> &Stack, const Dep &Back);
  void evaluate(unsigned I);
  void evaluateUpdate(const Stmt &S);
  void finishDeferredUpdates();
  void resolveOutputs();

  Value resolve(llvm::StringRef Name, SMLoc Loc);
  Value eval(const Expr &E);
  Variable *materialize(const Value &V);
  /// A call's arguments as variables; false if one failed (reported).
  bool evalArgs(const Expr &E, std::vector<Variable *> &Ins);
  /// The Apply of call E on Ins (its errors reported: false, null).
  bool applyCall(const Expr &E, llvm::ArrayRef<Variable *> Ins,
                 std::vector<Variable *> &Outs);
  Variable *applySingle(const Expr &E, llvm::ArrayRef<Variable *> Ins);
  bool evalCall(const Expr &E, std::vector<Variable *> &Outs);
  Variable *evalSingle(const Expr &E);
  void reportApplyError(const Expr &E, llvm::Error Err);
  /// "; did you mean ...?" for Name among the names in scope (or only the
  /// shared variables), within the diagnostics' suggestion budget.
  std::string suggest(llvm::StringRef Name, bool SharedOnly = false);
};

} // namespace

void FunctionSema::declareInputs() {
  for (unsigned I = 0; I < F.Inputs.size(); ++I) {
    const InputDecl &In = F.Inputs[I];
    InputVars.push_back(In.TypeOK
                            ? B.input(In.Name.Name, In.Type, toLoc(In.Name.Loc))
                            : nullptr);
    auto [It, New] =
        Defs.try_emplace(In.Name.Name, Def{true, I, 0, In.Name.Loc});
    if (!New) {
      Diags.error(In.Name.Loc, "duplicate input '" + In.Name.Name + "'");
      Diags.note(It->second.Loc, "'" + In.Name.Name +
                                     "' is first declared "
                                     "here");
      continue;
    }
    if (const SharedVariable *S = M.lookupShared(In.Name.Name)) {
      Diags.error(In.Name.Loc, "input '" + In.Name.Name +
                                   "' has the name of a shared variable");
      Diags.note(SharedLocs.lookup(S->Name),
                 "shared variable '" + S->Name + "' is declared here");
    }
  }
}

void FunctionSema::declareStatements() {
  Stmts.resize(F.Body.size());
  for (unsigned I = 0; I < F.Body.size(); ++I) {
    const Stmt &S = F.Body[I];
    if (S.IsUpdate)
      continue;
    for (unsigned J = 0; J < S.Names.size(); ++J) {
      const NameRef &N = S.Names[J];
      auto [It, New] = Defs.try_emplace(N.Name, Def{false, I, J, N.Loc});
      if (!New) {
        Diags.error(N.Loc, "redefinition of '" + N.Name + "'");
        Diags.note(It->second.Loc, "'" + N.Name + "' is first defined here");
        Stmts[I].St = Failed;
        continue;
      }
      if (const SharedVariable *Sh = M.lookupShared(N.Name)) {
        Diags.error(N.Loc, "'" + N.Name +
                               "' is a shared variable; give it "
                               "a new value with 'update " +
                               N.Name + " = ...'");
        Diags.note(SharedLocs.lookup(Sh->Name),
                   "'" + N.Name + "' is declared here");
        Stmts[I].St = Failed;
      }
    }
  }
}

void FunctionSema::collectDeps(const Expr &E, std::vector<Dep> &Out) const {
  if (E.K == Expr::NameRef) {
    auto It = Defs.find(E.Name);
    if (It != Defs.end() && !It->second.IsInput)
      Out.push_back({It->second.Index, It->getKey()});
    return;
  }
  for (const auto &A : E.Args)
    collectDeps(*A, Out); // depth is bounded by MaxNesting
}

// Builds statement Root after everything it depends on.
void FunctionSema::build(unsigned Root) {
  if (Stmts[Root].St != NotStarted)
    return;
  std::vector<Frame> Stack;
  auto Push = [&](unsigned I) {
    Stmts[I].St = InProgress;
    Frame Fr;
    Fr.Stmt = I;
    if (F.Body[I].Value)
      collectDeps(*F.Body[I].Value, Fr.Deps);
    Stack.push_back(std::move(Fr));
  };
  Push(Root);
  while (!Stack.empty()) {
    Frame &Top = Stack.back();
    if (Top.Next < Top.Deps.size()) {
      Dep D = Top.Deps[Top.Next++];
      if (Stmts[D.Stmt].St == NotStarted)
        Push(D.Stmt); // invalidates Top
      else if (Stmts[D.Stmt].St == InProgress)
        reportCycle(Stack, D);
      continue;
    }
    unsigned I = Top.Stmt;
    Stack.pop_back();
    if (Stmts[I].InCycle)
      Stmts[I].St = Failed;
    else
      evaluate(I);
  }
}

void FunctionSema::reportCycle(const std::vector<Frame> &Stack,
                               const Dep &Back) {
  size_t First = Stack.size() - 1;
  while (Stack[First].Stmt != Back.Stmt)
    --First;
  // One report per statement where cycles close: `a = add(a, a, b)` with
  // `b = neg(a)` is one message at 'a', not three.
  bool Known = Stmts[Back.Stmt].InCycle;
  for (size_t J = First; J < Stack.size(); ++J)
    Stmts[Stack[J].Stmt].InCycle = true;
  if (Known)
    return;
  // The name each statement on the cycle is reached by.
  std::string Path = Back.Name.str();
  for (size_t J = First; J + 1 < Stack.size(); ++J)
    Path += " -> " + Stack[J].Deps[Stack[J].Next - 1].Name.str();
  Path += " -> " + Back.Name.str();
  SMLoc Loc = Defs.lookup(Back.Name).Loc;
  if (First + 1 == Stack.size())
    Diags.error(Loc, "'" + Back.Name + "' is defined in terms of itself");
  else
    Diags.error(Loc, "cycle in the definitions: " + Path);
}

std::string FunctionSema::suggest(llvm::StringRef Name, bool SharedOnly) {
  size_t N = M.sharedVariables().size() + (SharedOnly ? 0 : Defs.size());
  if (!Diags.spendSuggestionWork(N))
    return "";
  std::vector<llvm::StringRef> Names;
  if (!SharedOnly)
    for (const auto &D : Defs)
      Names.push_back(D.getKey());
  for (const auto &S : M.sharedVariables())
    Names.push_back(S->Name);
  return suggestName(Name, Names);
}

Value FunctionSema::resolve(llvm::StringRef Name, SMLoc Loc) {
  auto It = Defs.find(Name);
  if (It != Defs.end()) {
    const Def &D = It->second;
    if (D.IsInput)
      return Value{InputVars[D.Index], nullptr, {}};
    const StmtInfo &S = Stmts[D.Index];
    if (S.St != Done)
      return Value(); // failed (reported), or part of a cycle
    if (!S.Outs.empty())
      return Value{S.Outs[D.Output], nullptr, {}};
    return S.Alias;
  }
  if (F.Poisoned.count(Name))
    return Value();
  if (M.lookupShared(Name))
    return Value{llvm::cantFail(B.shared(Name, toLoc(Loc))), nullptr, {}};
  if (AST.PoisonedShared.count(Name))
    return Value();
  Diags.error(Loc, "undefined name '" + Name + "'" + suggest(Name));
  return Value();
}

Variable *FunctionSema::materialize(const Value &V) {
  if (V.Var || !V.Literal)
    return V.Var;
  const NumberLit &N = *V.Literal;
  if (N.IsFloat)
    return B.literal(N.F, N.Spelling, toLoc(V.LiteralLoc));
  return B.literal(N.I, N.Spelling, toLoc(V.LiteralLoc));
}

Value FunctionSema::eval(const Expr &E) {
  switch (E.K) {
  case Expr::NameRef:
    return resolve(E.Name, E.Loc);
  case Expr::Number:
    return Value{nullptr, &E.Num, E.Loc};
  case Expr::Call:
    return Value{evalSingle(E), nullptr, {}};
  }
  return Value();
}

// Where an error from applying an op belongs: an attribute's key, a literal
// that does not fit, or else the op name.
void FunctionSema::reportApplyError(const Expr &E, llvm::Error Err) {
  llvm::handleAllErrors(
      std::move(Err),
      [&](const AttrError &AE) {
        SMLoc Loc = E.Loc;
        for (const AttrArg &A : E.Attrs)
          if (A.Key == AE.attr())
            Loc = A.KeyLoc;
        Diags.error(Loc, AE.text());
      },
      [&](const llvm::ErrorInfoBase &EI) {
        std::string Msg = EI.message();
        SMLoc Loc = E.Loc;
        if (llvm::StringRef(Msg).starts_with("literal "))
          for (const auto &A : E.Args)
            if (A->K == Expr::Number &&
                llvm::StringRef(Msg).starts_with("literal " + A->Num.Spelling +
                                                 " ")) {
              Loc = A->Loc;
              break;
            }
        Diags.error(Loc, Msg);
      });
}

bool FunctionSema::evalArgs(const Expr &E, std::vector<Variable *> &Ins) {
  std::vector<Value> Args;
  bool OK = true;
  for (const auto &A : E.Args) {
    Args.push_back(eval(*A));
    OK &= bool(Args.back());
  }
  if (!OK)
    return false;
  for (const Value &V : Args)
    Ins.push_back(materialize(V));
  return true;
}

bool FunctionSema::applyCall(const Expr &E, llvm::ArrayRef<Variable *> Ins,
                             std::vector<Variable *> &Outs) {
  AttrMap Attrs;
  for (const AttrArg &A : E.Attrs)
    Attrs[A.Key] = A.Value;
  llvm::Expected<std::vector<Variable *>> R =
      B.applyMulti(E.Name, Ins, Attrs, toLoc(E.Loc));
  if (!R) {
    reportApplyError(E, R.takeError());
    return false;
  }
  Outs = std::move(*R);
  return true;
}

bool FunctionSema::evalCall(const Expr &E, std::vector<Variable *> &Outs) {
  std::vector<Variable *> Ins;
  return evalArgs(E, Ins) && applyCall(E, Ins, Outs);
}

Variable *FunctionSema::applySingle(const Expr &E,
                                    llvm::ArrayRef<Variable *> Ins) {
  std::vector<Variable *> Outs;
  if (!applyCall(E, Ins, Outs))
    return nullptr;
  if (Outs.size() != 1) {
    Diags.error(E.Loc, "op '" + E.Name + "' has " + llvm::Twine(Outs.size()) +
                           " outputs; name each of them, as in "
                           "'a, b = " +
                           E.Name + "(...)'");
    return nullptr;
  }
  return Outs[0];
}

Variable *FunctionSema::evalSingle(const Expr &E) {
  std::vector<Variable *> Ins;
  return evalArgs(E, Ins) ? applySingle(E, Ins) : nullptr;
}

void FunctionSema::evaluate(unsigned I) {
  const Stmt &S = F.Body[I];
  StmtInfo &Info = Stmts[I];
  Info.St = Failed;
  if (S.IsUpdate) {
    evaluateUpdate(S);
    return;
  }
  const Expr &E = *S.Value;
  if (E.K == Expr::Call && S.Names.size() > 1) {
    std::vector<Variable *> Outs;
    if (!evalCall(E, Outs))
      return;
    if (Outs.size() != S.Names.size()) {
      Diags.error(S.Names[0].Loc, "the statement names " +
                                      llvm::Twine(S.Names.size()) +
                                      " values, but op '" + E.Name + "' has " +
                                      llvm::Twine(Outs.size()) + " output" +
                                      (Outs.size() == 1 ? "" : "s"));
      return;
    }
    Info.Outs = std::move(Outs);
  } else if (S.Names.size() > 1) {
    Diags.error(S.Names[0].Loc, "the statement names " +
                                    llvm::Twine(S.Names.size()) +
                                    " values, but its value is a single " +
                                    (E.K == Expr::Number ? "number" : "name"));
    return;
  } else if (E.K == Expr::Call) {
    Variable *V = evalSingle(E);
    if (!V)
      return;
    Info.Outs.push_back(V);
  } else {
    Info.Alias = eval(E);
    if (!Info.Alias)
      return;
  }
  for (unsigned J = 0; J < Info.Outs.size(); ++J)
    B.name(Info.Outs[J], S.Names[J].Name);
  Info.St = Done;
}

void FunctionSema::evaluateUpdate(const Stmt &S) {
  const NameRef &Target = S.Names[0];
  if (!M.lookupShared(Target.Name)) {
    if (AST.PoisonedShared.count(Target.Name) || F.Poisoned.count(Target.Name))
      return;
    std::string Msg = "'" + Target.Name +
                      "' is not a shared variable; only shared variables "
                      "can be updated";
    auto It = Defs.find(Target.Name);
    if (It != Defs.end()) {
      Diags.error(Target.Loc, Msg);
      Diags.note(It->second.Loc, "'" + Target.Name + "' is defined here");
      return;
    }
    Diags.error(Target.Loc, Msg + suggest(Target.Name, /*SharedOnly=*/true));
    return;
  }
  auto [It, New] = Updated.try_emplace(Target.Name, Target.Loc);
  if (!New) {
    Diags.error(Target.Loc,
                "shared variable '" + Target.Name + "' is updated twice");
    Diags.note(It->second, "first updated here");
    return;
  }
  const Expr &E = *S.Value;
  auto IsInplace = [](const AttrArg &A) { return A.Key == "inplace"; };
  if (E.K == Expr::Call && llvm::any_of(E.Attrs, IsInplace)) {
    DeferredUpdate D{&S, {}};
    if (evalArgs(E, D.Ins))
      Deferred.push_back(std::move(D));
    return;
  }
  Value V = eval(E);
  if (!V)
    return;
  if (llvm::Error Err =
          B.update(Target.Name, materialize(V), toLoc(Target.Loc)))
    Diags.error(E.Loc, llvm::toString(std::move(Err)));
}

void FunctionSema::finishDeferredUpdates() {
  for (const DeferredUpdate &D : Deferred) {
    const Expr &E = *D.S->Value;
    const NameRef &Target = D.S->Names[0];
    if (Variable *V = applySingle(E, D.Ins))
      if (llvm::Error Err = B.update(Target.Name, V, toLoc(Target.Loc)))
        Diags.error(E.Loc, llvm::toString(std::move(Err)));
  }
}

void FunctionSema::resolveOutputs() {
  llvm::StringMap<Variable *> NamedLiterals;
  for (const NameRef &O : F.Outputs) {
    auto It = Defs.find(O.Name);
    bool Known = It != Defs.end() || F.Poisoned.count(O.Name) ||
                 M.lookupShared(O.Name) || AST.PoisonedShared.count(O.Name);
    if (!Known) {
      Incomplete = true;
      Diags.error(O.Loc,
                  "output '" + O.Name + "' is never defined" + suggest(O.Name));
      continue;
    }
    Value V = resolve(O.Name, O.Loc);
    if (!V) {
      Incomplete = true;
      continue;
    }
    Variable *Out = V.Var;
    if (!Out) {
      // A named literal as an output is one literal, named after it.
      Variable *&L = NamedLiterals[O.Name];
      if (!L) {
        L = materialize(V);
        B.name(L, O.Name);
      }
      Out = L;
    }
    B.output(Out, O.Name);
  }
}

void FunctionSema::run() {
  unsigned ErrorsBefore = Diags.numErrors();
  declareInputs();
  declareStatements();
  for (unsigned I = 0; I < F.Body.size(); ++I)
    build(I);
  finishDeferredUpdates();
  resolveOutputs();
  // An incomplete function would only add a confusing "no outputs" error.
  if (F.HadErrors || Incomplete || Diags.numErrors() != ErrorsBefore)
    return;
  if (llvm::Expected<FunctionGraph *> R = B.finish(); !R)
    Diags.error(F.Name.Loc, llvm::toString(R.takeError()));
}

void format::buildModule(const ModuleAST &AST, const llvm::SourceMgr &SM,
                         Diagnostics &Diags, GraphModule &M) {
  auto ToLoc = [&](SMLoc L) {
    auto [Line, Col] = SM.getLineAndColumn(L);
    return SourceLoc{M.fileNameRef(), Line, Col};
  };
  llvm::StringMap<SMLoc> SharedLocs;
  for (const SharedDecl &S : AST.Shared) {
    auto [It, New] = SharedLocs.try_emplace(S.Name.Name, S.Name.Loc);
    if (!New) {
      Diags.error(S.Name.Loc,
                  "redefinition of shared variable '" + S.Name.Name + "'");
      Diags.note(It->second, "'" + S.Name.Name + "' is first declared here");
      continue;
    }
    M.addShared(S.Name.Name, S.Type, S.Init, ToLoc(S.Name.Loc));
  }
  llvm::StringMap<SMLoc> FuncLocs;
  for (const FuncDecl &F : AST.Functions) {
    auto [It, New] = FuncLocs.try_emplace(F.Name.Name, F.Name.Loc);
    if (!New) {
      Diags.error(F.Name.Loc, "redefinition of function '" + F.Name.Name + "'");
      Diags.note(It->second, "'" + F.Name.Name + "' is first defined here");
      continue;
    }
    FunctionSema(F, AST, SharedLocs, SM, Diags, M).run();
  }
  if (!AST.SawFunc) {
    const llvm::MemoryBuffer *Buf = SM.getMemoryBuffer(SM.getMainFileID());
    Diags.error(SMLoc::getFromPointer(Buf->getBufferStart()),
                "no function in this file; a .graph file defines at least "
                "one 'func'");
  }
}
