//===- ElemwiseLoweringTest.cpp - Elemwise as JIT code vs. perform --------===//
//
// The Elemwise lowering runs every scalar operation on every dtype it
// accepts, mixed dtypes, n-ary add, switch, clip, cast, second and bool
// results, on contiguous, transposed, reversed, stepped, zero-stride,
// broadcast, 0-d and empty operands; each result must equal the py
// linker's bit for bit, every Elemwise must run as JIT code, and run-time
// errors must read as perform's. The flat loop must vectorize.
//
//===----------------------------------------------------------------------===//

#include "runtime/FlatElemwise.h"
#include "ops/elemwise/ScalarOps.h"
#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "ElemwiseTestValues.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {


Dim K(int64_t N) { return Dim::known(N); }
Dim S(const char *Name) { return Dim::symbolic(Name); }

// A C-contiguous array holding these numbers (exact in every dtype used).
NDArray arr(DType T, const Shape &Sh, std::vector<double> Vs) {
  NDArray A = NDArray::zeros(T, Sh);
  EXPECT_EQ(int64_t(Vs.size()), A.numElements());
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (size_t I = 0; I < Vs.size(); ++I)
      A.dataAs<E>()[I] = static_cast<E>(Vs[I]);
  });
  return A;
}

// Every Apply of Fn is an Elemwise that runs as JIT code.
void expectAllCompiled(const Function &Fn) {
  for (const Apply *N : Fn.graph().applies()) {
    EXPECT_EQ(N->op().className(), "Elemwise");
    EXPECT_TRUE(Fn.isCompiled(N->id())) << N->displayName();
  }
}

// Runs the function under py and c|py on Args; the outputs must agree bit
// for bit. Returns c|py's outputs.
std::vector<NDArray> agree(const std::vector<TensorType> &Types,
                           const BuildFn &Build,
                           const std::vector<NDArray> &Args,
                           const DimBindings &Given = {}) {
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled CPy = compile(Types, Build, LinkerKind::CPy);
  if (!Py.Fn || !CPy.Fn)
    return {};
  expectAllCompiled(*CPy.Fn);
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
    EXPECT_TRUE(sameValues((*Want)[I], (*Got)[I]))
        << "output " << I << " of "
        << CPy.Fn->graph().outputs()[I]->displayName();
  return *Got;
}

// Both linkers fail with the same message.
void sameError(const std::vector<TensorType> &Types, const BuildFn &Build,
               const std::vector<NDArray> &Args) {
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled CPy = compile(Types, Build, LinkerKind::CPy);
  ASSERT_TRUE(Py.Fn && CPy.Fn);
  auto Want = Py.Fn->call(Args);
  auto Got = CPy.Fn->call(Args);
  ASSERT_FALSE(Want);
  ASSERT_FALSE(Got);
  EXPECT_EQ(llvm::toString(Want.takeError()), llvm::toString(Got.takeError()));
}

// One output per op that accepts the input dtypes.
BuildFn eachOp(std::vector<const char *> Names, unsigned Arity) {
  return [=](FunctionBuilder &B, std::vector<Variable *> In) {
    std::vector<Variable *> Args(In.begin(), In.begin() + Arity);
    for (const char *Name : Names) {
      auto V = B.apply(Name, Args);
      if (V)
        B.output(*V);
      else
        llvm::consumeError(V.takeError()); // neg of bool, sub of bools, ...
    }
  };
}

const std::vector<const char *> UnaryOps = {
    "neg", "abs",  "exp", "log",   "log1p", "expm1", "sqrt",
    "sqr", "sigmoid", "softplus", "tanh", "sin",   "cos",
    "floor", "ceil", "sign", "reciprocal", "erf", "erfc", "gammaln",
    "log2", "log10", "not"};
const std::vector<const char *> BinaryOps = {
    "add", "sub", "mul", "true_div", "int_div", "mod", "maximum", "minimum",
    "eq",  "neq", "lt",  "le",       "gt",      "ge",  "and",     "or"};

