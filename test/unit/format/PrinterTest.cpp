//===- PrinterTest.cpp - Printing, round trips, canonicalDump, debugPrint -===//
//
// The printer must round-trip: parse -> print -> parse gives a module with
// the same canonicalDump, for the examples and for snippets using every
// construct of the format; printing is then a fixed point. Also checks the
// natural layout of printed text, names invented for graphs built through
// the C++ API, canonicalDump's notion of equality, and debugPrint's layout.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Printer.h"
#include "graphjit/Builder.h"
#include "graphjit/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace graphjit;

namespace {

std::unique_ptr<GraphModule> parseOK(llvm::StringRef Text,
                                     llvm::StringRef Name = "t.graph") {
  auto M = parseGraph(Text, Name);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError()) << "in:\n" << Text.str();
    return nullptr;
  }
  return std::move(*M);
}

std::string printed(const GraphModule &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(M, OS);
  return S;
}

// parse(print(M)) has M's canonicalDump, and printing it again gives the
// same text.
void expectRoundTrip(const GraphModule &M, const std::string &What) {
  std::string Text = printed(M);
  auto Again = parseOK(Text, "printed.graph");
  ASSERT_TRUE(Again) << What;
  EXPECT_EQ(canonicalDump(M), canonicalDump(*Again)) << What << "\n" << Text;
  EXPECT_EQ(Text, printed(*Again)) << What;
}

std::string examplesDir() { return GRAPHJIT_EXAMPLES_DIR; }

} // namespace

TEST(Printer, RoundTripsEveryExample) {
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(examplesDir(), EC), End;
       It != End && !EC; It.increment(EC)) {
    if (!llvm::StringRef(It->path()).ends_with(".graph"))
      continue;
    ++Files;
    auto M = parseGraphFile(It->path());
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    expectRoundTrip(**M, It->path());
  }
  EXPECT_GE(Files, 3u);
}

// Every construct of the format, in the forms that are easy to get wrong.
static const char *const Snippets[] = {
    // Forward references, nested calls, literals of every form.
    "func f(x: f64[n], y: f64[n]) -> (r) {\n"
    "  r = mul(t, 2.0)\n"
    "  t = add(s, .5, 1e-3, -0.5, 7, -1, 1E+2, 2.)\n"
    "  s = add(x, y)\n"
    "}\n",
    // Multi-output, outputs that are inputs, shared reads or repeated.
    "shared w: f64[3] = zeros\n"
    "func f(x: f64[n, 3]) -> (m, i, x, w, m) {\n"
    "  m, i = max_and_argmax(x, axis=[1])\n"
    "}\n",
    // Attributes of each kind.
    "func f(x: f64[n, 3], b: bool[n, 3]) -> (a, c, d, e, g, h, k) {\n"
    "  a = sum(x, axis=[0, 1], keepdims=true)\n"
    "  c = cast(x, dtype=i8)\n"
    "  d = dimshuffle(x, pattern=[1, x, 0])\n"
    "  e = reshape(x, shape=[n, -1])\n"
    "  g = subtensor(x, axis=0, start=0, stop=10, step=2)\n"
    "  h = switch(b, x, -1.5)\n"
    "  k = softmax(x, axis=-1)\n"
    "}\n",
    // Every initialiser, shared variables declared after their use,
    // updates with literals and names.
    "func f(x: f64[3]) -> (r) {\n"
    "  r = add(x, w, v, u, t)\n"
    "  update w = r\n"
    "  update c = 3\n"
    "  update k = add(k, -1)\n"
    "}\n"
    "shared w: f64[3] = uniform(-1, 1, seed=7)\n"
    "shared v: f64[3] = normal(0.5, .25, seed=18446744073709551615)\n"
    "shared u: f64[3] = ones\n"
    "shared t: f64[3] = npy(\"dir/we\\\"ird \\\\ name.npy\")\n"
    "shared c: f64[] = -2.5e-3\n"
    "shared k: i32[2, 2] = 42\n"
    "shared flag: bool[] = 1\n",
    // Named literals and aliases.
    "func f(x: f32[n], i: i8[n]) -> (a, b, c, d, e) {\n"
    "  c = 2\n"
    "  a = mul(x, c)\n"
    "  b = mul(i, c)\n"
    "  d = c\n"
    "  e = x\n"
    "}\n",
    // Several functions; names that are keywords elsewhere.
    "func func(shared: f64[n]) -> (update) {\n"
    "  update = neg(shared)\n"
    "}\n"
    "func g(true: f64[], f64: f64[]) -> (zeros) {\n"
    "  zeros = add(true, f64)\n"
    "}\n",
    // Unused statements, a result used twice, and only updates.
    "shared s: f64[] = 0\n"
    "func f(x: f64[]) -> () {\n"
    "  unused = exp(x)\n"
    "  twice = neg(x)\n"
    "  update s = add(twice, twice)\n"
    "}\n",
    // Empty inputs, scalars, a literal output, integer ops.
    "func f() -> (r, q) {\n"
    "  r = 1.0\n"
    "  q = int_div(7, 2)\n"
    "}\n",
};

