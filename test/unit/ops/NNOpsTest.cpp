//===- NNOpsTest.cpp - softmax and log_softmax -----------------------------===//
//
// Types (integers to floatTypeFor), axis errors, names, and values along
// any axis of strided inputs, with the numerically stable formulation
// (large inputs, -inf), NaN and empty axes. Expected values are what
// NumPy's exp(x - max) / sum(...) formulation gives.
//
//===----------------------------------------------------------------------===//

#include "StructuralOpsTestUtil.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, F32 = DType::F32;

TEST(Softmax, InfersTypes) {
  EXPECT_EQ(infer("softmax", {ty(F32, {S("n"), K(3)})}), "f32[n, 3]");
  EXPECT_EQ(infer("softmax", {ty(DType::I32, {K(3)})}), "f64[3]");
  EXPECT_EQ(infer("log_softmax", {ty(DType::U8, {K(3)})}), "f32[3]");
  EXPECT_EQ(infer("log_softmax", {ty(DType::Bool, {K(2), K(3)})},
                  {{"axis", num(0)}}),
            "f32[2, 3]");
  EXPECT_EQ(infer("softmax", {ty(F64)}),
            "error: axis -1 is out of bounds for array of dimension 0");
  EXPECT_EQ(infer("softmax", {ty(F64, {K(2)})}, {{"axis", num(1)}}),
            "error: axis 1 is out of bounds for array of dimension 1");
  EXPECT_NE(makeError("softmax", {{"axis", ints({0, 1})}}).find("attr:axis:"),
            std::string::npos);
}

TEST(Softmax, NamesAndClasses) {
  OpRef S1 = makeOp("softmax");
  EXPECT_EQ(S1->name(), "Softmax{axis=-1}");
  EXPECT_EQ(S1->className(), "Softmax");
  OpRef L = makeOp("log_softmax", {{"axis", num(1)}});
  EXPECT_EQ(L->name(), "LogSoftmax{axis=1}");
  EXPECT_EQ(L->className(), "LogSoftmax");
  EXPECT_EQ(L->flops({{4, 5}}, {{4, 5}}), 100);
  EXPECT_EQ(L->outputAlias(0).K, OutputAlias::Created);
}

// NumPy: e = np.exp(x - x.max(axis, keepdims=True)); e / e.sum(...).
std::vector<double> softmaxRef(std::vector<double> Row) {
  double M = -Inf;
  for (double V : Row)
    M = std::max(M, V);
  double S = 0;
  for (double V : Row)
    S += std::exp(V - M);
  std::vector<double> R;
  for (double V : Row)
    R.push_back(std::exp(V - M) / S);
  return R;
}

TEST(Softmax, ValuesAlongEitherAxis) {
  NDArray X = arr(F64, {2, 3}, {1, 2, 3, -1, 0, 4});
  std::vector<double> R0 = softmaxRef({1, 2, 3}), R1 = softmaxRef({-1, 0, 4});
  expectValues(run1(*makeOp("softmax"), {X}),
               {R0[0], R0[1], R0[2], R1[0], R1[1], R1[2]}, 1e-15);
  // Axis 0 of the same data seen through its transpose: rows again.
  NDArray T = X.view({3, 2}, {8, 24});
  NDArray RT = run1(*makeOp("softmax", {{"axis", num(0)}}), {T});
  EXPECT_EQ(RT.shape(), (Shape{3, 2}));
  EXPECT_TRUE(RT.isContiguous());
  expectValues(RT, {R0[0], R1[0], R0[1], R1[1], R0[2], R1[2]}, 1e-15);
  NDArray L = run1(*makeOp("log_softmax", {{"axis", num(-2)}}), {T});
  expectValues(L,
               {std::log(R0[0]), std::log(R1[0]), std::log(R0[1]),
                std::log(R1[1]), std::log(R0[2]), std::log(R1[2])},
               1e-14);
}

TEST(Softmax, StableForLargeAndInfiniteInputs) {
  NDArray X = arr(F32, {4}, {1000, 1001, -Inf, 1000});
  NDArray R = run1(*makeOp("softmax"), {X});
  EXPECT_EQ(R.dtype(), F32);
  std::vector<double> Want = softmaxRef({0, 1, -Inf, 0});
  expectValues(R, Want, 1e-6);
  NDArray L = run1(*makeOp("log_softmax"), {X});
  expectValues(L, {std::log(Want[0]), std::log(Want[1]), -Inf,
                   std::log(Want[3])},
               1e-6);
  // A NaN spoils its own row only.
  NDArray N = arr(F64, {2, 2}, {NaN, 1, 2, 2});
  expectValues(run1(*makeOp("softmax"), {N}), {NaN, NaN, 0.5, 0.5});
}

TEST(Softmax, IntegersEmptyAndScalarRows) {
  NDArray R = run1(*makeOp("softmax"), {arr(DType::I8, {2}, {0, 0})});
  EXPECT_EQ(R.dtype(), F32);
  expectValues(R, {0.5, 0.5});
  NDArray I = run1(*makeOp("log_softmax"), {arr(DType::I64, {1}, {7})});
  EXPECT_EQ(I.dtype(), F64);
  expectValues(I, {0});
  EXPECT_EQ(run1(*makeOp("softmax"), {NDArray::zeros(F64, {3, 0})}).shape(),
            (Shape{3, 0}));
  EXPECT_EQ(run1(*makeOp("softmax", {{"axis", num(0)}}),
                 {NDArray::zeros(F64, {0, 2})})
                .shape(),
            (Shape{0, 2}));
  EXPECT_EQ(runError(*makeOp("softmax"), {arr(F64, {}, {1})}),
            "axis -1 is out of bounds for array of dimension 0");
}

} // namespace