TEST(ElemwiseLowering, UnaryOpsEveryDType) {
  for (DType T : AllDTypes) {
    SCOPED_TRACE(dtypeName(T).str());
    agree({TensorType(T, {S("n")})}, eachOp(UnaryOps, 1),
          {values(T, {37})});
  }
}

// The table's float functions of Arity inputs that Listed leaves out.
std::vector<const char *>
tableFloatFunctions(unsigned Arity, const std::vector<const char *> &Listed) {
  std::vector<const char *> Names;
  for (const ScalarOpInfo &Info : ScalarOpTable)
    if (Info.MinArity == Arity && Info.MaxArity == int(Arity) &&
        Info.Rule == DTypeRule::FloatFn &&
        !llvm::is_contained(Listed, llvm::StringRef(Info.Name)))
      Names.push_back(Info.Name);
  return Names;
}

// Every one-input float function of the scalar table (the special
// functions, the inverse trigonometric ones, ... that the list above
// predates), JIT against perform on float32 and float64, each row read
// from the table so that a new op is checked when it is added.
TEST(ElemwiseLowering, EveryUnaryFloatFunctionOfTheTable) {
  std::vector<const char *> Names = tableFloatFunctions(1, UnaryOps);
  ASSERT_GT(Names.size(), 20u);
  for (DType T : {DType::F32, DType::F64}) {
    SCOPED_TRACE(dtypeName(T).str());
    agree({TensorType(T, {S("n")})}, eachOp(Names, 1), {values(T, {37})});
  }
}

// The same for the two-input float functions (jv, iv, gammainc, xlogy0,
// logaddexp, arctan2, ...).
TEST(ElemwiseLowering, EveryBinaryFloatFunctionOfTheTable) {
  std::vector<const char *> Names = tableFloatFunctions(2, BinaryOps);
  ASSERT_GT(Names.size(), 5u);
  for (DType T : {DType::F32, DType::F64}) {
    SCOPED_TRACE(dtypeName(T).str());
    agree({TensorType(T, {S("n")}), TensorType(T, {S("n")})},
          eachOp(Names, 2), {values(T, {41}), values(T, {41}, 3)});
  }
}

TEST(ElemwiseLowering, BinaryOpsSameAndMixedDTypes) {
  std::vector<std::pair<DType, DType>> Pairs;
  for (DType T : AllDTypes)
    Pairs.push_back({T, T});
  Pairs.insert(Pairs.end(), {{DType::I8, DType::F32},
                             {DType::U8, DType::I8},
                             {DType::Bool, DType::F64},
                             {DType::I32, DType::F32},
                             {DType::I16, DType::U8},
                             {DType::F32, DType::F64},
                             {DType::I64, DType::F64}});
  for (auto [A, B] : Pairs) {
    SCOPED_TRACE(dtypeName(A).str() + ", " + dtypeName(B).str());
    agree({TensorType(A, {S("n")}), TensorType(B, {S("n")})},
          eachOp(BinaryOps, 2), {values(A, {41}), values(B, {41}, 3)});
  }
}

TEST(ElemwiseLowering, PowWithNonNegativeExponents) {
  for (DType T : AllDTypes) {
    SCOPED_TRACE(dtypeName(T).str());
    NDArray Exps = T == DType::Bool
                       ? values(T, {23})
                       : arr(T, {23}, {0, 1, 2, 3, 7, 0, 5, 1, 2, 3, 4, 6,
                                       0, 1, 2, 3, 7, 0, 5, 1, 2, 3, 4});
    agree({TensorType(T, {S("n")}), TensorType(T, {S("n")})},
          eachOp({"pow"}, 2), {values(T, {23}), Exps});
  }
}

