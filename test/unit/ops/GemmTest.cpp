//===- GemmTest.cpp - gemm: beta·c + alpha·op(a)·op(b) -------------------===//
//
// gemm's names, parameters and types (ranks, trans flags, c's broadcast,
// dtypes), its static and run-time errors, and its values against a plain
// reference in double for matrix and vector operands, every trans flag,
// several alpha and beta, c broadcast in every way, operands laid out
// contiguous, transposed, stepped, reversed and broadcast, f32 and f64 and
// zero-size dims; beta 0 never reads c (NaN does not propagate), alpha 0
// never reads a and b; compute allocates nothing but the output; the JIT
// (linkers c and c|py) runs it as compiled code with perform's results;
// the printer writes it back so that it parses to the same graph.
//
//===----------------------------------------------------------------------===//

#include "runtime/AllocationObserver.h"
#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "graphjit/Rewrite.h"
#include "ops/linalg/GemmOp.h"
#include "StructuralOpsTestUtil.h"
#include <functional>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

AttrValue real(double V) { return AttrValue::floating(V); }

struct Params {
  double Alpha = 1, Beta = 1;
  bool TransA = false, TransB = false;
};

AttrMap attrsOf(const Params &P) {
  AttrMap A{{"alpha", real(P.Alpha)}, {"beta", real(P.Beta)}};
  if (P.TransA)
    A["trans_a"] = flag(true);
  if (P.TransB)
    A["trans_b"] = flag(true);
  return A;
}

std::string inferGemm(TensorType C, TensorType A, TensorType B,
                      AttrMap Attrs = {}) {
  return infer("gemm", {std::move(C), std::move(A), std::move(B)},
               std::move(Attrs));
}

TEST(Gemm, NamesAndParameters) {
  OpRef Op = makeOp("gemm", {}, 3);
  EXPECT_EQ(Op->name(), "Gemm{alpha=1,beta=1,no_inplace}");
  EXPECT_EQ(Op->className(), "Gemm");
  EXPECT_EQ(Op->formatName(), "gemm");
  OpRef T = makeOp("gemm",
                   {{"alpha", AttrValue::floating(-0.1, "-0.10")},
                    {"trans_a", flag(true)}},
                   3);
  EXPECT_EQ(T->name(), "Gemm{alpha=-0.1,beta=1,trans_a,no_inplace}");
  EXPECT_EQ(makeOp("gemm",
                   {{"beta", real(0)}, {"alpha", real(1e-8)},
                    {"trans_b", flag(true)}, {"trans_a", flag(false)}},
                   3)
                ->name(),
            "Gemm{alpha=1e-08,beta=0,trans_b,no_inplace}");
  // The same parameters spelled differently are the same op.
  EXPECT_TRUE(makeOp("gemm", {{"alpha", num(1)}, {"trans_a", flag(false)}}, 3)
                  ->equals(*Op));
  EXPECT_FALSE(T->equals(*Op));

  std::optional<GemmParams> P = gemmParams(*T);
  ASSERT_TRUE(P.has_value());
  EXPECT_EQ(P->Alpha, -0.1);
  EXPECT_EQ(P->Beta, 1.0);
  EXPECT_TRUE(P->TransA);
  EXPECT_FALSE(P->TransB);
  EXPECT_FALSE(gemmParams(*makeOp("dot", {}, 2)).has_value());

  GemmParams Q;
  Q.Alpha = 2.5;
  Q.Beta = 0;
  Q.TransB = true;
  OpRef Made = llvm::cantFail(makeGemmOp(Q));
  EXPECT_EQ(Made->name(), "Gemm{alpha=2.5,beta=0,trans_b,no_inplace}");
  EXPECT_TRUE(*gemmParams(*Made) == Q);
  EXPECT_EQ(Made->attrs().at("alpha").str(), "2.5");
  EXPECT_EQ(Made->attrs().at("beta").str(), "0.0");
  Q.Alpha = std::numeric_limits<double>::infinity();
  llvm::Expected<OpRef> Bad = makeGemmOp(Q);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("finite"),
            std::string::npos);
}

TEST(Gemm, FlopsAndBytes) {
  OpRef Op = makeOp("gemm", {}, 3);
  // 2·M·N·K plus adding c.
  EXPECT_EQ(Op->flops({{4, 5}, {4, 3}, {3, 5}}, {{4, 5}}),
            2 * 4 * 5 * 3 + 20);
  OpRef Scaled = makeOp("gemm", {{"alpha", real(0.5)}, {"beta", real(2)}}, 3);
  EXPECT_EQ(Scaled->flops({{5}, {5, 4}, {4}}, {{5}}),
            2 * 5 * 4 + 5 + 2 * 5);
  OpRef T = makeOp("gemm", {{"beta", real(0)}, {"trans_a", flag(true)}}, 3);
  EXPECT_EQ(T->flops({{}, {3, 4}, {3, 5}}, {{4, 5}}), 2 * 4 * 5 * 3);
  NDArray C = iota(F64, {4, 5}), A = iota(F64, {3, 4}), B = iota(F64, {3, 5});
  NDArray Out = iota(F64, {4, 5});
  EXPECT_EQ(Op->bytesMoved({C, A, B}, {Out}), 8.0 * (20 + 12 + 15 + 20));
  EXPECT_EQ(T->bytesMoved({C, A, B}, {Out}), 8.0 * (12 + 15 + 20));
}

