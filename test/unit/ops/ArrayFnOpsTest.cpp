//===- ArrayFnOpsTest.cpp - alloc_to, arange, diagonal, sort, ... ---------===//
//
// Each array function against values written out by hand (NumPy's results
// for the same calls), its types, its errors, and lu_factor's pivots
// turned into permutations; the JIT against perform on one graph.
//
//===----------------------------------------------------------------------===//

#include "LoweringTestUtil.h"
#include "StructuralOpsTestUtil.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64, I64 = DType::I64;

NDArray i64(int64_t V) { return arr(I64, {}, {double(V)}); }

TEST(ArrayFn, Types) {
  EXPECT_EQ(infer("alloc_to", {ty(F64, {K(1)}), ty(I64), ty(I64)}),
            "f64[?, ?]");
  EXPECT_NE(infer("alloc_to", {ty(F64, {K(1)}), ty(F64)}).find("integer"),
            std::string::npos);
  EXPECT_EQ(infer("arange", {ty(I64), ty(I64), ty(I64)}, {{"dtype", id("f32")}}),
            "f32[?]");
  EXPECT_EQ(infer("diagonal", {ty(F64, {K(3), K(5)})}, {{"offset", num(1)}}),
            "f64[3]");
  EXPECT_EQ(infer("diagonal", {ty(F64, {K(2), K(3), K(4)})},
                  {{"axis1", num(1)}, {"axis2", num(2)}}),
            "f64[2, 3]");
  EXPECT_EQ(infer("alloc_diag", {ty(F64, {K(3)})}, {{"offset", num(-1)}}),
            "f64[4, 4]");
  EXPECT_EQ(infer("argsort", {ty(F64, {K(2), K(3)})}), "i64[6]");
  EXPECT_EQ(infer("sort", {ty(F64, {K(2), K(3)})}, {{"axis", num(0)}}),
            "f64[2, 3]");
  EXPECT_NE(infer("diagonal", {ty(F64, {K(3), K(3)})},
                  {{"axis1", num(1)}, {"axis2", num(1)}})
                .find("same"),
            std::string::npos);
  EXPECT_EQ(makeOp("sort", {{"axis", num(-1)}})->name(), "SortOp{axis=-1}");
}

TEST(ArrayFn, AllocToAndArange) {
  OpRef Alloc = makeOp("alloc_to", {}, 3);
  expectValues(run1(*Alloc, {f64Vector({1, 2, 3}), i64(2), i64(3)}),
               {1, 2, 3, 1, 2, 3});
  EXPECT_NE(runError(*Alloc, {f64Vector({1, 2}), i64(2), i64(3)})
                .find("could not broadcast"),
            std::string::npos);
  EXPECT_NE(runError(*Alloc, {f64Vector({1}), i64(-1), i64(3)}).find("negative"),
            std::string::npos);
  OpRef Arange = makeOp("arange", {}, 3);
  // np.arange(2, 11, 3), np.arange(5, 1, -2), np.arange(3, 3, 1)
  expectValues(run1(*Arange, {i64(2), i64(11), i64(3)}), {2, 5, 8});
  expectValues(run1(*Arange, {i64(5), i64(1), i64(-2)}), {5, 3});
  expectValues(run1(*Arange, {i64(3), i64(3), i64(1)}), {});
  OpRef ArangeF = makeOp("arange", {{"dtype", id("f64")}}, 3);
  expectValues(run1(*ArangeF, {arr(F64, {}, {0.5}), arr(F64, {}, {2}),
                               arr(F64, {}, {0.5})}),
               {0.5, 1, 1.5});
  EXPECT_NE(runError(*Arange, {i64(0), i64(3), i64(0)}).find("step is 0"),
            std::string::npos);
}