TEST(ElemwiseLowering, CastBetweenEveryDType) {
  for (DType From : AllDTypes) {
    SCOPED_TRACE(dtypeName(From).str());
    BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
      for (DType To : AllDTypes) {
        AttrMap Attrs = {{"dtype", AttrValue::ident(dtypeName(To).str())}};
        B.output(llvm::cantFail(B.apply("cast", {In[0]}, Attrs)));
      }
    };
    agree({TensorType(From, {S("n")})}, Build, {values(From, {29})});
  }
}

TEST(ElemwiseLowering, NaryAddFoldsLeft) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("add", In)));
    B.output(llvm::cantFail(B.apply("mul", In)));
  };
  // ((1e16 + 1) - 1e16) + 1 is 1; other orders give 0 or 2.
  std::vector<NDArray> Out =
      agree(std::vector<TensorType>(4, TensorType(DType::F64, {S("n")})),
            Build,
            {arr(DType::F64, {2}, {1e16, 1e16}), arr(DType::F64, {2}, {1, 1}),
             arr(DType::F64, {2}, {-1e16, -1e16}),
             arr(DType::F64, {2}, {1, 1})});
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].getDouble(0), 1.0);
  // Mixed dtypes compute in their promotion (f64 here).
  agree({TensorType(DType::I8, {S("n")}), TensorType(DType::F32, {S("n")}),
         TensorType(DType::I64, {S("n")}), TensorType(DType::Bool, {S("n")})},
        Build,
        {values(DType::I8, {19}), values(DType::F32, {19}, 2),
         values(DType::I64, {19}, 5), values(DType::Bool, {19})});
}

TEST(ElemwiseLowering, SwitchClipSecond) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("switch", {In[0], In[1], In[2]})));
    B.output(llvm::cantFail(B.apply("clip", {In[1], In[2], In[3]})));
    B.output(llvm::cantFail(B.apply("second", {In[0], In[2]})));
    B.output(llvm::cantFail(B.apply("clip", {In[3], In[1], In[2]})));
  };
  // Conditions of every kind: a float (NaN counts as true), ints, bools.
  for (DType C : {DType::F64, DType::I32, DType::Bool, DType::U8}) {
    SCOPED_TRACE(dtypeName(C).str());
    agree({TensorType(C, {S("m"), S("n")}), TensorType(DType::I8, {S("n")}),
           TensorType(DType::F32, {S("m"), K(1)}), TensorType(DType::I64, {})},
          Build,
          {values(C, {3, 13}), values(DType::I8, {13}, 4),
           values(DType::F32, {3, 1}, 1), arr(DType::I64, {}, {2})});
  }
}

// Inputs that are views: transposed, reversed, stepped, broadcast by a
// zero stride; rank 2 so that both loop levels are strided.
TEST(ElemwiseLowering, StridedViews) {
  NDArray Base = values(DType::F64, {7, 5});
  NDArray Transposed =
      Base.view({5, 7}, {Base.strides()[1], Base.strides()[0]});
  // Rows and columns reversed: negative strides from the last element.
  NDArray Reversed = Base.view({7, 5}, {-40, -8}, 34 * 8).view(
      {5, 7}, {-8, -40}, 0);
  NDArray IBase = values(DType::I32, {10, 14}, 3);
  NDArray Stepped = IBase.view({5, 7}, {2 * 56, 2 * 4});
  NDArray Row = values(DType::I16, {7}, 1);
  NDArray ZeroStride = Row.view({5, 7}, {0, 2});
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("add", {In[0], In[1]})));
    B.output(llvm::cantFail(B.apply("mul", {In[0], In[2], In[3]})));
    B.output(llvm::cantFail(B.apply("lt", {In[2], In[3]})));
    B.output(llvm::cantFail(B.apply("exp", {In[1]})));
    B.output(llvm::cantFail(B.apply("int_div", {In[2], In[3]})));
  };
  std::vector<TensorType> Types(2, TensorType(DType::F64, {S("m"), S("n")}));
  Types.push_back(TensorType(DType::I32, {S("m"), S("n")}));
  Types.push_back(TensorType(DType::I16, {S("m"), S("n")}));
  agree(Types, Build, {Transposed, Reversed, Stepped, ZeroStride});
  // Contiguous operands next to a reversed one of rank 1.
  NDArray V = values(DType::F32, {11});
  NDArray Rev = V.view({11}, {-4}, 10 * 4);
  agree({TensorType(DType::F32, {S("n")}), TensorType(DType::F32, {S("n")})},
        eachOp({"sub", "maximum", "gt"}, 2),
        {Rev, values(DType::F32, {11}, 2)});
}