TEST(Printer, RoundTripsTrickySnippets) {
  for (const char *S : Snippets) {
    auto M = parseOK(S);
    ASSERT_TRUE(M) << S;
    expectRoundTrip(*M, S);
  }
}

TEST(Printer, DeepNestingRoundTrips) {
  std::string Text = "func f(x: f64[n]) -> (r) {\n  r = ";
  for (int I = 0; I < 200; ++I)
    Text += "neg(";
  Text += "x" + std::string(200, ')') + "\n}\n";
  auto M = parseOK(Text);
  ASSERT_TRUE(M);
  expectRoundTrip(*M, "200 nested calls");
}

TEST(Printer, NaturalLayout) {
  auto M = parseOK("shared w: f64[784] = zeros  # weights\n"
                   "func train(x: f64[n, 784]) -> (p) {\n"
                   "  p    = sigmoid(add(dot(x, w), 0.5))\n"
                   "  update w = sub(w, mul(0.1, dot(transpose(x), p)))\n"
                   "}\n");
  ASSERT_TRUE(M);
  EXPECT_EQ(printed(*M), "shared w: f64[784] = zeros\n"
                         "\n"
                         "func train(x: f64[n, 784]) -> (p) {\n"
                         "  p = sigmoid(add(dot(x, w), 0.5))\n"
                         "  update w = sub(w, mul(0.1, dot(transpose(x), p)))\n"
                         "}\n");
}

TEST(Printer, StatementsInTopologicalOrder) {
  auto M = parseOK("func f(x: f64[n]) -> (r) {\n"
                   "  r = mul(t, 2.0)\n"
                   "  t = add(s, x)\n"
                   "  s = neg(x)\n"
                   "}\n");
  ASSERT_TRUE(M);
  std::string S;
  llvm::raw_string_ostream OS(S);
  printFunction(*M->functions()[0], OS);
  EXPECT_EQ(S, "func f(x: f64[n]) -> (r) {\n"
               "  s = neg(x)\n"
               "  t = add(s, x)\n"
               "  r = mul(t, 2.0)\n"
               "}\n");
}

TEST(Printer, InventsNamesForGraphsBuiltInCpp) {
  GraphModule M("api");
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", TensorType(DType::F64, {Dim::symbolic("n")}));
  Variable *S = llvm::cantFail(B.apply("neg", {X})); // unnamed, used twice
  Variable *R = llvm::cantFail(B.apply("add", {S, S}));
  Variable *T = llvm::cantFail(B.apply("exp", {R}));
  B.output(T);
  B.output(B.literal(2.0));
  llvm::cantFail(B.finish());
  std::string Text = printed(M);
  EXPECT_EQ(Text, "func f(x: f64[n]) -> (_t1, _t2) {\n"
                  "  _t2 = 2.0\n"
                  "  _t3 = neg(x)\n"
                  "  _t1 = exp(add(_t3, _t3))\n"
                  "}\n");
  auto Again = parseOK(Text);
  ASSERT_TRUE(Again);
  EXPECT_EQ(printed(*Again), Text);
}

