//===- GemvPairBench.cpp - The logistic step's two products, fused or not -===//
//
// The logistic-regression step is two matrix-vector products over the same
// X (n×784, f64): s = X·w + b, then, after an element-wise gradient g of
// s, Xᵀ·g. They are 75–85% of the step, in graphjit as in PyTensor's C VM
// (the same OpenBLAS calls), which bounds how far graphjit can get ahead
// of the C VM on that step (issue 17). Fusing them into one pass over X
// (each block of 4 rows: its dots, its g, its axpy into the gradient, the
// rows still in L1) reads X once instead of twice. This measures, side by
// side, whether that pays: the two cblas_dgemv against the fused pass in
// C++ built -O3 -march=native, at n = 40 (X in L2) and 400 (the step's;
// X 2.5 MB, beyond L2). Each figure is the median of 11 runs.
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "ops/linalg/BlasSymbols.h"
#include <cblas.h>
#include <cmath>
#include <vector>

using namespace graphjit::bench;
using llvm::format;
using llvm::outs;

namespace {

constexpr int64_t K = 784;
constexpr int Block = 4;
typedef double Vec __attribute__((vector_size(32)));

Vec load(const double *P) {
  Vec V;
  __builtin_memcpy(&V, P, sizeof V);
  return V;
}

struct Problem {
  int64_t N;
  std::vector<double> X, W, Y, S, G, Grad;
  explicit Problem(int64_t N)
      : N(N), X(N * K), W(K), Y(N), S(N), G(N), Grad(K) {
    for (int64_t I = 0; I < N * K; ++I)
      X[I] = std::sin(double(I) * 0.37);
    for (int64_t J = 0; J < K; ++J)
      W[J] = std::cos(double(J) * 0.1) * 0.01;
    for (int64_t I = 0; I < N; ++I)
      Y[I] = double(I % 2);
  }
  double gradientOf(int64_t I) const {
    return (1 / (1 + std::exp(-S[I])) - Y[I]) / double(N);
  }
};

// What graphjit and the C VM run: gemv, the element-wise gradient, gemvᵀ.
void twoProducts(Problem &P) {
  for (int64_t I = 0; I < P.N; ++I)
    P.S[I] = 0.5;
  GJ_BLAS(cblas_dgemv)(CblasRowMajor, CblasNoTrans, int(P.N), int(K), 1.0,
              P.X.data(), int(K), P.W.data(), 1, 1.0, P.S.data(), 1);
  for (int64_t I = 0; I < P.N; ++I)
    P.G[I] = P.gradientOf(I);
  GJ_BLAS(cblas_dgemv)(CblasRowMajor, CblasTrans, int(P.N), int(K), 1.0, P.X.data(),
              int(K), P.G.data(), 1, 0.0, P.Grad.data(), 1);
}

// One pass over X, Block rows at a time (N a multiple of Block here).
void fused(Problem &P) {
  for (int64_t J = 0; J < K; ++J)
    P.Grad[J] = 0;
  for (int64_t I = 0; I < P.N; I += Block) {
    const double *R[Block];
    Vec Dot[Block] = {};
    for (int B = 0; B < Block; ++B)
      R[B] = &P.X[(I + B) * K];
    for (int64_t J = 0; J < K; J += 4) {
      Vec Wj = load(&P.W[J]);
      for (int B = 0; B < Block; ++B)
        Dot[B] += load(R[B] + J) * Wj;
    }
    Vec Gb[Block];
    for (int B = 0; B < Block; ++B) {
      P.S[I + B] = (Dot[B][0] + Dot[B][1]) + (Dot[B][2] + Dot[B][3]) + 0.5;
      P.G[I + B] = P.gradientOf(I + B);
      Gb[B] = Vec{} + P.G[I + B];
    }
    for (int64_t J = 0; J < K; J += 4) {
      Vec Acc = load(&P.Grad[J]);
      for (int B = 0; B < Block; ++B)
        Acc += load(R[B] + J) * Gb[B];
      __builtin_memcpy(&P.Grad[J], &Acc, sizeof Acc);
    }
  }
}

double median(void (*Fn)(Problem &), Problem &P, int Inner) {
  std::vector<double> T;
  for (int R = 0; R < 11; ++R) {
    double Start = now();
    for (int I = 0; I < Inner; ++I)
      Fn(P);
    T.push_back((now() - Start) / Inner);
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

} // namespace

int main() {
  static_assert(K % 4 == 0, "the fused pass steps 4 columns at a time");
  for (int64_t N : {40, 400}) {
    Problem P(N);
    twoProducts(P);
    std::vector<double> Want = P.Grad;
    fused(P);
    double Worst = 0;
    for (int64_t J = 0; J < K; ++J)
      Worst = std::max(Worst, std::abs(P.Grad[J] - Want[J]) /
                                  std::max(std::abs(Want[J]), 1e-300));
    int Inner = N == 40 ? 2000 : 200;
    double Two = median(&twoProducts, P, Inner);
    double One = median(&fused, P, Inner);
    outs() << format("gemv pair, n=%lld: two OpenBLAS gemv %.1f us, one "
                     "fused pass %.1f us: %.2fx (max relative difference "
                     "%.1e)\n",
                     (long long)N, Two * 1e6, One * 1e6, Two / One, Worst);
  }
  return 0;
}
