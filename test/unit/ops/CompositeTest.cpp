//===- CompositeTest.cpp - Fused Elemwise: names, types, perform ---------===//
//
// The Composite Elemwise (what elemwise fusion makes): its Theano spelling
// and the parser that reads it back, the checks that refuse malformed
// programs and integer powers, static types (dtype promotion step by
// step, broadcasting, errors), flops, the graph format's `composite` op,
// and perform() against the chain of single Elemwise ops it stands for,
// bit for bit, on mixed dtypes, broadcast, transposed, reversed, 0-d,
// empty and long (several chunks) operands.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ElemwiseOps.h"
#include "graphjit/OpRegistry.h"
#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "ElemwiseTestValues.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace graphjit;
using namespace graphjit::testutil;
using llvm::Expected;

namespace {


CompositeScalar parsed(llvm::StringRef Expr, unsigned NumInputs) {
  Expected<CompositeScalar> C = parseComposite(Expr, NumInputs);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return {};
  }
  return *C;
}

OpRef compositeOp(llvm::StringRef Expr, unsigned NumInputs,
                  int Inplace = -1) {
  return llvm::cantFail(
      makeCompositeElemwise(parsed(Expr, NumInputs), Inplace));
}

std::string errorOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string("no error");
}

TensorType ty(DType T, std::vector<Dim> Dims = {}) {
  return TensorType(T, std::move(Dims));
}
Dim K(int64_t N) { return Dim::known(N); }
Dim S(const char *Name) { return Dim::symbolic(Name); }

std::string infer(const Op &Op, std::vector<TensorType> Ins) {
  Expected<std::vector<TensorType>> Out = Op.inferTypes(Ins);
  if (!Out)
    return "error: " + llvm::toString(Out.takeError());
  return (*Out)[0].str();
}

// What the unfused chain computes: each step a single Elemwise (made by
// the registry, as the graph format makes them) performed on the inputs
// and earlier results.
NDArray chain(const CompositeScalar &C, const std::vector<NDArray> &Ins) {
  std::vector<NDArray> Results;
  for (const CompositeStep &St : C.Steps) {
    AttrMap Attrs;
    if (St.Kind == ScalarOpKind::Cast)
      Attrs["dtype"] = AttrValue::ident(dtypeName(St.CastTo).str());
    OpRef Op = llvm::cantFail(OpRegistry::get().make(
        scalarOpInfo(St.Kind).Name, Attrs, St.Args.size()));
    std::vector<NDArray> Args;
    for (unsigned A : St.Args)
      Args.push_back(A < C.NumInputs ? Ins[A] : Results[A - C.NumInputs]);
    std::vector<NDArray> Out(1);
    llvm::Error E = Op->perform(Args, Out, ExecContext{});
    EXPECT_FALSE(bool(E)) << errorOf(std::move(E));
    Results.push_back(Out[0]);
  }
  return Results.back();
}

// The composite's perform equals the chain bit for bit.
void agreesWithChain(llvm::StringRef Expr, const std::vector<NDArray> &Ins) {
  SCOPED_TRACE(Expr.str());
  CompositeScalar C = parsed(Expr, Ins.size());
  OpRef Op = llvm::cantFail(makeCompositeElemwise(C));
  std::vector<TensorType> Types;
  for (const NDArray &A : Ins) {
    std::vector<Dim> Dims;
    for (int64_t D : A.shape())
      Dims.push_back(K(D));
    Types.push_back(ty(A.dtype(), Dims));
  }
  Expected<std::vector<TensorType>> T = Op->inferTypes(Types);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  std::vector<NDArray> Out(1);
  llvm::Error E = Op->perform(Ins, Out, ExecContext{});
  ASSERT_FALSE(bool(E)) << errorOf(std::move(E));
  NDArray Want = chain(C, Ins);
  EXPECT_TRUE(sameValues(Out[0], Want));
  EXPECT_EQ(Out[0].dtype(), (*T)[0].Dtype);
  EXPECT_TRUE(Out[0].isContiguous());
}

} // namespace

//===--- Spelling --------------------------------------------------------===//