TEST(Printer, InventedNamesAvoidExistingOnes) {
  GraphModule M("api");
  FunctionBuilder B(M, "f");
  Variable *X = B.input("_t1", TensorType(DType::F64, {}));
  Variable *S = llvm::cantFail(B.apply("neg", {X}));
  B.name(S, "bad name"); // not an identifier: replaced
  B.output(S);
  Variable *D = llvm::cantFail(B.apply("exp", {X}));
  B.name(D, "_t1"); // taken by the input: replaced
  B.output(D);
  llvm::cantFail(B.finish());
  std::string Text = printed(M);
  EXPECT_EQ(Text, "func f(_t1: f64[]) -> (_t2, _t3) {\n"
                  "  _t2 = neg(_t1)\n"
                  "  _t3 = exp(_t1)\n"
                  "}\n");
  EXPECT_TRUE(parseOK(Text));
}

TEST(Printer, LongUnnamedChainsAreSplitToParse) {
  GraphModule M("api");
  FunctionBuilder B(M, "f");
  Variable *V = B.input("x", TensorType(DType::F64, {}));
  for (int I = 0; I < 1000; ++I)
    V = llvm::cantFail(B.apply("neg", {V}));
  B.output(V);
  llvm::cantFail(B.finish());
  std::string Text = printed(M);
  auto Again = parseOK(Text);
  ASSERT_TRUE(Again);
  EXPECT_EQ(Again->functions()[0]->numApplies(), 1000u);
  EXPECT_EQ(printed(*Again), Text);
}

TEST(Printer, UnprintableConstantIsExplainedNotHidden) {
  GraphModule M("api");
  FunctionBuilder B(M, "f");
  NDArray C = NDArray::zeros(DType::F64, {2});
  C.dataAs<double>()[1] = 1.0;
  Variable *X = B.input("x", TensorType(DType::F64, {Dim::known(2)}));
  B.output(llvm::cantFail(B.apply("add", {X, B.constant(C)})));
  llvm::cantFail(B.finish());
  std::string Text = printed(M);
  EXPECT_NE(Text.find("# '_t2' stands for a constant the format cannot "
                      "spell: f64[2]"),
            std::string::npos)
      << Text;
  // The text does not parse rather than mean something else.
  auto Again = parseGraph(Text, "p.graph");
  ASSERT_FALSE(bool(Again));
  llvm::consumeError(Again.takeError());
}

TEST(CanonicalDump, IgnoresStatementOrderAndComments) {
  auto A = parseOK("func f(x: f64[n]) -> (r) {\n"
                   "  s = neg(x)\n"
                   "  r = add(s, exp(x))\n"
                   "}\n");
  auto B = parseOK("# the same graph\n"
                   "func f(x: f64[n]) -> (r) {\n"
                   "  r = add(s, e)\n"
                   "  s = neg(x)\n"
                   "  e = exp(x)\n"
                   "}\n");
  ASSERT_TRUE(A && B);
  // 'e' is a name B gives and A does not: the dumps differ only there.
  std::string DA = canonicalDump(*A), DB = canonicalDump(*B);
  size_t At = DB.find(" 'e'");
  ASSERT_NE(At, std::string::npos) << DB;
  DB.erase(At, 4);
  EXPECT_EQ(DA, DB);
}

