//===- LapackOpsTest.cpp - cholesky, solves, inv, det; specify_shape, assert ===//
//
// The LAPACK ops' types, names and errors, and their results checked by
// what they must satisfy, computed here with plain loops: L·Lᵀ = A, A·x = b,
// A·A⁻¹ = I, det against the 3×3 cofactor expansion; batches broadcast;
// on_error=nan; float32 stays float32. The checks: types, views, and the
// words of a failed check. JIT code against perform for both.
//
//===----------------------------------------------------------------------===//

#include "LoweringTestUtil.h"
#include "StructuralOpsTestUtil.h"
#include "ops/linalg/BlasThreads.h"

#include "ops/linalg/BlasSymbols.h"
extern "C" int GJ_BLAS(openblas_get_num_threads)(void) __attribute__((weak));

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

// A symmetric positive definite 3×3 matrix and a right-hand side.
const std::vector<double> Spd = {4, 2, 0.6, 2, 5, 1.5, 0.6, 1.5, 3};
const std::vector<double> Rhs = {1, -2, 0.5};

double at(const std::vector<double> &M, int N, int I, int J) {
  return M[size_t(I * N + J)];
}

std::vector<double> matmul(const std::vector<double> &A,
                           const std::vector<double> &B, int N, int K) {
  std::vector<double> C(size_t(N * K), 0);
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < K; ++J)
      for (int L = 0; L < N; ++L)
        C[size_t(I * K + J)] += at(A, N, I, L) * B[size_t(L * K + J)];
  return C;
}

void expectNear(const std::vector<double> &Got, const std::vector<double> &Want,
                double Tol) {
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Got.size(); ++I)
    EXPECT_NEAR(Got[I], Want[I], Tol) << "element " << I;
}

TEST(Lapack, TypesAndNames) {
  EXPECT_EQ(infer("cholesky", {ty(F64, {S("n"), S("n")})}), "f64[n, n]");
  EXPECT_EQ(infer("cholesky", {ty(F32, {K(5), K(3), K(3)})}), "f32[5, 3, 3]");
  EXPECT_EQ(infer("cholesky", {ty(DType::I32, {K(3), K(3)})}), "f64[3, 3]");
  EXPECT_EQ(infer("solve", {ty(F64, {K(2), K(1), K(3), K(3)}),
                            ty(F64, {K(4), K(3)})},
                  {{"b_ndim", num(1)}}),
            "f64[2, 4, 3]");
  EXPECT_EQ(infer("solve_triangular", {ty(F32, {K(3), K(3)}),
                                       ty(F64, {K(3), K(2)})}),
            "f64[3, 2]");
  EXPECT_EQ(infer("slogdet", {ty(F64, {K(3), K(3)})}), "f64[]; f64[]");
  EXPECT_EQ(infer("det", {ty(F64, {K(7), K(3), K(3)})}), "f64[7]");
  EXPECT_NE(infer("inv", {ty(F64, {K(2), K(3)})}).find("square"),
            std::string::npos);
  EXPECT_NE(infer("solve", {ty(F64, {K(3), K(3)}), ty(F64, {K(4)})},
                  {{"b_ndim", num(1)}})
                .find("do not align"),
            std::string::npos);
  EXPECT_NE(infer("det", {ty(F64, {K(2), K(3), K(3)})}).find("f64[2]"),
            std::string::npos);
  EXPECT_EQ(makeOp("cholesky", {{"lower", flag(false)}})->name(),
            "Cholesky{lower=False}");
  EXPECT_EQ(makeOp("solve", {{"assume_a", id("pos")}, {"b_ndim", num(1)},
                             {"on_error", id("nan")}},
                   2)
                ->name(),
            "Solve{assume_a=pos, lower=False, b_ndim=1, on_error=nan}");
  EXPECT_NE(makeError("solve", {{"assume_a", id("banded")}}, 2).find("gen"),
            std::string::npos);
  EXPECT_NE(makeError("cholesky", {{"on_error", id("ignore")}}).find("nan"),
            std::string::npos);
  EXPECT_NE(makeError("cho_solve", {{"b_ndim", num(3)}}, 2).find("b_ndim"),
            std::string::npos);
}

