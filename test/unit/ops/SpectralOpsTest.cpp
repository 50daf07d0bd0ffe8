//===- SpectralOpsTest.cpp - eigh, eigh_grad, svd, pinv ------------------===//
//
// The decompositions checked by what they must satisfy, computed here with
// plain loops: A v = v diag(w) with v orthonormal and w ascending (and
// A v = B v diag(w) with vᵀ B v = I for the generalized problem); U S Vh =
// A with orthonormal factors; the four Moore-Penrose conditions of pinv;
// eigh_grad against central differences of a function of eigh's outputs.
// Types, names, batches, strided inputs, float32, and the errors; JIT code
// against perform.
//
//===----------------------------------------------------------------------===//

#include "LoweringTestUtil.h"
#include "StructuralOpsTestUtil.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

using Matrix = std::vector<double>; // row-major

// A symmetric 4×4 matrix with distinct eigenvalues, one negative, and a
// positive definite one for the generalized problem.
const Matrix Sym = {4,  1, -2, 0.5,  1,   3, 0,    1,
                    -2, 0, -1, 0.25, 0.5, 1, 0.25, 2};
const Matrix Spd = {5, 1, 0, 0.5, 1, 4, 0.5, 0, 0, 0.5, 3, 0.2, 0.5, 0, 0.2, 2};
// A 3×5 matrix of rank 3 and a 4×3 one of rank 2 (its last column the sum).
const Matrix Wide = {1, 2, 0, -1, 3, 0, 1, 4, 2, -2, 5, 0, 1, 1, 0.5};
const Matrix Rank2 = {1, 2, 3, 0, 1, 1, 2, -1, 1, 4, 0.5, 4.5};

Matrix matmul(const Matrix &A, const Matrix &B, int M, int K, int N) {
  Matrix C(size_t(M * N), 0);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      for (int L = 0; L < K; ++L)
        C[size_t(I * N + J)] += A[size_t(I * K + L)] * B[size_t(L * N + J)];
  return C;
}

Matrix transpose(const Matrix &A, int M, int N) {
  Matrix T(A.size());
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      T[size_t(J * M + I)] = A[size_t(I * N + J)];
  return T;
}

Matrix identity(int N) {
  Matrix I(size_t(N * N), 0);
  for (int K = 0; K < N; ++K)
    I[size_t(K * N + K)] = 1;
  return I;
}

void expectNear(const Matrix &Got, const Matrix &Want, double Tol) {
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Got.size(); ++I)
    EXPECT_NEAR(Got[I], Want[I], Tol) << "element " << I;
}

/// A v = (B) v diag(w), vᵀ (B) v = I, w ascending.
void expectEigenpairs(const Matrix &A, const Matrix *B, const Matrix &W,
                      const Matrix &V, int N, double Tol) {
  Matrix VW = V;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      VW[size_t(I * N + J)] *= W[size_t(J)];
  Matrix Rhs = B ? matmul(*B, VW, N, N, N) : VW;
  expectNear(matmul(A, V, N, N, N), Rhs, Tol);
  Matrix Gram =
      matmul(transpose(V, N, N), B ? matmul(*B, V, N, N, N) : V, N, N, N);
  expectNear(Gram, identity(N), Tol);
  for (int K = 1; K < N; ++K)
    EXPECT_LE(W[size_t(K - 1)], W[size_t(K)]);
}