TEST(Composite, TheanoSpelling) {
  // ((x + y) + z) * 2, built step by step as fusion builds it.
  CompositeScalar C;
  C.NumInputs = 4;
  C.Steps = {{ScalarOpKind::Add, DType::F64, {0, 1}},
             {ScalarOpKind::Add, DType::F64, {4, 2}},
             {ScalarOpKind::Mul, DType::F64, {5, 3}}};
  EXPECT_EQ(C.str(), "((i0 + i1) + i2) * i3");
  OpRef Op = llvm::cantFail(makeCompositeElemwise(C));
  EXPECT_EQ(Op->name(), "Elemwise{Composite{((i0 + i1) + i2) * i3}}");
  EXPECT_EQ(Op->className(), "Elemwise");
  EXPECT_EQ(Op->formatName(), "composite");
  ASSERT_TRUE(Op->attrs().count("expr"));
  EXPECT_EQ(Op->attrs().at("expr").S, "((i0 + i1) + i2) * i3");
  EXPECT_EQ(Op->attrs().at("expr").str(), "\"((i0 + i1) + i2) * i3\"");
  EXPECT_EQ(Op->outputAlias(0).K, OutputAlias::Created);

  C = {};
  C.NumInputs = 1;
  C.Steps = {{ScalarOpKind::Neg, DType::F64, {0}},
             {ScalarOpKind::Exp, DType::F64, {1}}};
  EXPECT_EQ(C.str(), "exp(-i0)");
  C.NumInputs = 3;
  C.Steps = {{ScalarOpKind::Switch, DType::F64, {0, 1, 2}}};
  EXPECT_EQ(C.str(), "switch(i0, i1, i2)");
  C.Steps = {{ScalarOpKind::Cast, DType::F32, {0}},
             {ScalarOpKind::Add, DType::F64, {3, 1, 2}}};
  EXPECT_EQ(C.str(), "Cast{float32}(i0) + i1 + i2");
  // An n-ary add differs from nested binary ones (dtypes may differ), and
  // the spelling says which.
  C.Steps = {{ScalarOpKind::Add, DType::F64, {0, 1, 2}},
             {ScalarOpKind::Mul, DType::F64, {3, 2}}};
  EXPECT_EQ(C.str(), "(i0 + i1 + i2) * i2");
  C.NumInputs = 2;
  C.Steps = {{ScalarOpKind::Neg, DType::F64, {0}},
             {ScalarOpKind::Pow, DType::F64, {2, 1}},
             {ScalarOpKind::Neg, DType::F64, {3}},
             {ScalarOpKind::Lt, DType::F64, {4, 1}}};
  EXPECT_EQ(C.str(), "-((-i0) ** i1) < i1");
  C.Steps = {{ScalarOpKind::IntDiv, DType::F64, {0, 1}},
             {ScalarOpKind::Mod, DType::F64, {2, 1}},
             {ScalarOpKind::Maximum, DType::F64, {3, 0}},
             {ScalarOpKind::Second, DType::F64, {1, 4}}};
  EXPECT_EQ(C.str(), "second(i1, maximum((i0 // i1) % i1, i0))");
}

TEST(Composite, ParsesItsSpellingBack) {
  for (const char *Expr :
       {"((i0 + i1) + i2) * i3", "exp(-i0)", "switch(i0, i1, i2)",
        "Cast{float32}(i0) + i1 + i2", "(i0 + i1 + i2) * i2",
        "-((-i0) ** i1) < i1", "second(i1, maximum((i0 // i1) % i1, i0))",
        "(i0 == i1) != (i2 >= i0)", "(i0 / i1) - (i2 * i0 * i1)",
        "clip(i0, i1, i2) ** (i2 <= i1)", "and(not(i0 > i1), or(i2, i0))",
        "(Cast{uint8}(Cast{bool}(i0)) - i1) + i2"}) {
    SCOPED_TRACE(Expr);
    // Inputs must all be used: give each expression just its own.
    unsigned N = 0;
    for (const char *P = Expr; *P; ++P)
      if (P[0] == 'i' && P[1] >= '0' && P[1] <= '9')
        N = std::max(N, unsigned(P[1] - '0') + 1);
    Expected<CompositeScalar> C = parseComposite(Expr, N);
    ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
    EXPECT_EQ(C->str(), Expr);
    EXPECT_FALSE(bool(checkComposite(*C)));
  }
}

