//===- Random.cpp - Seeded random arrays ---------------------------------===//

#include "graphjit/Random.h"
#include <cmath>

using namespace graphjit;

static uint64_t splitmix64(uint64_t &X) {
  uint64_t Z = (X += 0x9e3779b97f4a7c15ULL);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

static uint64_t rotl(uint64_t X, int K) { return (X << K) | (X >> (64 - K)); }

Rng::Rng(uint64_t Seed) {
  for (uint64_t &W : S)
    W = splitmix64(Seed);
}

uint64_t Rng::next() {
  uint64_t Result = rotl(S[1] * 5, 7) * 9;
  uint64_t T = S[1] << 17;
  S[2] ^= S[0];
  S[3] ^= S[1];
  S[1] ^= S[2];
  S[0] ^= S[3];
  S[2] ^= T;
  S[3] = rotl(S[3], 45);
  return Result;
}

double Rng::uniform() { return (next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  double U1 = uniform(), U2 = uniform();
  // 1 - U1 is in (0, 1], so the log is finite.
  return std::sqrt(-2.0 * std::log(1.0 - U1)) * std::cos(2 * M_PI * U2);
}

// Calls Gen() for every element of contiguous A and stores it in A's dtype.
template <typename GenFn> static void fill(NDArray &A, GenFn Gen) {
  int64_t N = A.numElements();
  dispatchDType(A.dtype(), [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    E *P = A.dataAs<E>();
    for (int64_t I = 0; I < N; ++I)
      P[I] = static_cast<E>(Gen());
  });
}

void graphjit::fillUniform(NDArray &A, double Low, double High, Rng &R) {
  fill(A, [&] { return Low + (High - Low) * R.uniform(); });
}

void graphjit::fillConstant(NDArray &A, double V) {
  fill(A, [V] { return V; });
}

void graphjit::fillNormal(NDArray &A, double Mean, double Std, Rng &R) {
  fill(A, [&] { return Mean + Std * R.normal(); });
}

void graphjit::fillDefaultInput(NDArray &A, Rng &R) {
  if (isFloat(A.dtype()))
    return fill(A, [&] { return R.uniform(); });
  if (isBool(A.dtype()))
    return fill(A, [&] { return double(R.next() >> 63); });
  fill(A, [&] { return double(R.next() % 10); });
}
