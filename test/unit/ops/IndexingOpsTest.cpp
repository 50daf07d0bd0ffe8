//===- IndexingOpsTest.cpp - subtensor and concatenate ---------------------===//
//
// Python slice semantics (omitted parts, negative values, clamping, negative
// steps) as views sharing the buffer, static dims of slices, concatenate's
// dtype promotion, static and run-time shape checks. Expected values are
// NumPy 1.24's.
//
//===----------------------------------------------------------------------===//

#include "StructuralOpsTestUtil.h"
#include <optional>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64;

AttrMap slice(int64_t Axis, std::optional<int64_t> Start,
              std::optional<int64_t> Stop, std::optional<int64_t> Step) {
  AttrMap A = {{"axis", num(Axis)}};
  if (Start)
    A["start"] = num(*Start);
  if (Stop)
    A["stop"] = num(*Stop);
  if (Step)
    A["step"] = num(*Step);
  return A;
}

// NumPy's list(range(N))[start:stop:step] as doubles.
std::vector<double> pySlice(int64_t N, std::optional<int64_t> Start,
                            std::optional<int64_t> Stop, int64_t Step) {
  // A direct transcription of CPython's PySlice_AdjustIndices.
  int64_t Lo, Hi;
  auto Adj = [&](std::optional<int64_t> V, int64_t Def) {
    if (!V)
      return Def;
    int64_t I = *V;
    if (I < 0) {
      I += N;
      if (I < 0)
        I = Step < 0 ? -1 : 0;
    } else if (I >= N) {
      I = Step < 0 ? N - 1 : N;
    }
    return I;
  };
  Lo = Adj(Start, Step < 0 ? N - 1 : 0);
  Hi = Adj(Stop, Step < 0 ? -1 : N);
  std::vector<double> R;
  // 128-bit so that huge steps cannot overflow the loop variable.
  for (__int128 I = Lo; Step > 0 ? I < Hi : I > Hi; I += Step)
    R.push_back(double(I));
  return R;
}

TEST(Subtensor, NamesAndClass) {
  EXPECT_EQ(makeOp("subtensor", slice(0, 0, 10, 1))->name(),
            "Subtensor{axis=0, 0:10:1}");
  EXPECT_EQ(makeOp("subtensor", slice(1, {}, {}, -1))->name(),
            "Subtensor{axis=1, ::-1}");
  EXPECT_EQ(makeOp("subtensor", slice(-1, 2, {}, {}))->name(),
            "Subtensor{axis=-1, 2:}");
  EXPECT_EQ(makeOp("subtensor", {})->name(), "Subtensor{axis=0, :}");
  OpRef Op = makeOp("subtensor", slice(0, 1, {}, {}));
  EXPECT_EQ(Op->className(), "Subtensor");
  EXPECT_EQ(Op->outputAlias(0).K, OutputAlias::View);
  EXPECT_EQ(Op->outputAlias(0).Input, 0);
}

TEST(Subtensor, AttributeErrors) {
  EXPECT_EQ(makeError("subtensor", slice(0, {}, {}, 0)),
            "attr:step: slice step cannot be zero");
  EXPECT_NE(makeError("subtensor", {{"start", AttrValue::floating(1.5)}})
                .find("attr:start:"),
            std::string::npos);
  EXPECT_NE(makeError("subtensor", {{"begin", num(1)}}).find("attr:begin:"),
            std::string::npos);
}

TEST(Subtensor, InfersTypes) {
  TensorType T = ty(F64, {S("n"), K(10)});
  EXPECT_EQ(infer("subtensor", {T}, slice(1, 2, -2, 3)), "f64[n, 2]");
  EXPECT_EQ(infer("subtensor", {T}, slice(1, {}, {}, -1)), "f64[n, 10]");
  EXPECT_EQ(infer("subtensor", {T}, slice(-1, 20, 30, {})), "f64[n, 0]");
  EXPECT_EQ(infer("subtensor", {T}, slice(0, 1, {}, {})), "f64[?, 10]");
  EXPECT_EQ(infer("subtensor", {T}, slice(0, {}, {}, 1)), "f64[n, 10]");
  EXPECT_EQ(infer("subtensor", {T}, slice(2, {}, {}, {})),
            "error: axis 2 is out of bounds for array of dimension 2");
  EXPECT_NE(infer("subtensor", {ty(F64)}, {}).find("0-d"), std::string::npos);
}

TEST(Subtensor, MatchesPythonSlices) {
  const int64_t N = 7;
  NDArray X = iota(DType::I64, {N});
  std::optional<int64_t> Bounds[] = {std::nullopt, -9, -7, -3, -1, 0,
                                     1,            3,  6,  7,  100};
  int64_t Steps[] = {1, 2, 3, -1, -2, -5, 100, -100, INT64_MIN, INT64_MAX};
  for (auto Start : Bounds)
    for (auto Stop : Bounds)
      for (int64_t Step : Steps) {
        OpRef Op = makeOp("subtensor", slice(0, Start, Stop, Step));
        NDArray R = run1(*Op, {X});
        EXPECT_TRUE(R.sharesBufferWith(X));
        EXPECT_EQ(values(R), pySlice(N, Start, Stop, Step)) << Op->name();
        EXPECT_EQ(inferOp(*Op, {ty(DType::I64, {K(N)})}),
                  "i64[" + std::to_string(R.dim(0)) + "]")
            << Op->name();
      }
}