TEST(ArrayFn, DiagonalsAndCopy) {
  NDArray M = iota(F64, {3, 4}); // [[0..3], [4..7], [8..11]]
  expectValues(run1(*makeOp("diagonal"), {M}), {0, 5, 10});
  expectValues(run1(*makeOp("diagonal", {{"offset", num(1)}}), {M}),
               {1, 6, 11});
  expectValues(run1(*makeOp("diagonal", {{"offset", num(-1)}}), {M}), {4, 9});
  expectValues(run1(*makeOp("diagonal", {{"offset", num(9)}}), {M}), {});
  // np.diag([1, 2], k=1) and k=-1
  expectValues(run1(*makeOp("alloc_diag", {{"offset", num(1)}}),
                    {f64Vector({1, 2})}),
               {0, 1, 0, 0, 0, 2, 0, 0, 0});
  expectValues(run1(*makeOp("alloc_diag", {{"offset", num(-1)}}),
                    {f64Vector({1, 2})}),
               {0, 0, 0, 1, 0, 0, 0, 2, 0});
  NDArray T = M.view({4, 3}, {M.strides()[1], M.strides()[0]});
  NDArray C = run1(*makeOp("copy"), {T});
  EXPECT_TRUE(C.isContiguous());
  EXPECT_FALSE(C.sharesBufferWith(M));
  expectValues(C, {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
}

TEST(ArrayFn, SortsAndPermutations) {
  constexpr double N = std::numeric_limits<double>::quiet_NaN();
  NDArray X = arr(F64, {2, 3}, {3, N, 1, 2, 2, -1});
  expectValues(run1(*makeOp("sort", {{"axis", num(1)}}), {X}),
               {1, 3, N, -1, 2, 2});
  expectValues(run1(*makeOp("sort", {{"axis", num(0)}}), {X}),
               {2, 2, -1, 3, N, 1});
  // Stable: the two 2s keep their order; NaN sorts last.
  expectValues(run1(*makeOp("argsort", {{"axis", num(1)}}), {X}),
               {2, 0, 1, 2, 0, 1});
  expectValues(run1(*makeOp("argsort"), {X}), {5, 2, 3, 4, 0, 1});
  // scipy.linalg.lu_factor's pivots [2, 2, 2] on three rows: rows 0 and 2
  // swap, then 1 and 2: the permutation [2, 0, 1], its inverse [1, 2, 0].
  NDArray Piv = arr(DType::I32, {3}, {2, 2, 2});
  expectValues(run1(*makeOp("pivot_to_permutation",
                            {{"inverse", flag(true)}}),
                    {Piv}),
               {2, 0, 1});
  expectValues(run1(*makeOp("pivot_to_permutation"), {Piv}), {1, 2, 0});
  // lu_factor of a matrix that needs a row swap: P A = L U.
  NDArray A = arr(F64, {2, 2}, {1, 2, 3, 4});
  auto LU = llvm::cantFail(runOp(*makeOp("lu_factor"), {A}));
  expectValues(LU[1], {1, 1});
  expectValues(LU[0], {3, 4, 1.0 / 3, 2 - 4.0 / 3}, 1e-15);
}

TEST(ArrayFn, AdvancedIndexing) {
  NDArray X = iota(F64, {3, 4}); // [[0..3], [4..7], [8..11]]
  NDArray Rows = arr(I64, {2}, {2, -3}), Cols = arr(I64, {2}, {1, 3});
  // x[[2, -3], [1, 3]] -> [9, 3]; x[[2, -3]] -> rows; x[:, [1, 3]].
  OpRef Both = makeOp("advanced_subtensor", {{"pattern", ints({0, 1})}}, 3);
  expectValues(run1(*Both, {X, Rows, Cols}), {9, 3});
  OpRef First = makeOp("advanced_subtensor", {{"pattern", ints({0})}}, 2);
  expectValues(run1(*First, {X, Rows}), {8, 9, 10, 11, 0, 1, 2, 3});
  OpRef Second = makeOp("advanced_subtensor", {{"pattern", ints({-1, 0})}}, 2);
  expectValues(run1(*Second, {X, Cols}), {1, 3, 5, 7, 9, 11});
  // np.ix_-style broadcast: rows (2,1) against cols (2,) -> a 2x2 block.
  NDArray RowCol = arr(I64, {2, 1}, {0, 2});
  expectValues(run1(*Both, {X, RowCol, Cols}), {1, 3, 9, 11});
  // Non-adjacent arrays go first: y[[0, 1], :, [1, 0]] of a (2, 2, 2).
  NDArray Y = iota(F64, {2, 2, 2});
  OpRef Apart = makeOp("advanced_subtensor", {{"pattern", ints({0, -1, 1})}}, 3);
  NDArray A01 = arr(I64, {2}, {0, 1}), A10 = arr(I64, {2}, {1, 0});
  NDArray Got = run1(*Apart, {Y, A01, A10});
  EXPECT_EQ(Got.shape(), (Shape{2, 2}));
  expectValues(Got, {1, 3, 4, 6});
  EXPECT_EQ(runError(*First, {X, arr(I64, {1}, {3})}),
            "IndexError: index 3 is out of bounds for axis 0 with size 3");
  // Increments add once per repeated index (np.add.at); set keeps the last.
  OpRef Inc = makeOp("advanced_inc_subtensor", {{"pattern", ints({0})}}, 3);
  NDArray V = f64Vector({0, 0, 0});
  NDArray Idx = arr(I64, {3}, {0, 2, 0});
  expectValues(run1(*Inc, {V, f64Vector({1, 2, 3}), Idx}), {4, 0, 2});
  OpRef Set = makeOp("advanced_inc_subtensor",
                     {{"pattern", ints({0})}, {"set", flag(true)}}, 3);
  expectValues(run1(*Set, {V, f64Vector({1, 2, 3}), Idx}), {3, 0, 2});
  // The diagonal of a matrix set to y broadcast from a scalar.
  OpRef Diag = makeOp("advanced_inc_subtensor",
                      {{"pattern", ints({0, 1})}, {"set", flag(true)}}, 4);
  NDArray I2 = arr(I64, {2}, {0, 1});
  expectValues(run1(*Diag, {arr(F64, {2, 2}, {5, 6, 7, 8}),
                            arr(F64, {}, {-1}), I2, I2}),
               {-1, 6, 7, -1});
  EXPECT_NE(infer("advanced_inc_subtensor",
                  {ty(F64, {K(3)}), ty(DType::F32, {K(3)}), ty(I64, {K(3)})},
                  {{"pattern", ints({0})}})
                .find("dtype"),
            std::string::npos);
}

TEST(ArrayFn, NonzeroOfAMask) {
  // np.array([[1, 0, 1], [0, 1, 0]], bool).nonzero(): ([0, 0, 1], [0, 2, 1])
  NDArray Mask = arr(DType::Bool, {2, 3}, {1, 0, 1, 0, 1, 0});
  NDArray Like = iota(F64, {5, 2, 3});
  OpRef Op = makeOp("nonzero", {{"axis", num(1)}, {"rank", num(2)}}, 2);
  EXPECT_EQ(Op->name(), "Nonzero{axis=1, rank=2}");
  EXPECT_EQ(inferOp(*Op, {ty(DType::Bool, {K(2), K(3)}),
                          ty(F64, {K(5), K(2), K(3)})}),
            "i64[?]; i64[?]");
  auto Out = llvm::cantFail(runOp(*Op, {Mask, Like}));
  expectValues(Out[0], {0, 0, 1});
  expectValues(Out[1], {0, 2, 1});
  OpRef First = makeOp("nonzero", {}, 2);
  EXPECT_EQ(runError(*First, {arr(DType::Bool, {3}, {1, 0, 1}), Like}),
            "IndexError: boolean index did not match indexed array along "
            "axis 0; size of axis is 5 but size of corresponding boolean "
            "axis is 3");
}

TEST(ArrayFn, ReshapeSplitRepeatAtRunTime) {
  NDArray X = iota(F64, {2, 3});
  OpRef Reshape = makeOp("reshape_to", {{"ndim", num(2)}}, 2);
  EXPECT_EQ(Reshape->name(), "Reshape{ndim=2}");
  NDArray R = run1(*Reshape, {X, arr(I64, {2}, {3, -1})});
  EXPECT_EQ(R.shape(), (Shape{3, 2}));
  expectValues(R, {0, 1, 2, 3, 4, 5});
  // np.reshape of a transposed view reads it in C order of the view.
  NDArray T = X.view({3, 2}, {X.strides()[1], X.strides()[0]});
  expectValues(run1(*Reshape, {T, arr(I64, {2}, {2, 3})}), {0, 3, 1, 4, 2, 5});
  EXPECT_EQ(runError(*Reshape, {X, arr(I64, {2}, {4, -1})}),
            "cannot reshape array of size 6 into shape (4,1)");
  OpRef Split = makeOp("split_by", {{"axis", num(1)}, {"n", num(2)}}, 2);
  auto Pieces = llvm::cantFail(runOp(*Split, {X, arr(I64, {2}, {1, 2})}));
  expectValues(Pieces[0], {0, 3});
  expectValues(Pieces[1], {1, 2, 4, 5});
  EXPECT_EQ(runError(*Split, {X, arr(I64, {2}, {1, 1})}),
            "Split sizes sum to 2; expected 3");
  // np.repeat([[0,1,2],[3,4,5]], [1, 2], axis=0) and np.repeat(x, 2).
  OpRef Rows = makeOp("repeat", {{"axis", num(0)}}, 2);
  expectValues(run1(*Rows, {X, arr(I64, {2}, {1, 2})}),
               {0, 1, 2, 3, 4, 5, 3, 4, 5});
  OpRef Flat = makeOp("repeat", {}, 2);
  expectValues(run1(*Flat, {f64Vector({7, 8}), i64(2)}), {7, 7, 8, 8});
  EXPECT_NE(runError(*Rows, {X, arr(I64, {2}, {1, -1})}).find("negative"),
            std::string::npos);
}

TEST(ArrayFn, BlockDiagonal) {
  // scipy.linalg.block_diag([[1, 2]], [[3], [4]]):
  // [[1, 2, 0], [0, 0, 3], [0, 0, 4]]
  OpRef Op = makeOp("block_diag", {}, 2);
  EXPECT_EQ(inferOp(*Op, {ty(F64, {K(1), K(2)}), ty(DType::I32, {K(2), K(1)})}),
            "f64[3, 3]");
  expectValues(run1(*Op, {arr(F64, {1, 2}, {1, 2}),
                          arr(DType::I32, {2, 1}, {3, 4})}),
               {1, 2, 0, 0, 0, 3, 0, 0, 4});
  EXPECT_NE(inferOp(*Op, {ty(F64, {K(2)}), ty(F64, {K(1), K(1)})})
                .find("matrices"),
            std::string::npos);
}

TEST(ArrayFn, JitMatchesPerform) {
  Compiled C = compile(
      {ty(F64, {S("n"), S("n")}), ty(I64)},
      [](FunctionBuilder &B, std::vector<Variable *> In) {
        Variable *D = llvm::cantFail(B.apply("diagonal", {In[0]}));
        Variable *S = llvm::cantFail(B.apply("sort", {D}, {{"axis", num(0)}}));
        Variable *Zero = B.constant(NDArray::scalar(I64, 0));
        Variable *One = B.constant(NDArray::scalar(I64, 1));
        B.output(llvm::cantFail(B.apply("arange", {Zero, In[1], One})));
        B.output(llvm::cantFail(B.apply("alloc_diag", {S})));
      },
      LinkerKind::C);
  ASSERT_TRUE(C.Fn);
  auto Out = llvm::cantFail(
      C.Fn->call({arr(F64, {2, 2}, {5, 0, 0, -1}), i64(4)}));
  expectValues(Out[0], {0, 1, 2, 3});
  expectValues(Out[1], {-1, 0, 0, 5});
}

// diagonal and alloc_diag of a matrix run as loops with planned outputs:
// every offset (beyond the matrix too: empty), a transposed and a strided
// matrix, a non-square one, integers; the same values as perform.
TEST(ArrayFn, MatrixDiagonalsRunAsLoops) {
  for (int64_t Offset : {0, 1, 2, -1, -3, 7, -7}) {
    SCOPED_TRACE(Offset);
    auto Build = [&](FunctionBuilder &B, std::vector<Variable *> In) {
      AttrMap A{{"offset", num(Offset)}};
      B.output(llvm::cantFail(B.apply("diagonal", {In[0]}, A)));
      B.output(llvm::cantFail(B.apply("diagonal", {In[1]}, A)));
      B.output(llvm::cantFail(B.apply("alloc_diag", {In[2]}, A)));
      B.output(llvm::cantFail(B.apply("alloc_diag", {In[3]}, A)));
    };
    std::vector<TensorType> Types = {
        ty(F64, {S("r"), S("c")}), ty(DType::I32, {S("p"), S("q")}),
        ty(F64, {S("n")}), ty(I64, {S("m")})};
    Compiled Py = compile(Types, Build, LinkerKind::Py);
    Compiled C = compile(Types, Build, LinkerKind::C);
    ASSERT_TRUE(Py.Fn && C.Fn);
    for (const Apply *N : C.Fn->graph().applies())
      EXPECT_TRUE(C.Fn->isCompiled(N->id())) << N->displayName();
    NDArray Wide = iota(F64, {4, 10});
    // A 4 x 5 view taking every other column, and its transpose.
    NDArray Strided = Wide.view({4, 5}, {Wide.strides()[0], 16});
    NDArray Transposed = Strided.view({5, 4}, {16, Wide.strides()[0]});
    NDArray Ints = iota(DType::I32, {3, 6});
    NDArray Vec = iota(F64, {10}).view({5}, {16});
    for (const NDArray &M : {Strided, Transposed}) {
      std::vector<NDArray> Args = {M, Ints, Vec, iota(I64, {3})};
      auto Want = Py.Fn->call(Args);
      auto Got = C.Fn->call(Args);
      ASSERT_TRUE(Want && Got);
      for (size_t I = 0; I < Want->size(); ++I)
        EXPECT_TRUE(sameBits((*Want)[I], (*Got)[I])) << "output " << I;
    }
  }
}

// advanced_subtensor and advanced_inc_subtensor with integer arrays on the
// leading axes run as loops with planned outputs: broadcast index arrays,
// negative and repeated indices (np.add.at counts each), int32 and int64,
// trailing axes copied whole, y broadcast, set; the same values and the
// same errors (out of bounds, shapes) as perform.
TEST(ArrayFn, LeadingIntegerIndicesRunAsLoops) {
  auto Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    AttrMap Two{{"pattern", AttrValue::intList({0, 1})}};
    AttrMap One{{"pattern", AttrValue::intList({0})}};
    B.output(llvm::cantFail(
        B.apply("advanced_subtensor", {In[0], In[1], In[2]}, Two)));
    B.output(llvm::cantFail(B.apply("advanced_subtensor", {In[3], In[1]}, One)));
    B.output(llvm::cantFail(B.apply("advanced_inc_subtensor",
                                    {In[0], In[4], In[1], In[2]}, Two)));
    AttrMap SetTwo = Two;
    SetTwo["set"] = AttrValue::boolean(true);
    B.output(llvm::cantFail(B.apply("advanced_inc_subtensor",
                                    {In[3], In[5], In[1]}, One)));
    B.output(llvm::cantFail(B.apply("advanced_inc_subtensor",
                                    {In[0], In[4], In[1], In[2]}, SetTwo)));
  };
  std::vector<TensorType> Types = {
      ty(F64, {S("r"), S("c")}),          ty(I64, {S("p"), K(1)}),
      ty(DType::I32, {S("q")}),           ty(F64, {S("r"), S("c"), K(2)}),
      ty(F64, {S("q")}),                  ty(F64, {K(1), K(2)})};
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled C = compile(Types, Build, LinkerKind::C);
  ASSERT_TRUE(Py.Fn && C.Fn);
  for (const Apply *N : C.Fn->graph().applies())
    EXPECT_TRUE(C.Fn->isCompiled(N->id())) << N->displayName();
  NDArray X = iota(F64, {4, 3}), T3 = iota(F64, {4, 3, 2});
  auto Run = [&](NDArray Rows, NDArray Cols, NDArray Y) {
    std::vector<NDArray> Args = {X, Rows, Cols, T3, Y,
                                 arr(F64, {1, 2}, {10, 20})};
    auto Want = Py.Fn->call(Args);
    auto Got = C.Fn->call(Args);
    if (!Want || !Got) {
      ASSERT_FALSE(Want) << "only c failed: " << llvm::toString(Got.takeError());
      ASSERT_FALSE(Got);
      EXPECT_EQ(llvm::toString(Want.takeError()),
                llvm::toString(Got.takeError()));
      return;
    }
    for (size_t I = 0; I < Want->size(); ++I)
      EXPECT_TRUE(sameBits((*Want)[I], (*Got)[I])) << "output " << I;
  };
  // Rows (3, 1) against columns (3,): a 3 x 3 pick, negatives, repeats.
  Run(arr(I64, {3, 1}, {0, -1, 0}), arr(DType::I32, {3}, {2, -3, 2}),
      arr(F64, {3}, {1, 2, 3}));
  // y broadcast from one element.
  Run(arr(I64, {2, 1}, {3, 1}), arr(DType::I32, {1}, {1}),
      arr(F64, {1}, {5}));
  // Out of bounds, each way; y that does not broadcast.
  Run(arr(I64, {1, 1}, {4}), arr(DType::I32, {1}, {0}), arr(F64, {1}, {1}));
  Run(arr(I64, {1, 1}, {0}), arr(DType::I32, {1}, {-4}), arr(F64, {1}, {1}));
  Run(arr(I64, {2, 1}, {0, 1}), arr(DType::I32, {3}, {0, 1, 2}),
      arr(F64, {2}, {1, 2}));
}

// alloc_to, copy, sort, argsort and pivot_to_permutation plan their
// outputs (ArrayFnLowering.cpp): the same values as perform over shapes,
// strides and dtypes, and the same errors (a negative dim, a v that does
// not broadcast, a pivot out of range), with later calls unharmed.
TEST(ArrayFn, ShapeFollowingFunctionsPlanTheirOutputs) {
  auto Build = [](FunctionBuilder &B, std::vector<Variable *> In) {
    B.output(llvm::cantFail(B.apply("alloc_to", {In[0], In[1], In[2]})));
    B.output(llvm::cantFail(B.apply("sort", {In[3]}, {{"axis", num(0)}})));
    B.output(llvm::cantFail(B.apply("argsort", {In[3]}, {{"axis", num(-1)}})));
    B.output(llvm::cantFail(B.apply("argsort", {In[3]}))); // flattened
    B.output(llvm::cantFail(B.apply("pivot_to_permutation", {In[4]})));
    B.output(llvm::cantFail(B.apply("pivot_to_permutation", {In[4]},
                                    {{"inverse", AttrValue::boolean(true)}})));
    B.output(llvm::cantFail(B.apply("copy", {In[3]})));
  };
  std::vector<TensorType> Types = {ty(F64, {S("k")}), ty(I64),
                                   ty(DType::I32), ty(F64, {S("r"), S("c")}),
                                   ty(DType::I32, {S("q")})};
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled C = compile(Types, Build, LinkerKind::C);
  ASSERT_TRUE(Py.Fn && C.Fn);
  for (const Apply *N : C.Fn->graph().applies())
    EXPECT_TRUE(C.Fn->isCompiled(N->id())) << N->displayName();
  NDArray Wide = arr(F64, {3, 4}, {3, -1, 2, 8, 0, 5, -7, 1, 4, 4, 6, -2});
  NDArray Strided = Wide.view({3, 2}, {Wide.strides()[0], 16});
  auto Run = [&](NDArray V, int64_t N, int32_t M, NDArray X, NDArray P) {
    std::vector<NDArray> Args = {V, i64(N), NDArray::scalar(DType::I32, M),
                                 X, P};
    auto Want = Py.Fn->call(Args);
    auto Got = C.Fn->call(Args);
    if (!Want || !Got) {
      ASSERT_FALSE(Want) << "only c failed: " << llvm::toString(Got.takeError());
      ASSERT_FALSE(Got) << "only py failed";
      EXPECT_EQ(llvm::toString(Want.takeError()),
                llvm::toString(Got.takeError()));
      return;
    }
    for (size_t I = 0; I < Want->size(); ++I)
      EXPECT_TRUE(sameBits((*Want)[I], (*Got)[I])) << "output " << I;
  };
  NDArray Pivots = arr(DType::I32, {3}, {2, 2, 2});
  Run(arr(F64, {3}, {1, 2, 3}), 2, 3, Wide, Pivots);
  Run(arr(F64, {1}, {7}), 4, 5, Strided, Pivots);
  Run(arr(F64, {1}, {7}), 0, 5, Strided, arr(DType::I32, {0}, {}));
  Run(arr(F64, {3}, {1, 2, 3}), -1, 3, Wide, Pivots);  // negative dim
  Run(arr(F64, {3}, {1, 2, 3}), 2, 4, Wide, Pivots);   // no broadcast
  Run(arr(F64, {3}, {1, 2, 3}), 2, 3, Wide, arr(DType::I32, {3}, {0, 3, 2}));
  Run(arr(F64, {2}, {1, 2}), 1, 2, Strided, arr(DType::I32, {2}, {1, 1}));
}

} // namespace
