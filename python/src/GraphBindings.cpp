//===- GraphBindings.cpp - Modules, graphs and the builder for Python -----===//
//
// graphjit's graphs from Python: a module read from .graph text, its shared
// variables as NumPy arrays, and the builder that makes the same graphs as
// the text format (the PyTensor linker's way in), with Python ops for the
// Applies graphjit has no op for.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "Errors.h"
#include "GraphHandles.h"
#include "NativeModule.h"
#include "PythonOp.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Scan.h"
#include "graphjit/Printer.h"
#include "llvm/Support/raw_ostream.h"
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using namespace graphjit;
using namespace graphjit::python;

static std::shared_ptr<GraphModule> initialized(
    std::unique_ptr<GraphModule> M) {
  check(M->initShared());
  return std::shared_ptr<GraphModule>(std::move(M));
}

static SharedVariable &sharedNamed(const GraphModule &M,
                                   const std::string &Name) {
  if (SharedVariable *S = M.lookupShared(Name))
    return *S;
  throw nb::key_error(("no shared variable '" + Name + "' in " +
                       M.fileName())
                          .c_str());
}

/// Sets a shared variable from a value of its type (a copy: the module's
/// storage is never the caller's array).
static void setShared(SharedVariable &S, nb::handle Value) {
  ArgumentConverter Args;
  NDArray A = Args.convert(Value, S.Type.Dtype,
                           "shared variable '" + S.Name + "'");
  bool Fits = A.rank() == S.Type.rank();
  for (unsigned I = 0; Fits && I < A.rank(); ++I)
    Fits = !S.Type.Dims[I].isKnown() || S.Type.Dims[I].Size == A.dim(I);
  if (!Fits)
    throw nb::value_error(("shared variable '" + S.Name + "' is " +
                           S.Type.str() + ", got an array of shape " +
                           shapeStr(A.shape()))
                              .c_str());
  S.Value = A.copy();
}

static nb::tuple shapeTuple(const TensorType &T) {
  nb::list L;
  for (const Dim &D : T.Dims) {
    if (D.isKnown())
      L.append(D.Size);
    else if (D.isSymbolic())
      L.append(D.Symbol);
    else
      L.append(nb::none());
  }
  return nb::tuple(L);
}

/// A type from Python: a dtype name and dims, each an int (known), a str
/// (symbolic) or None (unknown).
static TensorType typeFrom(const std::string &Dtype, nb::handle Dims) {
  TensorType T;
  T.Dtype = parseDtypeName(Dtype);
  for (nb::handle D : Dims) {
    if (D.is_none())
      T.Dims.push_back(Dim::unknown());
    else if (nb::isinstance<nb::str>(D))
      T.Dims.push_back(Dim::symbolic(nb::cast<std::string>(D)));
    else {
      int64_t N = nb::cast<int64_t>(D);
      if (N < 0)
        throw nb::value_error("a dim is an int >= 0, a str or None");
      T.Dims.push_back(Dim::known(N));
    }
  }
  return T;
}

/// A Python value as a graph-format attribute: int, float, bool, str (an
/// identifier, e.g. a dtype) or a list of those.
static AttrValue attrFrom(nb::handle V) {
  if (nb::isinstance<nb::bool_>(V))
    return AttrValue::boolean(nb::cast<bool>(V));
  if (nb::isinstance<nb::int_>(V))
    return AttrValue::integer(nb::cast<int64_t>(V));
  if (nb::isinstance<nb::float_>(V))
    return AttrValue::floating(nb::cast<double>(V));
  if (nb::isinstance<nb::str>(V))
    return AttrValue::ident(nb::cast<std::string>(V));
  if (nb::isinstance<nb::list>(V) || nb::isinstance<nb::tuple>(V)) {
    std::vector<AttrValue> Elts;
    for (nb::handle E : V)
      Elts.push_back(attrFrom(E));
    return AttrValue::list(std::move(Elts));
  }
  throw nb::type_error(("an attribute is an int, float, bool, str or a "
                        "list of them, not " +
                        nb::cast<std::string>(nb::str(V.type())))
                           .c_str());
}