TEST(Composite, ParserPrecedenceAndSharing) {
  // Ordinary precedence, written by hand; str() then parenthesizes.
  EXPECT_EQ(parsed("i0 + i1 * i2", 3).str(), "i0 + (i1 * i2)");
  EXPECT_EQ(parsed("-i0 ** i1", 2).str(), "-(i0 ** i1)");
  EXPECT_EQ(parsed("i0 ** i1 ** i0", 2).str(), "i0 ** (i1 ** i0)");
  EXPECT_EQ(parsed("i0 - i1 - i0", 2).str(), "(i0 - i1) - i0");
  EXPECT_EQ(parsed("i0 < i1 + i0", 2).str(), "i0 < (i1 + i0)");
  EXPECT_EQ(parsed(" add( i0 ,i1,i0 ) ", 2).str(), "i0 + i1 + i0");
  EXPECT_EQ(parsed("Cast{f32}(i0)", 1).str(), "Cast{float32}(i0)");
  // Identical subexpressions are computed once.
  CompositeScalar C = parsed("exp(i0) / (exp(i0) + i1)", 2);
  EXPECT_EQ(C.Steps.size(), 3u);
  EXPECT_EQ(C.str(), "exp(i0) / (exp(i0) + i1)");
}

TEST(Composite, ParserErrors) {
  auto Err = [](llvm::StringRef Expr, unsigned N) {
    Expected<CompositeScalar> C = parseComposite(Expr, N);
    return C ? std::string("parsed: ") + C->str()
             : llvm::toString(C.takeError());
  };
  EXPECT_NE(Err("exp(i0", 1).find("at column 7: expected ')'"),
            std::string::npos)
      << Err("exp(i0", 1);
  EXPECT_NE(Err("i0 + i3", 2).find("'i3' is not an input"),
            std::string::npos);
  EXPECT_NE(Err("frob(i0)", 1).find("unknown scalar operation 'frob'"),
            std::string::npos);
  EXPECT_NE(Err("Cast{float16}(i0)", 1).find("unknown dtype 'float16'"),
            std::string::npos);
  EXPECT_NE(Err("cast(i0)", 1).find("Cast{float32}(x)"), std::string::npos);
  EXPECT_NE(Err("i0 < i1 < i0", 2).find("do not chain"), std::string::npos);
  EXPECT_NE(Err("i0", 1).find("computes nothing"), std::string::npos);
  EXPECT_NE(Err("exp(i0)", 2).find("input i1 is never used"),
            std::string::npos);
  EXPECT_NE(Err("exp(i0, i0)", 1).find("exp takes 1"), std::string::npos);
  EXPECT_NE(Err("i0 + ", 1).find("found the end"), std::string::npos);
  EXPECT_NE(Err("i0 i0", 1).find("after the expression"), std::string::npos);
  EXPECT_NE(Err("", 1).find("expected an input"), std::string::npos);
  // Deep nesting is refused, not a crash.
  std::string Deep = std::string(5000, '(') + "i0" + std::string(5000, ')');
  EXPECT_NE(Err(Deep, 1).find("nests deeper"), std::string::npos);
  std::string Negs = std::string(5000, '-') + "i0";
  EXPECT_NE(Err(Negs, 1).find("nests deeper"), std::string::npos);
}

//===--- Checks ----------------------------------------------------------===//

