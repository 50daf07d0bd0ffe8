//===- ReductionOpsTest.cpp - sum, prod, max, min, mean, all, any, argmax --===//
//
// NumPy's result dtypes, axis handling (lists, negative, all, keepdims,
// duplicates), names and classes, reductions over strided views, empty
// reductions, NaN propagation, integer wrap-around, argmax ties and NaN,
// and max_and_argmax's two outputs. Expected values are NumPy 1.24's.
//
//===----------------------------------------------------------------------===//

#include "StructuralOpsTestUtil.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

AttrMap axes(std::vector<int64_t> A, bool KeepDims = false) {
  AttrMap M = {{"axis", ints(std::move(A))}};
  if (KeepDims)
    M["keepdims"] = flag(true);
  return M;
}

TEST(Reduction, ResultDTypes) {
  struct Row {
    DType In;
    const char *Sum, *Mean, *Max, *All;
  } Rows[] = {
      {DType::Bool, "i64", "f64", "bool", "bool"},
      {DType::I8, "i64", "f64", "i8", "bool"},
      {DType::I16, "i64", "f64", "i16", "bool"},
      {DType::I32, "i64", "f64", "i32", "bool"},
      {DType::I64, "i64", "f64", "i64", "bool"},
      {DType::U8, "i64", "f64", "u8", "bool"},
      {F32, "f32", "f32", "f32", "bool"},
      {F64, "f64", "f64", "f64", "bool"},
  };
  for (const Row &R : Rows) {
    TensorType T = ty(R.In, {K(2)});
    EXPECT_EQ(infer("sum", {T}), std::string(R.Sum) + "[]");
    EXPECT_EQ(infer("prod", {T}), std::string(R.Sum) + "[]");
    EXPECT_EQ(infer("mean", {T}), std::string(R.Mean) + "[]");
    EXPECT_EQ(infer("max", {T}), std::string(R.Max) + "[]");
    EXPECT_EQ(infer("min", {T}), std::string(R.Max) + "[]");
    EXPECT_EQ(infer("all", {T}), std::string(R.All) + "[]");
    EXPECT_EQ(infer("any", {T}), std::string(R.All) + "[]");
    EXPECT_EQ(infer("argmax", {T}), "i64[]");
    EXPECT_EQ(infer("argmin", {T}), "i64[]");
  }
}

TEST(Reduction, InfersDims) {
  TensorType T = ty(F64, {S("n"), K(3), S("m")});
  EXPECT_EQ(infer("sum", {T}, axes({1})), "f64[n, m]");
  EXPECT_EQ(infer("sum", {T}, axes({-1, 0})), "f64[3]");
  EXPECT_EQ(infer("sum", {T}, axes({-1}, true)), "f64[n, 3, 1]");
  EXPECT_EQ(infer("sum", {T}, {{"keepdims", flag(true)}}), "f64[1, 1, 1]");
  EXPECT_EQ(infer("sum", {T}, axes({})), "f64[n, 3, m]");
  EXPECT_EQ(infer("mean", {T}, {{"axis", num(0)}}), "f64[3, m]");
  EXPECT_EQ(infer("argmax", {T}, axes({1}, true)), "i64[n, 1, m]");
  EXPECT_EQ(infer("argmin", {T}, {{"keepdims", flag(true)}}), "i64[1, 1, 1]");
  EXPECT_EQ(infer("max_and_argmax", {T}, axes({2})), "f64[n, 3]; i64[n, 3]");
  EXPECT_EQ(infer("sum", {ty(F64)}), "f64[]");
}