static std::vector<Variable *> varsOf(const BuilderHandle &B,
                                      const std::vector<VariableHandle> &Vs) {
  std::vector<Variable *> R;
  for (const VariableHandle &V : Vs) {
    if (V.Module != B.Module)
      throw nb::value_error("a variable of another graph");
    R.push_back(V.Var);
  }
  return R;
}

static std::vector<VariableHandle>
handlesOf(const BuilderHandle &B, const std::vector<Variable *> &Vs) {
  std::vector<VariableHandle> R;
  for (Variable *V : Vs)
    R.push_back({B.Module, V});
  return R;
}

static FunctionBuilder &open(BuilderHandle &B) {
  if (B.Finished)
    throw nb::value_error("the graph is finished: make a new builder");
  return *B.Builder;
}

/// A GraphBuilder's file name when none is given.
static constexpr const char *DefaultBuilderFile = "<python>";

/// The Python line that called into the builder: where a graph built from
/// Python with no file name of its own was built.
static SourceLoc callerLoc() {
  SourceLoc L;
  PyFrameObject *Frame = PyEval_GetFrame(); // borrowed
  if (!Frame)
    return L;
  PyCodeObject *Code = PyFrame_GetCode(Frame); // new reference
  nb::object File = nb::steal(PyObject_GetAttrString(
      reinterpret_cast<PyObject *>(Code), "co_filename"));
  Py_DECREF(Code);
  if (!File.is_valid() || !nb::isinstance<nb::str>(File)) {
    PyErr_Clear();
    return L;
  }
  L.File = std::make_shared<const std::string>(nb::cast<std::string>(File));
  L.Line = unsigned(PyFrame_GetLineNumber(Frame));
  L.Col = 1;
  return L;
}

static SourceLoc locAt(const BuilderHandle &B, unsigned Line) {
  SourceLoc L;
  if (Line) {
    L.File = B.Module->fileNameRef();
    L.Line = Line;
    L.Col = 1;
  } else if (B.Module->fileName() == DefaultBuilderFile) {
    L = callerLoc();
  }
  return L;
}

std::string graphjit::python::graphText(const FunctionGraph &F, bool Debug) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (Debug)
    debugPrint(F, OS);
  else
    printFunction(F, OS);
  return S;
}

static void bindModule(nb::module_ &M) {
  nb::class_<ModuleHandle>(M, "Module",
                           "A .graph module: shared variables and functions.")
      .def_static(
          "parse",
          [](const std::string &Text, const std::string &FileName) {
            return ModuleHandle{
                initialized(unwrap(parseGraph(Text, FileName)))};
          },
          "text"_a, "file_name"_a = "<string>")
      .def_static(
          "load",
          [](const std::string &Path) {
            return ModuleHandle{initialized(unwrap(parseGraphFile(Path)))};
          },
          "path"_a)
      .def_prop_ro("file_name",
                   [](const ModuleHandle &H) { return H.Module->fileName(); })
      .def_prop_ro("function_names",
                   [](const ModuleHandle &H) {
                     std::vector<std::string> R;
                     for (auto &F : H.Module->functions())
                       R.push_back(F->name());
                     return R;
                   })
      .def_prop_ro("shared_names",
                   [](const ModuleHandle &H) {
                     std::vector<std::string> R;
                     for (auto &S : H.Module->sharedVariables())
                       R.push_back(S->Name);
                     return R;
                   })
      .def(
          "graph",
          [](const ModuleHandle &H, const std::string &Name) {
            FunctionGraph *F = H.Module->lookupFunction(Name);
            if (!F)
              throw nb::key_error(("no function '" + Name + "' in " +
                                   H.Module->fileName())
                                      .c_str());
            return GraphHandle{H.Module, F};
          },
          "name"_a)
      .def(
          "get_shared",
          [](const ModuleHandle &H, const std::string &Name) {
            // A copy: the next call may replace or update the storage.
            return toNumpy(sharedNamed(*H.Module, Name).Value.copy());
          },
          "name"_a)
      .def(
          "set_shared",
          [](const ModuleHandle &H, const std::string &Name, nb::handle V) {
            setShared(sharedNamed(*H.Module, Name), V);
          },
          "name"_a, "value"_a)
      .def(
          "shared_type",
          [](const ModuleHandle &H, const std::string &Name) {
            const SharedVariable &S = sharedNamed(*H.Module, Name);
            return nb::make_tuple(dtypeNumpyName(S.Type.Dtype).str(),
                                  shapeTuple(S.Type));
          },
          "name"_a)
      .def("text", [](const ModuleHandle &H) {
        std::string S;
        llvm::raw_string_ostream OS(S);
        printModule(*H.Module, OS);
        return S;
      });
}

