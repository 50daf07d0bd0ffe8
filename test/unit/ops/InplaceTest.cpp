//===- InplaceTest.cpp - In-place Elemwise: names, buffers, values -------===//
//
// An in-place Elemwise writes its output into one input's buffer when that
// input has exactly the output's dtype and shape and is C-contiguous, and
// makes a new output otherwise. Here: Theano's names and the `inplace`
// attribute, the static checks, prepare()'s choice (shared buffer or
// fallback), values under perform and JIT code (flat, streamed, unit and
// strided rows, a value read twice, another input sharing the memory),
// always equal to the same computation not in place, and the memory
// profile: an in-place output allocates nothing and the measured peak is
// the simulated one.
//
//===----------------------------------------------------------------------===//

#include "runtime/FlatElemwise.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "graphjit/Function.h"
#include "graphjit/OpRegistry.h"
#include "graphjit/Parser.h"
#include "graphjit/Profile.h"
#include "graphjit/ProfileStats.h"
#include "ElemwiseTestValues.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

OpRef makeOp(llvm::StringRef Name, unsigned NumInputs, AttrMap Attrs = {}) {
  return llvm::cantFail(OpRegistry::get().make(Name, Attrs, NumInputs));
}

AttrMap inplace(int I, AttrMap Attrs = {}) {
  Attrs["inplace"] = AttrValue::integer(I);
  return Attrs;
}

std::string errorOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string("no error");
}

// Distinct values, none special: x * 0.37 - 3 (wrapped for integers).
NDArray ramp(DType T, const Shape &Sh, double Offset = 0) {
  NDArray A = NDArray::zeros(T, Sh);
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (int64_t I = 0; I < A.numElements(); ++I)
      A.dataAs<E>()[I] = static_cast<E>(std::fmod(I * 0.37 + Offset, 23.0) - 3);
  });
  return A;
}

// Runs Op in place on copies of Ins and the same computation not in place;
// they must agree bit for bit. Returns whether the output was input I.
bool inPlaceAgrees(const OpRef &InplaceOp, const OpRef &Plain,
                   const std::vector<NDArray> &Ins) {
  std::vector<NDArray> Want(1), Got(1);
  llvm::Error E = Plain->perform(Ins, Want, ExecContext{});
  EXPECT_FALSE(bool(E)) << errorOf(std::move(E));
  std::vector<NDArray> Copies;
  for (const NDArray &A : Ins)
    Copies.push_back(A); // Shares the buffers: the op overwrites them.
  int I = static_cast<const Elemwise &>(*InplaceOp).inplaceInput();
  NDArray Before = Copies[I];
  E = InplaceOp->perform(Copies, Got, ExecContext{});
  EXPECT_FALSE(bool(E)) << errorOf(std::move(E));
  EXPECT_TRUE(sameValues(Want[0], Got[0])) << InplaceOp->name();
  return Got[0].data() == Before.data() && Got[0].sharesBufferWith(Before);
}

/// A function of a .graph text, as written (no graph optimizer).
std::unique_ptr<Function> compileText(GraphModule &M, LinkerKind Linker,
                                      bool ProfileMemory = false,
                                      bool GC = true) {
  CompileOptions O;
  O.Linker = Linker;
  O.Rewrite = RewriteOptions{"None", {}, {}};
  O.ProfileMemory = ProfileMemory;
  O.AllowGC = GC;
  auto Fn = Function::compile(*M.lookupFunction("f"), O);
  if (!Fn) {
    ADD_FAILURE() << llvm::toString(Fn.takeError());
    return nullptr;
  }
  return std::move(*Fn);
}