TEST(Composite, MalformedProgramsAreRefused) {
  auto Make = [](CompositeScalar C) {
    Expected<OpRef> Op = makeCompositeElemwise(std::move(C));
    return Op ? std::string("made ") + (*Op)->name()
              : llvm::toString(Op.takeError());
  };
  CompositeScalar C;
  C.NumInputs = 2;
  EXPECT_NE(Make(C).find("no steps"), std::string::npos);
  C.Steps = {{ScalarOpKind::Add, DType::F64, {0}}};
  EXPECT_NE(Make(C).find("step 0 (add) has 1 operands; add takes 2 or more"),
            std::string::npos)
      << Make(C);
  C.Steps = {{ScalarOpKind::Sub, DType::F64, {0, 1, 1}}};
  EXPECT_NE(Make(C).find("sub takes 2"), std::string::npos);
  C.Steps = {{ScalarOpKind::Add, DType::F64, {0, 2}}};
  EXPECT_NE(Make(C).find("reads operand 2"), std::string::npos) << Make(C);
  C.Steps = {{ScalarOpKind::Exp, DType::F64, {0}},
             {ScalarOpKind::Add, DType::F64, {0, 7}}};
  EXPECT_NE(Make(C).find("step 1 (add) reads operand 7"), std::string::npos);
  C.Steps = {{ScalarOpKind::Exp, DType::F64, {0}}};
  EXPECT_NE(Make(C).find("input i1 is never used"), std::string::npos);
  C.Steps = {{ScalarOpKind::Exp, DType::F64, {0}},
             {ScalarOpKind::Add, DType::F64, {0, 1}}};
  EXPECT_NE(Make(C).find("step 0 (exp) is never used"), std::string::npos)
      << Make(C);
  C.Steps = {{ScalarOpKind::Add, DType::F64, {0, 1}}};
  EXPECT_EQ(Make(C), "made Elemwise{Composite{i0 + i1}}");
  Expected<OpRef> Op = makeCompositeElemwise(C, 2);
  ASSERT_FALSE(bool(Op));
  EXPECT_NE(llvm::toString(Op.takeError()).find("in-place on input 2"),
            std::string::npos);
  // A step read many times would spell out its expression each time.
  C = {};
  C.NumInputs = 1;
  C.Steps = {{ScalarOpKind::Exp, DType::F64, {0}}};
  for (unsigned I = 0; I < 30; ++I)
    C.Steps.push_back({ScalarOpKind::Add, DType::F64, {I + 1, I + 1}});
  EXPECT_NE(Make(C).find("longer than"), std::string::npos);
}

TEST(Composite, IntegerPowIsRefused) {
  OpRef Pow = compositeOp("exp(i0) + i1 ** i2", 3);
  // Float exponents fuse.
  EXPECT_EQ(infer(*Pow, {ty(DType::F64), ty(DType::F32), ty(DType::I32)}),
            "f64[]");
  std::string E =
      infer(*Pow, {ty(DType::F64), ty(DType::I32), ty(DType::I64)});
  EXPECT_NE(E.find("in i1 ** i2 of Composite{exp(i0) + (i1 ** i2)}: pow "
                   "would compute in i64"),
            std::string::npos)
      << E;
  // bool ** bool computes in i8: refused too.
  EXPECT_NE(infer(*Pow, {ty(DType::F64), ty(DType::Bool), ty(DType::Bool)})
                .find("pow would compute in i8"),
            std::string::npos);
}

//===--- Types and flops -------------------------------------------------===//

TEST(Composite, TypesFollowEveryStep) {
  // i32 + i32 stays i32 (wrapping) before the cast; the product with a
  // f64 input is f64.
  OpRef Op = compositeOp("Cast{float32}(i0 + i1) * i2", 3);
  EXPECT_EQ(infer(*Op, {ty(DType::I32, {S("n")}), ty(DType::I32, {K(1)}),
                        ty(DType::F32, {K(3), K(1)})}),
            "f32[3, n]");
  EXPECT_EQ(infer(*Op, {ty(DType::I8), ty(DType::I8), ty(DType::F64)}),
            "f64[]");
  // Comparisons give bool; a switch takes the promotion of its branches.
  Op = compositeOp("switch(i0 < i1, i1 + i1, i2)", 3);
  EXPECT_EQ(infer(*Op, {ty(DType::U8), ty(DType::I8), ty(DType::I16)}),
            "i16[]");
  EXPECT_EQ(infer(*Op, {ty(DType::F32), ty(DType::F32), ty(DType::I8)}),
            "f32[]");
  // A float function of an integer step.
  Op = compositeOp("exp(i0 * i1)", 2);
  EXPECT_EQ(infer(*Op, {ty(DType::I16), ty(DType::U8)}), "f32[]");
  EXPECT_EQ(infer(*Op, {ty(DType::I32), ty(DType::U8)}), "f64[]");
}