static void bindVariablesAndGraphs(nb::module_ &M) {
  nb::class_<VariableHandle>(M, "Variable", "A typed value of a graph.")
      .def_prop_ro("name",
                   [](const VariableHandle &V) { return V.Var->name(); })
      .def_prop_ro("id", [](const VariableHandle &V) { return V.Var->id(); },
                   "Its id in the graph (a compiled function's applies() "
                   "name their outputs by it).")
      .def_prop_ro("dtype",
                   [](const VariableHandle &V) {
                     return dtypeNumpyName(V.Var->type().Dtype).str();
                   })
      .def_prop_ro("shape",
                   [](const VariableHandle &V) {
                     return shapeTuple(V.Var->type());
                   })
      .def("__repr__", [](const VariableHandle &V) {
        return "<graphjit.Variable " + V.Var->displayName() + ": " +
               V.Var->type().str() + ">";
      });

  nb::class_<GraphHandle>(M, "Graph", "One function's graph.")
      .def_prop_ro("name",
                   [](const GraphHandle &G) { return G.Graph->name(); })
      .def_prop_ro("input_names",
                   [](const GraphHandle &G) {
                     std::vector<std::string> R;
                     for (Variable *V : G.Graph->inputs())
                       R.push_back(V->name());
                     return R;
                   })
      .def_prop_ro("output_names",
                   [](const GraphHandle &G) {
                     std::vector<std::string> R;
                     for (unsigned I = 0; I < G.Graph->outputs().size(); ++I)
                       R.push_back(G.Graph->outputName(I));
                     return R;
                   })
      .def_prop_ro("num_applies",
                   [](const GraphHandle &G) { return G.Graph->numApplies(); })
      .def("text", [](const GraphHandle &G) { return graphText(*G.Graph, false); })
      .def("debugprint",
           [](const GraphHandle &G) { return graphText(*G.Graph, true); });
}

/// ScanSpec from the dict apply_scan takes (missing fields: none).
static ScanSpec scanSpecFrom(nb::dict D) {
  auto Int = [&](const char *K) -> unsigned {
    return D.contains(K) ? nb::cast<unsigned>(D[K]) : 0;
  };
  auto Taps = [&](const char *K) {
    std::vector<std::vector<int64_t>> V;
    if (D.contains(K))
      V = nb::cast<std::vector<std::vector<int64_t>>>(D[K]);
    return V;
  };
  ScanSpec S;
  S.NumSequences = Int("n_seqs");
  S.MitMotInTaps = Taps("mit_mot_in");
  S.MitMotOutTaps = Taps("mit_mot_out");
  S.MitSotTaps = Taps("mit_sot");
  S.SitSotTaps = Taps("sit_sot");
  S.NumNitSot = Int("n_nit_sot");
  S.NumUntraced = Int("n_untraced");
  S.NumNonSequences = Int("n_non_seqs");
  S.AsWhile = D.contains("as_while") && nb::cast<bool>(D["as_while"]);
  return S;
}