std::unique_ptr<GraphModule> parse(const std::string &Text) {
  auto M = parseGraph(Text, "inplace.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

// The text with every ", inplace=K" removed: the same computation.
std::string withoutInplace(std::string Text) {
  for (size_t P; (P = Text.find(", inplace=")) != std::string::npos;)
    Text.erase(P, std::strlen(", inplace=") + 1);
  return Text;
}

// The graph under py, c|py and c equals the same graph without in-place
// ops under py, bit for bit.
void graphAgrees(const std::string &Text, const std::vector<NDArray> &Args) {
  SCOPED_TRACE(Text);
  auto Plain = parse(withoutInplace(Text));
  ASSERT_TRUE(Plain);
  auto Ref = compileText(*Plain, LinkerKind::Py);
  ASSERT_TRUE(Ref);
  auto Want = Ref->call(Args);
  ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
  auto M = parse(Text);
  ASSERT_TRUE(M);
  for (LinkerKind L : {LinkerKind::Py, LinkerKind::CPy, LinkerKind::C}) {
    SCOPED_TRACE(linkerName(L).str());
    auto Fn = compileText(*M, L);
    ASSERT_TRUE(Fn);
    // Twice: the second call reuses the first's working memory.
    for (int Call = 0; Call < 2; ++Call) {
      auto Got = Fn->call(Args);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      ASSERT_EQ(Got->size(), Want->size());
      for (size_t I = 0; I < Want->size(); ++I)
        EXPECT_TRUE(sameValues((*Want)[I], (*Got)[I])) << "output " << I;
    }
  }
}

struct StreamEverything {
  uint64_t Saved = elemwiseStreamingThreshold();
  StreamEverything() { setElemwiseStreamingThreshold(0); }
  ~StreamEverything() { setElemwiseStreamingThreshold(Saved); }
};

} // namespace

//===--- Names and declarations ------------------------------------------===//

TEST(Inplace, NamesFollowTheano) {
  EXPECT_EQ(makeOp("add", 2)->name(), "Elemwise{add,no_inplace}");
  EXPECT_EQ(makeOp("add", 2, inplace(1))->name(), "Elemwise{add}[(0, 1)]");
  EXPECT_EQ(makeOp("exp", 1, inplace(0))->name(), "Elemwise{exp}[(0, 0)]");
  AttrMap F32 = {{"dtype", AttrValue::ident("f32")}};
  EXPECT_EQ(makeOp("cast", 1, inplace(0, F32))->name(),
            "Elemwise{Cast{float32}}[(0, 0)]");
  OpRef C = llvm::cantFail(makeCompositeElemwise(
      llvm::cantFail(parseComposite("exp(i0) * i1", 2)), 0));
  EXPECT_EQ(C->name(), "Elemwise{Composite{exp(i0) * i1}}[(0, 0)]");
  // In place or not, on which input: all different ops.
  EXPECT_FALSE(makeOp("add", 2)->equals(*makeOp("add", 2, inplace(0))));
  EXPECT_FALSE(
      makeOp("add", 2, inplace(1))->equals(*makeOp("add", 2, inplace(0))));
}

TEST(Inplace, WithInplaceDeclaresTheOverwrittenInput) {
  OpRef Add = makeOp("add", 3);
  const auto &E = static_cast<const Elemwise &>(*Add);
  EXPECT_EQ(E.inplaceInput(), -1);
  EXPECT_EQ(Add->outputAlias(0).K, OutputAlias::Created);
  OpRef In2 = E.withInplace(2);
  const auto &E2 = static_cast<const Elemwise &>(*In2);
  EXPECT_EQ(E2.inplaceInput(), 2);
  EXPECT_EQ(E2.scalarOp(), ScalarOpKind::Add);
  EXPECT_EQ(In2->outputAlias(0).K, OutputAlias::Inplace);
  EXPECT_EQ(In2->outputAlias(0).Input, 2);
  EXPECT_EQ(In2->formatName(), "add");
  EXPECT_EQ(In2->attrs().at("inplace").I, 2);
  // And back: the same op as the original.
  EXPECT_TRUE(E2.withInplace(-1)->equals(*Add));
  EXPECT_EQ(E2.withInplace(-1)->attrs().count("inplace"), 0u);
  // A composite keeps its program.
  OpRef C = llvm::cantFail(makeCompositeElemwise(
      llvm::cantFail(parseComposite("i0 - i1", 2))));
  OpRef C1 = static_cast<const Elemwise &>(*C).withInplace(1);
  EXPECT_EQ(C1->name(), "Elemwise{Composite{i0 - i1}}[(0, 1)]");
  EXPECT_EQ(C1->attrs().at("expr").S, "i0 - i1");
  EXPECT_EQ(C1->outputAlias(0).Input, 1);
}

TEST(Inplace, AttributeAndTypesAreChecked) {
  const OpRegistry &R = OpRegistry::get();
  auto Error = [&](llvm::StringRef Name, AttrMap A, unsigned N) {
    auto Op = R.make(Name, A, N);
    return Op ? std::string("made") : llvm::toString(Op.takeError());
  };
  EXPECT_NE(Error("add", inplace(2), 2).find(
                "inplace=2 is not an input of add (it has 2: 0 to 1)"),
            std::string::npos)
      << Error("add", inplace(2), 2);
  EXPECT_NE(Error("exp", inplace(-1), 1).find("inplace=-1 is not an input"),
            std::string::npos);
  EXPECT_NE(Error("exp", {{"inplace", AttrValue::ident("x")}}, 1)
                .find("must be an integer"),
            std::string::npos);
  // The overwritten input must hold the output's dtype.
  OpRef Add = makeOp("add", 2, inplace(0));
  auto T = Add->inferTypes({TensorType(DType::I32, {Dim::symbolic("n")}),
                            TensorType(DType::F64, {Dim::symbolic("n")})});
  ASSERT_FALSE(bool(T));
  EXPECT_NE(llvm::toString(T.takeError())
                .find("in-place on input 0 (i32) needs the output's dtype f64"),
            std::string::npos);
  T = Add->inferTypes({TensorType(DType::F64, {Dim::known(1)}),
                       TensorType(DType::F64, {Dim::symbolic("n")})});
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ((*T)[0].str(), "f64[n]"); // Falls back at run time.
  // A graph with an in-place op prints its attribute and parses back.
  const char *Text = "func f(x: f64[n], y: f64[n]) -> (r) {\n"
                     "  t = exp(x)\n"
                     "  r = add(y, t, inplace=1)\n"
                     "}\n";
  auto M = parseGraph(Text, "p.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ((*M)->lookupFunction("f")->applies().back()->op().name(),
            "Elemwise{add}[(0, 1)]");
}

//===--- prepare: the shared buffer or a new one -------------------------===//

TEST(InplacePrepare, SharesTheBufferWhenItCan) {
  OpRef Add = makeOp("add", 2, inplace(0));
  NDArray A = ramp(DType::F64, {4, 5}), B = ramp(DType::F64, {5}, 1);
  std::vector<NDArray> Out(1);
  ASSERT_FALSE(bool(Add->prepare({A, B}, Out, ExecContext{})));
  EXPECT_TRUE(Out[0].sharesBufferWith(A));
  EXPECT_EQ(Out[0].data(), A.data());
  EXPECT_EQ(Out[0].shape(), A.shape());
  // The same op, when input 0 is broadcast by the other: a new output.
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({B, A}, Out, ExecContext{})));
  EXPECT_FALSE(Out[0].sharesBufferWith(B));
  EXPECT_EQ(Out[0].shape(), (Shape{4, 5}));
  // Transposed: not C-contiguous, a new output.
  NDArray T = ramp(DType::F64, {5, 4});
  NDArray TV = T.view({4, 5}, {T.strides()[1], T.strides()[0]});
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({TV, A}, Out, ExecContext{})));
  EXPECT_FALSE(Out[0].sharesBufferWith(T));
  EXPECT_TRUE(Out[0].isContiguous());
  // Another dtype: a new output of the output's dtype.
  NDArray I = ramp(DType::I32, {4, 5});
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({I, A}, Out, ExecContext{})));
  EXPECT_FALSE(Out[0].sharesBufferWith(I));
  EXPECT_EQ(Out[0].dtype(), DType::F64);
  // Another input reads the same buffer in another layout: a new output.
  NDArray Sq = ramp(DType::F64, {5, 5});
  NDArray SqT = Sq.view({5, 5}, {Sq.strides()[1], Sq.strides()[0]});
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({Sq, SqT}, Out, ExecContext{})));
  EXPECT_FALSE(Out[0].sharesBufferWith(Sq));
  // ... but the same value twice is fine.
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({Sq, Sq}, Out, ExecContext{})));
  EXPECT_TRUE(Out[0].sharesBufferWith(Sq));
  // A dim of 1 may have any stride; the output's are normalized.
  NDArray R = ramp(DType::F64, {1, 6});
  NDArray ROdd = R.view({1, 6}, {12345, 8});
  NDArray Row = ramp(DType::F64, {6}, 2);
  Out = std::vector<NDArray>(1);
  ASSERT_FALSE(bool(Add->prepare({ROdd, Row}, Out, ExecContext{})));
  EXPECT_TRUE(Out[0].sharesBufferWith(R));
  EXPECT_EQ(Out[0].strides(), (Shape{48, 8}));
}

