//===- StructuralLoweringTest.cpp - Structural ops as JIT code vs. perform ===//
//
// The lowerings of the shape, indexing, reduction, dot and nn families:
// every op runs as JIT code under the c|py linker and its outputs equal the
// py linker's bit for bit, on contiguous, transposed, reversed, stepped,
// broadcast, 0-d and empty inputs, every dtype, keepdims, negative and
// multiple axes, NaN, signed zeros, ties and integer wrap-around; run-time
// errors read as perform's; the examples' non-elemwise ops all have
// lowerings; contiguous reduction rows vectorize.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "codegen/ThunkEmitter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "ElemwiseTestValues.h"
#include "LoweringTestUtil.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double Inf = std::numeric_limits<double>::infinity();

Dim S(const char *Name) { return Dim::symbolic(Name); }
Dim K(int64_t N) { return Dim::known(N); }
AttrValue ints(std::vector<int64_t> V) { return AttrValue::intList(V); }
AttrValue num(int64_t V) { return AttrValue::integer(V); }

// Element I of the test data of dtype E: small values with many ties, and
// the corner cases where they matter (wrap-around, NaN, signed zeros,
// infinities) at a few places only, so most reductions stay finite.
template <typename E> E testValue(int64_t I) {
  if constexpr (std::is_same_v<E, bool>) {
    return (I * 7) % 5 < 3;
  } else {
    double Small = double((I * 7) % 11) - 4; // -4 .. 6, with repeats
    if constexpr (std::is_floating_point_v<E>) {
      switch (I) {
      case 2:
        return E(-0.0);
      case 3:
        return E(0.0);
      case 17:
        return E(NaN);
      case 29:
        return E(Inf);
      case 41:
        return E(-Inf);
      case 50:
        return E(0.1);
      }
      return E(Small * 0.37);
    } else {
      using L = std::numeric_limits<E>;
      if (I == 5)
        return L::max();
      if (I == 6)
        return L::min();
      if constexpr (std::is_unsigned_v<E>)
        return E(Small + 4);
      return E(Small);
    }
  }
}

NDArray values(DType T, const Shape &Sh, int64_t Start = 0) {
  NDArray A = NDArray::zeros(T, Sh);
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (int64_t I = 0; I < A.numElements(); ++I)
      A.dataAs<E>()[I] = testValue<E>(I + Start);
  });
  return A;
}

// Smooth values that make long float sums inexact (pairwise order shows).
NDArray ramp(DType T, const Shape &Sh) {
  NDArray A = NDArray::zeros(T, Sh);
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (int64_t I = 0; I < A.numElements(); ++I)
      if constexpr (std::is_floating_point_v<E>)
        A.dataAs<E>()[I] = E(std::sin(double(I)) * 1e3 + 1.0 / (I + 3));
      else // Wrapped into the type: converting an out-of-range float is UB.
        A.dataAs<E>()[I] = E(int64_t(std::sin(double(I)) * 1e3));
  });
  return A;
}

// Runs the function under py and c|py; every Apply must run as JIT code
// and the outputs must agree bit for bit, or with VectorMath within the
// ulps libmvec's vector functions may differ from libm's scalar ones
// (sameValues). Returns c|py's outputs.
std::vector<NDArray> agree(const std::vector<TensorType> &Types,
                           const BuildFn &Build,
                           const std::vector<NDArray> &Args,
                           const DimBindings &Given = {},
                           bool VectorMath = false) {
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled CPy = compile(Types, Build, LinkerKind::CPy);
  if (!Py.Fn || !CPy.Fn)
    return {};
  for (const Apply *N : CPy.Fn->graph().applies())
    EXPECT_TRUE(CPy.Fn->isCompiled(N->id())) << N->displayName();
  auto Want = Py.Fn->call(Args, Given);
  auto Got = CPy.Fn->call(Args, Given);
  if (!Want || !Got) {
    ADD_FAILURE() << (Want ? std::string("py ran")
                           : llvm::toString(Want.takeError()))
                  << " / "
                  << (Got ? std::string("c|py ran")
                          : llvm::toString(Got.takeError()));
    return {};
  }
  EXPECT_EQ(Want->size(), Got->size());
  for (size_t I = 0; I < Want->size() && I < Got->size(); ++I)
    EXPECT_TRUE(VectorMath ? sameValues((*Want)[I], (*Got)[I])
                           : sameBits((*Want)[I], (*Got)[I]))
        << "output " << I << ": "
        << CPy.Fn->graph().outputs()[I]->displayName();
  return *Got;
}