TEST(Spectral, TypesAndNames) {
  EXPECT_EQ(infer("eigh", {ty(F64, {S("n"), S("n")})}), "f64[n]; f64[n, n]");
  EXPECT_EQ(infer("eigh", {ty(F32, {K(5), K(3), K(3)})}),
            "f32[5, 3]; f32[5, 3, 3]");
  EXPECT_EQ(infer("svd", {ty(F64, {K(3), K(5)})}),
            "f64[3, 3]; f64[3]; f64[5, 5]");
  EXPECT_EQ(
      infer("svd", {ty(F64, {K(3), K(5)})}, {{"full_matrices", flag(false)}}),
      "f64[3, 3]; f64[3]; f64[3, 5]");
  EXPECT_EQ(
      infer("svd", {ty(F64, {K(4), K(3)})}, {{"compute_uv", flag(false)}}),
      "f64[3]");
  EXPECT_EQ(infer("pinv", {ty(DType::I32, {K(2), K(4), K(3)})}),
            "f64[2, 3, 4]");
  EXPECT_EQ(infer("eigh_grad", {ty(F64, {K(3)}), ty(F64, {K(3), K(3)}),
                                ty(F64, {K(3)}), ty(F64, {K(3), K(3)})}),
            "f64[3, 3]");
  EXPECT_NE(infer("eigh", {ty(F64, {K(2), K(3)})}).find("square"),
            std::string::npos);
  EXPECT_EQ(makeOp("eigh", {{"driver", id("evr")}})->name(),
            "Eigh{lower=True, driver=evr}");
  EXPECT_EQ(makeOp("svd", {{"full_matrices", flag(false)}})->name(),
            "SVD{full_matrices=False, compute_uv=True}");
  EXPECT_EQ(makeOp("pinv")->className(), "MatrixPinv");
  EXPECT_NE(makeError("eigh", {{"driver", id("evx")}}).find("evd or evr"),
            std::string::npos);
}

TEST(Spectral, EighFindsTheEigenpairs) {
  for (const char *Driver : {"evd", "evr"})
    for (bool Lower : {true, false}) {
      // Only the triangle named is read: garbage in the other.
      Matrix Half = Sym;
      for (int I = 0; I < 4; ++I)
        for (int J = 0; J < 4; ++J)
          if (Lower ? J > I : J < I)
            Half[size_t(I * 4 + J)] = 99;
      OpRef Op =
          makeOp("eigh", {{"driver", id(Driver)}, {"lower", flag(Lower)}});
      auto Out = llvm::cantFail(runOp(*Op, {arr(F64, {4, 4}, Half)}));
      expectEigenpairs(Sym, nullptr, values(Out[0]), values(Out[1]), 4, 1e-12);
    }
  // Generalized: A v = w B v.
  auto Out = llvm::cantFail(runOp(
      *makeOp("eigh", {}, 2), {arr(F64, {4, 4}, Sym), arr(F64, {4, 4}, Spd)}));
  expectEigenpairs(Sym, &Spd, values(Out[0]), values(Out[1]), 4, 1e-12);
  // float32, and a batch read through a transposed view (symmetric, so the
  // same matrices).
  auto Out32 = llvm::cantFail(runOp(*makeOp("eigh"), {arr(F32, {4, 4}, Sym)}));
  EXPECT_EQ(Out32[1].dtype(), F32);
  expectEigenpairs(Sym, nullptr, values(Out32[0]), values(Out32[1]), 4, 1e-5);
  Matrix Two = Sym;
  Two.insert(Two.end(), Spd.begin(), Spd.end());
  NDArray Batch = arr(F64, {2, 4, 4}, Two);
  NDArray T = Batch.view(
      {2, 4, 4}, {Batch.strides()[0], Batch.strides()[2], Batch.strides()[1]});
  auto Outs = llvm::cantFail(runOp(*makeOp("eigh"), {T}));
  Matrix W = values(Outs[0]), V = values(Outs[1]);
  for (int K = 0; K < 2; ++K)
    expectEigenpairs(K ? Spd : Sym, nullptr,
                     Matrix(W.begin() + 4 * K, W.begin() + 4 * K + 4),
                     Matrix(V.begin() + 16 * K, V.begin() + 16 * K + 16), 4,
                     1e-12);
}

TEST(Spectral, EighErrors) {
  // b not positive definite: SciPy's words.
  Matrix NotPd = identity(4);
  NotPd[5] = -1;
  EXPECT_NE(runError(*makeOp("eigh", {}, 2),
                     {arr(F64, {4, 4}, Sym), arr(F64, {4, 4}, NotPd)})
                .find("LinAlgError: The leading minor of order 2 of B is not "
                      "positive definite"),
            std::string::npos);
  // SciPy's eigh refuses NaN (check_finite); NumPy's does not check.
  Matrix WithNaN = Sym;
  WithNaN[0] = NaN;
  EXPECT_EQ(runError(*makeOp("eigh", {{"driver", id("evr")}}),
                     {arr(F64, {4, 4}, WithNaN)}),
            "array must not contain infs or NaNs");
  EXPECT_NE(runError(*makeOp("eigh"), {arr(F64, {3, 5}, Wide)}).find("square"),
            std::string::npos);
}