// Strided rows of one element and of hundreds (lengths around 64 and 256,
// where the pieces that strided rows are copied in turn): a transposed
// input of each element size, a row-invariant one and a contiguous one
// beside; rows packed for the row kernel (a costly element, or four
// operands) and rows element by element.
TEST(ElemwiseLowering, StridedRowsInChunks) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *E = llvm::cantFail(B.apply("exp", {In[0]}));
    B.output(llvm::cantFail(B.apply("mul", {E, In[1], In[2]})));
    B.output(llvm::cantFail(B.apply("add", {In[3], In[1]})));
    B.output(llvm::cantFail(B.apply("switch", {In[4], In[0], In[1]})));
    // Cheap, but four operands along the row: packed too.
    B.output(llvm::cantFail(B.apply(
        "composite", {In[0], In[1], In[3], In[4]},
        {{"expr", AttrValue::ident("switch(i3, i0 * i1, i2 + i0)")}})));
  };
  std::vector<TensorType> Types = {
      TensorType(DType::F64, {S("m"), S("n")}),
      TensorType(DType::F32, {S("m"), S("n")}),
      TensorType(DType::F64, {S("m"), K(1)}),
      TensorType(DType::I16, {S("m"), S("n")}),
      TensorType(DType::Bool, {S("m"), S("n")})};
  auto Transposed = [](DType T, int64_t M, int64_t N, int Seed) {
    NDArray Base = values(T, {N, M}, Seed);
    return Base.view({M, N}, {Base.strides()[1], Base.strides()[0]});
  };
  for (int64_t N : {1, 63, 64, 65, 255, 256, 257, 600}) {
    SCOPED_TRACE(N);
    agree(Types, Build,
          {Transposed(DType::F64, 3, N, 0), values(DType::F32, {3, N}, 1),
           values(DType::F64, {3, 1}, 2), Transposed(DType::I16, 3, N, 3),
           Transposed(DType::Bool, 3, N, 4)});
  }
}

// Short rows over many of them (an (n, 2) slice of an (n, 3) array, as
// PyMC's ordinal models make): the loops run down the columns. Slices of a
// wider array, a row-invariant and a column-invariant operand beside, and
// a batch dim in front.
TEST(ElemwiseLowering, ShortRowsRunAsColumns) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *D = llvm::cantFail(B.apply("sub", {In[0], In[1]}));
    Variable *E = llvm::cantFail(B.apply("exp", {D}));
    B.output(llvm::cantFail(B.apply("mul", {E, In[2], In[3]})));
    B.output(llvm::cantFail(B.apply("add", {In[0], In[2]})));
  };
  for (int64_t Cols : {1, 2, 3, 7}) {
    for (int64_t Batch : {1, 4}) {
      SCOPED_TRACE(Cols * 100 + Batch);
      const int64_t Rows = 50;
      NDArray Wide = values(DType::F64, {Batch, Rows, Cols + 1});
      const Shape &St = Wide.strides();
      NDArray Left = Wide.view({Batch, Rows, Cols}, St);
      NDArray Right = Wide.view({Batch, Rows, Cols}, St, 8);
      std::vector<TensorType> Types = {
          TensorType(DType::F64, {S("b"), S("m"), S("n")}),
          TensorType(DType::F64, {S("b"), S("m"), S("n")}),
          TensorType(DType::F64, {S("b"), S("m"), K(1)}),
          TensorType(DType::F32, {S("n")})};
      agree(Types, Build,
            {Left, Right, values(DType::F64, {Batch, Rows, 1}, 2),
             values(DType::F32, {Cols}, 3)});
    }
  }
}

