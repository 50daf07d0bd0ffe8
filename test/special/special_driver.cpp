//===- special_driver.cpp - Array loops and timing for check_special.py ---===//
//
// Compiled with lib/ops/elemwise/SpecialFunctions.cpp into one shared library
// by check_special.py: a C interface that maps a gj_special_* wrapper over
// arrays (so ctypes pays one call per array, not per element), times it, and
// reads the gjSpecialSymbols() table.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/SpecialFunctions.h"

#include <chrono>
#include <cstring>

namespace {
using F64x1 = double (*)(double);
using F64x2 = double (*)(double, double);
using F64x3 = double (*)(double, double, double);
using F32x1 = float (*)(float);
using F32x2 = float (*)(float, float);
using F32x3 = float (*)(float, float, float);
} // namespace

extern "C" {

void gj_map1_f64(F64x1 F, const double *X, double *Y, size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I]);
}
void gj_map2_f64(F64x2 F, const double *X, const double *Z, double *Y,
                 size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I], Z[I]);
}
void gj_map3_f64(F64x3 F, const double *X, const double *Z, const double *W,
                 double *Y, size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I], Z[I], W[I]);
}
void gj_map1_f32(F32x1 F, const float *X, float *Y, size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I]);
}
void gj_map2_f32(F32x2 F, const float *X, const float *Z, float *Y, size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I], Z[I]);
}
void gj_map3_f32(F32x3 F, const float *X, const float *Z, const float *W,
                 float *Y, size_t N) {
  for (size_t I = 0; I < N; ++I)
    Y[I] = F(X[I], Z[I], W[I]);
}

/// Nanoseconds per call of F over X (and Z for two arguments), best of
/// Reps passes.
double gj_bench_f64(void *F, int Arity, const double *X, const double *Z,
                    size_t N, int Reps) {
  volatile double Sink = 0;
  double Best = 1e300;
  for (int R = 0; R < Reps; ++R) {
    auto Start = std::chrono::steady_clock::now();
    double Acc = 0;
    if (Arity == 1)
      for (size_t I = 0; I < N; ++I)
        Acc += reinterpret_cast<F64x1>(F)(X[I]);
    else
      for (size_t I = 0; I < N; ++I)
        Acc += reinterpret_cast<F64x2>(F)(X[I], Z[I]);
    auto End = std::chrono::steady_clock::now();
    Sink = Sink + Acc;
    double Ns = std::chrono::duration<double, std::nano>(End - Start).count();
    if (Ns / double(N) < Best)
      Best = Ns / double(N);
  }
  return Best;
}

/// The address gjSpecialSymbols() lists for Name, or null.
void *gj_test_symbol_address(const char *Name) {
  size_t Count = 0;
  const graphjit::special::GjSpecialSymbol *Table =
      graphjit::special::gjSpecialSymbols(Count);
  for (size_t I = 0; I < Count; ++I)
    if (std::strcmp(Table[I].Name, Name) == 0)
      return Table[I].Address;
  return nullptr;
}

size_t gj_test_symbol_count() {
  size_t Count = 0;
  graphjit::special::gjSpecialSymbols(Count);
  return Count;
}
}
