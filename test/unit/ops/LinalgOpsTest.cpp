//===- LinalgOpsTest.cpp - dot ---------------------------------------------===//
//
// dot's types (ranks 0 to 2, promotion, bool), static and run-time
// alignment errors with NumPy's message, and perform() against a plain
// reference for every case (matrix-matrix, matrix-vector, vector-matrix,
// vector-vector, 0-d) over many memory layouts: contiguous, transposed
// (BLAS's transpose flag), strided, reversed and broadcast (copied or
// looped), zero-size dims, integer wrap-around.
//
//===----------------------------------------------------------------------===//

#include "StructuralOpsTestUtil.h"
#include <functional>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

std::string inferDot(TensorType A, TensorType B) {
  return infer("dot", {std::move(A), std::move(B)});
}

TEST(Dot, InfersTypes) {
  EXPECT_EQ(inferDot(ty(F64, {S("n"), K(3)}), ty(F64, {K(3), S("k")})),
            "f64[n, k]");
  EXPECT_EQ(inferDot(ty(F64, {S("n"), K(784)}), ty(F64, {K(784)})), "f64[n]");
  EXPECT_EQ(inferDot(ty(F32, {S("m")}), ty(F32, {S("m"), K(2)})), "f32[2]");
  EXPECT_EQ(inferDot(ty(F64, {S("m")}), ty(F64, {S("k")})), "f64[]");
  EXPECT_EQ(inferDot(ty(DType::I32, {K(2), K(2)}), ty(F32, {K(2)})), "f64[2]");
  EXPECT_EQ(inferDot(ty(DType::Bool, {K(2)}), ty(DType::Bool, {K(2)})),
            "bool[]");
  EXPECT_EQ(inferDot(ty(DType::U8, {K(2)}), ty(DType::I8, {K(2), K(5)})),
            "i16[5]");
  EXPECT_EQ(inferDot(ty(F32), ty(F64, {S("n"), K(2)})), "f64[n, 2]");
  EXPECT_EQ(inferDot(ty(DType::I8, {K(3)}), ty(DType::I8)), "i8[3]");
  OpRef Op = makeOp("dot", {}, 2);
  EXPECT_EQ(Op->name(), "Dot");
  EXPECT_EQ(Op->className(), "Dot");
  EXPECT_EQ(Op->flops({{4, 3}, {3, 5}}, {{4, 5}}), 2 * 4 * 5 * 3);
  EXPECT_EQ(Op->flops({{3}, {3}}, {{}}), 6);
  EXPECT_EQ(Op->flops({{}, {3, 2}}, {{3, 2}}), 6);
}

TEST(Dot, StaticErrors) {
  EXPECT_EQ(inferDot(ty(F64, {K(2), K(3)}), ty(F64, {K(4)})),
            "error: shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)");
  EXPECT_EQ(inferDot(ty(F64, {K(3)}), ty(F64, {K(4), S("n")})),
            "error: shapes (3,) and (4,n) not aligned: 3 (dim 0) != 4 (dim 0)");
  EXPECT_NE(inferDot(ty(F64, {K(2), K(2), K(2)}), ty(F64, {K(2)}))
                .find("rank 0 to 2"),
            std::string::npos);
  EXPECT_NE(makeError("dot", {{"axis", num(0)}}, 2).find("attr:axis:"),
            std::string::npos);
  EXPECT_NE(makeError("dot", {}, 3).find("takes 2 inputs"), std::string::npos);
}

TEST(Dot, RunTimeErrors) {
  OpRef Op = makeOp("dot", {}, 2);
  EXPECT_EQ(runError(*Op, {iota(F64, {2, 3}), iota(F64, {4})}),
            "shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)");
  EXPECT_EQ(runError(*Op, {iota(F64, {3}), iota(F64, {4})}),
            "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)");
  EXPECT_NE(runError(*Op, {iota(F64, {1, 1, 1}), iota(F64, {1})})
                .find("rank 0 to 2"),
            std::string::npos);
}

/// Ways to lay out the same logical matrix (or vector) in memory.
enum class Layout { Contiguous, Transposed, Strided, Reversed, Broadcast };
const Layout AllLayouts[] = {Layout::Contiguous, Layout::Transposed,
                             Layout::Strided, Layout::Reversed,
                             Layout::Broadcast};

