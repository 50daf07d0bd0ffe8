/*===- graphjit/CEntry.h - A compiled function as a plain C call -*- C -*-===//
//
// A C entry lets code that knows nothing of graphjit call a compiled
// Function: C, Rust (nutpie's sampler), Numba or ctypes. The ABI uses C
// types only; the caller owns every buffer; outputs are written into the
// caller's buffers; an integer status is returned and no exception crosses
// it. Calls may come from any thread, several at once, with no Python and
// no GIL (a function with Py nodes takes the GIL itself around them).
//
// Lifetime: an entry refers to its Function, which must outlive it; the
// Python package ties them (docs/c-entry.md). Values bound into the entry
// (data the caller does not pass at each call) are borrowed, not copied:
// they too must outlive the entry.
//
// The whole ABI is in docs/c-entry.md.
//
//===----------------------------------------------------------------------===*/
#ifndef GRAPHJIT_CENTRY_H
#define GRAPHJIT_CENTRY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Statuses. Negative: the call itself was wrong (a size that is not the
   entry's); positive: the function failed on these values (an Apply's
   error, or a result that is not finite), which a sampler may treat as a
   rejected point. nutpie reads them so. */
enum {
  GJ_ENTRY_OK = 0,
  GJ_ENTRY_BAD_CALL = -1,      /* a size or pointer the entry does not take */
  GJ_ENTRY_FAILED = 1,         /* an Apply failed (an error, not a crash) */
  GJ_ENTRY_NONFINITE_GRAD = 3, /* the gradient is not all finite */
  GJ_ENTRY_NONFINITE_LOGP = 4  /* the log-density is not finite */
};

typedef struct gj_entry gj_entry;

/* Calls the function: Inputs[k] points to the k-th free input's elements,
   Outputs[k] to room for the k-th output's, both C-contiguous in the
   dtypes and shapes the entry was made with. */
int64_t gj_entry_call(const gj_entry *Entry, const void *const *Inputs,
                      void *const *Outputs);

/* The message of the last call on this thread that did not return
   GJ_ENTRY_OK ("" if none); valid until the next call on this thread. */
const char *gj_entry_last_error(void);

/* A log-density and its gradient, and the function that expands a point
   into every stored value: what nutpie calls, as nutpie calls it, with a
   gj_density as the user data. Logp is an entry of one free input (x, Dim
   float64) and two outputs (the log-density, a float64 scalar, and its
   gradient, Dim float64); Expand one of the same input and one output
   (Expanded float64), or null. */
typedef struct gj_density {
  const gj_entry *Logp;
  const gj_entry *Expand;
} gj_density;

int64_t gj_density_logp(uint64_t Dim, const double *X, double *Grad,
                        double *Logp, void *Density);
int64_t gj_density_expand(uint64_t Dim, uint64_t Expanded, const double *X,
                          double *Out, void *Density);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef __cplusplus
#include "graphjit/NDArray.h"
#include "graphjit/SpareSlots.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

class Function;

/// An entry: a Function with some inputs bound, the others passed as raw
/// pointers of fixed shapes, and its outputs copied into the caller's
/// buffers (of the shapes given, checked at every call).
class CEntry {
public:
  /// Bound: one per input of F: the value every call uses, or a null
  /// array for a free input (the caller passes it at each call, in order,
  /// with the shapes FreeShapes gives). OutputShapes: one per output; an
  /// output not of that shape at a call is an error (GJ_ENTRY_FAILED).
  static llvm::Expected<std::unique_ptr<CEntry>>
  make(Function &F, std::vector<NDArray> Bound,
       std::vector<Shape> FreeShapes, std::vector<Shape> OutputShapes);
  ~CEntry();

  int64_t call(const void *const *Inputs, void *const *Outputs) const noexcept;

  Function &function() const { return F; }
  size_t numFree() const { return FreeIds.size(); }
  const Shape &freeShape(size_t K) const { return FreeShapes[K]; }
  size_t numOutputs() const { return OutShapes.size(); }
  const Shape &outputShape(size_t K) const { return OutShapes[K]; }
  /// Whether free input or output K is a float64 vector of C elements, or
  /// a float64 scalar (the density ABI's checks, made on every call).
  bool freeIsVector(size_t K, uint64_t C) const;
  bool outputIsVector(size_t K, uint64_t C) const;
  bool outputIsScalar(size_t K) const;

  /// The entry as the C ABI passes it, and back.
  const gj_entry *asC() const {
    return reinterpret_cast<const gj_entry *>(this);
  }
  static const CEntry &fromC(const gj_entry *E) {
    return *reinterpret_cast<const CEntry *>(E);
  }

  /// Records the error of a failed call for gj_entry_last_error().
  static void setLastError(std::string Message);

private:
  struct Scratch;
  CEntry(Function &F) : F(F) {}
  Function &F;
  /// By input: the bound value, or null for a free one.
  std::vector<NDArray> Inputs;
  std::vector<unsigned> FreeIds;
  std::vector<Shape> FreeShapes, OutShapes;
  /// The free inputs' byte strides (C-contiguous), made once.
  std::vector<Shape> FreeStrides;
  std::vector<DType> FreeDtypes, OutDtypes;
  /// The arrays of the last calls, for the next ones to take: a slot per
  /// thread of a few calling at once (lib/link/call/SpareLease.h).
  mutable SpareSlots<Scratch> Spares;
};

} // namespace graphjit
#endif

#endif