TEST(Reduction, AxisErrors) {
  TensorType T = ty(F64, {S("n"), K(3)});
  EXPECT_EQ(infer("sum", {T}, axes({2})),
            "error: axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(infer("max", {T}, axes({0, -2})),
            "error: duplicate value in 'axis'");
  EXPECT_EQ(makeError("sum", axes({1, 1})),
            "attr:axis: duplicate value in 'axis'");
  EXPECT_EQ(makeError("argmax", axes({0, 1})),
            "attr:axis: 'argmax' takes a single axis or none (all axes, "
            "flattened), not [0,1]");
  EXPECT_NE(makeError("max_and_argmax", axes({})).find("attr:axis:"),
            std::string::npos);
  EXPECT_NE(makeError("sum", {{"axis", AttrValue::floating(1.0)}})
                .find("attr:axis:"),
            std::string::npos);
  EXPECT_NE(makeError("sum", {{"keepdims", num(1)}}).find("attr:keepdims:"),
            std::string::npos);
  EXPECT_NE(makeError("max_and_argmax", {{"keepdims", flag(true)}})
                .find("attr:keepdims:"),
            std::string::npos);
  // Known-empty reductions without identity are static errors.
  EXPECT_EQ(infer("max", {ty(F64, {K(0), K(3)})}, axes({0})),
            "error: zero-size array to reduction operation maximum which has "
            "no identity");
  EXPECT_EQ(infer("max", {ty(F64, {K(0), K(3)})}, axes({1})), "f64[0]");
  EXPECT_EQ(infer("argmin", {ty(F64, {K(3), K(0)})}, axes({1})),
            "error: attempt to get argmin of an empty sequence");
}

TEST(Reduction, NamesAndClasses) {
  EXPECT_EQ(makeOp("sum", axes({0}))->name(), "Sum{axis=[0]}");
  EXPECT_EQ(makeOp("sum")->name(), "Sum{axis=all}");
  EXPECT_EQ(makeOp("max", axes({1}, true))->name(),
            "Max{axis=[1], keepdims=True}");
  EXPECT_EQ(makeOp("mean")->name(), "Mean{axis=all}");
  EXPECT_EQ(makeOp("prod", axes({0, -1}))->name(), "Prod{axis=[0, -1]}");
  EXPECT_EQ(makeOp("argmax", axes({1}))->name(), "Argmax{axis=[1]}");
  EXPECT_EQ(makeOp("argmin")->name(), "Argmin{axis=all}");
  EXPECT_EQ(makeOp("max_and_argmax", axes({1}))->name(),
            "MaxAndArgmax{axis=[1]}");
  for (const char *N : {"sum", "prod", "max", "min", "all", "any"})
    EXPECT_EQ(makeOp(N)->className(), "CAReduce") << N;
  EXPECT_EQ(makeOp("mean")->className(), "Mean");
  EXPECT_EQ(makeOp("argmax")->className(), "Argmax");
  EXPECT_EQ(makeOp("argmin")->className(), "Argmax");
  EXPECT_EQ(makeOp("max_and_argmax")->className(), "MaxAndArgmax");
  EXPECT_EQ(makeOp("max_and_argmax")->numOutputs(), 2u);
  EXPECT_EQ(makeOp("sum")->flops({{3, 4}}, {{}}), 12);
  EXPECT_EQ(makeOp("sum")->outputAlias(0).K, OutputAlias::Created);
}

TEST(Reduction, SumOverStridedViews) {
  NDArray X = iota(F64, {3, 4});
  NDArray T = X.view({4, 3}, {8, 32}); // the transpose
  expectValues(run1(*makeOp("sum", axes({0})), {T}), {6, 22, 38});
  expectValues(run1(*makeOp("sum", axes({1})), {T}), {12, 15, 18, 21});
  expectValues(run1(*makeOp("sum", axes({-1}, true)), {T}), {12, 15, 18, 21});
  EXPECT_EQ(run1(*makeOp("sum", axes({-1}, true)), {T}).shape(),
            (Shape{4, 1}));
  // Every other column, reversed rows: x[::-1, ::2].
  NDArray V = X.view({3, 2}, {-32, 16}, 64);
  expectValues(V, {8, 10, 4, 6, 0, 2});
  expectValues(run1(*makeOp("sum"), {V}), {30});
  expectValues(run1(*makeOp("max", axes({0})), {V}), {8, 10});
  expectValues(run1(*makeOp("argmin", axes({0})), {V}), {2, 2});
  expectValues(run1(*makeOp("argmax"), {V}), {1});
  // A broadcast (stride 0) input.
  NDArray B = X.view({5, 4}, {0, 8});
  expectValues(run1(*makeOp("sum", axes({0})), {B}), {0, 5, 10, 15});
  expectValues(run1(*makeOp("mean", axes({0, 1})), {B}), {1.5});
}