TEST(Subtensor, ViewsOfViews) {
  NDArray X = iota(F64, {4, 5});
  // x[:, ::-2] then x[1:3] of that.
  NDArray A = run1(*makeOp("subtensor", slice(1, {}, {}, -2)), {X});
  EXPECT_EQ(A.shape(), (Shape{4, 3}));
  expectValues(A, {4, 2, 0, 9, 7, 5, 14, 12, 10, 19, 17, 15});
  NDArray B = run1(*makeOp("subtensor", slice(0, 1, 3, {})), {A});
  EXPECT_TRUE(B.sharesBufferWith(X));
  expectValues(B, {9, 7, 5, 14, 12, 10});
  // An empty slice of an empty array.
  NDArray E = run1(*makeOp("subtensor", slice(0, 2, {}, {})),
                   {NDArray::zeros(F64, {0, 3})});
  EXPECT_EQ(E.shape(), (Shape{0, 3}));
}

TEST(Subtensor, RunTimeErrors) {
  EXPECT_EQ(runError(*makeOp("subtensor", slice(1, {}, {}, {})),
                     {iota(F64, {3})}),
            "axis 1 is out of bounds for array of dimension 1");
}

TEST(Join, InfersTypes) {
  AttrMap A0 = {{"axis", num(0)}}, A1 = {{"axis", num(-1)}};
  EXPECT_EQ(infer("concatenate", {ty(F64, {S("n"), K(3)}), ty(F64, {K(2), K(3)})},
                  A0),
            "f64[?, 3]");
  EXPECT_EQ(infer("concatenate", {ty(F64, {K(4), K(3)}), ty(F64, {K(2), K(3)})}),
            "f64[6, 3]");
  EXPECT_EQ(infer("concatenate", {ty(DType::I8, {S("n"), K(3)}),
                                  ty(DType::U8, {S("n"), K(2)})},
                  A1),
            "i16[n, 5]");
  EXPECT_EQ(infer("concatenate", {ty(DType::I32, {S("n"), K(3)}),
                                  ty(DType::F32, {S("m"), S("k")}),
                                  ty(DType::Bool, {K(1), K(3)})}),
            "f64[?, 3]");
  EXPECT_EQ(infer("concatenate", {ty(F64, {S("n"), S("m")})}, A1),
            "f64[n, m]");
  EXPECT_EQ(infer("concatenate",
                  {ty(F64, {S("n"), S("m")}), ty(F64, {S("k"), S("m")})}),
            "f64[?, m]");
}

TEST(Join, StaticErrors) {
  EXPECT_EQ(infer("concatenate", {ty(F64, {K(2), K(3)}), ty(F64, {K(2), K(4)})}),
            "error: all the input array dimensions except for the "
            "concatenation axis must match exactly, but along dimension 1, "
            "the array at index 0 has size 3 and the array at index 1 has "
            "size 4");
  EXPECT_EQ(infer("concatenate", {ty(F64, {K(2), K(3)}), ty(F64, {K(2)})}),
            "error: all the input arrays must have same number of "
            "dimensions, but the array at index 0 has 2 dimension(s) and the "
            "array at index 1 has 1 dimension(s)");
  EXPECT_EQ(infer("concatenate", {ty(F64, {K(2)})}, {{"axis", num(1)}}),
            "error: axis 1 is out of bounds for array of dimension 1");
  EXPECT_EQ(infer("concatenate", {ty(F64), ty(F64)}),
            "error: zero-dimensional arrays cannot be concatenated");
}

TEST(Join, Perform) {
  OpRef Op = makeOp("concatenate", {{"axis", num(1)}}, 3);
  EXPECT_EQ(Op->name(), "Join{axis=1}");
  EXPECT_EQ(Op->className(), "Join");
  NDArray A = iota(DType::I8, {2, 2});
  NDArray B = iota(DType::U8, {3, 2}).view({2, 3}, {1, 2}); // a transpose
  NDArray C = NDArray::zeros(DType::Bool, {2, 0});
  NDArray R = run1(*Op, {A, B, C});
  EXPECT_EQ(R.dtype(), DType::I16);
  EXPECT_EQ(R.shape(), (Shape{2, 5}));
  EXPECT_TRUE(R.isContiguous());
  expectValues(R, {0, 1, 0, 2, 4, 2, 3, 1, 3, 5});
  // Axis 0 of float and int.
  OpRef Op0 = makeOp("concatenate", {}, 2);
  NDArray R0 = run1(*Op0, {arr(DType::F32, {1, 2}, {0.5, 1.5}),
                           arr(DType::I32, {1, 2}, {-1, 2})});
  EXPECT_EQ(R0.dtype(), F64);
  expectValues(R0, {0.5, 1.5, -1, 2});
  // A single input is a copy.
  NDArray X = iota(F64, {3});
  NDArray R1 = run1(*makeOp("concatenate", {}, 1), {X});
  EXPECT_FALSE(R1.sharesBufferWith(X));
  expectValues(R1, {0, 1, 2});
}

TEST(Join, RunTimeErrors) {
  OpRef Op = makeOp("concatenate", {}, 2);
  EXPECT_EQ(runError(*Op, {iota(F64, {2, 3}), iota(F64, {2, 4})}),
            "all the input array dimensions except for the concatenation "
            "axis must match exactly, but along dimension 1, the array at "
            "index 0 has size 3 and the array at index 1 has size 4");
  EXPECT_NE(runError(*Op, {iota(F64, {2, 3}), iota(F64, {3})})
                .find("same number of dimensions"),
            std::string::npos);
}

} // namespace