TEST(Composite, TypeErrorsNameTheStep) {
  OpRef Op = compositeOp("exp(i0) + -(i1 < i2)", 3);
  std::string E = infer(*Op, {ty(DType::F64), ty(DType::F64), ty(DType::F64)});
  EXPECT_NE(E.find("in -(i1 < i2) of Composite{exp(i0) + -(i1 < i2)}: neg "
                   "is not supported for bool"),
            std::string::npos)
      << E;
  E = infer(*Op, {ty(DType::F64), ty(DType::F64)});
  EXPECT_NE(E.find("takes 3 inputs, got 2"), std::string::npos) << E;
  E = infer(*compositeOp("exp(i0) + i1 * i2", 3),
            {ty(DType::F64, {K(3)}), ty(DType::F64, {K(4)}), ty(DType::F64)});
  EXPECT_NE(E.find("cannot broadcast f64[3] with f64[4]"), std::string::npos)
      << E;
}

TEST(Composite, Flops) {
  // exp, one add of three inputs (two additions), a mul; cast counts 0.
  OpRef Op = compositeOp("exp(i0) * (i1 + Cast{float64}(i2) + i0)", 3);
  EXPECT_EQ(Op->flops({{4, 5}, {5}, {}}, {{4, 5}}), 4 * 20);
}

TEST(Composite, CompositeOfAPlainElemwise) {
  OpRef Add = llvm::cantFail(OpRegistry::get().make("add", {}, 3));
  CompositeScalar C = compositeOf(static_cast<const Elemwise &>(*Add), 3);
  EXPECT_EQ(C.NumInputs, 3u);
  ASSERT_EQ(C.Steps.size(), 1u);
  EXPECT_EQ(C.str(), "i0 + i1 + i2");
  OpRef Cast = llvm::cantFail(OpRegistry::get().make(
      "cast", {{"dtype", AttrValue::ident("i8")}}, 1));
  C = compositeOf(static_cast<const Elemwise &>(*Cast), 1);
  EXPECT_EQ(C.str(), "Cast{int8}(i0)");
  OpRef Op = compositeOp("exp(i0) + i1", 2);
  EXPECT_EQ(compositeOf(static_cast<const Elemwise &>(*Op), 2).str(),
            "exp(i0) + i1");
  EXPECT_NE(static_cast<const Elemwise &>(*Op).composite(), nullptr);
  EXPECT_EQ(static_cast<const Elemwise &>(*Add).composite(), nullptr);
}

//===--- The graph format ------------------------------------------------===//

TEST(Composite, GraphFormatRoundTrips) {
  const char *Text = R"G(func f(x: f64[n], y: i32[n]) -> (r) {
  t = exp(x)
  r = composite(t, y, x, expr="((i0 + i1) + i2) * Cast{float64}(i1 < i2)")
}
)G";
  auto M = parseGraph(Text, "c.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const FunctionGraph *F = (*M)->lookupFunction("f");
  const Apply *R = F->applies().back();
  EXPECT_EQ(R->op().name(),
            "Elemwise{Composite{((i0 + i1) + i2) * Cast{float64}(i1 < i2)}}");
  EXPECT_EQ(R->output(0)->type().str(), "f64[n]");
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  printModule(**M, OS);
  EXPECT_NE(Printed.find(
                "expr=\"((i0 + i1) + i2) * Cast{float64}(i1 < i2)\")"),
            std::string::npos)
      << Printed;
  auto Again = parseGraph(Printed, "again.graph");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_TRUE(
      (*Again)->lookupFunction("f")->applies().back()->op().equals(R->op()));
}

