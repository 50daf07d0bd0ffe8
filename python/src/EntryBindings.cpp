//===- EntryBindings.cpp - C entries of compiled functions for Python -----===//
//
// graphjit.Function.c_entry() and graphjit.c_symbols(): what a Python
// program hands to a foreign caller (nutpie's sampler, ctypes, Numba) so
// that it calls a compiled function with no Python in between. The entry
// object keeps alive what the C side refers to: the Function and the
// arrays bound into the entry.
//
//===----------------------------------------------------------------------===//
#include "Arrays.h"
#include "Errors.h"
#include "NativeModule.h"
#include "graphjit/CEntry.h"
#include "graphjit/Function.h"
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using namespace graphjit;
using namespace graphjit::python;

namespace {
struct EntryHandle {
  std::unique_ptr<CEntry> Entry;
  /// What the entry refers to: the Python Function, the bound arrays.
  nb::object Function;
  std::vector<nb::object> Bound;
  std::vector<std::string> FreeNames;
};
} // namespace

static Shape shapeOf(nb::handle Value, const std::string &What) {
  Shape S;
  try {
    for (nb::handle D : nb::cast<nb::sequence>(Value))
      S.push_back(nb::cast<int64_t>(D));
  } catch (const nb::cast_error &) {
    throw nb::type_error((What + ": expected a shape (a sequence of "
                                 "integers)").c_str());
  }
  for (int64_t D : S)
    if (D < 0)
      throw nb::value_error((What + ": negative size in shape").c_str());
  return S;
}

nb::object graphjit::python::makeEntry(nb::handle FunctionObject,
                                       Function &F, nb::dict Bound,
                                       nb::dict FreeShapes,
                                       nb::sequence OutputShapes) {
  const FunctionGraph &G = F.graph();
  EntryHandle H;
  H.Function = nb::borrow(FunctionObject);
  std::vector<NDArray> Values(G.inputs().size());
  std::vector<Shape> Free;
  size_t Used = 0;
  for (unsigned I = 0; I < G.inputs().size(); ++I) {
    const Variable *V = G.inputs()[I];
    nb::str Name(V->name().c_str());
    std::string Arg = "input '" + V->name() + "' (#" + std::to_string(I) +
                      ") of '" + G.name() + "'";
    bool IsBound = Bound.contains(Name), IsFree = FreeShapes.contains(Name);
    if (IsBound == IsFree)
      throw nb::value_error(
          (Arg + (IsBound ? " is both bound and free"
                          : " is neither bound nor free: give its value in "
                            "bound= or its shape in free_shapes="))
              .c_str());
    ++Used;
    if (IsFree) {
      Free.push_back(shapeOf(FreeShapes[Name], "free_shapes['" +
                                                   V->name() + "']"));
      H.FreeNames.push_back(V->name());
      continue;
    }
    // Borrowed, not copied: the caller's array (kept alive here) is what
    // every call reads, as PyTensor's shared storage is.
    nb::object A = Bound[Name];
    std::optional<NDArray> Arr = borrowIfExact(A, V->type().Dtype);
    if (!Arr)
      throw nb::type_error((Arg + ": bound values must be NumPy arrays of "
                                  "dtype " +
                            dtypeName(V->type().Dtype).str())
                               .c_str());
    Values[I] = std::move(*Arr);
    H.Bound.push_back(std::move(A));
  }
  if (Used != Bound.size() + FreeShapes.size())
    throw nb::value_error(("'" + G.name() + "' has no input of some names "
                           "in bound= or free_shapes=")
                              .c_str());
  std::vector<Shape> Outs;
  size_t K = 0;
  for (nb::handle S : OutputShapes)
    Outs.push_back(shapeOf(S, "output_shapes[" + std::to_string(K++) + "]"));
  H.Entry = unwrap(CEntry::make(F, std::move(Values), std::move(Free),
                                std::move(Outs)),
                   ErrorKind::Value);
  return nb::cast(std::move(H));
}

/// Shapes 0..N-1 (Get(K)) as a list of tuples.
template <typename GetT> static nb::list shapeList(size_t N, GetT Get) {
  nb::list L;
  for (size_t K = 0; K < N; ++K)
    L.append(nb::tuple(nb::cast(Get(K))));
  return L;
}

void graphjit::python::bindEntries(nb::module_ &M) {
  nb::class_<EntryHandle>(
      M, "CEntry",
      "A compiled function as a plain C call (graphjit/CEntry.h; "
      "docs/c-entry.md): pass `pointer` as the gj_entry to the functions "
      "c_symbols() gives. Keeps the function and the bound arrays alive.")
      .def_prop_ro("pointer",
                   [](const EntryHandle &H) {
                     return reinterpret_cast<uintptr_t>(H.Entry->asC());
                   })
      .def_prop_ro("free_names",
                   [](const EntryHandle &H) { return H.FreeNames; })
      .def_prop_ro("free_shapes",
                   [](const EntryHandle &H) {
                     return shapeList(H.Entry->numFree(), [&](size_t K) {
                       return H.Entry->freeShape(K);
                     });
                   })
      .def_prop_ro("output_shapes",
                   [](const EntryHandle &H) {
                     return shapeList(H.Entry->numOutputs(), [&](size_t K) {
                       return H.Entry->outputShape(K);
                     });
                   })
      .def_prop_ro("function",
                   [](const EntryHandle &H) { return H.Function; });

  M.def(
      "c_symbols",
      [] {
        nb::dict D;
        D["gj_entry_call"] = reinterpret_cast<uintptr_t>(&gj_entry_call);
        D["gj_entry_last_error"] =
            reinterpret_cast<uintptr_t>(&gj_entry_last_error);
        D["gj_density_logp"] = reinterpret_cast<uintptr_t>(&gj_density_logp);
        D["gj_density_expand"] =
            reinterpret_cast<uintptr_t>(&gj_density_expand);
        return D;
      },
      "The addresses of the C entry functions (graphjit/CEntry.h), by "
      "name: for ctypes, Numba or a sampler that takes function pointers.");
}