TEST(Gemm, InfersTypes) {
  EXPECT_EQ(inferGemm(ty(F64, {S("m"), S("n")}), ty(F64, {S("m"), K(3)}),
                      ty(F64, {K(3), S("n")})),
            "f64[m, n]");
  // A bias row, a column, a scalar: the product's dims.
  EXPECT_EQ(inferGemm(ty(F32, {K(5)}), ty(F32, {S("m"), K(3)}),
                      ty(F32, {K(3), K(5)})),
            "f32[m, 5]");
  EXPECT_EQ(inferGemm(ty(F32, {S("m"), K(1)}), ty(F32, {S("m"), K(3)}),
                      ty(F32, {K(3), K(5)})),
            "f32[m, 5]");
  EXPECT_EQ(inferGemm(ty(F64), ty(F64, {K(2), K(3)}), ty(F64, {K(3), K(4)})),
            "f64[2, 4]");
  // gemv both ways, and the inner product.
  EXPECT_EQ(inferGemm(ty(F64, {S("m")}), ty(F64, {S("m"), S("k")}),
                      ty(F64, {S("k")})),
            "f64[m]");
  EXPECT_EQ(inferGemm(ty(F64, {K(4)}), ty(F64, {S("k")}),
                      ty(F64, {S("k"), K(4)})),
            "f64[4]");
  EXPECT_EQ(inferGemm(ty(F64), ty(F64, {K(3)}), ty(F64, {K(3)})), "f64[]");
  // The trans flags.
  EXPECT_EQ(inferGemm(ty(F64, {K(4), K(5)}), ty(F64, {K(3), K(4)}),
                      ty(F64, {K(3), K(5)}), {{"trans_a", flag(true)}}),
            "f64[4, 5]");
  EXPECT_EQ(inferGemm(ty(F64, {K(4), K(5)}), ty(F64, {K(4), K(3)}),
                      ty(F64, {K(5), K(3)}), {{"trans_b", flag(true)}}),
            "f64[4, 5]");
  EXPECT_EQ(inferGemm(ty(F64, {K(1)}), ty(F64, {K(3), S("m")}),
                      ty(F64, {S("n"), K(3)}),
                      {{"trans_a", flag(true)}, {"trans_b", flag(true)}}),
            "f64[m, n]");
  EXPECT_EQ(inferGemm(ty(F64, {K(4)}), ty(F64, {K(3), K(4)}), ty(F64, {K(3)}),
                      {{"trans_a", flag(true)}}),
            "f64[4]");
  // As add(dot(a, b), c): c's known sizes and symbols refine the dims.
  EXPECT_EQ(inferGemm(ty(F64, {K(5)}), ty(F64, {K(2), K(3)}),
                      ty(F64, {K(3), S("n")})),
            "f64[2, 5]");
  EXPECT_EQ(inferGemm(ty(F64, {S("n")}), ty(F64, {K(2), K(3)}),
                      ty(F64, {K(3), K(1)})),
            "f64[2, n]");
}

