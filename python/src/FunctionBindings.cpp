//===- FunctionBindings.cpp - Compiled functions for Python ---------------===//
//
// graphjit.Function: a graph compiled by a linker, called with NumPy arrays.
// The call path is native from end to end (the tutorial graph's call costs
// well under a microsecond from Python): arguments of the right dtype are
// borrowed, the GIL is released while the function runs unless its calls
// are short (CallTiming), and the results become NumPy arrays on
// graphjit's buffers.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "Errors.h"
#include "GraphHandles.h"
#include "NativeModule.h"
#include "ProfileHandle.h"
#include "graphjit/Flags.h"
#include "graphjit/Function.h"
#include "graphjit/ProfileStats.h"
#include "graphjit/Scan.h"
#include "runtime/Clock.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using llvm::Error;
using llvm::Expected;
using namespace nb::literals;
using namespace graphjit;
using namespace graphjit::python;

namespace {
/// Whether a call may keep the GIL. Releasing and taking it back costs a
/// call about 350 instructions, more than the tutorial graph's own work;
/// NumPy too keeps it for small arrays. A call keeps it when the last call
/// was short, no Apply can call back into Python (a foreign op, such as a
/// PyTensor node's perform, takes the GIL inside the call) and nothing
/// runs on a device (a call there waits for the device's lock, which a
/// call of another function with such an op may hold while it waits for
/// the GIL). Long calls, and the first, release it, so other threads run
/// meanwhile.
class CallTiming {
public:
  /// About 25 us at 2 GHz: the TSC ticks of a call short enough to keep
  /// the GIL.
  static constexpr uint64_t ShortTicks = 50000;

  CallTiming() = default;
  CallTiming(CallTiming &&O) noexcept
      : MayKeepGil(O.MayKeepGil), LastTicks(O.LastTicks.load()) {}

  /// Where there is no TSC to time calls with, every call releases the GIL.
  void allowKeepingGil(bool Allow) { MayKeepGil = Allow && GRAPHJIT_HAVE_TSC; }

  /// Runs Call, the GIL released unless this call may keep it; only calls
  /// that may are timed (the call itself, not taking the GIL back).
  template <typename CallT> void run(CallT &&Call) {
    auto Timed = [&] {
      uint64_t Start = readTsc();
      Call();
      LastTicks.store(readTsc() - Start, std::memory_order_relaxed);
    };
    if (!MayKeepGil) {
      nb::gil_scoped_release NoGil;
      Call();
    } else if (LastTicks.load(std::memory_order_relaxed) < ShortTicks) {
      Timed();
    } else {
      nb::gil_scoped_release NoGil;
      Timed();
    }
  }

private:
  bool MayKeepGil = false;
  std::atomic<uint64_t> LastTicks{UINT64_MAX};
};

/// Whether a call of F waits for nothing that a call waiting for the GIL
/// may hold: no Apply calls into Python (graphjit's own ops never do) and
/// none runs on a device.
static bool mayKeepGil(const Function &F) {
  return !F.usesDevice() &&
         llvm::none_of(F.graph().applies(), [](const Apply *A) {
           const Function *Body = scanBodyOf(A->op());
           return A->op().kind() == OpKind::Foreign ||
                  (Body && !mayKeepGil(*Body));
         });
}

struct FunctionHandle {
  std::shared_ptr<GraphModule> Module;
  std::unique_ptr<Function> Fn;
  std::string Name;
  std::vector<std::string> InputNames;
  std::vector<DType> InputDtypes;
  /// Argument names for errors: "input 'x' (#0) of 'f'".
  std::vector<std::string> ArgumentNames;
  std::optional<ProfileHandle> Profile;
  bool ReturnList = false;
  CallTiming Timing;
};

struct KeywordOptions {
  std::string Linker;
  std::optional<std::string> Optimizer, Excluding, Including, Device;
  std::optional<bool> AllowGC;
  bool Profile = false, ProfileMemory = false, ProfileOptimizer = false;
  bool ProfileDistributions = false;
  std::string ProfileMode = "exact";
  std::optional<ProfileHandle> Stats;
  unsigned OptLevel = 2;
  bool LLVMPipeline = false;
};
} // namespace