TEST(Composite, GraphFormatErrorsPointAtExpr) {
  auto Error = [](const char *Text) {
    auto M = parseGraph(Text, "bad.graph");
    return M ? std::string("parsed") : llvm::toString(M.takeError());
  };
  std::string E = Error(R"G(func f(x: f64[n]) -> (r) {
  r = composite(x, expr="exp(i0")
})G");
  EXPECT_NE(E.find("bad.graph:2:20: error:"), std::string::npos) << E;
  EXPECT_NE(E.find("expected ')'"), std::string::npos) << E;
  E = Error(R"G(func f(x: f64[n]) -> (r) {
  r = composite(x)
})G");
  EXPECT_NE(E.find("needs attribute 'expr'"), std::string::npos) << E;
  E = Error(R"G(func f(x: f64[n]) -> (r) {
  r = composite(x, expr=3)
})G");
  EXPECT_NE(E.find("must be a string"), std::string::npos) << E;
  E = Error(R"G(func f(x: i32[n]) -> (r) {
  r = composite(x, x, expr="i0 ** i1")
})G");
  EXPECT_NE(E.find("pow would compute in i32"), std::string::npos) << E;
  E = Error(R"G(func f(x: f64[n]) -> (r) {
  r = composite(x, expr="exp(i0)", inplace=1)
})G");
  EXPECT_NE(E.find("inplace=1 is not an input of composite"),
            std::string::npos)
      << E;
}

//===--- perform against the chain ---------------------------------------===//

TEST(CompositePerform, SameDTypeChains) {
  for (DType T : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(T).str());
    std::vector<NDArray> In = {values(T, {37}), values(T, {37}, 3),
                               values(T, {37}, 5), values(T, {37}, 1)};
    agreesWithChain("((i0 + i1) + i2) * i3", In);
    agreesWithChain("(i0 + i1 + i2) * i3", In);
    agreesWithChain("exp(-i0) / (sigmoid(i1) + softplus(i2)) - tanh(i3)", In);
    agreesWithChain("log1p(abs(i0)) * expm1(i1) + erf(i2) ** sqr(i3)", In);
    agreesWithChain("sin(i0) + cos(i1) * floor(i2) - ceil(i3) * sign(i0)",
                    In);
    agreesWithChain("clip(i0, i1, i2) // i3 + (i0 % i1)", In);
    agreesWithChain("maximum(i0, minimum(i1, i2)) - reciprocal(sqrt(i3))",
                    In);
    agreesWithChain("switch(i0 < i1, i2 * i3, i3 - i2)", In);
    agreesWithChain("second(i0, i1 * i2 * i3 * i1)", In);
  }
  for (DType T : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U8}) {
    SCOPED_TRACE(dtypeName(T).str());
    std::vector<NDArray> In = {values(T, {29}), values(T, {29}, 3),
                               values(T, {29}, 5)};
    agreesWithChain("(i0 * i1 + i2) * i2 - i0", In);
    agreesWithChain("(i0 // i1) % (i2 + i1)", In);
    agreesWithChain("switch(i0 >= i1, -i2, abs(i1)) + sqr(i0)", In);
    agreesWithChain("i0 / i1 + exp(i2)", In);
    agreesWithChain("Cast{int8}(i0 * i1) == Cast{uint8}(i2)", In);
  }
}