TEST(Reduction, IntegerSumsAndProducts) {
  NDArray I8 = arr(DType::I8, {3}, {100, 100, 100});
  NDArray S = run1(*makeOp("sum"), {I8});
  EXPECT_EQ(S.dtype(), DType::I64);
  expectValues(S, {300});
  NDArray U8 = arr(DType::U8, {2}, {200, 200});
  expectValues(run1(*makeOp("sum"), {U8}), {400});
  expectValues(run1(*makeOp("prod"), {U8}), {40000});
  // int64 wraps around as in NumPy.
  NDArray Big = NDArray::zeros(DType::I64, {2});
  Big.dataAs<int64_t>()[0] = INT64_MAX;
  Big.dataAs<int64_t>()[1] = 1;
  EXPECT_EQ(run1(*makeOp("sum"), {Big}).getInt(0), INT64_MIN);
  Big.dataAs<int64_t>()[1] = 3;
  EXPECT_EQ(run1(*makeOp("prod"), {Big}).getInt(0), INT64_MAX - 2);
  NDArray B = arr(DType::Bool, {4}, {1, 0, 1, 1});
  expectValues(run1(*makeOp("sum"), {B}), {3});
  expectValues(run1(*makeOp("prod"), {B}), {0});
  NDArray M = run1(*makeOp("mean"), {arr(DType::I8, {3}, {1, 2, 4})});
  EXPECT_EQ(M.dtype(), F64);
  expectValues(M, {7.0 / 3.0});
}

TEST(Reduction, FloatSumsArePairwiseLikeNumPy) {
  // np.full(100000, 0.1, np.float32).sum() and .mean().
  NDArray A = NDArray::zeros(F32, {100000});
  for (int I = 0; I < 100000; ++I)
    A.dataAs<float>()[I] = 0.1f;
  EXPECT_EQ(run1(*makeOp("sum"), {A}).getDouble(0), 10000.0009765625);
  EXPECT_EQ(run1(*makeOp("mean"), {A}).getDouble(0), 0.10000000894069672);
  NDArray B = NDArray::zeros(F32, {1000});
  for (int I = 0; I < 1000; ++I)
    B.dataAs<float>()[I] = float(I) * 0.37f;
  EXPECT_EQ(run1(*makeOp("sum"), {B}).getDouble(0), 184815.015625);
}

TEST(Reduction, NaNAndLogic) {
  NDArray X = arr(F64, {2, 3}, {1, NaN, 3, -1, 5, -Inf});
  expectValues(run1(*makeOp("max", axes({1})), {X}), {NaN, 5});
  expectValues(run1(*makeOp("min", axes({0})), {X}), {-1, NaN, -Inf});
  expectValues(run1(*makeOp("max", axes({0})), {X}), {1, NaN, 3});
  expectValues(run1(*makeOp("sum", axes({1})), {X}), {NaN, -Inf});
  // NaN is true; all and any short-circuit per output.
  NDArray L = arr(F32, {2, 2}, {0, NaN, 0, 0});
  expectValues(run1(*makeOp("any", axes({1})), {L}), {1, 0});
  expectValues(run1(*makeOp("all", axes({0})), {L}), {0, 0});
  expectValues(run1(*makeOp("all"), {arr(F32, {2}, {NaN, -1})}), {1});
  NDArray Bo = arr(DType::Bool, {3}, {0, 1, 0});
  NDArray Mx = run1(*makeOp("max"), {Bo});
  EXPECT_EQ(Mx.dtype(), DType::Bool);
  expectValues(Mx, {1});
  expectValues(run1(*makeOp("min"), {Bo}), {0});
}