/// The optimizer's settings where any was given; the flags fill the rest.
static std::optional<RewriteOptions> rewriteOptionsOf(const KeywordOptions &K) {
  if (!K.Optimizer && !K.Excluding && !K.Including)
    return std::nullopt;
  const Flags &F = unwrap(processFlags());
  RewriteOptions R;
  R.Optimizer = K.Optimizer ? *K.Optimizer : F.Optimizer;
  R.Excluding = splitRewriteTags(K.Excluding ? *K.Excluding
                                             : F.OptimizerExcluding);
  R.Including = splitRewriteTags(K.Including ? *K.Including
                                             : F.OptimizerIncluding);
  return R;
}

static FunctionHandle compileGraph(const GraphHandle &G,
                                   const KeywordOptions &K) {
  CompileOptions O;
  O.Linker = unwrap(parseLinker(K.Linker), ErrorKind::Value);
  O.Rewrite = rewriteOptionsOf(K);
  if (K.AllowGC)
    O.AllowGC = *K.AllowGC;
  O.OptLevel = K.OptLevel;
  O.LLVMPipeline = K.LLVMPipeline;
  O.Device = K.Device;
  O.ProfileMemory = K.ProfileMemory;
  O.ProfileOptimizer = K.ProfileOptimizer;
  O.ProfileDistributions = K.ProfileDistributions;
  if (K.ProfileMode != "exact" && K.ProfileMode != "sample")
    throw nb::value_error(("profile_mode: expected \"exact\" or \"sample\", "
                           "not \"" + K.ProfileMode + "\"").c_str());
  O.ProfileSample = K.ProfileMode == "sample";
  O.Profile = K.Profile || K.Stats || K.ProfileMemory || K.ProfileOptimizer ||
              K.ProfileDistributions || O.ProfileSample;
  std::optional<ProfileHandle> Stats = K.Stats;
  if (O.Profile && !Stats)
    Stats = ProfileHandle{std::make_shared<ProfileStats>(""), ""};
  if (Stats)
    O.ProfileInto = Stats->Stats;

  FunctionHandle H;
  H.Module = G.Module;
  H.Name = G.Graph->name();
  H.Fn = compileWithoutGil(*G.Graph, O);
  // GRAPHJIT_FLAGS=profile=True: the process's ProfileStats, printed at
  // exit with every other function's. (A function profiled only for the
  // timeline, profiling__trace, reports into stats of its own.)
  if (!Stats && H.Fn->profile()) {
    Expected<const Flags &> Fl = processFlags();
    bool ByFlags = Fl && (Fl->Profile || Fl->ProfileMemory ||
                          Fl->ProfileOptimizer);
    if (!Fl)
      llvm::consumeError(Fl.takeError());
    if (ByFlags)
      Stats = ProfileHandle{processProfileStats(), ""};
  }
  H.Profile = Stats;
  H.Timing.allowKeepingGil(mayKeepGil(*H.Fn));
  unsigned I = 0;
  for (Variable *V : H.Fn->graph().inputs()) {
    H.InputNames.push_back(V->name());
    H.InputDtypes.push_back(V->type().Dtype);
    H.ArgumentNames.push_back("input '" + V->name() + "' (#" +
                              std::to_string(I++) + ") of '" + H.Name + "'");
  }
  return H;
}

/// The call's arguments by position, then by name.
using Arguments = std::vector<NDArray>;

/// The arguments of the calls running on this thread, kept for the next
/// ones (their arrays' storage is reused): a stack, since a Py op's
/// perform may call another function.
class ArgumentFrame {
public:
  ArgumentFrame() {
    if (Depth == Frames.size())
      Frames.push_back(std::make_unique<Arguments>());
    In = Frames[Depth++].get();
  }
  ~ArgumentFrame() { --Depth; }
  Arguments &arguments() { return *In; }

private:
  static thread_local std::vector<std::unique_ptr<Arguments>> Frames;
  static thread_local size_t Depth;
  Arguments *In;
};
thread_local std::vector<std::unique_ptr<Arguments>> ArgumentFrame::Frames;
thread_local size_t ArgumentFrame::Depth = 0;