TEST(Gemm, StaticErrors) {
  auto Err = [](TensorType C, TensorType A, TensorType B, AttrMap At = {}) {
    return inferGemm(std::move(C), std::move(A), std::move(B),
                     std::move(At));
  };
  EXPECT_EQ(Err(ty(F64, {K(2), K(4)}), ty(F64, {K(2), K(3)}),
                ty(F64, {K(4), K(4)})),
            "error: shapes (2,3) and (4,4) not aligned: 3 (dim 1 of a) != 4 "
            "(dim 0 of b)");
  EXPECT_EQ(Err(ty(F64, {K(3), K(4)}), ty(F64, {K(2), K(3)}),
                ty(F64, {K(3), K(4)}), {{"trans_a", flag(true)}}),
            "error: shapes (2,3) and (3,4) not aligned: 2 (dim 0 of a, "
            "trans_a) != 3 (dim 0 of b)");
  EXPECT_EQ(Err(ty(F64, {K(3)}), ty(F64, {K(3), K(2)}), ty(F64, {K(3), K(4)}),
                {{"trans_b", flag(true)}}),
            "error: shapes (3,2) and (3,4) not aligned: 2 (dim 1 of a) != 4 "
            "(dim 1 of b, trans_b)");
  EXPECT_EQ(Err(ty(F64), ty(F64), ty(F64, {K(3)})),
            "error: gemm takes a and b of rank 1 or 2, not a of shape ()");
  EXPECT_EQ(Err(ty(F64), ty(F64, {K(3)}), ty(F64, {K(3), K(3), K(3)})),
            "error: gemm takes a and b of rank 1 or 2, not b of shape (3,3,3)");
  EXPECT_EQ(Err(ty(F64), ty(F64, {S("k")}), ty(F64, {S("k")}),
                {{"trans_a", flag(true)}}),
            "error: trans_a transposes a matrix, but a has shape (k,)");
  EXPECT_EQ(Err(ty(F64, {K(2)}), ty(F64, {K(2), K(3)}), ty(F64, {K(3)}),
                {{"trans_b", flag(true)}}),
            "error: trans_b transposes a matrix, but b has shape (3,)");
  // c must not make the result larger than the product.
  EXPECT_EQ(Err(ty(F64, {S("m"), K(4)}), ty(F64, {S("m"), K(3)}),
                ty(F64, {K(3)})),
            "error: c of shape (m,4) does not broadcast to the shape (m,) of "
            "dot(op(a), op(b)): c may be broadcast to the product, not make "
            "it larger");
  EXPECT_EQ(Err(ty(F64, {K(4)}), ty(F64, {K(2), K(3)}), ty(F64, {K(3), K(5)})),
            "error: c of shape (4,) does not broadcast to the shape (2,5) of "
            "dot(op(a), op(b)): c may be broadcast to the product, not make "
            "it larger");
  EXPECT_NE(Err(ty(F64, {K(3), K(5)}), ty(F64, {K(1), K(3)}),
                ty(F64, {K(3), K(5)}))
                .find("c of shape (3,5) does not broadcast"),
            std::string::npos);
  EXPECT_NE(Err(ty(F64, {K(1)}), ty(F64, {K(3)}), ty(F64, {K(3)}))
                .find("c of shape (1,) does not broadcast to the shape ()"),
            std::string::npos);
  // Dtypes: one, and a float.
  EXPECT_EQ(Err(ty(F64), ty(F32, {K(3)}), ty(F32, {K(3)})),
            "error: gemm takes c, a and b of one dtype, f32 or f64, not f64, "
            "f32 and f32");
  EXPECT_EQ(Err(ty(DType::I32), ty(DType::I32, {K(3)}),
                ty(DType::I32, {K(3)})),
            "error: gemm takes c, a and b of one dtype, f32 or f64, not i32, "
            "i32 and i32");
  // Attributes.
  EXPECT_EQ(makeError("gemm", {{"alpha", flag(true)}}, 3),
            "attr:alpha: attribute 'alpha' of 'gemm' must be a number, not "
            "'true'");
  EXPECT_EQ(makeError("gemm", {{"trans_a", num(1)}}, 3),
            "attr:trans_a: attribute 'trans_a' of 'gemm' must be true or "
            "false, not '1'");
  EXPECT_NE(makeError("gemm", {{"gamma", real(1)}}, 3)
                .find("attr:gamma: op 'gemm' has no attribute 'gamma' (it "
                      "takes: alpha, beta, trans_a, trans_b, inplace)"),
            std::string::npos);
  EXPECT_NE(makeError("gemm", {}, 2).find("takes 3 inputs"),
            std::string::npos);
}

TEST(Gemm, RunTimeErrors) {
  OpRef Op = makeOp("gemm", {}, 3);
  OpRef TA = makeOp("gemm", {{"trans_a", flag(true)}}, 3);
  EXPECT_EQ(runError(*Op, {iota(F64, {2}), iota(F64, {2, 3}), iota(F64, {4})}),
            "shapes (2,3) and (4,) not aligned: 3 (dim 1 of a) != 4 (dim 0 "
            "of b)");
  EXPECT_EQ(runError(*TA, {iota(F64, {3}), iota(F64, {2, 3}), iota(F64, {3})}),
            "shapes (2,3) and (3,) not aligned: 2 (dim 0 of a, trans_a) != 3 "
            "(dim 0 of b)");
  EXPECT_EQ(runError(*TA, {iota(F64, {}), iota(F64, {3}), iota(F64, {3})}),
            "trans_a transposes a matrix, but a has shape (3,)");
  EXPECT_EQ(
      runError(*Op, {iota(F64, {4}), iota(F64, {2, 3}), iota(F64, {3, 5})}),
      "c of shape (4,) does not broadcast to the shape (2,5) of dot(op(a), "
      "op(b)): c may be broadcast to the product, not make it larger");
  EXPECT_EQ(
      runError(*Op, {iota(F64, {3, 5}), iota(F64, {1, 3}), iota(F64, {3, 5})}),
      "c of shape (3,5) does not broadcast to the shape (1,5) of dot(op(a), "
      "op(b)): c may be broadcast to the product, not make it larger");
  EXPECT_EQ(runError(*Op, {iota(F64, {2, 1}), iota(F64, {2}), iota(F64, {2})}),
            "c of shape (2,1) does not broadcast to the shape () of dot(op(a), "
            "op(b)): c may be broadcast to the product, not make it larger");
  EXPECT_EQ(runError(*Op, {iota(F64, {}), iota(F64, {2, 2, 2}), iota(F64, {2})}),
            "gemm takes a and b of rank 1 or 2, not a of shape (2,2,2)");
  EXPECT_EQ(runError(*Op, {iota(F32, {}), iota(F64, {2}), iota(F64, {2})}),
            "gemm takes c, a and b of one dtype, f32 or f64, not f32, f64 and "
            "f64");
  EXPECT_EQ(runError(*Op, {iota(DType::I64, {}), iota(DType::I64, {2}),
                           iota(DType::I64, {2})}),
            "gemm takes c, a and b of one dtype, f32 or f64, not i64, i64 and "
            "i64");
}

