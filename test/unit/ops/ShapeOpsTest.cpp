//===- ShapeOpsTest.cpp - dimshuffle, transpose, reshape, shape, alloc ----===//
//
// Type inference (known, symbolic and unknown dims), attribute and static
// errors, names and classes, views that share the input's buffer, copies
// where NumPy copies, and run-time errors returned as llvm::Error.
//
//===----------------------------------------------------------------------===//

#include "StructuralOpsTestUtil.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

const DType F64 = DType::F64;

//===--- dimshuffle and transpose -----------------------------------------===//

TEST(DimShuffle, InfersTypes) {
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {S("n"), K(3)})},
                  {{"pattern", ints({1, 0})}}),
            "f64[3, n]");
  AttrMap XFirst = {{"pattern", AttrValue::list({id("x"), num(0)})}};
  EXPECT_EQ(infer("dimshuffle", {ty(DType::I8, {S("n")})}, XFirst),
            "i8[1, n]");
  // A broadcastable dim may be dropped; a scalar may gain dims.
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {K(1), S("n")})},
                  {{"pattern", ints({1})}}),
            "f64[n]");
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {})},
                  {{"pattern", AttrValue::list({id("x"), id("x")})}}),
            "f64[1, 1]");
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {K(1)})},
                  {{"pattern", AttrValue::list({})}}),
            "f64[]");
}

TEST(DimShuffle, StaticErrors) {
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {K(2), K(3)})},
                  {{"pattern", ints({1})}}),
            "error: pattern of 'dimshuffle' drops dim 0 of f64[2, 3], which "
            "is not of size 1; only dims of size 1, or of a size known at run "
            "time only, can be dropped");
  // A size known at run time only is checked then (prepare, the JIT).
  EXPECT_EQ(infer("dimshuffle", {ty(F64, {S("n"), K(3)})},
                  {{"pattern", ints({1})}}),
            "f64[3]");
  EXPECT_NE(infer("dimshuffle", {ty(F64, {K(2)})}, {{"pattern", ints({0, 1})}})
                .find("refers to dim 1"),
            std::string::npos);
}

TEST(DimShuffle, AttributeErrors) {
  EXPECT_EQ(makeError("dimshuffle", {{"pattern", ints({0, 0})}}),
            "attr:pattern: dim 0 appears twice in 'pattern'");
  EXPECT_NE(makeError("dimshuffle", {{"pattern", ints({-1})}}).find(
                "attr:pattern:"),
            std::string::npos);
  EXPECT_NE(makeError("dimshuffle", {{"pattern", AttrValue::list({id("y")})}})
                .find("attr:pattern:"),
            std::string::npos);
  EXPECT_EQ(makeError("dimshuffle", {}),
            "attr:pattern: op 'dimshuffle' needs attribute 'pattern'");
  EXPECT_NE(makeError("dimshuffle", {{"pattern", ints({0})}, {"axis", num(0)}})
                .find("attr:axis:"),
            std::string::npos);
  EXPECT_NE(makeError("transpose", {{"axes", ints({0})}}).find("attr:axes:"),
            std::string::npos);
}

TEST(DimShuffle, NamesAndClass) {
  OpRef T = makeOp("dimshuffle", {{"pattern", ints({1, 0})}});
  EXPECT_EQ(T->name(), "DimShuffle{1,0}");
  EXPECT_EQ(T->className(), "DimShuffle");
  EXPECT_EQ(
      makeOp("dimshuffle", {{"pattern", AttrValue::list({id("x"), num(0)})}})
          ->name(),
      "DimShuffle{x,0}");
  EXPECT_EQ(T->outputAlias(0).K, OutputAlias::View);
  EXPECT_EQ(T->outputAlias(0).Input, 0);
  EXPECT_EQ(T->flops({{2, 3}}, {{3, 2}}), 0);
}