// Both linkers fail with the same message; returns it.
std::string sameError(const std::vector<TensorType> &Types,
                      const BuildFn &Build, const std::vector<NDArray> &Args) {
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled CPy = compile(Types, Build, LinkerKind::CPy);
  if (!Py.Fn || !CPy.Fn)
    return "";
  auto Want = Py.Fn->call(Args);
  auto Got = CPy.Fn->call(Args);
  if (Want || Got) {
    ADD_FAILURE() << "a call succeeded";
    return "";
  }
  std::string W = llvm::toString(Want.takeError());
  EXPECT_EQ(W, llvm::toString(Got.takeError()));
  return W;
}

Variable *apply(FunctionBuilder &B, llvm::StringRef Op,
                std::vector<Variable *> In, AttrMap Attrs = {}) {
  auto V = B.apply(Op, In, Attrs);
  if (!V) {
    ADD_FAILURE() << Op.str() << ": " << llvm::toString(V.takeError());
    return In[0];
  }
  return *V;
}

// How a rank-3 input is seen by the ops under test: views made inside the
// graph, so that the JIT code reads strided memory.
enum class View { Plain, Transposed, Reversed, Stepped, Permuted };
const View AllViews[] = {View::Plain, View::Transposed, View::Reversed,
                         View::Stepped, View::Permuted};

Variable *viewOf(FunctionBuilder &B, Variable *X, View V) {
  switch (V) {
  case View::Plain:
    return X;
  case View::Transposed:
    return apply(B, "transpose", {X});
  case View::Reversed:
    return apply(B, "subtensor", {X}, {{"axis", num(1)}, {"step", num(-1)}});
  case View::Stepped:
    return apply(B, "subtensor", {X},
                 {{"axis", num(0)}, {"start", num(1)}, {"step", num(2)}});
  case View::Permuted:
    return apply(B, "dimshuffle", {X}, {{"pattern", ints({1, 2, 0})}});
  }
  return X;
}

AttrMap axisAttrs(std::optional<std::vector<int64_t>> Axes, bool Keep) {
  AttrMap M;
  if (Axes)
    M["axis"] = ints(*Axes);
  if (Keep)
    M["keepdims"] = AttrValue::boolean(true);
  return M;
}

using Axes = std::optional<std::vector<int64_t>>;
Axes axes(std::vector<int64_t> A) { return Axes(std::move(A)); }

// Every reduction of a view of x; Full: over many axis lists (for the
// per-element code of each dtype), else a few that cover the walks (kept
// and reduced dims, merged dims, keepdims, none and all).
BuildFn allReductions(View V, bool Full) {
  return [V, Full](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *X = viewOf(B, In[0], V);
    std::vector<std::pair<Axes, bool>> Cases = {
        {std::nullopt, false}, {axes({1}), false}, {axes({0, 2}), true}};
    if (Full)
      Cases.insert(Cases.end(), {{axes({-1, -3}), false}, {axes({}), false}});
    for (const char *Op : {"sum", "prod", "mean", "max", "min", "all", "any"})
      for (const auto &[A, Keep] : Cases)
        B.output(apply(B, Op, {X}, axisAttrs(A, Keep)));
    std::vector<std::pair<Axes, bool>> ArgCases = {{std::nullopt, false},
                                                   {axes({1}), true}};
    if (Full)
      ArgCases.push_back({axes({-1}), false});
    for (const char *Op : {"argmax", "argmin"})
      for (const auto &[A, Keep] : ArgCases)
        B.output(apply(B, Op, {X}, axisAttrs(A, Keep)));
    for (Axes A : {Axes(), axes({-1})}) {
      auto Outs = B.applyMulti("max_and_argmax", {X}, axisAttrs(A, false));
      ASSERT_TRUE(bool(Outs)) << llvm::toString(Outs.takeError());
      B.output((*Outs)[0]);
      B.output((*Outs)[1]);
    }
  };
}