TEST(CompositePerform, MixedDTypesPromoteStepByStep) {
  // i8 + i8 wraps in i8, then meets f32 and f64.
  agreesWithChain("((i0 + i1) + i2) * i3",
                  {values(DType::I8, {40}), values(DType::I8, {40}, 2),
                   values(DType::F32, {40}, 1), values(DType::F64, {40}, 4)});
  // The same numbers as one n-ary add, promoted together.
  agreesWithChain("(i0 + i1 + i2) * i3",
                  {values(DType::I8, {40}), values(DType::I8, {40}, 2),
                   values(DType::F32, {40}, 1), values(DType::F64, {40}, 4)});
  // Casts in both directions, float to int saturation included.
  agreesWithChain("Cast{int16}(i0 * i1) + Cast{float32}(i2)",
                  {values(DType::F64, {33}), values(DType::F32, {33}, 3),
                   values(DType::I64, {33}, 2)});
  agreesWithChain("Cast{bool}(i0) + Cast{uint8}(i1 - i2)",
                  {values(DType::F32, {33}), values(DType::I16, {33}, 3),
                   values(DType::U8, {33}, 2)});
  // bool operands: logical ops, comparisons, sums of bools, switch on a
  // float condition.
  agreesWithChain("and(i0, not(i1)) == (i2 > i3)",
                  {values(DType::Bool, {21}), values(DType::Bool, {21}, 2),
                   values(DType::I8, {21}, 1), values(DType::U8, {21}, 3)});
  agreesWithChain("i0 + i1 + or(i0, i2)",
                  {values(DType::Bool, {21}), values(DType::Bool, {21}, 2),
                   values(DType::F32, {21}, 1)});
  agreesWithChain("switch(i0 * i1, i2, -i1)",
                  {values(DType::F64, {21}), values(DType::F32, {21}, 2),
                   values(DType::I32, {21}, 1)});
  agreesWithChain("sqr(i0) * i1 + i2 ** i3",
                  {values(DType::Bool, {21}), values(DType::I8, {21}, 2),
                   values(DType::F32, {21}, 1), values(DType::F32, {21}, 3)});
  agreesWithChain("second(i0, i1) + i2",
                  {values(DType::Bool, {21}), values(DType::I16, {21}, 2),
                   values(DType::U8, {21}, 1)});
}

TEST(CompositePerform, BroadcastStridedZeroDAndEmpty) {
  // Broadcast across all dims, a 0-d operand, a transposed one.
  agreesWithChain("((i0 + i1) * i2 - exp(i3)) / Cast{float32}(i1)",
                  {values(DType::F32, {3, 1, 4}), values(DType::I16, {5, 1}),
                   values(DType::F64, {}), transposed(DType::F32, 5, 4)});
  // Reversed rows and a stepped view.
  NDArray Base = values(DType::F64, {10, 6});
  NDArray Stepped = Base.view({5, 3}, {Base.strides()[0] * 2,
                                       Base.strides()[1] * 2});
  agreesWithChain("switch(i0 > i1, i0, i1 * i2)",
                  {reversed(DType::F64, 3), Stepped, values(DType::I8, {1})});
  // A zero-stride (broadcast) view of a vector as a matrix.
  NDArray V = values(DType::I32, {7});
  NDArray Rows = V.view({4, 7}, {0, V.strides()[0]});
  agreesWithChain("(i0 + i1) * (i0 - i1)", {Rows, values(DType::I32, {4, 7})});
  // Everything 0-d.
  agreesWithChain("log(i0) + i1 * i1",
                  {values(DType::F64, {}, 6), values(DType::F32, {}, 2)});
  // Empty arrays: nothing is computed, the shape is right.
  agreesWithChain("exp(i0) + i1",
                  {values(DType::F64, {0, 4}), values(DType::F64, {4})});
  // Rows longer than a chunk, with a tail; and many short rows.
  agreesWithChain("sigmoid(i0 * i1) + i1",
                  {values(DType::F32, {3, 1000}), values(DType::F64, {1000})});
  agreesWithChain("Cast{int8}(i0) * i1",
                  {transposed(DType::F64, 700, 3), values(DType::I8, {3})});
}

TEST(CompositePerform, SwitchBranchesAreBothSafe) {
  // Both branches are computed for every element, as in the chain: NaN and
  // infinities stay in the branch not taken.
  agreesWithChain("switch(i0 > i1, log(i0), -i0)",
                  {values(DType::F64, {50}), values(DType::F64, {}, 3)});
}

TEST(CompositePerform, RunTimeErrorsAreErrors) {
  OpRef Op = compositeOp("i0 + exp(i1)", 2);
  std::vector<NDArray> Out(1);
  llvm::Error E = Op->perform(
      {values(DType::F64, {3}), values(DType::F64, {4})}, Out, ExecContext{});
  EXPECT_NE(errorOf(std::move(E)).find("could not be broadcast"),
            std::string::npos);
  // An integer pow refused at run time too, should types have been
  // bypassed.
  Op = compositeOp("i0 ** i1", 2);
  E = Op->perform({values(DType::I32, {3}), values(DType::I32, {3})}, Out,
                  ExecContext{});
  EXPECT_NE(errorOf(std::move(E)).find("integer power"), std::string::npos);
}