TEST(Lapack, CholeskyReconstructs) {
  for (bool Lower : {true, false}) {
    OpRef Op = makeOp("cholesky", {{"lower", flag(Lower)}});
    std::vector<double> L = values(run1(*Op, {arr(F64, {3, 3}, Spd)}));
    // The other triangle is zero; L·Lᵀ (or Uᵀ·U) is the matrix.
    std::vector<double> Lt(9);
    for (int I = 0; I < 3; ++I)
      for (int J = 0; J < 3; ++J) {
        if (Lower ? J > I : J < I)
          EXPECT_EQ(at(L, 3, I, J), 0.0);
        Lt[size_t(J * 3 + I)] = at(L, 3, I, J);
      }
    expectNear(Lower ? matmul(L, Lt, 3, 3) : matmul(Lt, L, 3, 3), Spd, 1e-12);
  }
}

TEST(Lapack, NotPositiveDefinite) {
  std::vector<double> Bad = {1, 2, 2, 1};
  OpRef Raise = makeOp("cholesky");
  EXPECT_EQ(runError(*Raise, {arr(F64, {2, 2}, Bad)}),
            "LinAlgError: 2-th leading minor not positive definite");
  OpRef Nan = makeOp("cholesky", {{"on_error", id("nan")}});
  // A batch: the good matrix is factored, the bad one is NaN.
  std::vector<double> Two = {4, 2, 2, 5, 1, 2, 2, 1};
  std::vector<double> Got = values(run1(*Nan, {arr(F64, {2, 2, 2}, Two)}));
  EXPECT_EQ(Got[0], 2.0);
  EXPECT_EQ(Got[1], 0.0);
  for (int I = 4; I < 8; ++I)
    EXPECT_TRUE(std::isnan(Got[size_t(I)]));
}

TEST(Lapack, SolvesSatisfyTheSystem) {
  NDArray A = arr(F64, {3, 3}, Spd), B = arr(F64, {3}, Rhs);
  for (const char *Assume : {"gen", "sym", "pos"}) {
    OpRef Op = makeOp("solve", {{"assume_a", id(Assume)}, {"b_ndim", num(1)}},
                      2);
    expectNear(matmul(Spd, values(run1(*Op, {A, B})), 3, 1), Rhs, 1e-12);
  }
  // cho_solve from cholesky's factor.
  NDArray L = run1(*makeOp("cholesky"), {A});
  OpRef Cho = makeOp("cho_solve", {{"b_ndim", num(1)}}, 2);
  expectNear(matmul(Spd, values(run1(*Cho, {L, B})), 3, 1), Rhs, 1e-12);
  // Triangular: L x = b, and Lᵀ x = b with trans=1.
  std::vector<double> Lv = values(L), Lt(9);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J)
      Lt[size_t(J * 3 + I)] = at(Lv, 3, I, J);
  OpRef Tri = makeOp("solve_triangular", {{"b_ndim", num(1)}}, 2);
  expectNear(matmul(Lv, values(run1(*Tri, {L, B})), 3, 1), Rhs, 1e-12);
  OpRef TriT = makeOp("solve_triangular",
                      {{"b_ndim", num(1)}, {"trans", num(1)}}, 2);
  expectNear(matmul(Lt, values(run1(*TriT, {L, B})), 3, 1), Rhs, 1e-12);
}

TEST(Lapack, BatchesBroadcastAndStridesWork) {
  // Two matrices against one b of two columns; the matrices transposed
  // in memory (a strided view), which the column-major copy reads.
  std::vector<double> Two = Spd;
  for (double V : Spd)
    Two.push_back(V * 2);
  NDArray A = arr(F64, {2, 3, 3}, Two);
  NDArray At = A.view({2, 3, 3}, {A.strides()[0], A.strides()[2],
                                  A.strides()[1]});
  std::vector<double> Cols = {1, 0, -2, 1, 0.5, 3};
  OpRef Op = makeOp("solve", {}, 2);
  std::vector<double> X = values(run1(*Op, {At, arr(F64, {3, 2}, Cols)}));
  ASSERT_EQ(X.size(), 12u);
  for (int K = 0; K < 2; ++K) {
    std::vector<double> M(Two.begin() + K * 9, Two.begin() + K * 9 + 9);
    std::vector<double> Xk(X.begin() + K * 6, X.begin() + K * 6 + 6);
    expectNear(matmul(M, Xk, 3, 2), Cols, 1e-12); // symmetric: Aᵀ = A
  }
  EXPECT_NE(runError(*Op, {arr(F64, {2, 3, 3}, Two), iota(F64, {3, 3, 2})})
                .find("do not broadcast"),
            std::string::npos);
}