TensorType rank3(DType T) { return TensorType(T, {S("a"), S("b"), S("c")}); }

TEST(StructuralLowering, ReductionsEveryDType) {
  for (DType T : AllDTypes) {
    SCOPED_TRACE(dtypeName(T).str());
    agree({rank3(T)}, allReductions(View::Plain, true), {values(T, {5, 4, 3})});
  }
}

TEST(StructuralLowering, ReductionsOfStridedViews) {
  // Bool: one-byte elements, where a byte stride of 1 is contiguous.
  for (DType T : {DType::F64, DType::Bool})
    for (View V : AllViews) {
      SCOPED_TRACE(dtypeName(T).str() + " view " + std::to_string(int(V)));
      agree({rank3(T)}, allReductions(V, false), {values(T, {5, 4, 3})});
    }
}

TEST(StructuralLowering, ReductionsOfLongRowsAgreeToTheBit) {
  // Rows over 128 take the pairwise halves; transposed and stepped views
  // read them strided; merged dims make one long row.
  for (DType T : {DType::F32, DType::F64, DType::I32, DType::U8})
    for (View V : {View::Plain, View::Transposed, View::Stepped}) {
      SCOPED_TRACE(dtypeName(T).str() + " view " + std::to_string(int(V)));
      BuildFn Build = [V](FunctionBuilder &B, std::vector<Variable *> In) {
        Variable *X = viewOf(B, In[0], V);
        for (const char *Op : {"sum", "mean"})
          for (Axes A : {Axes(), axes({0}), axes({2}), axes({1, 2})})
            B.output(apply(B, Op, {X}, axisAttrs(A, false)));
      };
      agree({rank3(T)}, Build, {ramp(T, {6, 37, 29})});
    }
}

// Sums and means over one leading axis run a vector of columns at a time
// (gj_pairwise_sum_cols): over more than 128 rows (the pairwise halves),
// with column counts that leave a tail, contiguous and in views that are
// not (the per-element path), to the bit as perform.
TEST(StructuralLowering, ColumnSumsAgreeToTheBit) {
  for (DType T : {DType::F32, DType::F64, DType::I32, DType::Bool})
    for (View V : {View::Plain, View::Transposed}) {
      SCOPED_TRACE(dtypeName(T).str() + " view " + std::to_string(int(V)));
      BuildFn Build = [V, T](FunctionBuilder &B, std::vector<Variable *> In) {
        Variable *X = viewOf(B, In[0], V);
        for (Axes A : {axes({0}), axes({1})}) {
          if (isFloat(T))
            B.output(apply(B, "sum", {X}, axisAttrs(A, false)));
          B.output(apply(B, "mean", {X}, axisAttrs(A, true)));
        }
      };
      agree({rank3(T)}, Build, {ramp(T, {150, 3, 37})});
    }
  // A column of -0.0s sums to 0.0, as the reductions' totals start at 0.
  NDArray Zeros = NDArray::zeros(DType::F64, {9, 4, 8});
  for (int64_t I = 0; I < Zeros.numElements(); I += 2)
    Zeros.dataAs<double>()[I] = -0.0;
  BuildFn Sum0 = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "sum", {In[0]}, axisAttrs(axes({0}), false)));
  };
  std::vector<NDArray> Out = agree({rank3(DType::F64)}, Sum0, {Zeros});
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_FALSE(std::signbit(Out[0].getDouble(0)));
}