/// An array of dtype T and shape Sh whose element at C-order index I is
/// Value(I) (for Broadcast: Value of the index with the first dim at 0),
/// stored in layout L.
NDArray makeLaid(DType T, const Shape &Sh, Layout L,
                 const std::function<double(int64_t)> &Value) {
  const int64_t N = numElementsOf(Sh);
  const int64_t Elt = dtypeSize(T);
  std::vector<double> V(N);
  for (int64_t I = 0; I < N; ++I)
    V[I] = Value(I);
  switch (L) {
  case Layout::Contiguous: return arr(T, Sh, V);
  case Layout::Transposed: {
    if (Sh.size() < 2)
      return arr(T, Sh, V);
    // Stored as the contiguous transpose, viewed back.
    Shape TS = {Sh[1], Sh[0]};
    std::vector<double> TV(N);
    for (int64_t I = 0; I < Sh[0]; ++I)
      for (int64_t J = 0; J < Sh[1]; ++J)
        TV[J * Sh[0] + I] = V[I * Sh[1] + J];
    NDArray S = arr(T, TS, TV);
    return S.view(Sh, {Elt, Elt * Sh[0]});
  }
  case Layout::Strided: {
    // Every other element along the last dim of a twice-as-wide array.
    Shape Wide = Sh;
    Wide.back() *= 2;
    NDArray W = NDArray::zeros(T, Wide);
    Shape St = W.strides();
    St.back() *= 2;
    NDArray View = W.view(Sh, St);
    for (int64_t I = 0; I < N; ++I)
      dispatchDType(T, [&](auto Tag) {
        using E = typename decltype(Tag)::type;
        *reinterpret_cast<E *>(View.data() + View.byteOffsetOf(I)) =
            static_cast<E>(V[I]);
      });
    return View;
  }
  case Layout::Reversed: {
    // The first dim stored backwards (a negative stride).
    NDArray S = NDArray::zeros(T, Sh);
    Shape St = S.strides();
    int64_t Off = Sh[0] > 0 ? (Sh[0] - 1) * St[0] : 0;
    St[0] = -St[0];
    NDArray View = S.view(Sh, St, Off);
    for (int64_t I = 0; I < N; ++I)
      dispatchDType(T, [&](auto Tag) {
        using E = typename decltype(Tag)::type;
        *reinterpret_cast<E *>(View.data() + View.byteOffsetOf(I)) =
            static_cast<E>(V[I]);
      });
    return View;
  }
  case Layout::Broadcast: {
    // The first row repeated with stride 0.
    Shape Row = Sh;
    Row[0] = 1;
    NDArray R = arr(T, Row, std::vector<double>(V.begin(),
                                                V.begin() + numElementsOf(Row)));
    Shape St = R.strides();
    St[0] = 0;
    return R.view(Sh, St);
  }
  }
  return arr(T, Sh, V);
}

/// dot by definition, in double, from getDouble.
std::vector<double> referenceDot(const NDArray &A, const NDArray &B) {
  auto At = [&](int64_t I, int64_t K) {
    return A.getDouble(A.rank() == 2 ? I * A.dim(1) + K : K);
  };
  auto Bt = [&](int64_t K, int64_t J) {
    return B.getDouble(B.rank() == 2 ? K * B.dim(1) + J : K);
  };
  int64_t M = A.rank() == 2 ? A.dim(0) : 1, Kd = A.shape().back(),
          N = B.rank() == 2 ? B.dim(1) : 1;
  std::vector<double> R;
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      double S = 0;
      for (int64_t K = 0; K < Kd; ++K)
        S += At(I, K) * Bt(K, J);
      R.push_back(S);
    }
  return R;
}