// The Cholesky factor and the triangular solve work on row-major memory:
// A as it is (rows apart), transposed in memory (columns apart), with
// padded rows, and in another dtype (copied); b a matrix, a strided matrix
// and a vector; lower and upper, trans, unit diagonal. Each solution
// satisfies its system, and a zero on the diagonal is LAPACK's singular
// matrix.
TEST(Lapack, RowMajorLayoutsSolveTheirSystems) {
  NDArray Chol = run1(*makeOp("cholesky"), {arr(F64, {3, 3}, Spd)});
  std::vector<double> Lv = values(Chol);
  // L Lᵀ is Spd, and only the lower triangle was written.
  std::vector<double> Lt(9);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J)
      Lt[size_t(J * 3 + I)] = at(Lv, 3, I, J);
  expectNear(matmul(Lv, Lt, 3, 3), Spd, 1e-12);
  for (int I = 0; I < 3; ++I)
    for (int J = I + 1; J < 3; ++J)
      EXPECT_EQ(at(Lv, 3, I, J), 0.0);
  // Upper: Uᵀ U is Spd.
  std::vector<double> Uv = values(
      run1(*makeOp("cholesky", {{"lower", AttrValue::boolean(false)}}),
           {arr(F64, {3, 3}, Spd)}));
  std::vector<double> Ut(9);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J)
      Ut[size_t(J * 3 + I)] = at(Uv, 3, I, J);
  expectNear(matmul(Ut, Uv, 3, 3), Spd, 1e-12);

  // L in four layouts: as it is, its transpose's transpose (columns
  // apart), rows padded to 5, and as float32 (copied, converted).
  NDArray LtArr = arr(F64, {3, 3}, Lt);
  NDArray LasT = LtArr.view({3, 3}, {LtArr.strides()[1], LtArr.strides()[0]});
  std::vector<double> Padded(15, 99.0);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J)
      Padded[size_t(I * 5 + J)] = at(Lv, 3, I, J);
  NDArray Pad = arr(F64, {3, 5}, Padded).view({3, 3}, {40, 8});
  NDArray L32 = Chol.astype(F32);
  std::vector<double> Cols = {1, 0, -2, 1, 0.5, 3};
  NDArray BWide = arr(F64, {3, 4}, {1, 9, 0, 9, -2, 9, 1, 9, 0.5, 9, 3, 9});
  NDArray BStrided = BWide.view({3, 2}, {32, 16});
  for (bool Trans : {false, true}) {
    std::vector<double> Op = Trans ? Lt : Lv;
    OpRef M = makeOp("solve_triangular", {{"trans", num(Trans)}}, 2);
    OpRef V = makeOp("solve_triangular",
                     {{"trans", num(Trans)}, {"b_ndim", num(1)}}, 2);
    for (const NDArray &A : {Chol, LasT, Pad}) {
      expectNear(matmul(Op, values(run1(*M, {A, arr(F64, {3, 2}, Cols)})), 3,
                        2),
                 Cols, 1e-12);
      expectNear(matmul(Op, values(run1(*M, {A, BStrided})), 3, 2), Cols,
                 1e-12);
      expectNear(matmul(Op, values(run1(*V, {A, arr(F64, {3}, Rhs)})), 3, 1),
                 Rhs, 1e-12);
    }
    expectNear(matmul(Op, values(run1(*V, {L32, arr(F32, {3}, Rhs)})), 3, 1),
               Rhs, 1e-5);
  }
  // Upper triangular: Lᵀ as it is and as L's memory read transposed;
  // then a unit diagonal, the one in memory ignored.
  OpRef Up = makeOp("solve_triangular",
                    {{"lower", AttrValue::boolean(false)}, {"b_ndim", num(1)}},
                    2);
  NDArray UasT = Chol.view({3, 3}, {Chol.strides()[1], Chol.strides()[0]});
  for (const NDArray &U : {LtArr, UasT})
    expectNear(matmul(Lt, values(run1(*Up, {U, arr(F64, {3}, Rhs)})), 3, 1),
               Rhs, 1e-12);
  std::vector<double> Unit = Lv;
  for (int I = 0; I < 3; ++I)
    Unit[size_t(I * 4)] = 1.0;
  OpRef UnitOp = makeOp("solve_triangular",
                        {{"unit_diagonal", AttrValue::boolean(true)},
                         {"b_ndim", num(1)}},
                        2);
  expectNear(matmul(Unit, values(run1(*UnitOp, {Chol, arr(F64, {3}, Rhs)})),
                    3, 1),
             Rhs, 1e-12);
  std::vector<double> Singular = Lv;
  Singular[4] = 0.0;
  EXPECT_NE(runError(*makeOp("solve_triangular", {{"b_ndim", num(1)}}, 2),
                     {arr(F64, {3, 3}, Singular), arr(F64, {3}, Rhs)})
                .find("singular matrix: resolution failed at diagonal 1"),
            std::string::npos);
}

