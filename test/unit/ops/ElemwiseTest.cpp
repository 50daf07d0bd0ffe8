//===- ElemwiseTest.cpp - Elemwise ops: types, broadcasting, perform ------===//
//
// Static type inference of the elemwise family (dtype rules, broadcasting of
// known, symbolic and unknown dims), and perform() on strided, broadcast,
// empty and 0-d inputs, including NumPy's integer-division, power and cast
// corner cases. Expected values were taken from NumPy 1.24.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/OpRegistry.h"
#include "gtest/gtest.h"
#include <cmath>
#include <limits>

using namespace graphjit;
using llvm::Expected;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double Inf = std::numeric_limits<double>::infinity();

OpRef makeOp(llvm::StringRef Name, unsigned NumInputs, AttrMap Attrs = {}) {
  return llvm::cantFail(OpRegistry::get().make(Name, Attrs, NumInputs));
}

TensorType ty(DType T, std::vector<Dim> Dims = {}) {
  return TensorType(T, std::move(Dims));
}
Dim K(int64_t N) { return Dim::known(N); }
Dim S(const char *Name) { return Dim::symbolic(Name); }

// The output type, or the error text prefixed with "error: ".
std::string infer(llvm::StringRef Name, std::vector<TensorType> Ins,
                  AttrMap Attrs = {}) {
  OpRef Op = makeOp(Name, Ins.size(), std::move(Attrs));
  Expected<std::vector<TensorType>> Out = Op->inferTypes(Ins);
  if (!Out)
    return "error: " + llvm::toString(Out.takeError());
  return (*Out)[0].str();
}

// A C-contiguous array with these values.
NDArray arr(DType T, const Shape &Sh, std::vector<double> Values) {
  NDArray A = NDArray::zeros(T, Sh);
  EXPECT_EQ(int64_t(Values.size()), A.numElements());
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (size_t I = 0; I < Values.size(); ++I)
      A.dataAs<E>()[I] = static_cast<E>(Values[I]);
  });
  return A;
}

NDArray i64arr(const Shape &Sh, std::vector<int64_t> Values) {
  NDArray A = NDArray::zeros(DType::I64, Sh);
  for (size_t I = 0; I < Values.size(); ++I)
    A.dataAs<int64_t>()[I] = Values[I];
  return A;
}

Expected<NDArray> run(llvm::StringRef Name, std::vector<NDArray> Ins,
                      AttrMap Attrs = {}) {
  OpRef Op = makeOp(Name, Ins.size(), std::move(Attrs));
  std::vector<NDArray> Outs(1);
  if (llvm::Error E = Op->perform(Ins, Outs, ExecContext{}))
    return E;
  return Outs[0];
}

NDArray runOk(llvm::StringRef Name, std::vector<NDArray> Ins,
              AttrMap Attrs = {}) {
  Expected<NDArray> R = run(Name, std::move(Ins), std::move(Attrs));
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return NDArray();
  }
  return *R;
}

std::vector<double> values(const NDArray &A) {
  std::vector<double> V;
  for (int64_t I = 0; I < A.numElements(); ++I)
    V.push_back(A.getDouble(I));
  return V;
}

std::vector<int64_t> ints(const NDArray &A) {
  std::vector<int64_t> V;
  for (int64_t I = 0; I < A.numElements(); ++I)
    V.push_back(A.getInt(I));
  return V;
}

AttrMap castTo(const char *T) { return {{"dtype", AttrValue::ident(T)}}; }

} // namespace

//===--- Registration, names, attributes ---------------------------------===//

TEST(Elemwise, EveryOpIsRegistered) {
  for (const char *Name :
       {"neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "sqr",
        "sigmoid", "softplus", "tanh", "sin", "cos", "floor", "ceil", "sign",
        "reciprocal", "erf", "erfc", "gammaln", "log2", "log10", "not",
        "add", "sub", "mul", "true_div",
        "int_div", "mod", "pow", "maximum", "minimum", "eq", "neq", "lt", "le",
        "gt", "ge", "and", "or", "switch", "clip", "cast", "second"}) {
    const OpSpec *Spec = OpRegistry::get().lookup(Name);
    ASSERT_NE(Spec, nullptr) << Name;
    EXPECT_FALSE(Spec->Summary.empty()) << Name;
  }
  EXPECT_EQ(OpRegistry::get().lookup("add")->MaxInputs, -1);
  EXPECT_EQ(OpRegistry::get().lookup("mul")->MinInputs, 2u);
  EXPECT_EQ(OpRegistry::get().lookup("sub")->MaxInputs, 2);
  EXPECT_EQ(OpRegistry::get().lookup("switch")->MinInputs, 3u);
}