TEST(Dot, AllCasesAndLayoutsMatchTheReference) {
  OpRef Op = makeOp("dot", {}, 2);
  auto VA = [](int64_t I) { return double((I * 7) % 11) - 5; };
  auto VB = [](int64_t I) { return double((I * 5) % 13) * 0.5 - 3; };
  struct Case {
    Shape A, B;
  } Cases[] = {
      {{4, 3}, {3, 5}}, {{1, 3}, {3, 5}}, {{4, 3}, {3, 1}}, {{4, 1}, {1, 5}},
      {{4, 3}, {3}},    {{1, 3}, {3}},    {{3}, {3, 5}},    {{3}, {3, 1}},
      {{3}, {3}},       {{1}, {1}},       {{2, 7}, {7, 2}},
  };
  for (DType T : {F64, F32, DType::I32, DType::I8})
    for (const Case &C : Cases)
      for (Layout LA : AllLayouts)
        for (Layout LB : AllLayouts) {
          NDArray A = makeLaid(T, C.A, LA, VA);
          NDArray B = makeLaid(T, C.B, LB, VB);
          NDArray R = run1(*Op, {A, B});
          EXPECT_EQ(R.dtype(), T);
          EXPECT_TRUE(R.isContiguous());
          Shape Want;
          if (C.A.size() == 2)
            Want.push_back(C.A[0]);
          if (C.B.size() == 2)
            Want.push_back(C.B[1]);
          EXPECT_EQ(R.shape(), Want);
          SCOPED_TRACE(std::string(dtypeName(T)) + " " + shapeStr(C.A) + "·" +
                       shapeStr(C.B) + " layouts " + std::to_string(int(LA)) +
                       "," + std::to_string(int(LB)));
          expectValues(R, referenceDot(A, B), T == F32 ? 1e-6 : 0);
        }
}

TEST(Dot, ZeroSizeDims) {
  OpRef Op = makeOp("dot", {}, 2);
  NDArray Z = run1(*Op, {NDArray::zeros(F64, {2, 0}), NDArray::zeros(F64, {0, 3})});
  EXPECT_EQ(Z.shape(), (Shape{2, 3}));
  expectValues(Z, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(run1(*Op, {NDArray::zeros(F32, {0, 3}), iota(F32, {3, 2})}).shape(),
            (Shape{0, 2}));
  EXPECT_EQ(run1(*Op, {iota(F32, {2, 3}), NDArray::zeros(F32, {3, 0})}).shape(),
            (Shape{2, 0}));
  NDArray V = run1(*Op, {NDArray::zeros(F64, {0}), NDArray::zeros(F64, {0})});
  EXPECT_EQ(V.shape(), (Shape{}));
  expectValues(V, {0});
  expectValues(run1(*Op, {NDArray::zeros(DType::I32, {2, 0}),
                          NDArray::zeros(DType::I32, {0})}),
               {0, 0});
}

TEST(Dot, IntegersBoolsAndScalars) {
  OpRef Op = makeOp("dot", {}, 2);
  // int8 wraps around: 100*2 + 100*2 = 400 -> -112.
  NDArray W = run1(*Op, {arr(DType::I8, {2}, {100, 100}),
                         arr(DType::I8, {2}, {2, 2})});
  EXPECT_EQ(W.dtype(), DType::I8);
  expectValues(W, {-112});
  NDArray B = run1(*Op, {arr(DType::Bool, {2, 2}, {1, 0, 0, 0}),
                         arr(DType::Bool, {2}, {1, 1})});
  EXPECT_EQ(B.dtype(), DType::Bool);
  expectValues(B, {1, 0});
  NDArray Mixed = run1(*Op, {arr(DType::U8, {2}, {200, 1}),
                             arr(DType::I8, {2}, {-1, 3})});
  EXPECT_EQ(Mixed.dtype(), DType::I16);
  expectValues(Mixed, {-197});
  NDArray S = run1(*Op, {arr(F32, {}, {2}), iota(DType::I8, {2, 2})});
  EXPECT_EQ(S.dtype(), F32);
  EXPECT_EQ(S.shape(), (Shape{2, 2}));
  expectValues(S, {0, 2, 4, 6});
  NDArray S2 = run1(*Op, {iota(DType::I64, {3}), arr(DType::I64, {}, {-1})});
  expectValues(S2, {0, -1, -2});
  NDArray S3 = run1(*Op, {arr(DType::Bool, {}, {1}), arr(DType::Bool, {}, {1})});
  EXPECT_EQ(S3.dtype(), DType::Bool);
  expectValues(S3, {1});
}

TEST(Dot, LargeMatricesUseBlasCorrectly) {
  OpRef Op = makeOp("dot", {}, 2);
  auto V = [](int64_t I) { return double(I % 17) * 0.25 - 2; };
  NDArray A = makeLaid(F64, {70, 90}, Layout::Transposed, V);
  NDArray B = makeLaid(F64, {90, 40}, Layout::Contiguous, V);
  expectValues(run1(*Op, {A, B}), referenceDot(A, B), 1e-12);
  NDArray X = makeLaid(F32, {200, 30}, Layout::Strided, V);
  NDArray Y = makeLaid(F32, {30}, Layout::Contiguous, V);
  expectValues(run1(*Op, {X, Y}), referenceDot(X, Y), 1e-5);
}

} // namespace