// Where the answer's bits depend on the order: -0.0 against 0.0, NaNs of
// either sign, in rows long enough for the vector blocks and in their
// tails, read contiguously and strided.
TEST(StructuralLowering, ExtremesKeepTheFirstZeroAndNaN) {
  const double NegNaN = std::copysign(NaN, -1.0);
  const std::vector<std::vector<double>> Rows = {
      {-1, -0.0, 0.0, -2},
      {-1, 0.0, -0.0},
      {NaN, NegNaN, 1},
      {1, NegNaN, NaN},
      {NegNaN, NegNaN},
      {-Inf, -Inf, -Inf},
      {Inf, 0.0, Inf},
      {-3, -0.0, -5, 0.0, -1, -0.0, -9, -2, -7, 0.0, -4, -6, -8},
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, NegNaN, 12, 13, 14, 15, 16, 17, NaN},
      {0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0}};
  // Reductions along Axis of x (transposed first if Transpose) and of its
  // reverse along that axis.
  auto Build = [](bool Transpose) -> BuildFn {
    return [=](FunctionBuilder &B, std::vector<Variable *> In) {
      Variable *X = Transpose ? apply(B, "transpose", {In[0]}) : In[0];
      AttrMap Axis = {{"axis", num(Transpose ? 0 : 1)}};
      AttrMap Reverse = {{"axis", num(Transpose ? 0 : 1)}, {"step", num(-1)}};
      for (const char *Op : {"max", "min", "argmax", "argmin"})
        B.output(apply(B, Op, {X}, Axis));
      Variable *Reversed = apply(B, "subtensor", {X}, Reverse);
      for (const char *Op : {"max", "argmin"})
        B.output(apply(B, Op, {Reversed}, Axis));
      auto Outs = B.applyMulti("max_and_argmax", {X}, Axis);
      ASSERT_TRUE(bool(Outs));
      B.output((*Outs)[0]);
      B.output((*Outs)[1]);
    };
  };
  for (DType T : {DType::F64, DType::F32}) {
    for (const std::vector<double> &Row : Rows) {
      SCOPED_TRACE(dtypeName(T).str() + " row of " +
                   std::to_string(Row.size()));
      // Two contiguous rows: Row and Row reversed; transposed, two strided
      // columns.
      int64_t N = Row.size();
      NDArray X = NDArray::zeros(T, {2, N});
      for (int64_t I = 0; I < N; ++I)
        for (int64_t R = 0; R < 2; ++R) {
          double V = Row[R ? N - 1 - I : I];
          if (T == DType::F64)
            X.dataAs<double>()[R * N + I] = V;
          else
            X.dataAs<float>()[R * N + I] = float(V);
        }
      for (bool Transpose : {false, true}) {
        agree({TensorType(T, {S("n"), S("m")})}, Build(Transpose), {X});
        // softmax subtracts that maximum; its exps are libmvec's (rows
        // shorter than 16 too), so within their ulps, NaN for NaN.
        BuildFn Softmax = [=](FunctionBuilder &B, std::vector<Variable *> In) {
          Variable *Y = Transpose ? apply(B, "transpose", {In[0]}) : In[0];
          B.output(apply(B, "softmax", {Y}, {{"axis", num(Transpose ? 0 : 1)}}));
        };
        agree({TensorType(T, {S("n"), S("m")})}, Softmax, {X}, {},
              /*VectorMath=*/true);
      }
    }
  }
}