TEST(Elemwise, NamesFollowTheano) {
  EXPECT_EQ(makeOp("add", 2)->name(), "Elemwise{add,no_inplace}");
  EXPECT_EQ(makeOp("add", 2)->className(), "Elemwise");
  EXPECT_EQ(makeOp("exp", 1)->name(), "Elemwise{exp,no_inplace}");
  EXPECT_EQ(makeOp("switch", 3)->name(), "Elemwise{switch,no_inplace}");
  EXPECT_EQ(makeOp("cast", 1, castTo("f32"))->name(),
            "Elemwise{Cast{float32}}");
  EXPECT_EQ(makeOp("cast", 1, castTo("u8"))->name(), "Elemwise{Cast{uint8}}");
  EXPECT_EQ(makeOp("cast", 1, castTo("f32"))->formatName(), "cast");
  EXPECT_TRUE(makeOp("add", 2)->equals(*makeOp("add", 3)));
}

TEST(Elemwise, AttributesAreChecked) {
  auto IsAttrError = [](llvm::Error E, const char *Attr, const char *Text) {
    bool Seen = false;
    llvm::handleAllErrors(
        std::move(E),
        [&](const AttrError &A) {
          Seen = true;
          EXPECT_EQ(A.attr(), Attr);
          EXPECT_NE(A.text().find(Text), std::string::npos) << A.text();
        },
        [&](const llvm::ErrorInfoBase &B) {
          ADD_FAILURE() << "not an AttrError: " << B.message();
        });
    return Seen;
  };
  const OpRegistry &R = OpRegistry::get();
  EXPECT_TRUE(IsAttrError(
      R.make("add", {{"axis", AttrValue::integer(0)}}, 2).takeError(), "axis",
      "has no attribute 'axis'"));
  EXPECT_TRUE(IsAttrError(R.make("cast", {}, 1).takeError(), "dtype",
                          "needs attribute 'dtype'"));
  EXPECT_TRUE(IsAttrError(R.make("cast", castTo("f16"), 1).takeError(),
                          "dtype", "unknown dtype 'f16'"));
  EXPECT_TRUE(IsAttrError(
      R.make("cast", {{"dtype", AttrValue::integer(3)}}, 1).takeError(),
      "dtype", "must be a name"));
  AttrMap Extra = castTo("f32");
  Extra["axis"] = AttrValue::integer(1);
  EXPECT_TRUE(IsAttrError(R.make("cast", Extra, 1).takeError(), "axis",
                          "it takes: dtype"));
}

TEST(Elemwise, Flops) {
  OpRef Add = makeOp("add", 3);
  EXPECT_EQ(Add->flops({{4, 5}, {5}, {}}, {{4, 5}}), 40);
  EXPECT_EQ(makeOp("exp", 1)->flops({{4, 5}}, {{4, 5}}), 20);
  EXPECT_EQ(makeOp("switch", 3)->flops({{3}, {3}, {3}}, {{3}}), 3);
  EXPECT_EQ(makeOp("cast", 1, castTo("i8"))->flops({{7}}, {{7}}), 0);
  EXPECT_EQ(makeOp("second", 2)->flops({{7}, {}}, {{7}}), 0);
}

//===--- Static types ----------------------------------------------------===//