TEST(InplacePrepare, NotInPlaceAlwaysCreates) {
  OpRef Add = makeOp("add", 2);
  NDArray A = ramp(DType::F64, {4, 5});
  std::vector<NDArray> Out(1);
  ASSERT_FALSE(bool(Add->prepare({A, A}, Out, ExecContext{})));
  EXPECT_FALSE(Out[0].sharesBufferWith(A));
}

//===--- perform ---------------------------------------------------------===//

TEST(InplacePerform, ValuesEqualTheComputationNotInPlace) {
  auto Pair = [](llvm::StringRef Name, unsigned N, int I, AttrMap A = {}) {
    return std::make_pair(makeOp(Name, N, inplace(I, A)), makeOp(Name, N, A));
  };
  NDArray X = ramp(DType::F64, {3, 700}), Y = ramp(DType::F64, {3, 700}, 5),
          Z = ramp(DType::F64, {3, 700}, 9), V = ramp(DType::F64, {700}, 2);
  for (int I : {0, 1}) {
    auto [Ip, Plain] = Pair("sub", 2, I);
    EXPECT_TRUE(inPlaceAgrees(Ip, Plain, {X.copy(), Y.copy()})) << I;
  }
  // n-ary add in place on its third input: perform's two-pass fold would
  // overwrite it before reading it.
  for (int I : {0, 1, 2}) {
    auto [Ip, Plain] = Pair("add", 3, I);
    EXPECT_TRUE(inPlaceAgrees(Ip, Plain, {X.copy(), Y.copy(), Z.copy()}))
        << I;
    auto [IpM, PlainM] = Pair("mul", 3, I);
    EXPECT_TRUE(inPlaceAgrees(IpM, PlainM, {X.copy(), Y.copy(), Z.copy()}))
        << I;
  }
  // A broadcast operand beside the overwritten one; a value read twice.
  auto [IpB, PlainB] = Pair("true_div", 2, 0);
  EXPECT_TRUE(inPlaceAgrees(IpB, PlainB, {X.copy(), V}));
  NDArray W = X.copy();
  auto [IpSq, PlainSq] = Pair("mul", 2, 1);
  EXPECT_TRUE(inPlaceAgrees(IpSq, PlainSq, {W, W}));
  // switch in place on a branch; clip on its bound; pow of floats.
  NDArray C = ramp(DType::Bool, {3, 700});
  auto [IpS, PlainS] = Pair("switch", 3, 2);
  EXPECT_TRUE(inPlaceAgrees(IpS, PlainS, {C, X.copy(), Y.copy()}));
  auto [IpC, PlainC] = Pair("clip", 3, 1);
  EXPECT_TRUE(inPlaceAgrees(IpC, PlainC, {X.copy(), Y.copy(), Z.copy()}));
  auto [IpP, PlainP] = Pair("pow", 2, 0);
  EXPECT_TRUE(inPlaceAgrees(IpP, PlainP, {X.copy(), Y.copy()}));
  // Integer pow in place: the exponents are checked before anything is
  // written over.
  NDArray Base = ramp(DType::I32, {50}), Exp = ramp(DType::I32, {50}, 7);
  auto [IpI, PlainI] = Pair("pow", 2, 1);
  NDArray ExpCopy = Exp.copy();
  std::vector<NDArray> Out(1);
  llvm::Error E = IpI->perform({Base, ExpCopy}, Out, ExecContext{});
  EXPECT_NE(errorOf(std::move(E)).find("negative integer powers"),
            std::string::npos);
  EXPECT_TRUE(sameValues(ExpCopy, Exp)); // Untouched.
  NDArray Pos = ramp(DType::I32, {50}, 3.5);
  for (int64_t J = 0; J < 50; ++J)
    Pos.dataAs<int32_t>()[J] = std::abs(Pos.dataAs<int32_t>()[J]) % 5;
  EXPECT_TRUE(inPlaceAgrees(IpI, PlainI, {Base, Pos.copy()}));
  // Unary, cast to the same dtype, second over its unread input.
  auto [IpE, PlainE] = Pair("exp", 1, 0);
  EXPECT_TRUE(inPlaceAgrees(IpE, PlainE, {X.copy()}));
  auto [IpCast, PlainCast] =
      Pair("cast", 1, 0, {{"dtype", AttrValue::ident("f64")}});
  EXPECT_TRUE(inPlaceAgrees(IpCast, PlainCast, {X.copy()}));
  auto [IpSec, PlainSec] = Pair("second", 2, 0);
  EXPECT_TRUE(inPlaceAgrees(IpSec, PlainSec, {X.copy(), V}));
  // Mixed dtypes: a comparison in place on a bool input.
  NDArray D = ramp(DType::Bool, {3, 700}, 1);
  auto [IpL, PlainL] = Pair("and", 2, 0);
  EXPECT_TRUE(inPlaceAgrees(IpL, PlainL, {D.copy(), X.copy()}));
  // A composite in place on each input.
  CompositeScalar CS = llvm::cantFail(
      parseComposite("(i0 + i1 + i2) * exp(i0 - i2) + i1", 3));
  OpRef Plain = llvm::cantFail(makeCompositeElemwise(CS));
  for (int I : {0, 1, 2})
    EXPECT_TRUE(inPlaceAgrees(llvm::cantFail(makeCompositeElemwise(CS, I)),
                              Plain, {X.copy(), Y.copy(), Z.copy()}))
        << I;
  // Falls back (the in-place input is broadcast), values still right.
  OpRef Ip = llvm::cantFail(makeCompositeElemwise(CS, 1));
  EXPECT_FALSE(inPlaceAgrees(Ip, Plain, {X.copy(), V.copy(), Z.copy()}));
  // 0-d and empty.
  EXPECT_TRUE(inPlaceAgrees(Ip, Plain,
                            {ramp(DType::F64, {}), ramp(DType::F64, {}, 2),
                             ramp(DType::F64, {}, 4)}));
  inPlaceAgrees(Ip, Plain,
                {ramp(DType::F64, {0, 3}), ramp(DType::F64, {0, 3}),
                 ramp(DType::F64, {3})});
}