TEST(Spectral, SvdReconstructs) {
  struct Case {
    const Matrix &A;
    int M, N;
  };
  for (Case C : {Case{Wide, 3, 5}, Case{Rank2, 4, 3}})
    for (bool Full : {true, false}) {
      int K = std::min(C.M, C.N), UC = Full ? C.M : K, VR = Full ? C.N : K;
      OpRef Op = makeOp("svd", {{"full_matrices", flag(Full)}});
      auto Out = llvm::cantFail(runOp(*Op, {arr(F64, {C.M, C.N}, C.A)}));
      Matrix U = values(Out[0]), S = values(Out[1]), Vh = values(Out[2]);
      ASSERT_EQ(U.size(), size_t(C.M * UC));
      ASSERT_EQ(Vh.size(), size_t(VR * C.N));
      // U[:, :k] diag(s) Vh[:k, :] = A; U and Vh orthonormal.
      Matrix US(size_t(C.M * K));
      for (int I = 0; I < C.M; ++I)
        for (int L = 0; L < K; ++L)
          US[size_t(I * K + L)] = U[size_t(I * UC + L)] * S[size_t(L)];
      Matrix VhK(Vh.begin(), Vh.begin() + K * C.N);
      expectNear(matmul(US, VhK, C.M, K, C.N), C.A, 1e-12);
      expectNear(matmul(transpose(U, C.M, UC), U, UC, C.M, UC), identity(UC),
                 1e-12);
      expectNear(matmul(Vh, transpose(Vh, VR, C.N), VR, C.N, VR), identity(VR),
                 1e-12);
      for (int L = 1; L < K; ++L)
        EXPECT_GE(S[size_t(L - 1)], S[size_t(L)]);
      // The values alone are the same.
      NDArray Only = run1(*makeOp("svd", {{"compute_uv", flag(false)}}),
                          {arr(F64, {C.M, C.N}, C.A)});
      expectNear(values(Only), S, 1e-12);
    }
  // Rank 2: the third singular value is zero.
  NDArray S = run1(*makeOp("svd", {{"compute_uv", flag(false)}}),
                   {arr(F64, {4, 3}, Rank2)});
  EXPECT_NEAR(values(S)[2], 0.0, 1e-14);
}

TEST(Spectral, PinvSatisfiesMoorePenrose) {
  struct Case {
    Matrix A;
    int M, N;
    bool Hermitian;
  };
  for (const Case &C : {Case{Wide, 3, 5, false}, Case{Rank2, 4, 3, false},
                        Case{Sym, 4, 4, true}, Case{Sym, 4, 4, false}}) {
    OpRef Op = makeOp("pinv", {{"hermitian", flag(C.Hermitian)}});
    Matrix X = values(run1(*Op, {arr(F64, {C.M, C.N}, C.A)}));
    ASSERT_EQ(X.size(), size_t(C.N * C.M));
    Matrix AX = matmul(C.A, X, C.M, C.N, C.M);
    Matrix XA = matmul(X, C.A, C.N, C.M, C.N);
    expectNear(matmul(AX, C.A, C.M, C.M, C.N), C.A, 1e-12); // A X A = A
    expectNear(matmul(XA, X, C.N, C.N, C.M), X, 1e-12);     // X A X = X
    expectNear(AX, transpose(AX, C.M, C.M), 1e-12);         // (A X)ᵀ = A X
    expectNear(XA, transpose(XA, C.N, C.N), 1e-12);         // (X A)ᵀ = X A
  }
  // float32 stays float32.
  NDArray X32 = run1(*makeOp("pinv"), {arr(F32, {3, 5}, Wide)});
  EXPECT_EQ(X32.dtype(), F32);
}