TEST(ElemwiseTypes, DTypeRules) {
  using D = DType;
  // Arithmetic promotes; true_div of integers is f64.
  EXPECT_EQ(infer("add", {ty(D::F32), ty(D::I32)}), "f64[]");
  EXPECT_EQ(infer("add", {ty(D::U8), ty(D::I8), ty(D::Bool)}), "i16[]");
  EXPECT_EQ(infer("mul", {ty(D::Bool), ty(D::Bool)}), "bool[]");
  EXPECT_EQ(infer("true_div", {ty(D::I8), ty(D::I8)}), "f64[]");
  EXPECT_EQ(infer("true_div", {ty(D::Bool), ty(D::Bool)}), "f64[]");
  EXPECT_EQ(infer("true_div", {ty(D::F32), ty(D::I16)}), "f32[]");
  EXPECT_EQ(infer("true_div", {ty(D::F32), ty(D::I32)}), "f64[]");
  EXPECT_EQ(infer("reciprocal", {ty(D::I8)}), "f64[]");
  EXPECT_EQ(infer("reciprocal", {ty(D::F32)}), "f32[]");
  // NumPy has no bool loops for floor_divide, remainder, power, square.
  EXPECT_EQ(infer("int_div", {ty(D::Bool), ty(D::Bool)}), "i8[]");
  EXPECT_EQ(infer("mod", {ty(D::Bool), ty(D::Bool)}), "i8[]");
  EXPECT_EQ(infer("pow", {ty(D::Bool), ty(D::Bool)}), "i8[]");
  EXPECT_EQ(infer("pow", {ty(D::Bool), ty(D::U8)}), "u8[]");
  EXPECT_EQ(infer("sqr", {ty(D::Bool)}), "i8[]");
  EXPECT_EQ(infer("sqr", {ty(D::U8)}), "u8[]");
  // Float functions: f32 for small ints (NumPy: float16), f64 for wide.
  EXPECT_EQ(infer("exp", {ty(D::I8)}), "f32[]");
  EXPECT_EQ(infer("exp", {ty(D::Bool)}), "f32[]");
  EXPECT_EQ(infer("sqrt", {ty(D::I16)}), "f32[]");
  EXPECT_EQ(infer("log", {ty(D::I32)}), "f64[]");
  EXPECT_EQ(infer("floor", {ty(D::I64)}), "f64[]");
  EXPECT_EQ(infer("ceil", {ty(D::F32)}), "f32[]");
  // Same-dtype ops, and the bool ones NumPy refuses.
  EXPECT_EQ(infer("abs", {ty(D::Bool)}), "bool[]");
  EXPECT_EQ(infer("neg", {ty(D::U8)}), "u8[]");
  EXPECT_EQ(infer("sign", {ty(D::I16)}), "i16[]");
  EXPECT_NE(infer("neg", {ty(D::Bool)}).find("error: neg is not supported "
                                            "for bool"),
            std::string::npos);
  EXPECT_NE(infer("sign", {ty(D::Bool)}).find("bool"), std::string::npos);
  EXPECT_NE(infer("sub", {ty(D::Bool), ty(D::Bool)}).find("error: sub"),
            std::string::npos);
  EXPECT_EQ(infer("sub", {ty(D::Bool), ty(D::I8)}), "i8[]");
  // Comparisons and logical ops are bool.
  EXPECT_EQ(infer("lt", {ty(D::U8), ty(D::I8)}), "bool[]");
  EXPECT_EQ(infer("and", {ty(D::F64), ty(D::I32)}), "bool[]");
  EXPECT_EQ(infer("not", {ty(D::F32)}), "bool[]");
  // The others.
  EXPECT_EQ(infer("switch", {ty(D::F64), ty(D::I8), ty(D::U8)}), "i16[]");
  EXPECT_EQ(infer("clip", {ty(D::F32), ty(D::F64), ty(D::I8)}), "f64[]");
  EXPECT_EQ(infer("maximum", {ty(D::I32), ty(D::F32)}), "f64[]");
  EXPECT_EQ(infer("cast", {ty(D::F64, {S("n")})}, castTo("i8")), "i8[n]");
  EXPECT_EQ(infer("second", {ty(D::F64, {K(3)}), ty(D::I32)}), "i32[3]");
  EXPECT_EQ(infer("second", {ty(D::F64), ty(D::I32, {K(2), K(1)})}),
            "i32[2, 1]");
}

