//===- Function.cpp - Binding inputs, running, applying updates ----------===//

#include "graphjit/Function.h"
#include "NodeRunner.h"
#include "jit/JitEngine.h"
#include "lower/ModuleLowering.h"
#include "lower/ThunkEmitter.h"
#include "runtime/CallFrame.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <chrono>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Expected<LinkerKind> graphjit::parseLinker(llvm::StringRef Name) {
  std::optional<LinkerKind> K =
      llvm::StringSwitch<std::optional<LinkerKind>>(Name)
          .Case("py", LinkerKind::Py)
          .Cases("c|py", "cpy", LinkerKind::CPy)
          .Case("c", LinkerKind::C)
          .Default(std::nullopt);
  if (!K)
    return llvm::createStringError("unknown linker '" + Name +
                                   "' (known: py, c|py, cpy, c)");
  return *K;
}

llvm::StringRef graphjit::linkerName(LinkerKind K) {
  switch (K) {
  case LinkerKind::Py: return "py";
  case LinkerKind::CPy: return "c|py";
  case LinkerKind::C: return "c";
  }
  return "?";
}

/// The machine code of a function and its driver.
struct Function::JitCode {
  CompiledCode Code;
  int32_t (*Driver)(gj_frame *) = nullptr;
  std::vector<bool> IsCompiled; ///< By Apply id.
  ~JitCode() {
    if (!Code.Dylib)
      return;
    if (auto Engine = JitEngine::get())
      Engine->release(Code);
    else
      llvm::consumeError(Engine.takeError());
  }
};

Function::Function(FunctionGraph &F, const CompileOptions &Opts)
    : Graph(F), Opts(Opts), Sched(makeSchedule(F)), ById(F.applies()) {}

Function::~Function() = default;

bool Function::isCompiled(unsigned ApplyId) const {
  return Jit && Jit->IsCompiled[ApplyId];
}

Error Function::jitCompile() {
  if (Opts.Linker == LinkerKind::C) {
    std::vector<std::string> Missing;
    for (Apply *N : Sched.Order)
      if (!findLowering(*N) &&
          !llvm::is_contained(Missing, N->op().name()))
        Missing.push_back(N->op().name());
    if (!Missing.empty())
      return llvm::createStringError(
          "the c linker needs a JIT lowering for every op; these have none: " +
          llvm::join(Missing, ", ") + " (use -linker=c|py to run them "
                                      "through perform)");
  }
  Expected<JitEngine &> Engine = JitEngine::get();
  if (!Engine)
    return Engine.takeError();
  auto Start = std::chrono::steady_clock::now();
  Expected<LoweredModule> LM =
      lowerFunction(Graph, Sched, Opts.AllowGC, Engine->dataLayout(),
                    Engine->triple());
  if (!LM)
    return LM.takeError();
  Times.Lower = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  auto Code = std::make_unique<JitCode>();
  Code->IsCompiled = LM->IsCompiled;
  Expected<CompiledCode> C =
      Engine->compile(std::move(LM->Module), std::move(LM->Context),
                      DriverName, Opts.OptLevel, Opts.Emit, Times);
  if (!C)
    return C.takeError();
  Code->Code = *C;
  Code->Driver = reinterpret_cast<int32_t (*)(gj_frame *)>(C->Driver);
  Jit = std::move(Code);
  return Error::success();
}

Expected<std::unique_ptr<Function>>
Function::compile(FunctionGraph &F, const CompileOptions &Opts) {
  if (Opts.OptLevel > 3)
    return llvm::createStringError("optimization level " +
                                   llvm::Twine(Opts.OptLevel) +
                                   " is not one of 0, 1, 2, 3");
  std::unique_ptr<Function> Fn(new Function(F, Opts));
  if (Opts.Linker != LinkerKind::Py)
    if (Error E = Fn->jitCompile())
      return E;
  return Fn;
}