//===--- Functions: py, c|py and c ---------------------------------------===//

TEST(InplaceFunction, FlatRowsAndStrided) {
  // The overwritten value is an intermediate, as the rewrite makes them.
  std::string Flat = R"G(
func f(x: f64[n, m], y: f64[n, m], z: i32[m]) -> (r, s) {
  t = exp(x)
  u = sqr(y)
  r = add(t, y, inplace=0)
  s = composite(z, u, x, expr="Cast{float64}(i0) * i1 - i2", inplace=1)
}
)G";
  NDArray X = ramp(DType::F64, {6, 301}), Y = ramp(DType::F64, {6, 301}, 4);
  NDArray Z = ramp(DType::I32, {301}, 1);
  graphAgrees(Flat, {X, Y, Z});
  // A transposed input: the strided path (unit rows for the row input).
  NDArray YT = ramp(DType::F64, {301, 6}, 4);
  NDArray YV = YT.view({6, 301}, {YT.strides()[1], YT.strides()[0]});
  graphAgrees(Flat, {X, YV, Z});
  // Broadcast row beside the overwritten matrix: unit rows.
  graphAgrees(R"G(
func f(x: f64[n, m], v: f64[1, m]) -> (r) {
  t = tanh(x)
  r = mul(v, t, inplace=1)
}
)G",
              {X, ramp(DType::F64, {1, 301})});
  // 0-d and empty.
  graphAgrees(R"G(
func f(x: f64[], y: f32[]) -> (r) {
  t = exp(x)
  r = add(t, y, inplace=0)
}
)G",
              {ramp(DType::F64, {}, 1), ramp(DType::F32, {}, 2)});
  graphAgrees(Flat, {ramp(DType::F64, {0, 301}), ramp(DType::F64, {0, 301}),
                     Z});
}