// Short rows of costly elements (exp, erfc, pow, a Composite of them)
// read straight from the slices: each column is copied into buffers of 64
// elements for the vectorized row kernel and back. Columns of fewer, just
// more and many more elements than a buffer; a row-invariant operand that
// is copied too and a column-invariant one that is passed as it is; both
// dtypes; a batch dim in front.
TEST(ElemwiseLowering, CostlyShortRowsRunThroughBuffers) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("exp", {In[0]})));
    B.output(llvm::cantFail(B.apply("erfc", {In[1]})));
    B.output(llvm::cantFail(B.apply("pow", {In[0], In[2]})));
    B.output(llvm::cantFail(B.apply(
        "composite", {In[0], In[1], In[2], In[3]},
        {{"expr", AttrValue::ident("log(erfc(i0) - i1 * i3) + exp(i2)")}})));
    B.output(llvm::cantFail(B.apply("sigmoid", {In[4]})));
  };
  for (int64_t Rows : {5, 65, 200}) {
    for (int64_t Batch : {1, 3}) {
      SCOPED_TRACE(Rows * 100 + Batch);
      const int64_t Cols = 2;
      NDArray Wide = values(DType::F64, {Batch, Rows, Cols + 1});
      const Shape &St = Wide.strides();
      NDArray Left = Wide.view({Batch, Rows, Cols}, St);
      NDArray Right = Wide.view({Batch, Rows, Cols}, St, 8);
      NDArray Wide32 = values(DType::F32, {Batch, Rows, Cols + 2}, 4);
      std::vector<TensorType> Types = {
          TensorType(DType::F64, {S("b"), S("m"), S("n")}),
          TensorType(DType::F64, {S("b"), S("m"), S("n")}),
          TensorType(DType::F64, {S("b"), S("m"), K(1)}),
          TensorType(DType::F64, {S("n")}),
          TensorType(DType::F32, {S("b"), S("m"), S("n")})};
      agree(Types, Build,
            {Left, Right, values(DType::F64, {Batch, Rows, 1}, 2),
             values(DType::F64, {Cols}, 3),
             Wide32.view({Batch, Rows, Cols}, Wide32.strides(), 4)});
    }
  }
}

// Broadcasting at every level: missing dims, static 1s, symbolic dims
// bound to 1 at run time, 0-d inputs and literals.
TEST(ElemwiseLowering, Broadcasting) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("add", {In[0], In[1]})));
    B.output(llvm::cantFail(B.apply("mul", {In[0], In[2]})));
    B.output(llvm::cantFail(B.apply("sub", {In[3], In[0]})));
    B.output(llvm::cantFail(B.apply("true_div", {In[0], In[4]})));
    B.output(llvm::cantFail(B.apply("maximum", {In[1], In[2]})));
    B.output(llvm::cantFail(B.apply("mul", {In[0], B.literal(2.0)})));
    B.output(llvm::cantFail(B.apply("le", {B.literal(0.5), In[1]})));
  };
  std::vector<TensorType> Types = {
      TensorType(DType::F64, {S("m"), S("n")}),
      TensorType(DType::F32, {S("n")}),
      TensorType(DType::I32, {S("m"), K(1)}),
      TensorType(DType::F64, {}),
      TensorType(DType::I64, {S("m"), S("k")}),
  };
  // k is 1 here: a run-time broadcast the types do not show.
  agree(Types, Build,
        {values(DType::F64, {4, 9}), values(DType::F32, {9}, 2),
         values(DType::I32, {4, 1}, 1), arr(DType::F64, {}, {1.5}),
         values(DType::I64, {4, 1}, 3)});
  // n is 1: the row operands become column broadcasts.
  agree(Types, Build,
        {values(DType::F64, {6, 1}), values(DType::F32, {1}, 2),
         values(DType::I32, {6, 1}, 1), arr(DType::F64, {}, {-2}),
         values(DType::I64, {6, 1}, 3)});
  // A vector whose size-1 partner is known only at run time.
  agree({TensorType(DType::F64, {S("n")}), TensorType(DType::F64, {S("k")})},
        eachOp({"add", "pow", "minimum"}, 2),
        {values(DType::F64, {33}), arr(DType::F64, {1}, {3})});
}