TEST(ElemwiseTypes, Broadcasting) {
  using D = DType;
  EXPECT_EQ(infer("add", {ty(D::F64, {K(3), K(1)}), ty(D::F64, {K(4)})}),
            "f64[3, 4]");
  EXPECT_EQ(infer("add", {ty(D::F64, {S("n")}), ty(D::F64, {S("n")})}),
            "f64[n]");
  EXPECT_EQ(infer("add", {ty(D::F64, {S("n")}), ty(D::F64, {K(5)})}),
            "f64[5]");
  EXPECT_EQ(infer("add", {ty(D::F64, {K(5)}), ty(D::F64, {S("n")})}),
            "f64[5]");
  EXPECT_EQ(infer("add", {ty(D::F64, {S("n")}), ty(D::F64, {K(1)})}),
            "f64[n]");
  EXPECT_EQ(infer("add", {ty(D::F64, {S("n")}), ty(D::F64, {S("m")})}),
            "f64[?]");
  EXPECT_EQ(infer("add", {ty(D::F64, {Dim::unknown()}), ty(D::F64, {S("n")})}),
            "f64[?]");
  EXPECT_EQ(infer("add", {ty(D::F64, {Dim::unknown()}), ty(D::F64, {K(1)})}),
            "f64[?]");
  EXPECT_EQ(infer("add", {ty(D::F64, {K(1)}), ty(D::F64, {K(1)})}), "f64[1]");
  // Two different symbols, then a known size: the known size wins.
  EXPECT_EQ(infer("add", {ty(D::F64, {S("n")}), ty(D::F64, {S("m")}),
                          ty(D::F64, {K(7)})}),
            "f64[7]");
  // Ranks align on the right; scalars broadcast to anything.
  EXPECT_EQ(infer("mul", {ty(D::F32, {S("n"), K(3)}), ty(D::F32)}),
            "f32[n, 3]");
  EXPECT_EQ(infer("switch", {ty(D::Bool, {K(2), K(1), K(1)}),
                             ty(D::F64, {S("n"), K(1)}), ty(D::F64, {K(4)})}),
            "f64[2, n, 4]");
  EXPECT_EQ(infer("add", {ty(D::F64, {K(0)}), ty(D::F64, {K(1)})}), "f64[0]");
}

TEST(ElemwiseTypes, StaticBroadcastErrorNamesBothOperands) {
  using D = DType;
  std::string E = infer("add", {ty(D::F64, {K(3)}), ty(D::F64, {K(4)})});
  EXPECT_NE(E.find("cannot broadcast f64[3] with f64[4]"), std::string::npos)
      << E;
  EXPECT_NE(E.find("input 0 has size 3 where input 1 has size 4"),
            std::string::npos)
      << E;
  E = infer("clip", {ty(D::F32, {S("n"), K(3)}), ty(D::F32),
                     ty(D::F32, {K(2)})});
  EXPECT_NE(E.find("cannot broadcast f32[n, 3] with f32[2]"),
            std::string::npos)
      << E;
  EXPECT_NE(E.find("input 0 has size 3 where input 2 has size 2"),
            std::string::npos)
      << E;
  E = infer("add", {ty(D::F64, {K(0)}), ty(D::F64, {K(2)})});
  EXPECT_NE(E.find("cannot broadcast"), std::string::npos) << E;
}

TEST(ElemwiseTypes, LiteralsTakeTheOperandsDType) {
  GraphModule M;
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", ty(DType::F32, {S("n")}));
  Variable *Y = B.input("y", ty(DType::I32, {S("n")}));
  Variable *R1 = llvm::cantFail(B.apply("mul", {X, B.literal(2.0)}));
  EXPECT_EQ(R1->type().str(), "f32[n]");
  Variable *R2 = llvm::cantFail(B.apply("mul", {Y, B.literal(2.5)}));
  EXPECT_EQ(R2->type().str(), "f64[n]");
  Variable *R3 = llvm::cantFail(B.apply("true_div", {Y, B.literal(int64_t(2))}));
  EXPECT_EQ(R3->type().str(), "f64[n]");
  Expected<Variable *> Bad = B.apply("neg", {B.input("b", ty(DType::Bool))});
  ASSERT_FALSE(Bad);
  EXPECT_NE(llvm::toString(Bad.takeError()).find("bool"), std::string::npos);
}

//===--- perform ---------------------------------------------------------===//

