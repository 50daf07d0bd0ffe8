//===- Function.cpp - Binding inputs, running, applying updates ----------===//

#include "graphjit/Function.h"
#include "llvm/ADT/StringSwitch.h"

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

Function::Function(FunctionGraph &F, const CompileOptions &Opts)
    : Graph(F), Opts(Opts), Sched(makeSchedule(F)) {}

Function::~Function() = default;

Expected<std::unique_ptr<Function>>
Function::compile(FunctionGraph &F, const CompileOptions &Opts) {
  if (Opts.Linker != LinkerKind::Py)
    return llvm::createStringError(
        "the '" + linkerName(Opts.Linker) +
        "' linker needs the LLVM JIT, which this build of graphjit does not "
        "include yet; use -linker=py");
  return std::unique_ptr<Function>(new Function(F, Opts));
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

// "(3,), (4, 1)" for an Apply's input values.
static std::string inputShapes(const Apply &N,
                               const std::vector<NDArray> &Values) {
  std::string S;
  for (Variable *In : N.inputs()) {
    if (!S.empty())
      S += ", ";
    const NDArray &A = Values[In->id()];
    S += A.isNull() ? "?" : dtypeName(A.dtype()).str() + " " + shapeStr(A.shape());
  }
  return S;
}

static Error nodeError(const Apply &N, const std::vector<NDArray> &Values,
                       const llvm::Twine &Why) {
  return llvm::createStringError(
      N.loc().str() + ": error: Apply node " + std::to_string(N.id()) + ", " +
      N.displayName() + ", with inputs " + inputShapes(N, Values) + ": " + Why);
}

// Checks what perform() produced against the types inferred statically, so
// that a wrong op is caught where it happens.
static Error checkOutputs(const Apply &N, const std::vector<NDArray> &Outs,
                          const std::vector<NDArray> &Values) {
  if (Outs.size() != N.outputs().size())
    return nodeError(N, Values, "internal error: perform made " +
                                    llvm::Twine(Outs.size()) + " outputs");
  for (unsigned I = 0; I < Outs.size(); ++I) {
    const TensorType &T = N.output(I)->type();
    const NDArray &A = Outs[I];
    bool Ok = !A.isNull() && A.dtype() == T.Dtype && A.rank() == T.rank();
    for (unsigned D = 0; Ok && D < T.rank(); ++D)
      Ok = !T.Dims[D].isKnown() || T.Dims[D].Size == A.dim(D);
    if (!Ok)
      return nodeError(N, Values,
                       "internal error: output " + llvm::Twine(I) + " is " +
                           (A.isNull() ? std::string("missing")
                                       : dtypeName(A.dtype()).str() + " " +
                                             shapeStr(A.shape())) +
                           ", its type says " + T.str());
  }
  return Error::success();
}

Error Function::runNodes(std::vector<NDArray> &Values, const ExecContext &Ctx) {
  std::vector<NDArray> In, Out;
  for (unsigned Pos = 0; Pos < Sched.Order.size(); ++Pos) {
    const Apply &N = *Sched.Order[Pos];
    In.clear();
    for (Variable *V : N.inputs())
      In.push_back(Values[V->id()]);
    Out.assign(N.outputs().size(), NDArray());
    if (Error E = N.op().perform(In, Out, Ctx))
      return nodeError(N, Values, llvm::toString(std::move(E)));
    if (Error E = checkOutputs(N, Out, Values))
      return E;
    for (unsigned I = 0; I < Out.size(); ++I)
      Values[N.output(I)->id()] = std::move(Out[I]);
    if (!Opts.AllowGC)
      continue;
    In.clear(); // Drop our own references before freeing.
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