TEST(ElemwiseLowering, ZeroDAndEmpty) {
  agree({TensorType(DType::I8, {}), TensorType(DType::U8, {})},
        eachOp(BinaryOps, 2),
        {arr(DType::I8, {}, {-7}), arr(DType::U8, {}, {200})});
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("add", {In[0], In[1]})));
    B.output(llvm::cantFail(B.apply("lt", {In[0], In[1]})));
  };
  std::vector<TensorType> Types = {TensorType(DType::F64, {S("m"), S("n")}),
                                   TensorType(DType::F32, {S("n")})};
  std::vector<NDArray> Out = agree(
      Types, Build, {values(DType::F64, {0, 3}), values(DType::F32, {3})});
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[0].shape(), Shape({0, 3}));
  agree(Types, Build, {values(DType::F64, {4, 0}), values(DType::F32, {0})});
}

// Long enough for the vector loop and its remainder; intermediates chain.
TEST(ElemwiseLowering, ContiguousChain) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *T = llvm::cantFail(B.apply("mul", {In[0], B.literal(2.0)}));
    T = llvm::cantFail(B.apply("add", {T, In[1]}));
    T = llvm::cantFail(B.apply("sigmoid", {T}));
    B.output(llvm::cantFail(B.apply("sub", {T, In[0]})));
    B.output(llvm::cantFail(B.apply("ge", {In[2], In[3]})));
    B.output(llvm::cantFail(B.apply("switch", {In[4], In[2], In[3]})));
  };
  std::vector<TensorType> Types(2, TensorType(DType::F64, {S("n")}));
  Types.push_back(TensorType(DType::I32, {S("n")}));
  Types.push_back(TensorType(DType::I32, {S("n")}));
  Types.push_back(TensorType(DType::Bool, {S("n")}));
  for (int64_t N : {1, 3, 8, 1000, 1027}) {
    SCOPED_TRACE(N);
    agree(Types, Build,
          {values(DType::F64, {N}), values(DType::F64, {N}, 5),
           values(DType::I32, {N}), values(DType::I32, {N}, 4),
           values(DType::Bool, {N}, 1)});
  }
}

TEST(ElemwiseLowering, RunTimeErrorsMatchPerform) {
  // Integers to negative powers are refused before anything is computed.
  sameError({TensorType(DType::I32, {S("n")}), TensorType(DType::I8, {S("n")})},
            eachOp({"pow"}, 2),
            {arr(DType::I32, {3}, {2, 3, 4}), arr(DType::I8, {3}, {1, -1, 2})});
  // Shapes that do not broadcast.
  sameError({TensorType(DType::F64, {S("n")}),
             TensorType(DType::F64, {S("k")})},
            eachOp({"add"}, 2),
            {values(DType::F64, {3}), values(DType::F64, {4})});
}

TEST(ElemwiseLowering, CLinkerAcceptsElemwise) {
  Compiled C = compile(
      {TensorType(DType::F32, {S("n")}), TensorType(DType::I64, {S("n")})},
      eachOp({"add", "lt", "maximum"}, 2), LinkerKind::C);
  ASSERT_TRUE(C.Fn);
  expectAllCompiled(*C.Fn);
  auto Out = C.Fn->call({arr(DType::F32, {2}, {1.5, -2}),
                         arr(DType::I64, {2}, {3, -4})});
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_EQ((*Out)[0].dtype(), DType::F64);
  EXPECT_EQ((*Out)[0].getDouble(0), 4.5);
  EXPECT_EQ((*Out)[1].getInt(1), 0);
}