static void bindArguments(const FunctionHandle &H, PyObject *const *Args,
                          size_t NumArgs, PyObject *Kw,
                          ArgumentConverter &Conv, Arguments &In) {
  size_t N = H.InputDtypes.size();
  if (NumArgs > N)
    throw nb::type_error(("'" + H.Name + "' takes " + std::to_string(N) +
                          " inputs, got " + std::to_string(NumArgs))
                             .c_str());
  In.resize(N);
  llvm::SmallVector<bool, 8> Given(N, false);
  for (size_t I = 0; I < NumArgs; ++I) {
    Conv.convert(Args[I], H.InputDtypes[I],
                 H.ArgumentNames[I], In[I]);
    Given[I] = true;
  }
  PyObject *Key, *Value;
  Py_ssize_t Pos = 0;
  while (Kw && PyDict_Next(Kw, &Pos, &Key, &Value)) {
    std::string K = nb::cast<std::string>(nb::handle(Key));
    auto It = std::find(H.InputNames.begin(), H.InputNames.end(), K);
    if (It == H.InputNames.end())
      throw nb::type_error(("'" + H.Name + "' has no input named '" + K +
                            "'")
                               .c_str());
    size_t I = It - H.InputNames.begin();
    if (Given[I])
      throw nb::type_error(("'" + H.Name + "' got input '" + K +
                            "' twice")
                               .c_str());
    Conv.convert(Value, H.InputDtypes[I], H.ArgumentNames[I], In[I]);
    Given[I] = true;
  }
  std::string Missing;
  for (size_t I = 0; I < N; ++I)
    if (!Given[I])
      Missing += (Missing.empty() ? "'" : ", '") + H.InputNames[I] + "'";
  if (!Missing.empty())
    throw nb::type_error(("'" + H.Name + "' is missing input " + Missing)
                             .c_str());
}

/// A result as NumPy, copied where it shares memory with an argument (the
/// caller's array, which may die first) or a shared variable (whose
/// storage must stay the module's own).
static nb::object resultOf(const FunctionHandle &H, NDArray &A,
                           llvm::ArrayRef<NDArray> In) {
  for (const NDArray &I : In)
    if (A.sharesBufferWith(I))
      return toNumpy(A.copy());
  for (const auto &S : H.Module->sharedVariables())
    if (A.sharesBufferWith(S->Value))
      return toNumpy(A.copy());
  return toNumpy(std::move(A));
}

/// Calls H on NumArgs positional arguments and Kw; Result(I, Value) takes
/// each output as NumPy. Throws the call's error as a Python exception.
template <typename ResultT>
static void callFunction(FunctionHandle &H, PyObject *const *Args,
                         size_t NumArgs, PyObject *Kw, ResultT &&Result) {
  dropParkedError();
  ArgumentConverter Conv;
  ArgumentFrame Frame;
  Arguments &In = Frame.arguments();
  bindArguments(H, Args, NumArgs, Kw, Conv, In);
  std::optional<Expected<std::vector<NDArray>>> Called;
  H.Timing.run([&] { Called.emplace(H.Fn->call(In)); });
  Expected<std::vector<NDArray>> &Out = *Called;
  if (!Out) {
    // Inputs that do not fit are the caller's mistake (ValueError); the
    // rest happened inside (GraphjitError, or the Py op's own exception).
    Error E = Out.takeError();
    if (Expected<DimBindings> B = H.Fn->bindInputs(In); !B) {
      llvm::consumeError(std::move(E));
      raise(B.takeError(), ErrorKind::Value);
    }
    raise(std::move(E));
  }
  for (unsigned I = 0; I < Out->size(); ++I)
    Result(I, resultOf(H, (*Out)[I], In));
}

static nb::object callFunction(FunctionHandle &H, PyObject *Args,
                               PyObject *Kw) {
  nb::list L;
  nb::object One;
  callFunction(H, PySequence_Fast_ITEMS(Args), size_t(PyTuple_GET_SIZE(Args)),
               Kw, [&](unsigned, nb::object V) {
                 One = V;
                 L.append(std::move(V));
               });
  if (L.size() == 1 && !H.ReturnList)
    return One;
  return L;
}

void graphjit::python::callIntoCells(nb::handle FunctionObject,
                                     llvm::ArrayRef<PyObject *> Args,
                                     llvm::ArrayRef<nb::object> Cells) {
  FunctionHandle &H = nb::cast<FunctionHandle &>(FunctionObject);
  assert(H.Fn->graph().outputs().size() == Cells.size() &&
         "makeStorageThunk checks the cells");
  callFunction(H, Args.data(), Args.size(), nullptr,
               [&](unsigned I, nb::object V) {
                 if (PyList_SetItem(Cells[I].ptr(), 0, V.release().ptr()))
                   throw nb::python_error();
               });
}

