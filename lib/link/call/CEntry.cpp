//===- CEntry.cpp - A compiled function as a plain C call -----------------===//
//
// An entry call wraps the caller's pointers as the function's free inputs
// (the bound ones stay set from call to call), calls the Function into
// arrays it keeps for the next call, and copies the results out. Nothing
// is allocated in a steady loop of calls but what the Function itself
// allocates; every failure becomes a status and a message on the thread.
//
//===----------------------------------------------------------------------===//
#include "graphjit/CEntry.h"
#include "graphjit/Function.h"
#include "link/call/SpareLease.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstring>

using namespace graphjit;
using llvm::Expected;

static thread_local std::string LastError;

void CEntry::setLastError(std::string Message) {
  LastError = std::move(Message);
}

/// The arrays one call binds and fills.
struct CEntry::Scratch {
  std::vector<NDArray> In, Out;
  /// The results let go of their memory (the Function's planned storage
  /// takes it back); the inputs keep their shapes for the next wrap.
  void clear() {
    for (NDArray &A : Out)
      A.dropBuffer();
  }
};

static llvm::Error entryError(const llvm::Twine &Message) {
  return llvm::createStringError("C entry: " + Message);
}

Expected<std::unique_ptr<CEntry>>
CEntry::make(Function &F, std::vector<NDArray> Bound,
             std::vector<Shape> FreeShapes, std::vector<Shape> OutputShapes) {
  const FunctionGraph &G = F.graph();
  if (Bound.size() != G.inputs().size())
    return entryError(llvm::formatv("'{0}' has {1} inputs, {2} given (bound "
                                    "values or null for free ones)",
                                    G.name(), G.inputs().size(), Bound.size())
                          .str());
  std::unique_ptr<CEntry> E(new CEntry(F));
  for (unsigned I = 0; I < Bound.size(); ++I)
    if (Bound[I].isNull()) {
      E->FreeIds.push_back(I);
      E->FreeDtypes.push_back(G.inputs()[I]->type().Dtype);
    } else if (Bound[I].onDevice()) {
      return entryError("bound input '" + G.inputs()[I]->name() +
                        "' is in device memory");
    }
  if (FreeShapes.size() != E->FreeIds.size())
    return entryError(llvm::formatv("'{0}' has {1} free inputs, {2} shapes "
                                    "given",
                                    G.name(), E->FreeIds.size(),
                                    FreeShapes.size())
                          .str());
  // The free inputs' shapes checked with the bound values, as a call would.
  std::vector<NDArray> Trial = Bound;
  for (size_t K = 0; K < E->FreeIds.size(); ++K) {
    Expected<NDArray> A = NDArray::create(E->FreeDtypes[K], FreeShapes[K]);
    if (!A)
      return A.takeError();
    Trial[E->FreeIds[K]] = std::move(*A);
  }
  if (Expected<DimBindings> B = F.bindInputs(Trial); !B)
    return entryError(llvm::toString(B.takeError()));

  if (OutputShapes.size() != G.outputs().size())
    return entryError(llvm::formatv("'{0}' has {1} outputs, {2} shapes given",
                                    G.name(), G.outputs().size(),
                                    OutputShapes.size())
                          .str());
  for (unsigned K = 0; K < OutputShapes.size(); ++K) {
    const TensorType &T = G.outputs()[K]->type();
    bool Fits = T.rank() == OutputShapes[K].size();
    for (unsigned D = 0; Fits && D < T.rank(); ++D)
      Fits = !T.Dims[D].isKnown() || T.Dims[D].Size == OutputShapes[K][D];
    if (!Fits)
      return entryError(llvm::formatv("output {0} ('{1}') of '{2}' cannot "
                                      "have shape {3}",
                                      K, G.outputName(K), G.name(),
                                      shapeStr(OutputShapes[K]))
                            .str());
    E->OutDtypes.push_back(T.Dtype);
  }
  E->Inputs = std::move(Bound);
  for (size_t K = 0; K < FreeShapes.size(); ++K)
    E->FreeStrides.push_back(
        contiguousStrides(FreeShapes[K], dtypeSize(E->FreeDtypes[K])));
  E->FreeShapes = std::move(FreeShapes);
  E->OutShapes = std::move(OutputShapes);
  return E;
}

CEntry::~CEntry() { SpareLease<Scratch>::release(Spares); }

static bool isF64Vector(DType T, const Shape &S, uint64_t C) {
  return T == DType::F64 && S.size() == 1 && uint64_t(S[0]) == C;
}

bool CEntry::freeIsVector(size_t K, uint64_t C) const {
  return K < numFree() && isF64Vector(FreeDtypes[K], FreeShapes[K], C);
}

bool CEntry::outputIsVector(size_t K, uint64_t C) const {
  return K < numOutputs() && isF64Vector(OutDtypes[K], OutShapes[K], C);
}

bool CEntry::outputIsScalar(size_t K) const {
  return K < numOutputs() && OutDtypes[K] == DType::F64 &&
         OutShapes[K].empty();
}

/// Writes R's elements, C-contiguous, to To.
static void copyOut(const NDArray &R, void *To) {
  if (R.isContiguous()) {
    std::memcpy(To, R.data(), R.numBytes());
    return;
  }
  NDArray C = R.copy();
  std::memcpy(To, C.data(), C.numBytes());
}