// Streams every output for the life of the object.
struct StreamEverything {
  uint64_t Saved = elemwiseStreamingThreshold();
  StreamEverything() { setElemwiseStreamingThreshold(0); }
  ~StreamEverything() { setElemwiseStreamingThreshold(Saved); }
};

// Outputs of 8, 4, 2 and 1 bytes from inputs of every element size, for
// each of Sizes, then a rank-2 pair with a broadcast scalar: the flat
// path's cases, in agreement with the reference.
void agreeOnFlatPaths(std::initializer_list<int64_t> Sizes, int64_t Cols) {
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("add", {In[0], In[1]})));
    B.output(llvm::cantFail(B.apply("mul", {In[1], B.literal(3.0)})));
    B.output(llvm::cantFail(B.apply("lt", {In[0], In[1]})));
    B.output(llvm::cantFail(B.apply("sqr", {In[2]})));
    B.output(llvm::cantFail(B.apply("switch", {In[3], In[0], In[1]})));
  };
  std::vector<TensorType> Types = {TensorType(DType::F64, {S("n")}),
                                   TensorType(DType::F32, {S("n")}),
                                   TensorType(DType::I16, {S("n")}),
                                   TensorType(DType::Bool, {S("n")})};
  for (int64_t N : Sizes) {
    SCOPED_TRACE(N);
    agree(Types, Build,
          {values(DType::F64, {N}), values(DType::F32, {N}, 3),
           values(DType::I16, {N}, 1), values(DType::Bool, {N}, 2)});
  }
  agree({TensorType(DType::F64, {S("m"), S("n")}), TensorType(DType::F64, {})},
        eachOp({"sub", "ge"}, 2),
        {values(DType::F64, {7, Cols}), arr(DType::F64, {}, {0.5})});
}

// Large outputs are computed a chunk at a time and streamed out with
// non-temporal stores; the sizes straddle the chunk (1 KiB) for outputs of
// 8, 4, 2 and 1 bytes, with a tail after the last whole chunk.
TEST(ElemwiseLowering, StreamedOutputs) {
  StreamEverything Guard;
  agreeOnFlatPaths({1, 127, 128, 129, 512, 1024, 1500, 2048, 4099}, 300);
}

// Runs every flat loop through gj_parallel_for for the life of the
// object (and streams, so that the pieces stream too).
struct ParallelEverything {
  uint64_t Saved = elemwiseParallelThreshold();
  StreamEverything Stream;
  ParallelEverything() { setElemwiseParallelThreshold(1); }
  ~ParallelEverything() { setElemwiseParallelThreshold(Saved); }
};

// Flat loops in pieces (runtime/ParallelRuntime.h): the same bits as the
// reference, for every element size, sizes that leave a short last piece,
// broadcast scalars that every piece reads whole, and an output written
// over its input.
TEST(ElemwiseLowering, ParallelPiecesAgree) {
  ParallelEverything Guard;
  agreeOnFlatPaths({1, 63, 64, 65, 1000, 4099, 100003}, 3001);
}

// A flat loop over an output from the smaller threshold on calls the
// runtime's gj_ew_flat (runtime/FlatElemwise.h, tested in
// FlatElemwiseTest.cpp), which streams and runs pieces.
TEST(ElemwiseLowering, LargeOutputsCallTheRuntime) {
  StreamEverything Guard;
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("elemwise", "ll", Path));
  EmitOptions Emit;
  Emit.LLVMOptimized = std::string(Path);
  Compiled C =
      compile(std::vector<TensorType>(2, TensorType(DType::F64, {S("n")})),
              eachOp({"add"}, 2), LinkerKind::CPy, Emit);
  ASSERT_TRUE(C.Fn);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  EXPECT_TRUE((*Buf)->getBuffer().contains("call void @gj_ew_flat("));
  llvm::sys::fs::remove(Path);
}