TEST(Lapack, InverseAndDeterminants) {
  std::vector<double> M = {2, -1, 0, 1, 3, 2, 0, 5, -4};
  NDArray A = arr(F64, {3, 3}, M);
  std::vector<double> Inv = values(run1(*makeOp("inv"), {A}));
  expectNear(matmul(M, Inv, 3, 3), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-12);
  // The cofactor expansion along the first row.
  double Det = 2 * (3 * -4 - 2 * 5) - -1 * (1 * -4 - 2 * 0) + 0;
  EXPECT_NEAR(values(run1(*makeOp("det"), {A}))[0], Det, 1e-12);
  auto SL = llvm::cantFail(runOp(*makeOp("slogdet"), {A}));
  EXPECT_EQ(values(SL[0])[0], Det < 0 ? -1.0 : 1.0);
  EXPECT_NEAR(values(SL[1])[0], std::log(std::fabs(Det)), 1e-12);
  // Singular: inv fails, det is 0, slogdet (0, -inf).
  NDArray Sing = arr(F64, {2, 2}, {1, 2, 2, 4});
  EXPECT_EQ(runError(*makeOp("inv"), {Sing}), "LinAlgError: Singular matrix");
  EXPECT_EQ(values(run1(*makeOp("det"), {Sing}))[0], 0.0);
  auto SS = llvm::cantFail(runOp(*makeOp("slogdet"), {Sing}));
  EXPECT_EQ(values(SS[0])[0], 0.0);
  EXPECT_EQ(values(SS[1])[0], -Inf);
  EXPECT_EQ(runError(*makeOp("solve", {}, 2), {Sing, arr(F64, {2, 1}, {1, 1})}),
            "LinAlgError: Matrix is singular.");
  EXPECT_EQ(runError(*makeOp("solve_triangular", {}, 2),
                     {arr(F64, {2, 2}, {1, 0, 1, 0}), arr(F64, {2, 1}, {1, 1})}),
            "LinAlgError: singular matrix: resolution failed at diagonal 1");
}

TEST(Lapack, Float32StaysFloat32) {
  NDArray L = run1(*makeOp("cholesky"), {arr(F32, {3, 3}, Spd)});
  EXPECT_EQ(L.dtype(), F32);
  NDArray L64 = run1(*makeOp("cholesky"), {arr(F64, {3, 3}, Spd)});
  expectNear(values(L), values(L64), 1e-6);
}