Expected<DimBindings>
Function::bindInputs(llvm::ArrayRef<NDArray> Inputs,
                     const DimBindings &Given) const {
  llvm::ArrayRef<Variable *> Params = Graph.inputs();
  if (Inputs.size() != Params.size())
    return llvm::createStringError(
        "function '" + Graph.name() + "' takes " +
        std::to_string(Params.size()) + " inputs, got " +
        std::to_string(Inputs.size()));
  DimBindings Dims;
  llvm::StringMap<std::string> BoundBy; // symbol -> "input 'x' dim 0"
  for (const auto &G : Given) {
    Dims[G.getKey()] = G.getValue();
    BoundBy[G.getKey()] = "the sizes given";
  }
  for (unsigned I = 0; I < Params.size(); ++I) {
    const TensorType &T = Params[I]->type();
    const NDArray &A = Inputs[I];
    std::string Who = "input '" + Params[I]->name() + "'";
    if (A.isNull())
      return llvm::createStringError(Who + " has no value");
    if (A.dtype() != T.Dtype)
      return llvm::createStringError(Who + " is declared " + T.str() +
                                     " but the array given is " +
                                     dtypeName(A.dtype()).str());
    if (A.rank() != T.rank())
      return llvm::createStringError(
          Who + " is declared " + T.str() + " (rank " +
          std::to_string(T.rank()) + ") but the array given has shape " +
          shapeStr(A.shape()));
    for (unsigned D = 0; D < T.rank(); ++D) {
      const Dim &Want = T.Dims[D];
      int64_t Got = A.dim(D);
      std::string Where = Who + " dim " + std::to_string(D);
      if (Want.isKnown() && Want.Size != Got)
        return llvm::createStringError(Where + " is " + std::to_string(Got) +
                                       ", but the type " + T.str() +
                                       " says " + std::to_string(Want.Size));
      if (!Want.isSymbolic())
        continue;
      auto [It, New] = Dims.try_emplace(Want.Symbol, Got);
      if (New) {
        BoundBy[Want.Symbol] = Where;
      } else if (It->second != Got) {
        return llvm::createStringError(
            Where + " is " + std::to_string(Got) + ", but '" + Want.Symbol +
            "' is " + std::to_string(It->second) + " from " +
            BoundBy[Want.Symbol]);
      }
    }
  }
  return Dims;
}

Error Function::runNodes(std::vector<NDArray> &Values, const ExecContext &Ctx) {
  if (Jit) {
    CallFrame Frame(Values, ById, Ctx);
    if (Jit->Driver(Frame.abi()) != 0)
      return llvm::createStringError(Frame.Error);
    return Error::success();
  }
  for (unsigned Pos = 0; Pos < Sched.Order.size(); ++Pos) {
    const Apply &N = *Sched.Order[Pos];
    if (Error E = runNode(N, NodeStep::Perform, Values, Ctx))
      return E;
    if (!Opts.AllowGC)
      continue;
    for (Variable *V : N.inputs())
      if (Sched.LastUse[V->id()] == int(Pos))
        Values[V->id()] = NDArray();
    for (Variable *V : N.outputs())
      if (Sched.LastUse[V->id()] == int(Pos))
        Values[V->id()] = NDArray();
  }
  return Error::success();
}

Expected<std::vector<NDArray>>
Function::call(llvm::ArrayRef<NDArray> Inputs, const DimBindings &Given) {
  Expected<DimBindings> Dims = bindInputs(Inputs, Given);
  if (!Dims)
    return Dims.takeError();
  std::vector<Variable *> Vars = Graph.variables();
  std::vector<NDArray> Values(Vars.size());
  for (unsigned I = 0; I < Inputs.size(); ++I)
    Values[Graph.inputs()[I]->id()] = Inputs[I];
  for (Variable *V : Vars) {
    if (V->kind() == Variable::Constant)
      Values[V->id()] = V->constantValue();
    else if (V->kind() == Variable::SharedRead)
      Values[V->id()] = V->shared()->Value;
  }
  ExecContext Ctx;
  Ctx.Dims = &*Dims;
  if (Error E = runNodes(Values, Ctx))
    return E;

  // Check every update before applying any, so that a failing call changes
  // nothing.
  std::vector<NDArray> NewValues;
  for (const Update &U : Graph.updates()) {
    NDArray V = Values[U.Value->id()];
    Shape Want;
    for (const Dim &D : U.Target->Type.Dims)
      Want.push_back(D.Size);
    if (V.shape() != Want)
      return llvm::createStringError(
          U.Loc.str() + ": error: update of '" + U.Target->Name +
          "' computed shape " + shapeStr(V.shape()) + ", but '" +
          U.Target->Name + "' is " + U.Target->Type.str());
    // Keep shared values contiguous and independent of any other value.
    NewValues.push_back(V.copy());
  }
  for (unsigned I = 0; I < NewValues.size(); ++I)
    Graph.updates()[I].Target->Value = std::move(NewValues[I]);

  std::vector<NDArray> Results;
  for (Variable *Out : Graph.outputs())
    Results.push_back(Values[Out->id()]);
  return Results;
}