/// The Applies that run, as plain data: for tools that map them back to
/// what they were made from (the PyTensor linker).
static nb::list appliesOf(const FunctionHandle &H) {
  nb::list L;
  for (Apply *A : H.Fn->graph().applies()) {
    nb::dict D;
    D["id"] = A->id();
    D["name"] = A->displayName();
    D["op"] = A->op().name();
    D["op_class"] = A->op().className().str();
    D["compiled"] = H.Fn->isCompiled(A->id());
    nb::list Lines;
    for (const SourceLoc &L : A->sourceLocs())
      if (L.isValid())
        Lines.append(L.Line);
    D["lines"] = Lines;
    nb::list Outputs;
    for (const Variable *V : A->outputs())
      Outputs.append(V->id());
    D["outputs"] = Outputs;
    L.append(D);
  }
  return L;
}

/// Function.__call__ as the type's own call slot: Python calls it with no
/// method lookup and no argument conversion in between.
static PyObject *callSlot(PyObject *Self, PyObject *Args, PyObject *Kw) {
  try {
    return callFunction(*nb::inst_ptr<FunctionHandle>(Self), Args, Kw)
        .release()
        .ptr();
  } catch (...) {
    setPythonErrorFromCurrentException();
  }
  return nullptr;
}

static PyType_Slot FunctionSlots[] = {{Py_tp_call, (void *)callSlot},
                                      {0, nullptr}};