/// The body compiled as PyTensor's nodes are (no graphjit rewrites), kept
/// with the module that holds its graph.
static std::shared_ptr<Function> compileScanBody(const GraphHandle &Body,
                                                 unsigned OptLevel,
                                                 bool Profile) {
  CompileOptions O;
  O.Linker = LinkerKind::CPy;
  RewriteOptions R;
  R.Optimizer = "None";
  O.Rewrite = R;
  O.OptLevel = OptLevel;
  O.Profile = Profile;
  using Kept = std::pair<std::shared_ptr<GraphModule>,
                         std::unique_ptr<Function>>;
  auto K = std::make_shared<Kept>(Body.Module,
                                  compileWithoutGil(*Body.Graph, O));
  return std::shared_ptr<Function>(K, K->second.get());
}

static void bindBuilder(nb::module_ &M) {
  nb::class_<BuilderHandle>(
      M, "GraphBuilder",
      "Builds a function's graph Apply by Apply, as the text format does "
      "(the C++ FunctionBuilder). `file_name` is what profiles cite; an "
      "Apply's `line` is its line there. Without a file name, an Apply "
      "given no line cites the Python line that applied it.")
      .def(
          "__init__",
          [](BuilderHandle *B, const std::string &Name,
             const std::string &FileName) {
            auto Mod = std::make_shared<GraphModule>(FileName);
            auto Builder = std::make_unique<FunctionBuilder>(*Mod, Name);
            new (B) BuilderHandle{std::move(Mod), std::move(Builder)};
          },
          "name"_a, "file_name"_a = DefaultBuilderFile)
      .def(
          "input",
          [](BuilderHandle &B, const std::string &Name,
             const std::string &Dtype, nb::handle Dims) {
            return VariableHandle{B.Module,
                                  open(B).input(Name, typeFrom(Dtype, Dims))};
          },
          "name"_a, "dtype"_a, "shape"_a)
      .def(
          "constant",
          [](BuilderHandle &B, nb::handle Value, const std::string &Dtype) {
            ArgumentConverter Args;
            NDArray A = Args.convert(Value, parseDtypeName(Dtype), "constant");
            return VariableHandle{B.Module, open(B).constant(A.copy())};
          },
          "value"_a, "dtype"_a)
      .def(
          "literal",
          [](BuilderHandle &B, nb::handle Value) {
            FunctionBuilder &FB = open(B);
            if (nb::isinstance<nb::float_>(Value))
              return VariableHandle{B.Module,
                                    FB.literal(nb::cast<double>(Value))};
            return VariableHandle{B.Module,
                                  FB.literal(nb::cast<int64_t>(Value))};
          },
          "value"_a,
          "A number whose dtype follows the other operands (a Python "
          "scalar in NumPy).")
      .def(
          "shared",
          [](BuilderHandle &B, const std::string &Name, nb::handle Value,
             const std::string &Dtype) {
            FunctionBuilder &FB = open(B);
            ArgumentConverter Args;
            NDArray A = Args.convert(Value, parseDtypeName(Dtype),
                                     "shared variable '" + Name + "'");
            std::vector<Dim> Dims;
            for (int64_t D : A.shape())
              Dims.push_back(Dim::known(D));
            SharedVariable *S = B.Module->lookupShared(Name);
            if (!S) {
              S = B.Module->addShared(Name, TensorType(A.dtype(), Dims), {});
              S->Value = A.copy();
            }
            return VariableHandle{B.Module, unwrap(FB.shared(Name))};
          },
          "name"_a, "value"_a, "dtype"_a,
          "Reads shared variable `name` of the graph's module, made with "
          "`value` the first time.")
      .def(
          "apply",
          [](BuilderHandle &B, const std::string &Op,
             const std::vector<VariableHandle> &Inputs, nb::dict Attrs,
             unsigned Line) {
            AttrMap A;
            for (auto [K, V] : Attrs)
              A[nb::cast<std::string>(K)] = attrFrom(V);
            std::vector<Variable *> Ins = varsOf(B, Inputs);
            return handlesOf(B, unwrap(open(B).applyMulti(Op, Ins, A,
                                                          locAt(B, Line)),
                                       ErrorKind::Value));
          },
          "op"_a, "inputs"_a, "attrs"_a = nb::dict(), "line"_a = 0,
          "Applies a graph-format op (`add`, `sum`, `composite`, ...); "
          "returns its outputs.")
      .def(
          "apply_python",
          [](BuilderHandle &B, nb::callable Perform,
             const std::vector<VariableHandle> &Inputs, nb::list Outputs,
             const std::string &Name, const std::string &ClassName,
             const std::vector<unsigned> &Destroyed, unsigned Line,
             double Flops) {
            PythonOpSpec S;
            S.Perform = Perform.ptr();
            S.Name = Name;
            S.ClassName = ClassName;
            S.Destroyed = Destroyed;
            S.Flops = Flops;
            for (nb::handle O : Outputs) {
              nb::tuple T = nb::cast<nb::tuple>(O);
              if (T.size() != 2)
                throw nb::type_error("an output type is (dtype, shape)");
              S.Outputs.push_back(
                  typeFrom(nb::cast<std::string>(T[0]), T[1]));
            }
            for (unsigned D : Destroyed)
              if (D >= Inputs.size())
                throw nb::value_error("destroyed input out of range");
            std::vector<Variable *> Ins = varsOf(B, Inputs);
            FunctionGraph &F = open(B).graph();
            std::vector<TensorType> Types = S.Outputs;
            Apply *N = F.addApply(makePythonOp(std::move(S)), Ins, Types,
                                  locAt(B, Line));
            return handlesOf(B, N->outputs().vec());
          },
          "perform"_a, "inputs"_a, "outputs"_a, "name"_a, "class_name"_a,
          "destroyed"_a = std::vector<unsigned>(), "line"_a = 0,
          "flops"_a = 0.0,
          "An Apply run by `perform(inputs) -> outputs` in Python (the `Py` "
          "of the profile). `outputs` gives each output's (dtype, shape).")
      .def(
          "apply_scan",
          [](BuilderHandle &B, const GraphHandle &Body,
             const std::vector<VariableHandle> &Inputs, nb::dict Spec,
             const std::string &Name, unsigned Line, unsigned OptLevel,
             bool Profile) {
            ScanSpec S = scanSpecFrom(Spec);
            std::shared_ptr<Function> Fn =
                compileScanBody(Body, OptLevel, Profile);
            OpRef Op = unwrap(makeScanOp(std::move(S), std::move(Fn), Name),
                              ErrorKind::Value);
            std::vector<Variable *> Ins = varsOf(B, Inputs);
            return handlesOf(B, unwrap(open(B).applyOp(Op, Ins,
                                                       locAt(B, Line)),
                                       ErrorKind::Value));
          },
          "body"_a, "inputs"_a, "spec"_a, "name"_a = "", "line"_a = 0,
          "opt_level"_a = 2, "profile"_a = false,
          "A scan Apply (PyTensor's Scan) running the graph `body` once per "
          "step; `spec` holds ScanSpec's fields: n_seqs, mit_mot_in, "
          "mit_mot_out, mit_sot, sit_sot, n_nit_sot, n_untraced, "
          "n_non_seqs, as_while (docs/ops-scan.md).")
      .def(
          "name",
          [](BuilderHandle &B, const VariableHandle &V,
             const std::string &Name) { open(B).name(V.Var, Name); },
          "var"_a, "name"_a)
      .def(
          "output",
          [](BuilderHandle &B, const VariableHandle &V) {
            open(B).output(V.Var);
          },
          "var"_a)
      .def(
          "update",
          [](BuilderHandle &B, const std::string &Name,
             const VariableHandle &V) {
            check(open(B).update(Name, V.Var), ErrorKind::Value);
          },
          "shared_name"_a, "value"_a)
      .def("finish", [](BuilderHandle &B) {
        FunctionGraph *F = unwrap(open(B).finish(), ErrorKind::Value);
        B.Finished = F;
        return std::make_pair(ModuleHandle{B.Module},
                              GraphHandle{B.Module, F});
      });
}

void graphjit::python::bindGraphs(nb::module_ &M) {
  bindModule(M);
  bindVariablesAndGraphs(M);
  bindBuilder(M);
}