TEST(ElemwisePerform, BroadcastStridedAndZeroD) {
  // (3, 1) + (4,) -> (3, 4).
  NDArray A = arr(DType::F64, {3, 1}, {1, 2, 3});
  NDArray B = arr(DType::F64, {4}, {10, 20, 30, 40});
  NDArray R = runOk("add", {A, B});
  EXPECT_EQ(R.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(R), (std::vector<double>{11, 21, 31, 41, 12, 22, 32, 42,
                                            13, 23, 33, 43}));
  EXPECT_TRUE(R.isContiguous());

  // A transposed view (strides swapped) and a reversed one.
  NDArray M = arr(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray T = M.view({3, 2}, {M.strides()[1], M.strides()[0]});
  EXPECT_EQ(ints(runOk("neg", {T})),
            (std::vector<int64_t>{-1, -4, -2, -5, -3, -6}));
  NDArray V = arr(DType::F32, {4}, {1, 2, 3, 4});
  NDArray Rev = V.view({4}, {-4}, 12);
  NDArray Diff = runOk("sub", {Rev, V});
  EXPECT_EQ(Diff.dtype(), DType::F32);
  EXPECT_EQ(values(Diff), (std::vector<double>{3, 1, -1, -3}));
  // Every other element, against a stride-0 broadcast row.
  NDArray Every = arr(DType::I64, {6}, {0, 1, 2, 3, 4, 5}).view({3}, {16});
  NDArray Rep = arr(DType::I64, {1}, {7}).view({2, 3}, {0, 0});
  EXPECT_EQ(ints(runOk("mul", {Rep, Every})),
            (std::vector<int64_t>{0, 14, 28, 0, 14, 28}));

  // 0-d with n-d, and 0-d alone.
  NDArray Two = arr(DType::F64, {}, {2});
  EXPECT_EQ(values(runOk("pow", {B, Two})),
            (std::vector<double>{100, 400, 900, 1600}));
  NDArray Z = runOk("exp", {arr(DType::F64, {}, {0})});
  EXPECT_EQ(Z.rank(), 0u);
  EXPECT_EQ(Z.getDouble(0), 1.0);

  // n-ary add folds left with broadcasting.
  NDArray Three = runOk("add", {A, B, Two});
  EXPECT_EQ(values(Three)[0], 13);
  EXPECT_EQ(values(Three)[11], 45);
}

TEST(ElemwisePerform, EmptyInputs) {
  NDArray E = NDArray::zeros(DType::F64, {0});
  NDArray One = arr(DType::F64, {1}, {3});
  NDArray R = runOk("add", {E, One});
  EXPECT_EQ(R.shape(), (Shape{0}));
  R = runOk("mul", {NDArray::zeros(DType::I8, {2, 0}), arr(DType::I8, {}, {1})});
  EXPECT_EQ(R.shape(), (Shape{2, 0}));
  EXPECT_EQ(R.dtype(), DType::I8);
  // No element, no negative exponent to complain about.
  R = runOk("pow", {NDArray::zeros(DType::I32, {0, 3}),
                    arr(DType::I32, {3}, {-1, -1, -1})});
  EXPECT_EQ(R.shape(), (Shape{0, 3}));
}

TEST(ElemwisePerform, RunTimeBroadcastErrorIsAnError) {
  Expected<NDArray> R = run("add", {arr(DType::F64, {3}, {1, 2, 3}),
                                    arr(DType::F64, {4}, {1, 2, 3, 4})});
  ASSERT_FALSE(R);
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("could not be broadcast together with shapes (3,) (4,)"),
            std::string::npos)
      << Msg;
}