/// f(A) = sum_k c_k w_k + sum_ij D_ij v_ij of eigh(A)'s outputs, whose
/// gradient is eigh_grad(w, v, c, D): a function of the signs of v, so D
/// weighs v by its own sign convention (each column's largest entry).
double eighCost(const Matrix &A, const Matrix &C, const Matrix &D) {
  auto Out = llvm::cantFail(runOp(*makeOp("eigh"), {arr(F64, {4, 4}, A)}));
  Matrix W = values(Out[0]), V = values(Out[1]);
  double F = 0;
  for (int K = 0; K < 4; ++K) {
    F += C[size_t(K)] * W[size_t(K)];
    // Fix each eigenvector's sign: its first entry positive.
    double Sign = V[size_t(K)] < 0 ? -1 : 1;
    for (int I = 0; I < 4; ++I)
      F += D[size_t(I * 4 + K)] * Sign * V[size_t(I * 4 + K)];
  }
  return F;
}

TEST(Spectral, EighGradMatchesDifferences) {
  const Matrix C = {0.5, -1, 2, 0.25};
  const Matrix D = {1,    0,   0.5, -1, 0.2, 1,   0,    0.3,
                    -0.4, 0.1, 1,   0,  0,   0.7, -0.2, 1};
  auto Out = llvm::cantFail(runOp(*makeOp("eigh"), {arr(F64, {4, 4}, Sym)}));
  Matrix W = values(Out[0]), V = values(Out[1]), GV = D;
  for (int K = 0; K < 4; ++K) // the gradient of the sign-fixed term
    if (V[size_t(K)] < 0)
      for (int I = 0; I < 4; ++I)
        GV[size_t(I * 4 + K)] = -GV[size_t(I * 4 + K)];
  for (bool Lower : {true, false}) {
    OpRef Grad = makeOp("eigh_grad", {{"lower", flag(Lower)}}, 4);
    Matrix G = values(run1(*Grad, {arr(F64, {4}, W), arr(F64, {4, 4}, V),
                                   arr(F64, {4}, C), arr(F64, {4, 4}, GV)}));
    // eigh reads one triangle: a change of A[i][j] there is a change of
    // the symmetric matrix's (i, j) and (j, i); the other triangle's
    // entries have no effect, and their gradient is 0.
    const double H = 1e-6;
    for (int I = 0; I < 4; ++I)
      for (int J = 0; J < 4; ++J) {
        bool Read = Lower ? J <= I : J >= I;
        double Want = 0;
        if (Read) {
          Matrix Plus = Sym, Minus = Sym;
          Plus[size_t(I * 4 + J)] += H, Minus[size_t(I * 4 + J)] -= H;
          if (I != J)
            Plus[size_t(J * 4 + I)] += H, Minus[size_t(J * 4 + I)] -= H;
          Want = (eighCost(Plus, C, D) - eighCost(Minus, C, D)) / (2 * H);
        }
        EXPECT_NEAR(G[size_t(I * 4 + J)], Want, 1e-7)
            << "lower " << Lower << " at " << I << ", " << J;
      }
  }
}

// JIT code against perform: the decompositions through gj_compute.
TEST(Spectral, JitMatchesPerform) {
  Compiled C = compile(
      {ty(F64, {S("n"), S("n")}), ty(F64, {S("m"), S("k")})},
      [](FunctionBuilder &B, std::vector<Variable *> In) {
        auto E = llvm::cantFail(B.applyMulti("eigh", {In[0]}));
        B.output(E[0]);
        B.output(E[1]);
        auto S = llvm::cantFail(B.applyMulti("svd", {In[1]}));
        B.output(S[1]);
        B.output(llvm::cantFail(B.apply("pinv", {In[1]})));
      },
      LinkerKind::C);
  ASSERT_TRUE(C.Fn);
  auto Out = llvm::cantFail(
      C.Fn->call({arr(F64, {4, 4}, Sym), arr(F64, {4, 3}, Rank2)}));
  auto Eig = llvm::cantFail(runOp(*makeOp("eigh"), {arr(F64, {4, 4}, Sym)}));
  expectNear(values(Out[0]), values(Eig[0]), 0);
  expectNear(values(Out[1]), values(Eig[1]), 0);
  expectNear(values(Out[2]),
             values(run1(*makeOp("svd", {{"compute_uv", flag(false)}}),
                         {arr(F64, {4, 3}, Rank2)})),
             1e-13);
  expectNear(values(Out[3]),
             values(run1(*makeOp("pinv"), {arr(F64, {4, 3}, Rank2)})), 0);
}

} // namespace