/// Ways to lay out the same logical matrix (or vector) in memory.
enum class Layout { Contiguous, Transposed, Strided, Reversed, Broadcast };
const Layout AllLayouts[] = {Layout::Contiguous, Layout::Transposed,
                             Layout::Strided, Layout::Reversed,
                             Layout::Broadcast};
const char *layoutName(Layout L) {
  const char *Names[] = {"contiguous", "transposed", "strided", "reversed",
                         "broadcast"};
  return Names[int(L)];
}

/// Writes V (C order) into the elements of the view Dst.
void fill(const NDArray &Dst, const std::vector<double> &V) {
  for (size_t I = 0; I < V.size(); ++I)
    dispatchDType(Dst.dtype(), [&](auto Tag) {
      using E = typename decltype(Tag)::type;
      *reinterpret_cast<E *>(Dst.data() + Dst.byteOffsetOf(I)) =
          static_cast<E>(V[I]);
    });
}

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
  if (Sh.empty())
    return arr(T, Sh, V);
  switch (L) {
  case Layout::Contiguous:
    return arr(T, Sh, V);
  case Layout::Transposed: {
    if (Sh.size() < 2)
      return arr(T, Sh, V);
    // Stored as the contiguous transpose, viewed back.
    NDArray S = NDArray::zeros(T, {Sh[1], Sh[0]});
    NDArray View = S.view(Sh, {Elt, Elt * Sh[0]});
    fill(View, V);
    return View;
  }
  case Layout::Strided: {
    // Every other element along the last dim of a twice-as-wide array.
    Shape Wide = Sh;
    Wide.back() *= 2;
    NDArray W = NDArray::zeros(T, Wide);
    Shape St = W.strides();
    St.back() *= 2;
    NDArray View = W.view(Sh, St);
    fill(View, V);
    return View;
  }
  case Layout::Reversed: {
    // The first dim stored backwards (a negative stride).
    NDArray S = NDArray::zeros(T, Sh);
    Shape St = S.strides();
    int64_t Off = Sh[0] > 0 ? (Sh[0] - 1) * St[0] : 0;
    St[0] = -St[0];
    NDArray View = S.view(Sh, St, Off);
    fill(View, V);
    return View;
  }
  case Layout::Broadcast: {
    // The first row repeated with stride 0.
    Shape Row = Sh;
    Row[0] = 1;
    NDArray R = arr(T, Row,
                    std::vector<double>(V.begin(),
                                        V.begin() + numElementsOf(Row)));
    Shape St = R.strides();
    St[0] = 0;
    return R.view(Sh, St);
  }
  }
  return arr(T, Sh, V);
}

/// The product's shape: [M if a is a matrix] + [N if b is].
Shape productShape(const NDArray &A, const NDArray &B, const Params &P) {
  Shape S;
  if (A.rank() == 2)
    S.push_back(P.TransA ? A.dim(1) : A.dim(0));
  if (B.rank() == 2)
    S.push_back(P.TransB ? B.dim(0) : B.dim(1));
  return S;
}

/// gemm by definition, in double from getDouble: beta·c (c broadcast; not
/// read when beta is 0) + alpha·op(a)·op(b) (not computed when alpha is 0).
std::vector<double> referenceGemm(const NDArray &C, const NDArray &A,
                                  const NDArray &B, const Params &P) {
  auto At = [&](int64_t I, int64_t K) {
    if (A.rank() == 1)
      return A.getDouble(K);
    return P.TransA ? A.getDouble(K * A.dim(1) + I)
                    : A.getDouble(I * A.dim(1) + K);
  };
  auto Bt = [&](int64_t K, int64_t J) {
    if (B.rank() == 1)
      return B.getDouble(K);
    return P.TransB ? B.getDouble(J * B.dim(1) + K)
                    : B.getDouble(K * B.dim(1) + J);
  };
  int64_t M = A.rank() == 2 ? (P.TransA ? A.dim(1) : A.dim(0)) : 1;
  int64_t Kd = A.rank() == 2 ? (P.TransA ? A.dim(0) : A.dim(1)) : A.dim(0);
  int64_t N = B.rank() == 2 ? (P.TransB ? B.dim(0) : B.dim(1)) : 1;
  Shape Out = productShape(A, B, P);
  std::vector<double> R;
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      // c's element for output (I, J): dims aligned right, size 1 repeats.
      std::vector<int64_t> OutIdx;
      if (A.rank() == 2)
        OutIdx.push_back(I);
      if (B.rank() == 2)
        OutIdx.push_back(J);
      int64_t Flat = 0;
      for (unsigned D = 0; D < C.rank(); ++D) {
        int64_t O = OutIdx[Out.size() - C.rank() + D];
        Flat = Flat * C.dim(D) + (C.dim(D) == 1 ? 0 : O);
      }
      double S = 0;
      if (P.Alpha != 0)
        for (int64_t K = 0; K < Kd; ++K)
          S += At(I, K) * Bt(K, J);
      double V = P.Alpha != 0 ? P.Alpha * S : 0;
      if (P.Beta != 0)
        V += P.Beta * C.getDouble(Flat);
      R.push_back(V);
    }
  return R;
}