TEST(InplaceFunction, FallsBackWhenTheShapeIsLarger) {
  // t is (1, m), the output (n, m): a new buffer, the right values.
  graphAgrees(R"G(
func f(x: f64[1, m], y: f64[n, m]) -> (r) {
  t = exp(x)
  r = sub(t, y, inplace=0)
}
)G",
              {ramp(DType::F64, {1, 40}), ramp(DType::F64, {7, 40}, 1)});
}

TEST(InplaceFunction, AValueReadTwiceOrThroughAView) {
  NDArray X = ramp(DType::F64, {1000});
  // mul(t, t) in place: both operands are the output's memory.
  graphAgrees(R"G(
func f(x: f64[n]) -> (r) {
  t = exp(x)
  r = mul(t, t, inplace=0)
}
)G",
              {X});
  // second over its unread first input, read again as the second, or not.
  graphAgrees(R"G(
func f(x: f64[n], y: f64[n]) -> (r, s) {
  t = exp(x)
  r = second(t, t, inplace=0)
  u = sqr(x)
  s = second(u, y, inplace=0)
}
)G",
              {X, ramp(DType::F64, {1000}, 3)});
  // v is a view of t: t has another reader (the reshape), so overwriting
  // it is refused before anything runs, as Theano's destroy handler does.
  auto M = parse(R"G(
func f(x: f64[n]) -> (r) {
  t = exp(x)
  v = reshape(t, shape=[n])
  r = composite(t, v, expr="i0 * i1 + i1", inplace=0)
}
)G");
  ASSERT_TRUE(M);
  CompileOptions O;
  O.Rewrite = RewriteOptions{"None", {}, {}};
  auto Fn = Function::compile(*M->lookupFunction("f"), O);
  ASSERT_FALSE(bool(Fn));
  EXPECT_NE(std::string::npos,
            llvm::toString(Fn.takeError()).find("which is read elsewhere"));
}