TEST(StructuralLowering, ReductionsOfEmptyAnd0dInputs) {
  BuildFn WithIdentity = [](FunctionBuilder &B, std::vector<Variable *> In) {
    for (const char *Op : {"sum", "prod", "mean", "all", "any"})
      for (int64_t A : {0, 1})
        B.output(apply(B, Op, {In[0]}, {{"axis", num(A)}}));
    B.output(apply(B, "sum", {In[0]}));
    // max over the non-empty axis: an empty result, no error.
    B.output(apply(B, "max", {In[0]}, {{"axis", num(0)}}));
    B.output(apply(B, "argmin", {In[0]}, {{"axis", num(0)}}));
  };
  TensorType T2(DType::F64, {S("n"), S("m")});
  agree({T2}, WithIdentity, {values(DType::F64, {3, 0})});

  BuildFn Scalar = [](FunctionBuilder &B, std::vector<Variable *> In) {
    for (const char *Op : {"sum", "prod", "mean", "max", "min", "all", "any",
                           "argmax", "argmin"})
      B.output(apply(B, Op, {In[0]}));
  };
  for (DType T : AllDTypes)
    agree({TensorType(T, {})}, Scalar, {values(T, {}, 4)});
}

TEST(StructuralLowering, EmptyReductionErrorsAreThePerformErrors) {
  TensorType T2(DType::F32, {S("n"), S("m")});
  auto One = [](const char *Op, AttrMap Attrs) -> BuildFn {
    return [=](FunctionBuilder &B, std::vector<Variable *> In) {
      auto Outs = B.applyMulti(Op, {In[0]}, Attrs);
      ASSERT_TRUE(bool(Outs)) << llvm::toString(Outs.takeError());
      for (Variable *O : *Outs)
        B.output(O);
    };
  };
  NDArray Empty = values(DType::F32, {3, 0});
  EXPECT_NE(sameError({T2}, One("max", {{"axis", num(1)}}), {Empty})
                .find("zero-size array to reduction operation maximum"),
            std::string::npos);
  EXPECT_NE(sameError({T2}, One("min", {}), {Empty}).find("minimum"),
            std::string::npos);
  EXPECT_NE(sameError({T2}, One("argmax", {}), {Empty})
                .find("attempt to get argmax of an empty sequence"),
            std::string::npos);
  EXPECT_NE(sameError({T2}, One("max_and_argmax", {{"axis", num(1)}}), {Empty})
                .find("zero-size array"),
            std::string::npos);
}

TEST(StructuralLowering, ShapeOpsAndViews) {
  for (DType T : AllDTypes) {
    SCOPED_TRACE(dtypeName(T).str());
    BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
      Variable *X = In[0];
      Variable *Tr = apply(B, "transpose", {X});
      B.output(Tr);
      B.output(apply(B, "dimshuffle", {X}, {{"pattern", ints({2, 0, 1})}}));
      B.output(apply(B, "reshape", {X}, {{"shape", ints({-1, 3})}}));
      // Reshaping a transposed view needs a copy.
      B.output(apply(B, "reshape", {Tr}, {{"shape", ints({3, -1})}}));
      B.output(apply(B, "flatten", {Tr}));
      B.output(apply(B, "flatten", {X}));
      B.output(
          apply(B, "subtensor", {X}, {{"axis", num(-1)}, {"start", num(-2)}}));
      for (int64_t A : {0, 1, 2, -1})
        B.output(apply(B, "shape", {Tr}, {{"axis", num(A)}}));
      B.output(apply(B, "zeros_like", {Tr}));
      B.output(apply(B, "ones_like", {Tr}));
      B.output(apply(B, "ones_like", {apply(B, "sum", {X})}));
    };
    agree({rank3(T)}, Build, {values(T, {2, 4, 3})});
  }
}