struct Case {
  Shape A, B; ///< As stored: a trans flag reads the transpose.
  bool TransA, TransB;
};

/// The c shapes that broadcast to Product: itself, each dim as 1, the last
/// dim alone (a bias row), a scalar.
std::vector<Shape> cShapes(const Shape &Product) {
  std::vector<Shape> R = {Product, Shape{}};
  if (Product.size() == 2) {
    R.push_back({Product[1]});
    R.push_back({Product[0], 1});
    R.push_back({1, Product[1]});
    R.push_back({1});
  } else if (Product.size() == 1) {
    R.push_back({1});
  }
  return R;
}

TEST(Gemm, AllCasesAndLayoutsMatchTheReference) {
  auto VA = [](int64_t I) { return double((I * 7) % 11) - 5; };
  auto VB = [](int64_t I) { return double((I * 5) % 13) * 0.5 - 3; };
  auto VC = [](int64_t I) { return double((I * 3) % 7) * 0.25 - 1; };
  const Case Cases[] = {
      {{4, 3}, {3, 5}, false, false}, {{3, 4}, {3, 5}, true, false},
      {{4, 3}, {5, 3}, false, true},  {{3, 4}, {5, 3}, true, true},
      {{1, 3}, {3, 5}, false, false}, {{4, 3}, {3, 1}, false, false},
      {{4, 1}, {1, 5}, false, false}, {{1, 4}, {1, 5}, true, false},
      {{4, 3}, {3}, false, false},    {{3, 4}, {3}, true, false},
      {{3}, {3, 5}, false, false},    {{3}, {5, 3}, false, true},
      {{3}, {3}, false, false},       {{1}, {1}, false, false},
      {{2, 7}, {7, 2}, false, false}, {{7, 2}, {2, 7}, true, true},
  };
  const std::pair<double, double> Scales[] = {
      {1, 1}, {-0.5, 2}, {2, 0}, {0.1, -1}, {0, 1.5}};
  for (DType T : {F64, F32})
    for (const Case &Cs : Cases)
      for (auto [Alpha, Beta] : Scales)
        for (Layout LA : AllLayouts)
          for (Layout LB : AllLayouts) {
            Params P{Alpha, Beta, Cs.TransA, Cs.TransB};
            OpRef Op = makeOp("gemm", attrsOf(P), 3);
            NDArray A = makeLaid(T, Cs.A, LA, VA);
            NDArray B = makeLaid(T, Cs.B, LB, VB);
            Shape Product = productShape(A, B, P);
            // Every c shape with contiguous operands; the full c in the
            // layout of a, so that c is strided too.
            std::vector<Shape> CS = cShapes(Product);
            if (LA != Layout::Contiguous || LB != Layout::Contiguous)
              CS = {Product};
            for (const Shape &CShape : CS) {
              NDArray C = makeLaid(T, CShape, LA, VC);
              SCOPED_TRACE(Op->name() + " " + dtypeName(T).str() + " c" +
                           shapeStr(CShape) + " a" + shapeStr(Cs.A) + " " +
                           layoutName(LA) + ", b" + shapeStr(Cs.B) + " " +
                           layoutName(LB));
              NDArray R = run1(*Op, {C, A, B});
              EXPECT_EQ(R.dtype(), T);
              EXPECT_EQ(R.shape(), Product);
              EXPECT_TRUE(R.isContiguous());
              expectValues(R, referenceGemm(C, A, B, P),
                           T == F32 ? 1e-6 : 1e-14);
            }
          }
}