TEST(ElemwisePerform, MixedDTypesArePromoted) {
  NDArray U = arr(DType::U8, {3}, {200, 0, 255});
  NDArray I = arr(DType::I8, {3}, {100, -1, -128});
  NDArray R = runOk("add", {U, I});
  EXPECT_EQ(R.dtype(), DType::I16);
  EXPECT_EQ(ints(R), (std::vector<int64_t>{300, -1, 127}));
  R = runOk("lt", {I, U});
  EXPECT_EQ(R.dtype(), DType::Bool);
  EXPECT_EQ(ints(R), (std::vector<int64_t>{1, 1, 1}));
  // Integers wrap in their own dtype.
  EXPECT_EQ(ints(runOk("add", {U, U})), (std::vector<int64_t>{144, 0, 254}));
  EXPECT_EQ(ints(runOk("mul", {arr(DType::I16, {1}, {300}),
                               arr(DType::I16, {1}, {300})})),
            (std::vector<int64_t>{24464}));
  EXPECT_EQ(ints(runOk("neg", {arr(DType::I8, {1}, {-128})})),
            (std::vector<int64_t>{-128}));
  EXPECT_EQ(ints(runOk("abs", {arr(DType::I8, {2}, {-128, -5})})),
            (std::vector<int64_t>{-128, 5}));
  // switch tests c != 0 before anything is converted: 0.5 is true.
  R = runOk("switch", {arr(DType::F64, {3}, {0.5, 0, NaN}),
                       arr(DType::I32, {}, {1}), arr(DType::I32, {}, {2})});
  EXPECT_EQ(ints(R), (std::vector<int64_t>{1, 2, 1}));
  R = runOk("and", {arr(DType::F64, {3}, {0.5, 0, NaN}),
                    arr(DType::I8, {3}, {1, 1, 1})});
  EXPECT_EQ(ints(R), (std::vector<int64_t>{1, 0, 1}));
  R = runOk("second", {arr(DType::F64, {2, 1}, {9, 9}),
                       arr(DType::U8, {3}, {1, 2, 3})});
  EXPECT_EQ(R.dtype(), DType::U8);
  EXPECT_EQ(ints(R), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
}

TEST(ElemwisePerform, IntegerDivisionCorners) {
  // NumPy: [INT_MIN, 7, -7, 7, -7, 5] // [-1, 2, 2, -2, -2, 0].
  for (DType T : {DType::I8, DType::I16, DType::I32, DType::I64}) {
    int64_t Min = T == DType::I8    ? INT8_MIN
                  : T == DType::I16 ? INT16_MIN
                  : T == DType::I32 ? INT32_MIN
                                    : INT64_MIN;
    NDArray A = i64arr({6}, {Min, 7, -7, 7, -7, 5});
    A = T == DType::I64 ? A : A.astype(T);
    NDArray B = arr(T, {6}, {-1, 2, 2, -2, -2, 0});
    EXPECT_EQ(ints(runOk("int_div", {A, B})),
              (std::vector<int64_t>{Min, 3, -4, -4, 3, 0}))
        << dtypeName(T).str();
    EXPECT_EQ(ints(runOk("mod", {A, B})),
              (std::vector<int64_t>{0, 1, 1, -1, -1, 0}))
        << dtypeName(T).str();
  }
  NDArray U = arr(DType::U8, {3}, {7, 0, 255});
  NDArray D = arr(DType::U8, {3}, {0, 0, 2});
  EXPECT_EQ(ints(runOk("int_div", {U, D})), (std::vector<int64_t>{0, 0, 127}));
  EXPECT_EQ(ints(runOk("mod", {U, D})), (std::vector<int64_t>{0, 0, 1}));
  // bool // bool is int8.
  NDArray Bo = arr(DType::Bool, {2}, {1, 0});
  NDArray R = runOk("int_div", {Bo, Bo});
  EXPECT_EQ(R.dtype(), DType::I8);
  EXPECT_EQ(ints(R), (std::vector<int64_t>{1, 0}));
}

TEST(ElemwisePerform, FloatFloorDivAndRemainder) {
  NDArray A = arr(DType::F64, {9}, {5, -5, 5, -5, 0, 1, -1, Inf, 5.5});
  NDArray B = arr(DType::F64, {9}, {3, 3, -3, -3, 3, Inf, Inf, 3, 0.5});
  std::vector<double> Q = values(runOk("int_div", {A, B}));
  std::vector<double> M = values(runOk("mod", {A, B}));
  std::vector<double> WantQ = {1, -2, -2, 1, 0, 0, -1, NaN, 11};
  std::vector<double> WantM = {2, 1, -1, -2, 0, 1, Inf, NaN, 0};
  for (size_t I = 0; I < Q.size(); ++I) {
    EXPECT_TRUE(Q[I] == WantQ[I] || (std::isnan(Q[I]) && std::isnan(WantQ[I])))
        << I << ": " << Q[I];
    EXPECT_TRUE(M[I] == WantM[I] || (std::isnan(M[I]) && std::isnan(WantM[I])))
        << I << ": " << M[I];
  }
  // Division by zero: inf / nan as IEEE gives, no error.
  NDArray Z = arr(DType::F32, {3}, {5, -5, 0});
  NDArray Zero = arr(DType::F32, {}, {0});
  Q = values(runOk("int_div", {Z, Zero}));
  EXPECT_EQ(Q[0], Inf);
  EXPECT_EQ(Q[1], -Inf);
  EXPECT_TRUE(std::isnan(Q[2]));
  for (double V : values(runOk("mod", {Z, Zero})))
    EXPECT_TRUE(std::isnan(V));
  // The remainder of 0 has the divisor's sign.
  EXPECT_TRUE(std::signbit(values(runOk("mod", {arr(DType::F64, {1}, {0}),
                                                arr(DType::F64, {1}, {-3})}))[0]));
}

TEST(ElemwisePerform, IntegerPower) {
  NDArray A = arr(DType::I8, {6}, {3, -3, 2, 0, 1, -1});
  NDArray E = arr(DType::I8, {6}, {5, 5, 7, 0, 100, 101});
  EXPECT_EQ(ints(runOk("pow", {A, E})),
            (std::vector<int64_t>{-13, 13, -128, 1, 1, -1}));
  EXPECT_EQ(ints(runOk("pow", {arr(DType::U8, {1}, {2}),
                               arr(DType::U8, {1}, {9})})),
            (std::vector<int64_t>{0}));
  EXPECT_EQ(ints(runOk("pow", {i64arr({1}, {3}), i64arr({1}, {40})})),
            (std::vector<int64_t>{int64_t(12157665459056928801ULL)}));
  Expected<NDArray> R = run("pow", {arr(DType::I32, {2}, {2, 2}),
                                    arr(DType::I32, {2}, {1, -1})});
  ASSERT_FALSE(R);
  EXPECT_EQ(llvm::toString(R.takeError()),
            "Integers to negative integer powers are not allowed.");
  // A float exponent makes it a float power.
  EXPECT_EQ(values(runOk("pow", {arr(DType::I32, {1}, {2}),
                                 arr(DType::F64, {}, {-1})})),
            (std::vector<double>{0.5}));
}

TEST(ElemwisePerform, CastCorners) {
  NDArray X = arr(DType::F64, {12}, {3e9, -3e9, NaN, Inf, -Inf, 1e20, 300.7,
                                     -1.5, 128, 40000, -200, 2147483649.0});
  auto Cast = [&](const NDArray &A, const char *T) {
    return ints(runOk("cast", {A}, castTo(T)));
  };
  const int64_t I32Min = INT32_MIN, I64Min = INT64_MIN;
  EXPECT_EQ(Cast(X, "i8"), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 44, -1,
                                                 -128, 64, 56, 0}));
  EXPECT_EQ(Cast(X, "u8"), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 44, 255,
                                                 128, 64, 56, 0}));
  EXPECT_EQ(Cast(X, "i16"), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 300, -1,
                                                  128, -25536, -200, 0}));
  EXPECT_EQ(Cast(X, "i32"),
            (std::vector<int64_t>{I32Min, I32Min, I32Min, I32Min, I32Min,
                                  I32Min, 300, -1, 128, 40000, -200, I32Min}));
  EXPECT_EQ(Cast(X, "i64"),
            (std::vector<int64_t>{3000000000, -3000000000, I64Min, I64Min,
                                  I64Min, I64Min, 300, -1, 128, 40000, -200,
                                  2147483649}));
  EXPECT_EQ(Cast(X.astype(DType::F32), "i8")[6], 44);
  // Anything to bool is != 0 (NaN is true).
  EXPECT_EQ(Cast(arr(DType::F64, {4}, {0, -0.0, NaN, 0.1}), "bool"),
            (std::vector<int64_t>{0, 0, 1, 1}));
  // Integers wrap; big integers round to the nearest float.
  EXPECT_EQ(Cast(arr(DType::I32, {2}, {257, -1}), "u8"),
            (std::vector<int64_t>{1, 255}));
  NDArray F = runOk("cast", {i64arr({1}, {(int64_t(1) << 53) + 1})},
                    castTo("f64"));
  EXPECT_EQ(F.getDouble(0), 9007199254740992.0);
  // A cast of a strided view comes out contiguous.
  NDArray M = arr(DType::I32, {2, 2}, {1, 2, 3, 4});
  NDArray T = runOk("cast", {M.view({2, 2}, {4, 8})}, castTo("f32"));
  EXPECT_EQ(values(T), (std::vector<double>{1, 3, 2, 4}));
}