TEST(StructuralLowering, AllocBroadcasts) {
  for (DType T : {DType::F64, DType::Bool, DType::I16, DType::F32}) {
    SCOPED_TRACE(dtypeName(T).str());
    BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
      auto Shape = [](std::vector<AttrValue> Entries) {
        return AttrMap{{"shape", AttrValue::list(std::move(Entries))}};
      };
      // A scalar, a row, a column and a transposed matrix, broadcast.
      B.output(apply(B, "alloc", {In[0]},
                     Shape({AttrValue::ident("n"), AttrValue::integer(3)})));
      B.output(apply(B, "alloc", {In[1]},
                     Shape({AttrValue::integer(2), AttrValue::integer(4),
                            AttrValue::ident("k")})));
      B.output(apply(B, "alloc", {In[2]},
                     Shape({AttrValue::integer(2), AttrValue::integer(3),
                            AttrValue::integer(5)})));
      B.output(apply(B, "alloc", {apply(B, "transpose", {In[2]})},
                     Shape({AttrValue::integer(5), AttrValue::integer(3)})));
      B.output(apply(B, "alloc", {In[0]},
                     Shape({AttrValue::integer(0), AttrValue::integer(7)})));
    };
    agree({TensorType(T, {}), TensorType(T, {S("k")}),
           TensorType(T, {K(3), K(1)})},
          Build, {values(T, {}, 1), values(T, {6}), values(T, {3, 1}, 2)},
          DimBindings{{"n", 4}});
  }
}

TEST(StructuralLowering, ConcatenateConvertsAndOffsets) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(
        apply(B, "concatenate", {In[0], In[1], In[2]}, {{"axis", num(0)}}));
    B.output(
        apply(B, "concatenate",
              {apply(B, "transpose", {In[0]}), apply(B, "transpose", {In[2]})},
              {{"axis", num(-1)}}));
    B.output(apply(B, "concatenate",
                   {In[1], apply(B, "subtensor", {In[1]},
                                 {{"axis", num(1)}, {"step", num(-1)}})},
                   {{"axis", num(1)}}));
    B.output(apply(B, "concatenate", {In[2]}, {{"axis", num(1)}}));
  };
  agree({TensorType(DType::I8, {S("a"), K(3)}),
         TensorType(DType::U8, {S("b"), K(3)}),
         TensorType(DType::F32, {S("c"), K(3)})},
        Build,
        {values(DType::I8, {2, 3}), values(DType::U8, {0, 3}),
         values(DType::F32, {4, 3})});
  // Columns joined along axis 1, as the ordinal likelihoods make them
  // ((n, 1), a transposed (n, 3), (n, 1)): rows shorter than ShortCopyRow
  // copied down their columns; and a long first row, copied row by row.
  BuildFn Columns = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "concatenate",
                   {In[0], apply(B, "transpose", {In[1]}), In[0]},
                   {{"axis", num(1)}}));
    B.output(apply(B, "concatenate", {In[1], In[1]}, {{"axis", num(1)}}));
  };
  agree({TensorType(DType::F64, {S("n"), K(1)}),
         TensorType(DType::F64, {K(3), S("n")})},
        Columns, {values(DType::F64, {50, 1}), values(DType::F64, {3, 50}, 3)});
  // Mismatched dims: perform's message.
  BuildFn Bad = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "concatenate", {In[0], In[1]}, {{"axis", num(0)}}));
  };
  EXPECT_NE(sameError({TensorType(DType::F64, {S("a"), S("b")}),
                       TensorType(DType::F64, {S("c"), S("d")})},
                      Bad,
                      {values(DType::F64, {2, 3}), values(DType::F64, {2, 4})})
                .find("along dimension 1"),
            std::string::npos);
}