TEST(Gemm, LargeOperandsUseBlasCorrectly) {
  auto V = [](int64_t I) { return double(I % 17) * 0.25 - 2; };
  Params P{-0.3, 0.7, true, false};
  OpRef Op = makeOp("gemm", attrsOf(P), 3);
  for (DType T : {F64, F32}) {
    NDArray A = makeLaid(T, {90, 70}, Layout::Transposed, V);
    NDArray B = makeLaid(T, {90, 40}, Layout::Contiguous, V);
    NDArray C = makeLaid(T, {40}, Layout::Contiguous, V);
    expectValues(run1(*Op, {C, A, B}), referenceGemm(C, A, B, P),
                 T == F32 ? 1e-5 : 1e-12);
    // gemv on a stepped matrix (plain loops) and on a transposed one.
    Params Q{1.5, 1, false, false};
    OpRef Gemv = makeOp("gemm", attrsOf(Q), 3);
    NDArray X = makeLaid(T, {200, 30}, Layout::Strided, V);
    NDArray Y = makeLaid(T, {30}, Layout::Contiguous, V);
    NDArray Z = makeLaid(T, {200}, Layout::Reversed, V);
    expectValues(run1(*Gemv, {Z, X, Y}), referenceGemm(Z, X, Y, Q),
                 T == F32 ? 1e-5 : 1e-12);
    NDArray XT = makeLaid(T, {200, 30}, Layout::Transposed, V);
    expectValues(run1(*Gemv, {Z, XT, Y}), referenceGemm(Z, XT, Y, Q),
                 T == F32 ? 1e-5 : 1e-12);
  }
}

TEST(Gemm, BetaZeroNeverReadsC) {
  for (DType T : {F64, F32}) {
    OpRef Op = makeOp("gemm", {{"beta", real(0)}, {"alpha", real(2)}}, 3);
    NDArray A = arr(T, {2, 2}, {1, 2, 3, 4});
    NDArray B = arr(T, {2, 2}, {1, 0, 0, 1});
    // gemm, gemv, the inner product; c full, broadcast and scalar.
    expectValues(run1(*Op, {arr(T, {2, 2}, {NaN, Inf, -Inf, NaN}), A, B}),
                 {2, 4, 6, 8});
    expectValues(run1(*Op, {arr(T, {2}, {NaN, NaN}), A, B}), {2, 4, 6, 8});
    expectValues(run1(*Op, {arr(T, {2}, {NaN, Inf}), A,
                            arr(T, {2}, {1, 1})}),
                 {6, 14});
    expectValues(run1(*Op, {arr(T, {}, {NaN}), arr(T, {2}, {1, 2}),
                            arr(T, {2}, {3, 4})}),
                 {22});
    // A strided a (plain loops) too.
    NDArray AS = makeLaid(T, {2, 2}, Layout::Strided,
                          [](int64_t I) { return double(I + 1); });
    expectValues(run1(*Op, {arr(T, {2, 2}, {NaN, NaN, NaN, NaN}), AS, B}),
                 {2, 4, 6, 8});
    // beta != 0 reads it: NaN propagates.
    OpRef One = makeOp("gemm", {}, 3);
    expectValues(run1(*One, {arr(T, {2}, {NaN, 1}), A, B}),
                 {NaN, 3, NaN, 5});
    // alpha 0 reads neither a nor b.
    OpRef Zero = makeOp("gemm", {{"alpha", real(0)}, {"beta", real(3)}}, 3);
    expectValues(run1(*Zero, {arr(T, {2}, {1, 2}),
                              arr(T, {2, 2}, {NaN, NaN, NaN, NaN}), B}),
                 {3, 6, 3, 6});
  }
}

TEST(Gemm, ZeroSizeDims) {
  for (DType T : {F64, F32}) {
    OpRef Op = makeOp("gemm", {{"beta", real(2)}}, 3);
    // K = 0: beta·c.
    NDArray R = run1(*Op, {arr(T, {3}, {1, 2, 3}), NDArray::zeros(T, {2, 0}),
                           NDArray::zeros(T, {0, 3})});
    EXPECT_EQ(R.shape(), (Shape{2, 3}));
    expectValues(R, {2, 4, 6, 2, 4, 6});
    expectValues(run1(*Op, {arr(T, {}, {5}), NDArray::zeros(T, {0}),
                            NDArray::zeros(T, {0})}),
                 {10});
    expectValues(run1(*Op, {arr(T, {2}, {1, -1}), NDArray::zeros(T, {2, 0}),
                            NDArray::zeros(T, {0})}),
                 {2, -2});
    OpRef T0 = makeOp("gemm", {{"beta", real(0)}, {"trans_a", flag(true)}}, 3);
    expectValues(run1(*T0, {arr(T, {}, {NaN}), NDArray::zeros(T, {0, 2}),
                            NDArray::zeros(T, {0, 2})}),
                 {0, 0, 0, 0});
    // M = 0, N = 0: empty results.
    EXPECT_EQ(run1(*Op, {arr(T, {}, {1}), NDArray::zeros(T, {0, 3}),
                         iota(T, {3, 2})})
                  .shape(),
              (Shape{0, 2}));
    EXPECT_EQ(run1(*Op, {NDArray::zeros(T, {2, 0}), iota(T, {2, 3}),
                         NDArray::zeros(T, {3, 0})})
                  .shape(),
              (Shape{2, 0}));
    EXPECT_EQ(run1(*Op, {NDArray::zeros(T, {0}), NDArray::zeros(T, {0, 3}),
                         iota(T, {3})})
                  .shape(),
              (Shape{0}));
    EXPECT_EQ(run1(*T0, {NDArray::zeros(T, {1}), iota(T, {3, 0}),
                        iota(T, {3})})
                  .shape(),
              (Shape{0}));
  }
}