TEST(CanonicalDump, SeesEveryDifference) {
  const char *Base = "shared w: f64[3] = zeros\n"
                     "func f(x: f64[3], y: f64[3]) -> (r) {\n"
                     "  r = sum(sub(x, mul(y, 2.0)), axis=[0])\n"
                     "  update w = x\n"
                     "}\n";
  const char *Variants[] = {
      // Another attribute value.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f64[3]) -> (r) {\n"
      "  r = sum(sub(x, mul(y, 2.0)), axis=[0], keepdims=true)\n"
      "  update w = x\n}\n",
      // Inputs swapped.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f64[3]) -> (r) {\n"
      "  r = sum(sub(mul(y, 2.0), x), axis=[0])\n"
      "  update w = x\n}\n",
      // Another constant.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f64[3]) -> (r) {\n"
      "  r = sum(sub(x, mul(y, 3.0)), axis=[0])\n"
      "  update w = x\n}\n",
      // Another input type.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f32[3]) -> (r) {\n"
      "  r = sum(sub(x, mul(y, 2.0)), axis=[0])\n"
      "  update w = x\n}\n",
      // Another update.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f64[3]) -> (r) {\n"
      "  r = sum(sub(x, mul(y, 2.0)), axis=[0])\n"
      "  update w = y\n}\n",
      // Another initialiser.
      "shared w: f64[3] = ones\n"
      "func f(x: f64[3], y: f64[3]) -> (r) {\n"
      "  r = sum(sub(x, mul(y, 2.0)), axis=[0])\n"
      "  update w = x\n}\n",
      // Another name.
      "shared w: f64[3] = zeros\n"
      "func f(x: f64[3], y: f64[3]) -> (q) {\n"
      "  q = sum(sub(x, mul(y, 2.0)), axis=[0])\n"
      "  update w = x\n}\n",
  };
  auto M = parseOK(Base);
  ASSERT_TRUE(M);
  std::string D = canonicalDump(*M);
  for (const char *V : Variants) {
    auto N = parseOK(V);
    ASSERT_TRUE(N);
    EXPECT_NE(D, canonicalDump(*N)) << V;
  }
}

TEST(DebugPrint, TheanoLayout) {
  auto M = parseOK("func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {\n"
                   "  s = add(x, y)\n"
                   "  t = add(s, z)\n"
                   "  r = mul(t, 2.0)\n"
                   "}\n",
                   "ex.graph");
  ASSERT_TRUE(M);
  std::string S;
  llvm::raw_string_ostream OS(S);
  debugPrint(*M->functions()[0], OS);
  EXPECT_EQ(
      S, "Elemwise{mul,no_inplace} [id A] 'r'   2   <ex.graph:4>   f64[n]\n"
         " |Elemwise{add,no_inplace} [id B] 't'   1   <ex.graph:3>   f64[n]\n"
         " | |Elemwise{add,no_inplace} [id C] 's'   0   <ex.graph:2>   f64[n]\n"
         " | | |x [id D]   f64[n]\n"
         " | | |y [id E]   f64[n]\n"
         " | |z [id F]   f64[n]\n"
         " |TensorConstant{2.0} [id G]   f64[]\n");
}

TEST(DebugPrint, SharedSubtreesOnceThenUpdates) {
  auto M = parseOK("shared w: f64[3] = zeros\n"
                   "func f(x: f64[3]) -> (r, m) {\n"
                   "  s = neg(x)\n"
                   "  r = add(s, s)\n"
                   "  m, i = max_and_argmax(s, axis=[0])\n"
                   "  update w = add(w, s)\n"
                   "}\n",
                   "d.graph");
  ASSERT_TRUE(M);
  std::string S;
  llvm::raw_string_ostream OS(S);
  debugPrint(*M->functions()[0], OS);
  EXPECT_EQ(
      S,
      "Elemwise{add,no_inplace} [id A] 'r'   1   <d.graph:4>   f64[3]\n"
      " |Elemwise{neg,no_inplace} [id B] 's'   0   <d.graph:3>   f64[3]\n"
      " | |x [id C]   f64[3]\n"
      " |Elemwise{neg,no_inplace} [id B] 's'   0   <d.graph:3>   f64[3]\n" +
          std::string(M->functions()[0]->outputs()[1]->owner()->op().name()) +
          ".0 [id D] 'm'   2   <d.graph:5>   f64[]\n"
          " |Elemwise{neg,no_inplace} [id B] 's'   0   <d.graph:3>   "
          "f64[3]\n"
          "update w = Elemwise{add,no_inplace} [id E] ''   3   "
          "<d.graph:6>   f64[3]\n"
          " |w [id F]   f64[3]\n"
          " |Elemwise{neg,no_inplace} [id B] 's'   0   <d.graph:3>   "
          "f64[3]\n");
}