TEST(StructuralLowering, SoftmaxAndLogSoftmax) {
  for (DType T : {DType::F64, DType::F32, DType::I32, DType::Bool})
    for (View V : AllViews) {
      if (T != DType::F64 && V != View::Plain && V != View::Transposed)
        continue;
      SCOPED_TRACE(dtypeName(T).str() + " view " + std::to_string(int(V)));
      BuildFn Build = [V](FunctionBuilder &B, std::vector<Variable *> In) {
        Variable *X = viewOf(B, In[0], V);
        for (const char *Op : {"softmax", "log_softmax"})
          for (int64_t A : {-1, 0, 1})
            B.output(apply(B, Op, {X}, {{"axis", num(A)}}));
      };
      // Rows this short go through ShortRows' buffer: libmvec's exps.
      agree({rank3(T)}, Build, {values(T, {5, 4, 3})}, {},
            /*VectorMath=*/true);
    }
  // More short rows than ShortRows' buffer holds (256 elements), so that
  // it is flushed between rows and at the end, read contiguous and
  // strided, from float32 and int32 (computed in double).
  for (DType T : {DType::F64, DType::F32, DType::I32}) {
    SCOPED_TRACE("many short rows, " + dtypeName(T).str());
    BuildFn Many = [](FunctionBuilder &B, std::vector<Variable *> In) {
      Variable *Tr = apply(B, "transpose", {In[0]});
      for (const char *Op : {"softmax", "log_softmax"}) {
        B.output(apply(B, Op, {In[0]}));
        B.output(apply(B, Op, {Tr}, {{"axis", num(0)}}));
      }
    };
    for (int64_t Width : {3, 7, 15})
      agree({TensorType(T, {S("n"), S("m")})}, Many,
            {values(T, {131, Width})}, {}, /*VectorMath=*/true);
  }
  // Rows of -inf, rows holding +inf, an empty axis, large values.
  BuildFn Rows = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "softmax", {In[0]}));
    B.output(apply(B, "log_softmax", {In[0]}));
    B.output(apply(B, "softmax", {In[1]}));
  };
  NDArray X = NDArray::zeros(DType::F64, {4, 3});
  double Vals[] = {-Inf, -Inf, -Inf, 1, Inf, 2, 1000, 1001, 999, NaN, 1, 2};
  std::memcpy(X.data(), Vals, sizeof(Vals));
  agree({TensorType(DType::F64, {S("n"), S("m")}),
         TensorType(DType::F32, {S("p"), S("q")})},
        Rows, {X, values(DType::F32, {2, 0})}, {}, /*VectorMath=*/true);
  // Rows longer than a pairwise block (128), so that the sum splits, read
  // contiguous (axis 1) and strided (axis 0 of the transpose).
  for (DType T : {DType::F32, DType::F64}) {
    SCOPED_TRACE("long rows, " + dtypeName(T).str());
    BuildFn Long = [](FunctionBuilder &B, std::vector<Variable *> In) {
      Variable *Tr = apply(B, "transpose", {In[0]});
      for (const char *Op : {"softmax", "log_softmax"}) {
        B.output(apply(B, Op, {In[0]}));
        B.output(apply(B, Op, {Tr}, {{"axis", num(0)}}));
      }
    };
    // Finite values (three passes; the contiguous rows' exps are libmvec's
    // vector ones), then the specials (NaNs in every row: the quiet NaN
    // everywhere).
    NDArray Finite = NDArray::zeros(T, {3, 301});
    for (int64_t I = 0; I < Finite.numElements(); ++I)
      dispatchDType(T, [&](auto Tag) {
        using V = typename decltype(Tag)::type;
        Finite.dataAs<V>()[I] = V(8 * std::sin(0.37 * double(I)));
      });
    agree({TensorType(T, {S("n"), S("m")})}, Long, {Finite}, {},
          /*VectorMath=*/true);
    agree({TensorType(T, {S("n"), S("m")})}, Long,
          {testutil::values(T, {3, 301})});
  }
}