int64_t CEntry::call(const void *const *In, void *const *Out) const noexcept {
  try {
    if ((!In && !FreeIds.empty()) || (!Out && !OutShapes.empty())) {
      setLastError("C entry: null inputs or outputs");
      return GJ_ENTRY_BAD_CALL;
    }
    SpareLease<Scratch> S(Spares, [&] {
      auto *N = new Scratch;
      N->In = Inputs;
      return N;
    });
    for (size_t K = 0; K < FreeIds.size(); ++K) {
      if (!In[K]) {
        setLastError(llvm::formatv("C entry: free input {0} is null", K));
        return GJ_ENTRY_BAD_CALL;
      }
      NDArray::wrapInto(S->In[FreeIds[K]], const_cast<void *>(In[K]),
                        FreeDtypes[K], FreeShapes[K], FreeStrides[K]);
    }
    if (llvm::Error E = F.callInto(S->In, S->Out)) {
      setLastError(llvm::toString(std::move(E)));
      return GJ_ENTRY_FAILED;
    }
    for (size_t K = 0; K < OutShapes.size(); ++K) {
      const NDArray &R = S->Out[K];
      if (R.dtype() != OutDtypes[K] || R.shape() != OutShapes[K]) {
        setLastError(llvm::formatv("C entry: output {0} of '{1}' has shape "
                                   "{2}, not the entry's {3}",
                                   K, F.graph().name(), shapeStr(R.shape()),
                                   shapeStr(OutShapes[K])));
        return GJ_ENTRY_FAILED;
      }
      if (!Out[K]) {
        setLastError(llvm::formatv("C entry: output {0} is null", K));
        return GJ_ENTRY_BAD_CALL;
      }
      copyOut(R, Out[K]);
    }
    return GJ_ENTRY_OK;
  } catch (const std::exception &E) {
    setLastError(std::string("C entry: ") + E.what());
  } catch (...) {
    setLastError("C entry: unknown exception");
  }
  return GJ_ENTRY_FAILED;
}

/// Density's entry Which, if it takes Dim float64 values to outputs that
/// Fits accepts; else null, with the reason recorded (Outputs() says what
/// Fits wants: made only then, as the check runs on every call).
template <typename FitsT, typename OutputsT>
static const CEntry *densityEntry(void *Density,
                                  const gj_entry *gj_density::*Which,
                                  const char *Fn, uint64_t Dim, FitsT Fits,
                                  OutputsT Outputs) {
  auto *D = static_cast<const gj_density *>(Density);
  if (!D || !(D->*Which)) {
    CEntry::setLastError(std::string(Fn) + ": no density, or no such entry");
    return nullptr;
  }
  const CEntry &E = CEntry::fromC(D->*Which);
  if (E.numFree() != 1 || !E.freeIsVector(0, Dim) || !Fits(E)) {
    CEntry::setLastError(llvm::formatv(
        "{0}: the entry of '{1}' does not take {2} float64 values to {3}",
        Fn, E.function().graph().name(), Dim, Outputs()));
    return nullptr;
  }
  return &E;
}

extern "C" {

int64_t gj_entry_call(const gj_entry *Entry, const void *const *Inputs,
                      void *const *Outputs) {
  if (!Entry) {
    CEntry::setLastError("C entry: null entry");
    return GJ_ENTRY_BAD_CALL;
  }
  return CEntry::fromC(Entry).call(Inputs, Outputs);
}

const char *gj_entry_last_error(void) { return LastError.c_str(); }

int64_t gj_density_logp(uint64_t Dim, const double *X, double *Grad,
                        double *Logp, void *Density) {
  const CEntry *E = densityEntry(
      Density, &gj_density::Logp, "gj_density_logp", Dim,
      [&](const CEntry &E) {
        return E.numOutputs() == 2 && E.outputIsScalar(0) &&
               E.outputIsVector(1, Dim);
      },
      [&] {
        return "a float64 scalar and " + std::to_string(Dim) +
               " float64 values";
      });
  if (!E)
    return GJ_ENTRY_BAD_CALL;
  const void *In[] = {X};
  void *Out[] = {Logp, Grad};
  if (int64_t Status = E->call(In, Out))
    return Status;
  for (uint64_t I = 0; I < Dim; ++I)
    if (!std::isfinite(Grad[I])) {
      CEntry::setLastError(llvm::formatv(
          "gj_density_logp: gradient element {0} is {1}", I, Grad[I]));
      return GJ_ENTRY_NONFINITE_GRAD;
    }
  if (!std::isfinite(*Logp)) {
    CEntry::setLastError(
        llvm::formatv("gj_density_logp: the log-density is {0}", *Logp));
    return GJ_ENTRY_NONFINITE_LOGP;
  }
  return GJ_ENTRY_OK;
}

int64_t gj_density_expand(uint64_t Dim, uint64_t Expanded, const double *X,
                          double *Out, void *Density) {
  const CEntry *E = densityEntry(
      Density, &gj_density::Expand, "gj_density_expand", Dim,
      [&](const CEntry &E) {
        return E.numOutputs() == 1 && E.outputIsVector(0, Expanded);
      },
      [&] { return std::to_string(Expanded) + " float64 values"; });
  if (!E)
    return GJ_ENTRY_BAD_CALL;
  const void *In[] = {X};
  void *Outs[] = {Out};
  return E->call(In, Outs);
}

} // extern "C"