TEST(Transpose, IsTheReversedDimShuffle) {
  OpRef T = makeOp("transpose");
  EXPECT_EQ(inferOp(*T, {ty(F64, {S("n"), K(3)})}), "f64[3, n]");
  EXPECT_EQ(T->name(), "DimShuffle{1,0}");
  EXPECT_TRUE(T->equals(*makeOp("dimshuffle", {{"pattern", ints({1, 0})}})));
  EXPECT_EQ(T->formatName(), "transpose");
  // Once typed for one rank, the op refuses another.
  EXPECT_NE(inferOp(*T, {ty(F64, {K(1), K(2), K(3)})}).find("error:"),
            std::string::npos);
  OpRef T3 = makeOp("transpose");
  EXPECT_EQ(inferOp(*T3, {ty(F64, {K(1), K(2), K(3)})}), "f64[3, 2, 1]");
  EXPECT_EQ(T3->name(), "DimShuffle{2,1,0}");
  OpRef T0 = makeOp("transpose");
  EXPECT_EQ(inferOp(*T0, {ty(F64, {})}), "f64[]");
  EXPECT_EQ(T0->name(), "DimShuffle{}");
}

TEST(DimShuffle, PerformMakesViews) {
  NDArray X = iota(F64, {2, 3});
  NDArray R = run1(*makeOp("transpose"), {X});
  EXPECT_TRUE(R.sharesBufferWith(X));
  EXPECT_EQ(R.shape(), (Shape{3, 2}));
  expectValues(R, {0, 3, 1, 4, 2, 5});

  OpRef Ins =
      makeOp("dimshuffle",
             {{"pattern", AttrValue::list({num(1), id("x"), num(0)})}});
  NDArray R2 = run1(*Ins, {X});
  EXPECT_EQ(R2.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(R2.data(), X.data());
  expectValues(R2, {0, 3, 1, 4, 2, 5});

  // Dropping a dim of size 1 at run time.
  NDArray Col = iota(DType::I32, {3, 1});
  NDArray R3 = run1(*makeOp("dimshuffle", {{"pattern", ints({0})}}), {Col});
  EXPECT_EQ(R3.shape(), (Shape{3}));
  expectValues(R3, {0, 1, 2});
}

TEST(DimShuffle, RunTimeErrors) {
  OpRef Drop = makeOp("dimshuffle", {{"pattern", ints({0})}});
  EXPECT_EQ(runError(*Drop, {iota(F64, {3, 2})}),
            "dimshuffle cannot drop dim 1 of an array of shape (3, 2): it has "
            "size 2, not 1");
  EXPECT_NE(runError(*makeOp("dimshuffle", {{"pattern", ints({2})}}),
                     {iota(F64, {3})})
                .find("refers to dim 2"),
            std::string::npos);
}

//===--- reshape and flatten ----------------------------------------------===//

AttrMap shapeAttr(std::vector<AttrValue> Entries) {
  return {{"shape", AttrValue::list(std::move(Entries))}};
}

TEST(Reshape, InfersTypes) {
  EXPECT_EQ(infer("reshape", {ty(F64, {S("n"), K(3)})},
                  shapeAttr({id("n"), num(-1)})),
            "f64[n, 3]");
  EXPECT_EQ(infer("reshape", {ty(F64, {K(3), K(4)})},
                  shapeAttr({num(2), num(-1)})),
            "f64[2, 6]");
  EXPECT_EQ(infer("reshape", {ty(F64, {S("n"), K(3)})}, shapeAttr({num(-1)})),
            "f64[?]");
  EXPECT_EQ(infer("reshape", {ty(DType::U8, {S("n"), K(4)})},
                  shapeAttr({id("m"), num(2), num(2)})),
            "u8[m, 2, 2]");
  EXPECT_EQ(infer("reshape", {ty(F64, {K(1)})}, shapeAttr({})), "f64[]");
  // A lone entry needs no list.
  EXPECT_EQ(infer("reshape", {ty(F64, {K(2), K(3)})}, {{"shape", num(6)}}),
            "f64[6]");
}

TEST(Reshape, StaticErrors) {
  EXPECT_EQ(infer("reshape", {ty(F64, {K(3), K(4)})},
                  shapeAttr({num(5), num(-1)})),
            "error: cannot reshape array of size 12 (f64[3, 4]) into shape "
            "(5,newaxis)");
  EXPECT_EQ(infer("reshape", {ty(F64, {K(3), K(4)})},
                  shapeAttr({num(5), num(2)})),
            "error: cannot reshape array of size 12 (f64[3, 4]) into shape "
            "(5,2)");
  // NumPy never infers a dim next to a zero-size one.
  EXPECT_NE(infer("reshape", {ty(F64, {S("n")})}, shapeAttr({num(0), num(-1)}))
                .find("error: cannot reshape"),
            std::string::npos);
  // n may be 0 at run time, so [n, 3] -> [n, 4] is left to the run time.
  EXPECT_EQ(infer("reshape", {ty(F64, {S("n"), K(3)})},
                  shapeAttr({id("n"), num(4)})),
            "f64[n, 4]");
}

TEST(Reshape, AttributeErrors) {
  EXPECT_NE(makeError("reshape", shapeAttr({num(-1), num(-1)}))
                .find("attr:shape: can only specify one unknown dimension"),
            std::string::npos);
  EXPECT_NE(makeError("reshape", shapeAttr({num(-2)})).find("attr:shape:"),
            std::string::npos);
  EXPECT_NE(makeError("reshape", shapeAttr({AttrValue::floating(2.0)}))
                .find("attr:shape:"),
            std::string::npos);
  EXPECT_EQ(makeError("reshape", {}),
            "attr:shape: op 'reshape' needs attribute 'shape'");
}

TEST(Reshape, NamesAndClass) {
  OpRef R = makeOp("reshape", shapeAttr({id("n"), num(-1)}));
  EXPECT_EQ(R->name(), "Reshape{2, shape=[n, -1]}");
  // Different shapes are different ops.
  EXPECT_FALSE(R->equals(*makeOp("reshape", shapeAttr({num(2), num(-1)}))));
  EXPECT_EQ(R->className(), "Reshape");
  EXPECT_EQ(R->outputAlias(0).K, OutputAlias::View);
  OpRef F = makeOp("flatten");
  EXPECT_EQ(F->name(), "Flatten");
  EXPECT_EQ(F->className(), "Reshape");
  EXPECT_EQ(F->outputAlias(0).K, OutputAlias::View);
}

TEST(Reshape, ViewOfContiguousInput) {
  NDArray X = iota(F64, {3, 4});
  NDArray R = run1(*makeOp("reshape", shapeAttr({num(2), num(-1)})), {X});
  EXPECT_EQ(R.shape(), (Shape{2, 6}));
  EXPECT_EQ(R.data(), X.data());
  expectValues(R, values(X));
  // Symbolic dims take their sizes from the call's bindings.
  DimBindings Dims;
  Dims["n"] = 6;
  NDArray R2 =
      run1(*makeOp("reshape", shapeAttr({id("n"), num(-1)})), {X}, &Dims);
  EXPECT_EQ(R2.shape(), (Shape{6, 2}));
  EXPECT_TRUE(R2.sharesBufferWith(X));
}

TEST(Reshape, StridedInputs) {
  NDArray X = iota(F64, {4, 3});
  // Every other row: (2, 3) with a row stride of 48 bytes.
  NDArray Rows = X.view({2, 3}, {48, 8});
  // Splitting or keeping rows needs no copy...
  NDArray V = run1(*makeOp("reshape", shapeAttr({num(2), num(1), num(3)})),
                   {Rows});
  EXPECT_TRUE(V.sharesBufferWith(X));
  expectValues(V, {0, 1, 2, 6, 7, 8});
  // ...merging them does.
  NDArray C = run1(*makeOp("reshape", shapeAttr({num(-1)})), {Rows});
  EXPECT_FALSE(C.sharesBufferWith(X));
  expectValues(C, {0, 1, 2, 6, 7, 8});
  // The transpose flattens in its own C order.
  NDArray T = X.view({3, 4}, {8, 24});
  NDArray F = run1(*makeOp("flatten"), {T});
  EXPECT_FALSE(F.sharesBufferWith(X));
  expectValues(F, {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  // A reversed 1-D view reshapes without a copy.
  NDArray Rev = X.view({12}, {-8}, 88);
  NDArray RV = run1(*makeOp("reshape", shapeAttr({num(3), num(4)})), {Rev});
  EXPECT_TRUE(RV.sharesBufferWith(X));
  expectValues(RV, {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  // A broadcast (stride 0) input.
  NDArray B = X.view({2, 3}, {0, 8});
  NDArray RB = run1(*makeOp("reshape", shapeAttr({num(3), num(2)})), {B});
  expectValues(RB, {0, 1, 2, 0, 1, 2});
}

TEST(Reshape, EmptyAndScalar) {
  NDArray E = NDArray::zeros(F64, {0, 3});
  NDArray R = run1(*makeOp("reshape", shapeAttr({num(3), num(0)})), {E});
  EXPECT_EQ(R.shape(), (Shape{3, 0}));
  EXPECT_EQ(runError(*makeOp("reshape", shapeAttr({num(0), num(-1)})), {E}),
            "cannot reshape array of size 0 into shape (0,newaxis)");
  NDArray One = arr(F64, {}, {7});
  NDArray R1 = run1(*makeOp("reshape", shapeAttr({num(1), num(-1)})), {One});
  EXPECT_EQ(R1.shape(), (Shape{1, 1}));
  NDArray R0 = run1(*makeOp("reshape", shapeAttr({})), {R1});
  EXPECT_EQ(R0.shape(), (Shape{}));
  expectValues(R0, {7});
}

TEST(Reshape, RunTimeErrors) {
  NDArray X = iota(F64, {3, 4});
  EXPECT_EQ(runError(*makeOp("reshape", shapeAttr({num(5), num(-1)})), {X}),
            "cannot reshape array of size 12 into shape (5,newaxis)");
  EXPECT_EQ(runError(*makeOp("reshape", shapeAttr({num(5)})), {X}),
            "cannot reshape array of size 12 into shape (5,)");
  EXPECT_EQ(runError(*makeOp("reshape", shapeAttr({id("n"), num(-1)})), {X}),
            "symbolic dim 'n' has no size in this call");
  // Dims whose strides overflow are refused even with no elements.
  const int64_t Huge = int64_t(1) << 40;
  EXPECT_EQ(runError(*makeOp("reshape", shapeAttr({num(0), num(Huge),
                                                   num(Huge)})),
                     {NDArray::zeros(F64, {0})}),
            "shape (0, 1099511627776, 1099511627776) is too large");
  // Sizes whose product overflows are a mismatch, not undefined behaviour.
  EXPECT_NE(runError(*makeOp("reshape", shapeAttr({num(INT64_MAX), num(4)})),
                     {X})
                .find("cannot reshape"),
            std::string::npos);
}

TEST(Flatten, InfersTypes) {
  EXPECT_EQ(infer("flatten", {ty(F64, {K(2), K(3)})}), "f64[6]");
  EXPECT_EQ(infer("flatten", {ty(F64, {S("n")})}), "f64[n]");
  EXPECT_EQ(infer("flatten", {ty(F64, {S("n"), K(1)})}), "f64[n]");
  EXPECT_EQ(infer("flatten", {ty(F64, {S("n"), K(3)})}), "f64[?]");
  EXPECT_EQ(infer("flatten", {ty(DType::Bool, {})}), "bool[1]");
  EXPECT_EQ(infer("flatten", {ty(F64, {S("n"), K(0)})}), "f64[0]");
}

TEST(Flatten, Perform) {
  NDArray X = iota(DType::I16, {2, 3});
  NDArray R = run1(*makeOp("flatten"), {X});
  EXPECT_TRUE(R.sharesBufferWith(X));
  EXPECT_EQ(R.shape(), (Shape{6}));
  NDArray S0 = run1(*makeOp("flatten"), {arr(F64, {}, {3})});
  EXPECT_EQ(S0.shape(), (Shape{1}));
  expectValues(S0, {3});
}

//===--- shape ------------------------------------------------------------===//

TEST(ShapeI, TypesNamesAndValues) {
  OpRef Op = makeOp("shape", {{"axis", num(-1)}});
  EXPECT_EQ(inferOp(*Op, {ty(F64, {S("n"), K(3)})}), "i64[]");
  EXPECT_EQ(Op->name(), "Shape_i{-1}");
  EXPECT_EQ(Op->className(), "Shape_i");
  NDArray R = run1(*Op, {iota(F64, {4, 3})});
  EXPECT_EQ(R.dtype(), DType::I64);
  EXPECT_EQ(R.rank(), 0u);
  EXPECT_EQ(R.getInt(0), 3);
  EXPECT_EQ(run1(*makeOp("shape", {{"axis", num(0)}}),
                 {NDArray::zeros(F64, {0, 5})})
                .getInt(0),
            0);
}

TEST(ShapeI, Errors) {
  EXPECT_EQ(infer("shape", {ty(F64, {S("n"), K(3)})}, {{"axis", num(2)}}),
            "error: axis 2 is out of bounds for array of dimension 2");
  EXPECT_EQ(makeError("shape", {}),
            "attr:axis: op 'shape' needs attribute 'axis'");
  EXPECT_EQ(runError(*makeOp("shape", {{"axis", num(0)}}), {arr(F64, {}, {1})}),
            "axis 0 is out of bounds for array of dimension 0");
}

//===--- alloc, zeros_like, ones_like --------------------------------------===//

TEST(Alloc, InfersTypes) {
  AttrMap NS = shapeAttr({id("n"), num(3)});
  EXPECT_EQ(infer("alloc", {ty(DType::I32, {K(3)})}, NS), "i32[n, 3]");
  EXPECT_EQ(infer("alloc", {ty(F64, {})}, NS), "f64[n, 3]");
  EXPECT_EQ(infer("alloc", {ty(F64, {K(1), K(1)})}, NS), "f64[n, 3]");
  EXPECT_EQ(infer("alloc", {ty(F64, {K(4)})}, NS),
            "error: alloc cannot broadcast a value of type f64[4] to shape "
            "(n,3): dim 0 has size 4, not 1 or 3");
  EXPECT_NE(infer("alloc", {ty(F64, {K(1), K(1), K(1)})}, NS).find("rank 3"),
            std::string::npos);
  EXPECT_NE(makeError("alloc", shapeAttr({num(-1)})).find("attr:shape:"),
            std::string::npos);
}

TEST(Alloc, Perform) {
  OpRef Op = makeOp("alloc", shapeAttr({id("n"), num(3)}));
  EXPECT_EQ(Op->name(), "Alloc{shape=[n, 3]}");
  EXPECT_EQ(Op->className(), "Alloc");
  EXPECT_EQ(Op->outputAlias(0).K, OutputAlias::Created);
  DimBindings Dims;
  Dims["n"] = 2;
  NDArray V = arr(DType::I8, {3}, {1, -2, 3});
  NDArray R = run1(*Op, {V}, &Dims);
  EXPECT_EQ(R.dtype(), DType::I8);
  EXPECT_EQ(R.shape(), (Shape{2, 3}));
  EXPECT_TRUE(R.isContiguous());
  EXPECT_FALSE(R.sharesBufferWith(V));
  expectValues(R, {1, -2, 3, 1, -2, 3});
  // A strided column broadcast across.
  NDArray Col = iota(F64, {2, 2}).view({2, 1}, {16, 8});
  NDArray R2 = run1(*Op, {Col}, &Dims);
  expectValues(R2, {0, 0, 0, 2, 2, 2});
  EXPECT_EQ(runError(*Op, {iota(F64, {4})}, &Dims),
            "alloc cannot broadcast a value of shape (4,) to shape (2, 3)");
  EXPECT_EQ(runError(*Op, {V}), "symbolic dim 'n' has no size in this call");
  Dims["n"] = 0;
  EXPECT_EQ(run1(*Op, {V}, &Dims).shape(), (Shape{0, 3}));
  // Too large for memory, or for strides even with no elements.
  Dims["n"] = int64_t(1) << 62;
  EXPECT_EQ(runError(*Op, {V}, &Dims),
            "shape (4611686018427387904, 3) is too large");
  OpRef Huge = makeOp("alloc", shapeAttr({num(0), num(int64_t(1) << 40),
                                          num(int64_t(1) << 40)}));
  EXPECT_EQ(runError(*Huge, {arr(F64, {}, {1})}),
            "shape (0, 1099511627776, 1099511627776) is too large");
}

TEST(FillLike, TypesAndValues) {
  EXPECT_EQ(infer("zeros_like", {ty(DType::U8, {S("n"), K(2)})}), "u8[n, 2]");
  OpRef Z = makeOp("zeros_like"), O = makeOp("ones_like");
  EXPECT_EQ(Z->name(), "ZerosLike");
  EXPECT_EQ(O->name(), "OnesLike");
  EXPECT_EQ(Z->className(), "Alloc");
  EXPECT_EQ(O->className(), "Alloc");
  NDArray X = iota(DType::F32, {2, 2}).view({2, 2}, {4, 8});
  NDArray RZ = run1(*Z, {X}), RO = run1(*O, {X});
  EXPECT_EQ(RO.dtype(), DType::F32);
  expectValues(RZ, {0, 0, 0, 0});
  expectValues(RO, {1, 1, 1, 1});
  NDArray B = run1(*O, {arr(DType::Bool, {3}, {0, 0, 1})});
  EXPECT_EQ(B.dtype(), DType::Bool);
  expectValues(B, {1, 1, 1});
}

} // namespace