TEST(ElemwisePerform, FloatSpecialValues) {
  NDArray A = arr(DType::F64, {4}, {NaN, 1, 0.0, -0.0});
  NDArray B = arr(DType::F64, {4}, {1, NaN, -0.0, 0.0});
  for (const char *Op : {"maximum", "minimum"}) {
    std::vector<double> R = values(runOk(Op, {A, B}));
    EXPECT_TRUE(std::isnan(R[0]) && std::isnan(R[1])) << Op;
  }
  std::vector<double> Sg =
      values(runOk("sign", {arr(DType::F64, {4}, {NaN, -0.0, -2, 3})}));
  EXPECT_TRUE(std::isnan(Sg[0]));
  EXPECT_EQ(Sg[1], 0);
  EXPECT_FALSE(std::signbit(Sg[1]));
  EXPECT_EQ(Sg[2], -1);
  EXPECT_EQ(Sg[3], 1);
  // Stable sigmoid and softplus at the extremes.
  NDArray X = arr(DType::F64, {4}, {-1000, 1000, 0, -40});
  std::vector<double> Sig = values(runOk("sigmoid", {X}));
  EXPECT_EQ(Sig[0], 0);
  EXPECT_EQ(Sig[1], 1);
  EXPECT_EQ(Sig[2], 0.5);
  EXPECT_NEAR(Sig[3], std::exp(-40.0), 1e-30);
  std::vector<double> Sp = values(runOk("softplus", {X}));
  EXPECT_EQ(Sp[0], 0);
  EXPECT_EQ(Sp[1], 1000);
  EXPECT_DOUBLE_EQ(Sp[2], std::log(2.0));
  EXPECT_DOUBLE_EQ(Sp[3], std::log1p(std::exp(-40.0)));
  // Float functions of small integers are f32.
  NDArray E = runOk("exp", {arr(DType::I8, {2}, {0, 1})});
  EXPECT_EQ(E.dtype(), DType::F32);
  EXPECT_EQ(E.getDouble(1), double(std::exp(1.0f)));
  NDArray Rc = runOk("reciprocal", {arr(DType::I32, {3}, {2, 0, -4})});
  EXPECT_EQ(Rc.dtype(), DType::F64);
  EXPECT_EQ(values(Rc), (std::vector<double>{0.5, Inf, -0.25}));
  NDArray C = runOk("clip", {arr(DType::F64, {4}, {-5, 0.5, 5, NaN}),
                             arr(DType::F64, {}, {0}), arr(DType::F64, {}, {1})});
  std::vector<double> Cv = values(C);
  EXPECT_EQ(Cv[0], 0);
  EXPECT_EQ(Cv[1], 0.5);
  EXPECT_EQ(Cv[2], 1);
  EXPECT_TRUE(std::isnan(Cv[3]));
}