TEST(Reduction, EmptyReductions) {
  NDArray E = NDArray::zeros(F64, {0, 3});
  expectValues(run1(*makeOp("sum", axes({0})), {E}), {0, 0, 0});
  expectValues(run1(*makeOp("prod", axes({0})), {E}), {1, 1, 1});
  expectValues(run1(*makeOp("all", axes({0})), {E}), {1, 1, 1});
  expectValues(run1(*makeOp("any"), {E}), {0});
  expectValues(run1(*makeOp("mean", axes({0})), {E}), {NaN, NaN, NaN});
  EXPECT_EQ(run1(*makeOp("max", axes({1})), {E}).shape(), (Shape{0}));
  EXPECT_EQ(runError(*makeOp("max", axes({0})), {E}),
            "zero-size array to reduction operation maximum which has no "
            "identity");
  EXPECT_EQ(runError(*makeOp("min"), {E}),
            "zero-size array to reduction operation minimum which has no "
            "identity");
  EXPECT_EQ(runError(*makeOp("argmax", axes({0})), {E}),
            "attempt to get argmax of an empty sequence");
  EXPECT_EQ(run1(*makeOp("argmax", axes({1})), {E}).shape(), (Shape{0}));
  EXPECT_EQ(runError(*makeOp("max_and_argmax"), {E}),
            "zero-size array to reduction operation maximum which has no "
            "identity");
  // Huge reduced dims beside an empty kept one: no output, no overflow.
  // (A view: NDArray::create would compute overflowing strides for it.)
  NDArray H = NDArray::zeros(F64, {0}).view(
      {0, int64_t(1) << 40, int64_t(1) << 40}, {8, 8, 8});
  EXPECT_EQ(run1(*makeOp("mean", axes({1, 2})), {H}).shape(), (Shape{0}));
}

TEST(Reduction, ScalarInput) {
  NDArray X = arr(DType::I32, {}, {-7});
  expectValues(run1(*makeOp("sum"), {X}), {-7});
  expectValues(run1(*makeOp("max"), {X}), {-7});
  expectValues(run1(*makeOp("argmax"), {X}), {0});
  EXPECT_EQ(runError(*makeOp("sum", axes({0})), {X}),
            "axis 0 is out of bounds for array of dimension 0");
}

TEST(ArgReduction, TiesAndNaN) {
  NDArray X = arr(F64, {2, 4}, {1, 3, 3, 0, 2, NaN, 7, NaN});
  expectValues(run1(*makeOp("argmax", axes({1})), {X}), {1, 1});
  expectValues(run1(*makeOp("argmin", axes({1})), {X}), {3, 1});
  expectValues(run1(*makeOp("argmax"), {X}), {5});
  expectValues(run1(*makeOp("argmin", axes({0})), {X}), {0, 1, 0, 1});
  NDArray K1 = run1(*makeOp("argmax", axes({0}, true)), {X});
  EXPECT_EQ(K1.shape(), (Shape{1, 4}));
  EXPECT_EQ(K1.dtype(), DType::I64);
  expectValues(K1, {1, 1, 1, 1});
  NDArray Ints = arr(DType::U8, {5}, {3, 9, 1, 9, 1});
  expectValues(run1(*makeOp("argmax"), {Ints}), {1});
  expectValues(run1(*makeOp("argmin"), {Ints}), {2});
  NDArray Bools = arr(DType::Bool, {3}, {0, 1, 1});
  expectValues(run1(*makeOp("argmax"), {Bools}), {1});
}

TEST(ArgReduction, MaxAndArgmax) {
  OpRef Op = makeOp("max_and_argmax", axes({-1}));
  NDArray X = arr(DType::I16, {2, 3}, {4, -2, 4, -5, -1, -3});
  llvm::Expected<std::vector<NDArray>> R = runOp(*Op, {X});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->size(), 2u);
  EXPECT_EQ((*R)[0].dtype(), DType::I16);
  expectValues((*R)[0], {4, -1});
  EXPECT_EQ((*R)[1].dtype(), DType::I64);
  expectValues((*R)[1], {0, 1});
  llvm::Expected<std::vector<NDArray>> All =
      runOp(*makeOp("max_and_argmax"), {X});
  ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
  expectValues((*All)[0], {4});
  expectValues((*All)[1], {0});
}

} // namespace