/// Counts the buffers allocated on this thread while it is installed.
class CountingObserver final : public AllocationObserver {
public:
  CountingObserver() { ThreadAllocationObserver = this; }
  ~CountingObserver() override { ThreadAllocationObserver = nullptr; }
  uint64_t allocated(size_t) override {
    ++Count;
    return 0;
  }
  void freed(size_t, uint64_t) override {}
  int Count = 0;
};

TEST(Gemm, AllocatesOnlyTheOutput) {
  auto V = [](int64_t I) { return double(I % 5); };
  for (Layout L : AllLayouts)
    for (DType T : {F64, F32}) {
      NDArray A = makeLaid(T, {6, 5}, L, V);
      NDArray B = makeLaid(T, {6, 4}, Layout::Strided, V);
      NDArray C = makeLaid(T, {4}, Layout::Reversed, V);
      NDArray X = makeLaid(T, {6}, Layout::Strided, V);
      OpRef Op = makeOp("gemm", {{"trans_a", flag(true)}}, 3);
      std::vector<NDArray> Out(1);
      {
        CountingObserver Counter;
        ASSERT_FALSE(bool(Op->perform({C.view({5, 4}, {0, C.strides()[0]}),
                                       A, B},
                                      Out, ExecContext())));
        EXPECT_EQ(Counter.Count, 1) << layoutName(L);
      }
      std::vector<NDArray> OutV(1);
      {
        CountingObserver Counter;
        ASSERT_FALSE(bool(Op->perform({C.view({5}, {0}), A, X}, OutV,
                                      ExecContext())));
        EXPECT_EQ(Counter.Count, 1) << layoutName(L);
      }
      Params P{1, 1, true, false};
      expectValues(Out[0],
                   referenceGemm(C.view({5, 4}, {0, C.strides()[0]}), A, B,
                                 P),
                   1e-6);
      expectValues(OutV[0], referenceGemm(C.view({5}, {0}), A, X, P), 1e-6);
    }
}

/// A function f(c, a, b) -> gemm(c, a, b, P), compiled as written with
/// Linker.
struct Compiled {
  std::unique_ptr<GraphModule> M = std::make_unique<GraphModule>();
  std::unique_ptr<Function> Fn;
};

Compiled compileGemm(const std::vector<TensorType> &Types, const Params &P,
                     LinkerKind Linker) {
  Compiled R;
  FunctionBuilder B(*R.M, "f");
  std::vector<Variable *> In;
  for (size_t I = 0; I < Types.size(); ++I)
    In.push_back(B.input("x" + std::to_string(I), Types[I]));
  B.output(llvm::cantFail(B.apply("gemm", In, attrsOf(P))));
  if (Types[1].rank() == 2) {
    // The same through a transposed view of a and the other trans_a.
    Variable *AT = llvm::cantFail(B.apply("transpose", {In[1]}));
    Params Q = P;
    Q.TransA = !P.TransA;
    B.output(llvm::cantFail(B.apply("gemm", {In[0], AT, In[2]}, attrsOf(Q))));
  }
  FunctionGraph *F = llvm::cantFail(B.finish());
  CompileOptions Opts;
  Opts.Linker = Linker;
  RewriteOptions None;
  None.Optimizer = "None";
  Opts.Rewrite = None;
  auto Fn = Function::compile(*F, Opts);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return R;
  }
  R.Fn = std::move(*Fn);
  return R;
}