void graphjit::python::bindFunctions(nb::module_ &M) {
  nb::class_<FunctionHandle>(
      M, "Function",
      "A compiled function: call it with NumPy arrays (by position or by "
      "input name); it returns its output, or a list of them.",
      nb::type_slots(FunctionSlots))
      .def_prop_ro("name", [](const FunctionHandle &H) { return H.Name; })
      .def_prop_ro("input_names",
                   [](const FunctionHandle &H) { return H.InputNames; })
      .def_prop_ro("output_names",
                   [](const FunctionHandle &H) {
                     std::vector<std::string> R;
                     const FunctionGraph &G = H.Fn->graph();
                     for (unsigned I = 0; I < G.outputs().size(); ++I)
                       R.push_back(G.outputName(I));
                     return R;
                   })
      .def_prop_ro("linker",
                   [](const FunctionHandle &H) {
                     return linkerName(H.Fn->options().Linker).str();
                   })
      .def_prop_ro(
          "profile",
          [](const FunctionHandle &H) { return H.Profile; },
          "Where this function reports its profile (a ProfileStats), or "
          "None when it is not profiled.")
      .def_prop_rw(
          "return_list",
          [](const FunctionHandle &H) { return H.ReturnList; },
          [](FunctionHandle &H, bool V) { H.ReturnList = V; },
          "Return a list even for one output.")
      .def_prop_ro("compile_times",
                   [](const FunctionHandle &H) {
                     const CompileTimes &T = H.Fn->compileTimes();
                     nb::dict D;
                     for (unsigned I = 0; I < NumCompileSteps; ++I)
                       D[compileStepName(CompileStep(I))] =
                           T.of(CompileStep(I));
                     D["cached"] = T.Cached;
                     D["total"] = T.total();
                     return D;
                   })
      .def(
          "set_apply_terms",
          [](FunctionHandle &H, unsigned Id, std::vector<std::string> Terms,
             bool Gradient) {
            check(H.Fn->setApplyTerms(Id, std::move(Terms), Gradient),
                  ErrorKind::Value);
          },
          "apply_id"_a, "terms"_a, "gradient"_a = false,
          "Names the model terms (random variables, Potentials) the Apply "
          "works for in the profile, several when shared; gradient: it "
          "computes their gradient. The report's \"Time by model "
          "variable\" sums them (graphjit.pymc sets them). ValueError for "
          "an Apply the function does not have.")
      .def(
          "set_host_compile_times",
          [](FunctionHandle &H,
             std::vector<std::pair<std::string, double>> Steps) {
            H.Fn->setHostCompileTimes(std::move(Steps));
          },
          "steps"_a,
          "The steps that made the graph before graphjit compiled it, as "
          "(name, seconds) in order (PyTensor's rewrites, the "
          "translation): the profile's \"Compile time before graphjit\".")
      .def("applies", &appliesOf,
           "The Applies that run (after the optimizer), in order: id, "
           "name, op, op_class, compiled (C) or not (Py), the source "
           "lines they stand for and the ids of their outputs.")
      .def(
          "c_entry",
          [](nb::handle Self, nb::dict Bound, nb::dict FreeShapes,
             nb::sequence OutputShapes) {
            return makeEntry(Self, *nb::cast<FunctionHandle &>(Self).Fn,
                             Bound, FreeShapes, OutputShapes);
          },
          "bound"_a, "free_shapes"_a, "output_shapes"_a,
          "A C entry (graphjit.CEntry) of this function: the inputs named "
          "in `bound` read those arrays (borrowed: keep them unchanged "
          "while calls run), those in `free_shapes` are passed at each "
          "call with those shapes; each output has the shape in "
          "`output_shapes`.")
      .def(
          "storage_thunk",
          [](nb::handle Self, nb::handle Inputs, nb::handle Outputs,
             nb::handle OnError) {
            const FunctionGraph &G =
                nb::cast<FunctionHandle &>(Self).Fn->graph();
            return makeStorageThunk(Self, G.inputs().size(),
                                    G.outputs().size(), Inputs, Outputs,
                                    OnError);
          },
          "inputs"_a, "outputs"_a, "on_error"_a,
          "PyTensor's thunk of this function (a "
          "graphjit._graphjit.StorageThunk): called with no arguments, it "
          "calls the function on the values "
          "in the storage cells `inputs` (lists of one element, one per "
          "input) and puts its outputs into the cells `outputs`; when the "
          "call fails, `on_error(exception, thunk)` is called, and what "
          "it raises is the thunk's error.")
      .def("text", [](const FunctionHandle &H) { return graphText(H.Fn->graph(), false); },
           "The graph that runs, in the .graph format.")
      .def("debugprint",
           [](const FunctionHandle &H) { return graphText(H.Fn->graph(), true); });

  M.def(
      "compile",
      [](const GraphHandle &G, const std::string &Linker,
         std::optional<std::string> Optimizer,
         std::optional<std::string> Excluding,
         std::optional<std::string> Including, std::optional<bool> AllowGC,
         bool Profile, std::optional<ProfileHandle> Stats, bool ProfileMemory,
         bool ProfileOptimizer, bool ProfileDistributions,
         std::string ProfileMode, std::optional<std::string> Device,
         unsigned OptLevel, bool LLVMPipeline) {
        KeywordOptions K;
        K.Linker = Linker;
        K.Optimizer = std::move(Optimizer);
        K.Excluding = std::move(Excluding);
        K.Including = std::move(Including);
        K.AllowGC = AllowGC;
        K.Profile = Profile;
        K.Stats = std::move(Stats);
        K.ProfileMemory = ProfileMemory;
        K.ProfileOptimizer = ProfileOptimizer;
        K.ProfileDistributions = ProfileDistributions;
        K.ProfileMode = std::move(ProfileMode);
        K.Device = std::move(Device);
        K.OptLevel = OptLevel;
        K.LLVMPipeline = LLVMPipeline;
        return compileGraph(G, K);
      },
      "graph"_a, "linker"_a = "c|py", "optimizer"_a = nb::none(),
      "optimizer_excluding"_a = nb::none(),
      "optimizer_including"_a = nb::none(), "allow_gc"_a = nb::none(),
      "profile"_a = false, "profile_stats"_a = nb::none(),
      "profile_memory"_a = false, "profile_optimizer"_a = false,
      "profile_distributions"_a = false, "profile_mode"_a = "exact",
      "device"_a = nb::none(),
      "opt_level"_a = 2, "llvm_pipeline"_a = false,
      "Compiles a graph (graphjit.function gives it Theano's keywords).");
}

std::unique_ptr<Function>
graphjit::python::compileWithoutGil(FunctionGraph &F,
                                    const CompileOptions &O) {
  std::optional<Expected<std::unique_ptr<Function>>> Fn;
  {
    nb::gil_scoped_release NoGil;
    Fn.emplace(Function::compile(F, O));
  }
  return unwrap(std::move(*Fn));
}