TEST(InplaceFunction, StreamedOutputs) {
  StreamEverything Guard;
  std::string Text = R"G(
func f(x: f64[n], y: f32[n]) -> (r, s) {
  t = exp(x)
  u = neg(y)
  r = composite(t, y, expr="i0 * i1 + i0", inplace=0)
  s = add(u, y, y, inplace=0)
}
)G";
  // Chunks of 1 KiB: 128 doubles, 256 floats; with and without a tail.
  for (int64_t N : {int64_t(100), int64_t(256), int64_t(1500), int64_t(4097)})
    graphAgrees(Text, {ramp(DType::F64, {N}), ramp(DType::F32, {N}, 3)});
}

//===--- The memory profile ----------------------------------------------===//

TEST(InplaceFunction, MemoryProfileCountsNoBuffer) {
  const char *Text = R"G(
func f(x: f64[n], y: f64[n]) -> (r) {
  t = exp(x)
  u = composite(t, y, expr="i0 * i1 + i1", inplace=0)
  r = sum(u)
}
)G";
  auto M = parse(Text);
  ASSERT_TRUE(M);
  for (LinkerKind L : {LinkerKind::Py, LinkerKind::CPy, LinkerKind::C})
    for (bool GC : {true, false}) {
      SCOPED_TRACE(linkerName(L).str() + (GC ? " gc" : " no gc"));
      auto Fn = compileText(*M, L, /*ProfileMemory=*/true, GC);
      ASSERT_TRUE(Fn);
      NDArray X = ramp(DType::F64, {1000}), Y = ramp(DType::F64, {1000}, 1);
      for (int I = 0; I < 3; ++I)
        ASSERT_TRUE(bool(Fn->call({X, Y})));
      FunctionProfile P = Fn->profile()->profile().Functions.at(0);
      const ApplyProfile *Fused = nullptr;
      for (const ApplyProfile &A : P.Applies)
        if (A.Name.find("Composite") != std::string::npos)
          Fused = &A;
      ASSERT_TRUE(Fused);
      EXPECT_EQ(Fused->OutputMem.at(0).Kind, "inplace");
      EXPECT_FALSE(Fused->OutputMem[0].Allocated);
      EXPECT_EQ(Fused->Allocations, 0u);
      // exp's 8000 bytes are reused by the composite; sum makes 8.
      MemorySimulation Sim = simulateMemory(P);
      EXPECT_EQ(Sim.GC, 8008u);
      EXPECT_EQ(Sim.NoGC, 8008u);
      EXPECT_EQ(P.Memory.MeasuredPeak, 8008u);
    }
}

TEST(InplaceFunction, MemoryProfileSeesTheFallback) {
  // t is (1, m): the in-place Apply allocates its (n, m) output, which the
  // profile marks, and the simulation counts.
  const char *Text = R"G(
func f(x: f64[1, m], y: f64[n, m]) -> (r) {
  t = exp(x)
  r = add(t, y, inplace=0)
}
)G";
  auto M = parse(Text);
  ASSERT_TRUE(M);
  for (LinkerKind L : {LinkerKind::Py, LinkerKind::C}) {
    auto Fn = compileText(*M, L, /*ProfileMemory=*/true);
    ASSERT_TRUE(Fn);
    ASSERT_TRUE(bool(
        Fn->call({ramp(DType::F64, {1, 10}), ramp(DType::F64, {4, 10})})));
    FunctionProfile P = Fn->profile()->profile().Functions.at(0);
    const ApplyProfile &Add = P.Applies.at(1);
    EXPECT_EQ(Add.OutputMem.at(0).Kind, "inplace");
    EXPECT_TRUE(Add.OutputMem[0].Allocated);
    // exp's 80 bytes and the 320-byte output live together.
    EXPECT_EQ(simulateMemory(P).GC, 400u);
    EXPECT_EQ(P.Memory.MeasuredPeak, 400u);
  }
}