TEST(Gemm, JitRunsItAsCompiledCode) {
  auto V = [](int64_t I) { return double((I * 7) % 11) * 0.5 - 2; };
  struct JitCase {
    Shape C, A, B;
    Params P;
  } Cases[] = {
      {{5}, {4, 3}, {3, 5}, {-0.5, 1, false, false}},
      {{4, 5}, {3, 4}, {3, 5}, {1, 0, true, false}},
      {{4}, {4, 3}, {3}, {2, 0.5, false, false}},
      {{}, {3}, {3}, {1, 1, false, false}},
      {{4, 1}, {4, 3}, {5, 3}, {1, -1, false, true}},
      {{2}, {2, 0}, {0, 2}, {1, 3, false, false}},
  };
  for (DType T : {F64, F32})
    for (const JitCase &Cs : Cases) {
      std::vector<TensorType> Types;
      for (const Shape *S : {&Cs.C, &Cs.A, &Cs.B}) {
        std::vector<Dim> D;
        for (int64_t N : *S)
          D.push_back(Dim::known(N));
        Types.push_back(TensorType(T, D));
      }
      std::vector<NDArray> Args = {makeLaid(T, Cs.C, Layout::Contiguous, V),
                                   makeLaid(T, Cs.A, Layout::Contiguous, V),
                                   makeLaid(T, Cs.B, Layout::Transposed, V)};
      SCOPED_TRACE(dtypeName(T).str() + " a" + shapeStr(Cs.A));
      Compiled Py = compileGemm(Types, Cs.P, LinkerKind::Py);
      ASSERT_TRUE(Py.Fn);
      auto Want = Py.Fn->call(Args);
      ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
      const size_t NOut = Cs.A.size() == 2 ? 2 : 1;
      ASSERT_EQ(Want->size(), NOut);
      std::vector<double> Ref =
          referenceGemm(Args[0], Args[1], Args[2], Cs.P);
      for (const NDArray &R : *Want)
        expectValues(R, Ref, T == F32 ? 1e-6 : 1e-14);
      for (LinkerKind L : {LinkerKind::C, LinkerKind::CPy}) {
        Compiled J = compileGemm(Types, Cs.P, L);
        ASSERT_TRUE(J.Fn);
        for (const Apply *N : J.Fn->graph().applies()) {
          if (N->op().className() == "Gemm") {
            EXPECT_TRUE(J.Fn->isCompiled(N->id())) << N->displayName();
          }
        }
        auto Got = J.Fn->call(Args);
        ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
        ASSERT_EQ(Got->size(), NOut);
        // The same library code: the same bits as perform.
        for (unsigned I = 0; I < NOut; ++I)
          EXPECT_TRUE((*Got)[I].identical((*Want)[I])) << "output " << I;
      }
    }
  // Run-time errors read as perform's, from compiled code too.
  std::vector<TensorType> Types = {TensorType(F64, {Dim::symbolic("p")}),
                                   TensorType(F64, {Dim::symbolic("m"),
                                                    Dim::symbolic("k")}),
                                   TensorType(F64, {Dim::symbolic("k"),
                                                    Dim::symbolic("n")})};
  Compiled J = compileGemm(Types, Params{}, LinkerKind::C);
  ASSERT_TRUE(J.Fn);
  auto Got = J.Fn->call({iota(F64, {4}), iota(F64, {2, 3}), iota(F64, {3, 5})});
  ASSERT_FALSE(bool(Got));
  EXPECT_NE(llvm::toString(Got.takeError())
                .find("c of shape (4,) does not broadcast to the shape (2,5)"),
            std::string::npos);
}

TEST(Gemm, PrintsAndParsesBack) {
  const char *Text =
      "func f(c: f32[n], a: f32[k, m], b: f32[k, n], w: f64[m, k], "
      "v: f64[k]) -> (r, s, t) {\n"
      "  r = gemm(c, a, b, alpha=-0.10, beta=1.0, trans_a=true)\n"
      "  s = gemm(0.0, w, v, beta=0.0)\n"
      "  t = gemm(c, a, b, trans_a=true, alpha=2, trans_b=false)\n"
      "}\n";
  auto M = parseGraph(Text, "gemm.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const FunctionGraph &F = *(*M)->functions()[0];
  ASSERT_EQ(F.applies().size(), 3u);
  EXPECT_EQ(F.applies()[0]->op().name(),
            "Gemm{alpha=-0.1,beta=1,trans_a,no_inplace}");
  EXPECT_EQ(F.applies()[1]->op().name(), "Gemm{alpha=1,beta=0,no_inplace}");
  EXPECT_EQ(F.applies()[2]->op().name(),
            "Gemm{alpha=2,beta=1,trans_a,no_inplace}");
  EXPECT_EQ(F.outputs()[0]->type().str(), "f32[m, n]");
  EXPECT_EQ(F.outputs()[1]->type().str(), "f64[m]");
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  printModule(**M, OS);
  EXPECT_NE(Printed.find("gemm(c, a, b, alpha=-0.10, beta=1.0, trans_a=true)"),
            std::string::npos)
      << Printed;
  EXPECT_NE(Printed.find("gemm(0.0, w, v, beta=0.0)"), std::string::npos)
      << Printed;
  auto Again = parseGraph(Printed, "printed.graph");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError()) << Printed;
  EXPECT_EQ(canonicalDump(**M), canonicalDump(**Again));
  // An op made by makeGemmOp prints and parses back the same.
  GemmParams P;
  P.Alpha = -0.25;
  P.Beta = 0.5;
  P.TransB = true;
  OpRef Op = llvm::cantFail(makeGemmOp(P));
  OpRef Back = makeOp("gemm", Op->attrs(), 3);
  EXPECT_TRUE(Back->equals(*Op));
  // Static errors point at the statement.
  auto Bad = parseGraph("func f(c: f64[4], a: f64[2, 3], b: f64[3, 5]) -> "
                        "(r) {\n  r = gemm(c, a, b)\n}\n",
                        "bad.graph");
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find("bad.graph:2:"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("c of shape (4,) does not broadcast"), std::string::npos)
      << Msg;
}

} // namespace