// An add of as many inputs as the runtime's gj_ew_flat takes (16) goes
// through it; one of 17 calls its kernel directly. Both agree with
// perform, with a transposed input and a broadcast row too (the strided
// path's loop nest).
TEST(ElemwiseLowering, MoreInputsThanTheRuntimeTakes) {
  StreamEverything Guard;
  for (unsigned Count :
       {FlatElemwiseMaxInputs, FlatElemwiseMaxInputs + 1}) {
    SCOPED_TRACE(Count);
    BuildFn Build = [Count](FunctionBuilder &B, std::vector<Variable *> In) {
      In.resize(Count);
      B.output(llvm::cantFail(B.apply("add", In)));
    };
    std::vector<TensorType> Types(Count,
                                  TensorType(DType::F64, {S("m"), S("n")}));
    std::vector<NDArray> Args;
    for (unsigned I = 0; I < Count; ++I)
      Args.push_back(values(DType::F64, {4, 70}, int(I)));
    agree(Types, Build, Args);
    NDArray Base = values(DType::F64, {70, 4}, 99);
    Args[0] = Base.view({4, 70}, {Base.strides()[1], Base.strides()[0]});
    Types[1] = TensorType(DType::F64, {S("n")});
    Args[1] = values(DType::F64, {70}, 7);
    agree(Types, Build, Args);
    llvm::SmallString<128> Path;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("elemwise", "ll", Path));
    EmitOptions Emit;
    Emit.LLVMOptimized = std::string(Path);
    std::vector<TensorType> Flat(Count, TensorType(DType::F64, {S("n")}));
    ASSERT_TRUE(compile(Flat, Build, LinkerKind::CPy, Emit).Fn);
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buf));
    EXPECT_EQ((*Buf)->getBuffer().contains("call void @gj_ew_flat("),
              Count <= FlatElemwiseMaxInputs);
    llvm::sys::fs::remove(Path);
  }
}

// The flat loop of a float chain is vectorized (any vector width: the
// host decides).
TEST(ElemwiseLowering, FlatLoopVectorizes) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("elemwise", "ll", Path));
  EmitOptions Emit;
  Emit.LLVMOptimized = std::string(Path);
  BuildFn Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    Variable *T = llvm::cantFail(B.apply("mul", {In[0], B.literal(2.0)}));
    B.output(llvm::cantFail(B.apply("add", {T, In[1]})));
  };
  Compiled C =
      compile(std::vector<TensorType>(2, TensorType(DType::F64, {S("n")})),
              Build, LinkerKind::CPy, Emit);
  ASSERT_TRUE(C.Fn);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  llvm::StringRef IR = (*Buf)->getBuffer();
  EXPECT_NE(IR.find("x double> "), llvm::StringRef::npos);
  EXPECT_NE(IR.find("fadd <"), llvm::StringRef::npos);
  llvm::sys::fs::remove(Path);
}

// The scalar kernels come from clang with its default target ("x86-64")
// and a vector-width hint; linked into a module they carry neither, so
// the module's target decides their instruction set and the code
// generator makes one subtarget for all its functions.
TEST(ElemwiseLowering, ScalarKernelsTakeTheModulesTarget) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("elemwise", "ll", Path));
  EmitOptions Emit;
  Emit.LLVM = std::string(Path);
  Compiled C = compile({TensorType(DType::F64, {S("n")})},
                       eachOp({"exp", "sigmoid"}, 1), LinkerKind::CPy, Emit);
  ASSERT_TRUE(C.Fn);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  llvm::StringRef IR = (*Buf)->getBuffer();
  EXPECT_TRUE(IR.contains("@gj_scalar_exp_f64(")) << IR.str();
  EXPECT_TRUE(IR.contains("@gj_scalar_sigmoid_f64("));
  for (llvm::StringRef Attr : {"\"target-cpu\"", "\"target-features\"",
                               "\"tune-cpu\"", "\"min-legal-vector-width\""})
    EXPECT_FALSE(IR.contains(Attr)) << Attr.str();
  llvm::sys::fs::remove(Path);
}

} // namespace