TEST(Checks, TypesAndErrors) {
  EXPECT_EQ(infer("specify_shape", {ty(F64, {S("n"), K(2)})},
                  {{"shape", ints({1, -1})}}),
            "f64[1, 2]");
  EXPECT_NE(infer("specify_shape", {ty(F64, {K(3)})}, {{"shape", ints({2})}})
                .find("is not 2"),
            std::string::npos);
  OpRef Spec = makeOp("specify_shape", {{"shape", ints({1})}});
  EXPECT_EQ(runError(*Spec, {iota(F64, {3})}),
            "AssertionError: SpecifyShape: Got shape (3,), expected (1,).");
  NDArray X = iota(F64, {1});
  EXPECT_TRUE(run1(*Spec, {X}).sharesBufferWith(X));
  OpRef Assert = makeOp("assert", {}, 3);
  EXPECT_EQ(infer("assert", {ty(F64, {K(2)}), ty(DType::Bool)}), "f64[2]");
  EXPECT_NE(infer("assert", {ty(F64), ty(DType::Bool, {K(2)})}).find("rank"),
            std::string::npos);
  NDArray True = arr(DType::Bool, {}, {1}), False = arr(DType::Bool, {}, {0});
  EXPECT_TRUE(run1(*Assert, {X, True, True}).sharesBufferWith(X));
  EXPECT_EQ(runError(*Assert, {X, True, False}),
            "AssertionError: condition 1 of the assert is false");
}

// A small call runs on one OpenBLAS thread, nested scopes too, and
// OpenBLAS gets its threads back after; a large one keeps them.
TEST(Lapack, SmallCallsRunOnOneBlasThread) {
  if (!GJ_BLAS(openblas_get_num_threads))
    GTEST_SKIP() << "the BLAS linked is not OpenBLAS";
  int Threads = GJ_BLAS(openblas_get_num_threads)();
  if (Threads < 2)
    GTEST_SKIP() << "OpenBLAS runs one thread here (OPENBLAS_NUM_THREADS "
                    "or one core): nothing to switch";
  {
    SmallBlasScope Outer(1e3);
    EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), 1);
    {
      SmallBlasScope Inner(1e4);
      EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), 1);
    }
    EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), 1);
  }
  EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), Threads);
  {
    SmallBlasScope Large(SmallBlasFlops * 10);
    EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), Threads);
  }
  // An op's compute: its result is right, and the count is restored.
  NDArray L = run1(*makeOp("cholesky"), {arr(F64, {3, 3}, Spd)});
  EXPECT_EQ(values(L)[0], 2.0);
  EXPECT_EQ(GJ_BLAS(openblas_get_num_threads)(), Threads);
}

// JIT code against perform: the LAPACK call through gj_compute, the checks
// in IR (a failed one worded by prepare).
TEST(Lapack, JitMatchesPerform) {
  Compiled C = compile(
      {ty(F64, {S("n"), S("n")}), ty(F64, {S("n")}), ty(DType::Bool)},
      [](FunctionBuilder &B, std::vector<Variable *> In) {
        Variable *L = llvm::cantFail(B.apply("cholesky", {In[0]}));
        Variable *X = llvm::cantFail(
            B.apply("cho_solve", {L, In[1]}, {{"b_ndim", num(1)}}));
        Variable *D = llvm::cantFail(B.apply("det", {In[0]}));
        Variable *Checked = llvm::cantFail(B.apply("assert", {X, In[2]}));
        B.output(llvm::cantFail(
            B.apply("specify_shape", {Checked}, {{"shape", ints({3})}})));
        B.output(D);
      },
      LinkerKind::C);
  ASSERT_TRUE(C.Fn);
  NDArray True = arr(DType::Bool, {}, {1});
  auto Out = llvm::cantFail(
      C.Fn->call({arr(F64, {3, 3}, Spd), arr(F64, {3}, Rhs), True}));
  expectNear(matmul(Spd, values(Out[0]), 3, 1), Rhs, 1e-12);
  EXPECT_NEAR(values(Out[1])[0], values(run1(*makeOp("det"), {arr(F64, {3, 3}, Spd)}))[0], 1e-12);
  auto Failed = C.Fn->call({arr(F64, {3, 3}, Spd), arr(F64, {3}, Rhs),
                            arr(DType::Bool, {}, {0})});
  ASSERT_FALSE(Failed);
  EXPECT_NE(llvm::toString(Failed.takeError()).find("AssertionError"),
            std::string::npos);
  std::vector<double> Bad = {1, 2, 2, 1};
  auto NotPd = C.Fn->call({arr(F64, {2, 2}, Bad), arr(F64, {2}, {1, 1}), True});
  ASSERT_FALSE(NotPd);
  EXPECT_NE(llvm::toString(NotPd.takeError()).find("leading minor"),
            std::string::npos);
}

} // namespace