TEST(ElemwisePerform, FastAndStridedPathsAgree) {
  // The same values through a dense loop and through transposed views.
  const int64_t R = 37, C = 29;
  NDArray A = NDArray::zeros(DType::F32, {R, C});
  NDArray B = NDArray::zeros(DType::F32, {R, C});
  for (int64_t I = 0; I < R * C; ++I) {
    A.dataAs<float>()[I] = float(I % 17) - 8.5f;
    B.dataAs<float>()[I] = float(I % 5) + 0.25f;
  }
  auto Tr = [&](const NDArray &X) {
    return X.view({X.dim(1), X.dim(0)}, {X.strides()[1], X.strides()[0]});
  };
  for (const char *Op : {"add", "mul", "true_div", "mod", "maximum", "lt"}) {
    NDArray Dense = runOk(Op, {A, B});
    NDArray Strided = runOk(Op, {Tr(A), Tr(B)});
    NDArray Back = Tr(Strided).copy();
    EXPECT_TRUE(Dense.identical(Back)) << Op;
  }
  NDArray Scalar = arr(DType::F32, {}, {3});
  NDArray S1 = runOk("sub", {A, Scalar}), S2 = runOk("sub", {Scalar, A});
  for (int64_t I = 0; I < R * C; ++I) {
    EXPECT_EQ(S1.dataAs<float>()[I], A.dataAs<float>()[I] - 3);
    EXPECT_EQ(S2.dataAs<float>()[I], 3 - A.dataAs<float>()[I]);
  }
}