TEST(StructuralLowering, DotThroughCompute) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *A = In[0], *Bm = In[1], *V = In[2];
    B.output(apply(B, "dot", {A, Bm}));
    B.output(apply(B, "dot",
                   {apply(B, "transpose", {Bm}), apply(B, "transpose", {A})}));
    B.output(apply(B, "dot", {A, V}));
    B.output(apply(B, "dot", {V, apply(B, "transpose", {A})}));
    B.output(apply(B, "dot", {V, V}));
    B.output(apply(B, "dot", {In[3], V}));
    B.output(apply(
        B, "dot",
        {apply(B, "subtensor", {A}, {{"axis", num(1)}, {"step", num(2)}}),
         apply(B, "subtensor", {Bm}, {{"axis", num(0)}, {"step", num(2)}})}));
  };
  for (DType T : {DType::F64, DType::F32, DType::I32, DType::Bool}) {
    SCOPED_TRACE(dtypeName(T).str());
    agree({TensorType(T, {S("m"), S("k")}), TensorType(T, {S("k"), S("n")}),
           TensorType(T, {S("k")}), TensorType(DType::I8, {})},
          Build,
          {ramp(T, {5, 6}), ramp(T, {6, 7}), values(T, {6}),
           values(DType::I8, {}, 4)});
    // Empty contractions give zeros.
    agree({TensorType(T, {S("m"), S("k")}), TensorType(T, {S("k"), S("n")}),
           TensorType(T, {S("k")}), TensorType(DType::I8, {})},
          Build,
          {values(T, {3, 0}), values(T, {0, 2}), values(T, {0}),
           values(DType::I8, {})});
    // Empty results.
    agree({TensorType(T, {S("m"), S("k")}), TensorType(T, {S("k"), S("n")}),
           TensorType(T, {S("k")}), TensorType(DType::I8, {})},
          Build,
          {values(T, {0, 2}), values(T, {2, 0}), values(T, {2}),
           values(DType::I8, {})});
  }
  BuildFn Bad = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "dot", {In[0], In[1]}));
  };
  EXPECT_NE(sameError({TensorType(DType::F64, {S("a"), S("b")}),
                       TensorType(DType::F64, {S("c")})},
                      Bad,
                      {values(DType::F64, {2, 3}), values(DType::F64, {4})})
                .find("shapes (2,3) and (4,) not aligned"),
            std::string::npos);
}

// The examples' functions need no perform but their elemwise ops'.
TEST(StructuralLowering, ExamplesHaveLoweringsForEveryOtherOp) {
  llvm::SmallString<256> Dir(GRAPHJIT_EXAMPLES_DIR);
  for (const char *Name :
       {"mlp.graph", "logistic_regression.graph", "profiling_example.graph"}) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name);
    auto M = parseGraphFile(Path);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    for (const auto &F : (*M)->functions())
      for (const Apply *N : F->applies()) {
        if (N->op().className() != "Elemwise") {
          EXPECT_NE(findLowering(*N), nullptr)
              << Name << ": " << N->op().name();
        }
      }
  }
}

// Float sums call the precompiled pairwise sum that perform() uses (no
// copy of it in the module); integer sums and maxima vectorize through
// LLVM's loop vectorizer.
TEST(StructuralLowering, ContiguousRowsVectorize) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("reduce", "ll", Path));
  EmitOptions Emit;
  Emit.LLVMOptimized = std::string(Path);
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(apply(B, "sum", {In[0]}, {{"axis", num(-1)}}));
    B.output(apply(B, "sum", {In[1]}, {{"axis", num(-1)}}));
    B.output(apply(B, "max", {In[1]}, {{"axis", num(-1)}}));
  };
  Compiled C = compile({TensorType(DType::F64, {S("n"), S("m")}),
                        TensorType(DType::I32, {S("n"), S("m")})},
                       Build, LinkerKind::CPy, Emit);
  ASSERT_TRUE(C.Fn);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  llvm::StringRef IR = (*Buf)->getBuffer();
  EXPECT_NE(IR.find("call double @gj_pairwise_sum_f64_f64("),
            llvm::StringRef::npos);
  EXPECT_NE(IR.find("declare double @gj_pairwise_sum_f64_f64("),
            llvm::StringRef::npos);
  EXPECT_EQ(IR.find("define internal fastcc double @gj_pairwise_sum"),
            llvm::StringRef::npos);
  EXPECT_NE(IR.find("add <"), llvm::StringRef::npos);
  EXPECT_NE(IR.find("x i64>"), llvm::StringRef::npos);
  EXPECT_NE(IR.find("smax.v"), llvm::StringRef::npos);
  llvm::sys::fs::remove(Path);
}

} // namespace
