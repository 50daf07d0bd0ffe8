//===- ParserTest.cpp - The .graph reader: structure and diagnostics ------===//
//
// Parses the example files and small snippets, checks the graphs built, and
// checks one diagnostic of each kind the format defines: its text, line and
// column, and that one problem gives one error.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Parser.h"
#include "graphjit/Printer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace graphjit;

namespace {

struct Failure {
  std::string Text;
  unsigned Count = 0;
};

// The diagnostics of a file that must not parse.
Failure failureOf(llvm::StringRef Source) {
  Failure R;
  auto M = parseGraph(Source, "t.graph");
  if (M) {
    ADD_FAILURE() << "parsed, but should not have:\n" << Source.str();
    return R;
  }
  llvm::handleAllErrors(M.takeError(), [&](const ParseError &E) {
    R.Count = E.count();
    llvm::raw_string_ostream OS(R.Text);
    E.log(OS);
  });
  return R;
}

// Parsing Source gives exactly one error, `t.graph:Line:Col: error: Msg`.
void expectError(llvm::StringRef Source, unsigned Line, unsigned Col,
                 llvm::StringRef Msg) {
  Failure F = failureOf(Source);
  std::string Want = "t.graph:" + std::to_string(Line) + ":" +
                     std::to_string(Col) + ": error: " + Msg.str() + "\n";
  EXPECT_EQ(F.Count, 1u) << F.Text;
  EXPECT_NE(F.Text.find(Want), std::string::npos)
      << "want: " << Want << "got:\n"
      << F.Text;
}

std::unique_ptr<GraphModule> parseOK(llvm::StringRef Source) {
  auto M = parseGraph(Source, "t.graph");
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::string examplesDir() { return GRAPHJIT_EXAMPLES_DIR; }

} // namespace

//===-- Files that parse --------------------------------------------------===//

TEST(Parser, ParsesEveryExample) {
  std::error_code EC;
  unsigned Files = 0;
  for (llvm::sys::fs::directory_iterator It(examplesDir(), EC), End;
       It != End && !EC; It.increment(EC)) {
    if (!llvm::StringRef(It->path()).ends_with(".graph"))
      continue;
    ++Files;
    auto M = parseGraphFile(It->path());
    ASSERT_TRUE(bool(M)) << It->path() << "\n" << llvm::toString(M.takeError());
    EXPECT_FALSE((*M)->functions().empty()) << It->path();
  }
  EXPECT_FALSE(EC) << EC.message();
  EXPECT_GE(Files, 3u);
}

TEST(Parser, ProfilingExample) {
  auto M = parseOK("# (x + y + z) * 2\n"
                   "func example(x: f64[n], y: f64[n], z: f64[n]) -> (r) {\n"
                   "  s = add(x, y)\n"
                   "  t = add(s, z)\n"
                   "  r = mul(t, 2.0)\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->lookupFunction("example");
  ASSERT_TRUE(F);
  ASSERT_EQ(F->inputs().size(), 3u);
  EXPECT_EQ(F->inputs()[0]->type().str(), "f64[n]");
  ASSERT_EQ(F->numApplies(), 3u);
  ASSERT_EQ(F->outputs().size(), 1u);
  Variable *R = F->outputs()[0];
  EXPECT_EQ(R->name(), "r");
  EXPECT_EQ(R->owner()->op().formatName(), "mul");
  EXPECT_EQ(R->owner()->loc().Line, 5u);
  EXPECT_EQ(R->owner()->loc().Col, 7u);
  Variable *Two = R->owner()->inputs()[1];
  EXPECT_EQ(Two->kind(), Variable::Constant);
  EXPECT_EQ(Two->literalText(), "2.0");
  EXPECT_EQ(Two->type().Dtype, DType::F64);
}

TEST(Parser, StatementsMayComeInAnyOrder) {
  auto M = parseOK("func f(x: f64[n]) -> (r) {\n"
                   "  r = mul(t, 2.0)\n"
                   "  t = add(s, x)\n"
                   "  s = neg(x)\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  std::vector<Apply *> As = F->applies();
  ASSERT_EQ(As.size(), 3u);
  // Applies are created after their inputs whatever the text order.
  EXPECT_EQ(As[0]->op().formatName(), "neg");
  EXPECT_EQ(As[1]->op().formatName(), "add");
  EXPECT_EQ(As[2]->op().formatName(), "mul");
}

TEST(Parser, SharedDeclaredAfterUse) {
  auto M = parseOK("func f(x: f64[3]) -> (r) {\n"
                   "  r = add(x, w)\n"
                   "  update w = r\n"
                   "}\n"
                   "shared w: f64[3] = ones\n");
  ASSERT_TRUE(M);
  ASSERT_EQ(M->sharedVariables().size(), 1u);
  FunctionGraph *F = M->functions()[0].get();
  ASSERT_EQ(F->updates().size(), 1u);
  EXPECT_EQ(F->updates()[0].Target->Name, "w");
  EXPECT_EQ(F->updates()[0].Value, F->outputs()[0]);
}

TEST(Parser, LiteralsKeepTheirSpellingAndFollowOperands) {
  auto M = parseOK("func f(x: f32[n], i: i32[n]) -> (a, b, c, d, e) {\n"
                   "  a = add(x, .5)\n"
                   "  b = mul(x, 1e-3)\n"
                   "  c = sub(i, -1)\n"
                   "  d = add(i, -0.5)\n"
                   "  e = 7\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  auto Lit = [&](unsigned Out) {
    return F->outputs()[Out]->owner()->inputs()[1];
  };
  EXPECT_EQ(Lit(0)->literalText(), ".5");
  EXPECT_EQ(Lit(0)->type().Dtype, DType::F32);
  EXPECT_EQ(Lit(1)->literalText(), "1e-3");
  EXPECT_EQ(Lit(2)->literalText(), "-1");
  EXPECT_EQ(Lit(2)->type().Dtype, DType::I32);
  // A float literal among integers is f64, as in NumPy.
  EXPECT_EQ(Lit(3)->type().Dtype, DType::F64);
  EXPECT_EQ(F->outputs()[3]->type().Dtype, DType::F64);
  // A literal on its own is i64 (or f64), named after its statement.
  Variable *E = F->outputs()[4];
  EXPECT_EQ(E->kind(), Variable::Constant);
  EXPECT_EQ(E->name(), "e");
  EXPECT_EQ(E->type().Dtype, DType::I64);
}

TEST(Parser, NamedLiteralIsAFreshLiteralAtEachUse) {
  auto M = parseOK("func f(x: f32[n], i: i8[n]) -> (a, b) {\n"
                   "  c = 2\n"
                   "  a = mul(x, c)\n"
                   "  b = mul(i, c)\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  EXPECT_EQ(F->outputs()[0]->type().Dtype, DType::F32);
  EXPECT_EQ(F->outputs()[1]->type().Dtype, DType::I8);
}

TEST(Parser, AliasStatementNamesTheSameVariable) {
  auto M = parseOK("func f(x: f64[n]) -> (r, s) {\n"
                   "  r = x\n"
                   "  s = neg(r)\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  EXPECT_EQ(F->outputs()[0], F->inputs()[0]);
  EXPECT_EQ(F->outputs()[1]->owner()->inputs()[0], F->inputs()[0]);
}

TEST(Parser, MultiOutputStatement) {
  auto M = parseOK("func f(x: f64[n, 3]) -> (m, i) {\n"
                   "  m, i = max_and_argmax(x, axis=[1])\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  ASSERT_EQ(F->numApplies(), 1u);
  EXPECT_EQ(F->outputs()[0]->name(), "m");
  EXPECT_EQ(F->outputs()[1]->name(), "i");
  EXPECT_EQ(F->outputs()[0]->owner(), F->outputs()[1]->owner());
  EXPECT_EQ(F->outputs()[1]->outputIndex(), 1u);
}

TEST(Parser, AttributesOfEveryKind) {
  auto M = parseOK("func f(x: f64[n, 3]) -> (a, b, c, d) {\n"
                   "  a = sum(x, axis=[0, 1], keepdims=true)\n"
                   "  b = cast(x, dtype=f32)\n"
                   "  c = dimshuffle(x, pattern=[1, x, 0])\n"
                   "  d = reshape(x, shape=[n, -1])\n"
                   "}\n");
  ASSERT_TRUE(M);
  FunctionGraph *F = M->functions()[0].get();
  const AttrMap &A = F->outputs()[0]->owner()->op().attrs();
  ASSERT_TRUE(A.count("axis"));
  EXPECT_EQ(A.at("axis").str(), "[0,1]");
  EXPECT_EQ(A.at("keepdims"), AttrValue::boolean(true));
  EXPECT_EQ(F->outputs()[1]->type().Dtype, DType::F32);
  EXPECT_EQ(F->outputs()[2]->type().str(), "f64[3, 1, n]");
}

TEST(Parser, EveryInitialiser) {
  auto M = parseOK("shared a: f64[2] = zeros\n"
                   "shared b: f32[2] = ones\n"
                   "shared c: i32[] = -3\n"
                   "shared d: f64[2, 2] = uniform(-1, 1.5, seed=7)\n"
                   "shared e: f64[3] = normal(0, .05)\n"
                   "shared f: f64[3] = npy(\"dir/a \\\"b\\\" \\\\.npy\")\n"
                   "func g() -> (a) {\n}\n");
  ASSERT_TRUE(M);
  auto S = M->sharedVariables();
  ASSERT_EQ(S.size(), 6u);
  EXPECT_EQ(S[0]->Init.K, SharedInit::Zeros);
  EXPECT_EQ(S[1]->Init.K, SharedInit::Ones);
  EXPECT_EQ(S[2]->Init.K, SharedInit::Number);
  EXPECT_EQ(S[2]->Init.A, -3);
  EXPECT_EQ(S[2]->Init.Spelling, "-3");
  EXPECT_EQ(S[3]->Init.K, SharedInit::Uniform);
  EXPECT_EQ(S[3]->Init.A, -1);
  EXPECT_EQ(S[3]->Init.B, 1.5);
  EXPECT_EQ(S[3]->Init.Seed, 7u);
  EXPECT_EQ(S[3]->Type.str(), "f64[2, 2]");
  EXPECT_EQ(S[4]->Init.K, SharedInit::Normal);
  EXPECT_EQ(S[4]->Init.Seed, 0u);
  EXPECT_EQ(S[5]->Init.K, SharedInit::Npy);
  EXPECT_EQ(S[5]->Init.Path, "dir/a \"b\" \\.npy");
  EXPECT_EQ(S[0]->Loc.Line, 1u);
  // The function outputs a shared variable directly.
  EXPECT_EQ(M->functions()[0]->outputs()[0]->shared(), S[0].get());
}

TEST(Parser, LongChainsDoNotRecurse) {
  // 20000 statements, each using the next: deep enough to overflow the
  // stack if names were resolved recursively.
  std::string Text = "func f(x: f64[n]) -> (v0) {\n";
  for (int I = 0; I < 20000; ++I)
    Text +=
        "  v" + std::to_string(I) + " = neg(v" + std::to_string(I + 1) + ")\n";
  Text += "  v20000 = neg(x)\n}\n";
  auto M = parseOK(Text);
  ASSERT_TRUE(M);
  EXPECT_EQ(M->functions()[0]->numApplies(), 20001u);
  std::string Dump = canonicalDump(*M);
  EXPECT_FALSE(Dump.empty());
}

TEST(Parser, MultiLineCall) {
  auto M = parseOK("func f(x: f64[n],\n"
                   "       y: f64[n]) -> (r) {\n"
                   "  r = add(x,\n"
                   "          y)  # comment\n"
                   "}\n");
  ASSERT_TRUE(M);
}

TEST(Parser, FileThatCannotBeRead) {
  auto M = parseGraphFile("/nonexistent/x.graph");
  ASSERT_FALSE(bool(M));
  std::string Msg = llvm::toString(M.takeError());
  EXPECT_NE(Msg.find("cannot open '/nonexistent/x.graph'"), std::string::npos)
      << Msg;
}

//===-- Diagnostics -------------------------------------------------------===//

TEST(ParserError, Layout) {
  Failure F = failureOf("func f(x: f64[n]) -> (r) {\n"
                        "  r = add(x, y)\n"
                        "}\n");
  EXPECT_EQ(F.Text, "t.graph:2:14: error: undefined name 'y'\n"
                    "  r = add(x, y)\n"
                    "             ^\n");
  EXPECT_EQ(F.Count, 1u);
}

TEST(ParserError, ExpectedToken) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = add(x, x]\n}\n", 2, 15,
              "expected ',' or ')' in the call to 'add', got ']'");
}

TEST(ParserError, MissingParenAtEndOfLine) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = add(x, x\n  s = neg(x)\n}\n",
              2, 15,
              "expected ',' or ')' in the call to 'add', got the end of the "
              "line");
}

TEST(ParserError, TwoStatementsOnALine) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = neg(x) s = neg(x)\n}\n", 2, 14,
              "expected the end of the line after the statement, got 's'");
}

TEST(ParserError, MissingCloseBrace) {
  Failure F = failureOf("func f(x: f64[n]) -> (r) {\n  r = neg(x)\n"
                        "func g(x: f64[n]) -> (r) {\n  r = neg(x)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:3:1: error: expected '}' to end function "
                        "'f', got 'func'"),
            std::string::npos)
      << F.Text;
  EXPECT_NE(F.Text.find("t.graph:1:26: note: the function body starts here"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, UnexpectedTopLevel) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = neg(x)\n}\nr = 1\n", 4, 1,
              "expected 'func' or 'shared', got 'r'");
}

TEST(ParserError, UndefinedNameSuggestsCloseName) {
  expectError("func f(total: f64[n]) -> (r) {\n  r = neg(totl)\n}\n", 2, 11,
              "undefined name 'totl'; did you mean 'total'?");
}

TEST(ParserError, RedefinedName) {
  Failure F = failureOf("func f(x: f64[n]) -> (r) {\n"
                        "  r = neg(x)\n"
                        "  r = exp(x)\n"
                        "}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:3:3: error: redefinition of 'r'\n"),
            std::string::npos)
      << F.Text;
  EXPECT_NE(F.Text.find("t.graph:2:3: note: 'r' is first defined here\n"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, RedefinedInput) {
  Failure F = failureOf("func f(x: f64[n]) -> (x) {\n  x = neg(x)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:2:3: error: redefinition of 'x'"),
            std::string::npos)
      << F.Text;
  EXPECT_NE(F.Text.find("t.graph:1:8: note: 'x' is first defined here"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, AssignToShared) {
  Failure F = failureOf("shared w: f64[3] = zeros\n"
                        "func f(x: f64[3]) -> (w) {\n  w = neg(x)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:3:3: error: 'w' is a shared variable; give "
                        "it a new value with 'update w = ...'"),
            std::string::npos)
      << F.Text;
  EXPECT_NE(F.Text.find("t.graph:1:8: note: 'w' is declared here"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, DuplicateInput) {
  expectError("func f(x: f64[n], x: f64[n]) -> (x) {\n}\n", 1, 19,
              "duplicate input 'x'");
}

TEST(ParserError, InputNamedLikeShared) {
  expectError("shared w: f64[3] = zeros\nfunc f(w: f64[3]) -> (w) {\n}\n", 2, 8,
              "input 'w' has the name of a shared variable");
}

TEST(ParserError, DuplicateFunction) {
  expectError("func f(x: f64[n]) -> (x) {\n}\nfunc f(x: f64[n]) -> (x) {\n}\n",
              3, 6, "redefinition of function 'f'");
}

TEST(ParserError, DuplicateShared) {
  expectError("shared w: f64[3] = zeros\nshared w: f64[3] = ones\n"
              "func f(x: f64[n]) -> (x) {\n}\n",
              2, 8, "redefinition of shared variable 'w'");
}

TEST(ParserError, UnknownOp) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = ad(x, x)\n}\n", 2, 7,
              "unknown op 'ad'; did you mean 'add'?");
}

TEST(ParserError, UnknownAttributeAtKey) {
  Failure F =
      failureOf("func f(x: f64[n]) -> (r) {\n  r = sum(x, axs=[0])\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:2:14: error: op 'sum' has no attribute "
                        "'axs'"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, BadAttributeValueAtKey) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = sum(x, axis=true)\n}\n", 2, 14,
              "attribute 'axis' of 'sum' must be an integer or a list of "
              "integers, not 'true'");
}

TEST(ParserError, MissingAttributeAtOp) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = cast(x)\n}\n", 2, 7,
              "op 'cast' needs attribute 'dtype'");
}

TEST(ParserError, DuplicateAttribute) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = sum(x, axis=0, axis=0)\n}\n",
              2, 22, "attribute 'axis' is given twice");
}

TEST(ParserError, PositionalAfterAttribute) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = sum(axis=0, x)\n}\n", 2, 19,
              "positional argument after an attribute; write the inputs of "
              "'sum' before key=value");
}

TEST(ParserError, CallAsAttributeValue) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = sum(x, axis=neg(x))\n}\n", 2,
              19,
              "an attribute value is a number, true, false, a name or a "
              "list, not a call");
}

TEST(ParserError, WrongArity) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = neg(x, x)\n}\n", 2, 7,
              "op 'neg' takes 1 input, got 2");
}

TEST(ParserError, ShapeMismatchAtOp) {
  Failure F = failureOf("func f(x: f64[3], y: f64[4]) -> (r) {\n"
                        "  r = mul(2.0, add(x, y))\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_EQ(F.Text.rfind("t.graph:2:16: error: ", 0), 0u) << F.Text;
}

TEST(ParserError, LiteralDoesNotFitAtLiteral) {
  expectError("func f(x: u8[n]) -> (r) {\n  r = add(x, 300)\n}\n", 2, 14,
              "literal 300 does not fit in u8");
}

TEST(ParserError, Cycle) {
  expectError("func f(x: f64[n]) -> (a) {\n"
              "  a = add(b, 1.0)\n"
              "  b = neg(a)\n"
              "}\n",
              2, 3, "cycle in the definitions: a -> b -> a");
}

TEST(ParserError, LongerCycleAndItsUsersReportOnce) {
  expectError("func f(x: f64[n]) -> (r) {\n"
              "  r = add(a, x)\n"
              "  a = neg(b)\n"
              "  b = neg(c)\n"
              "  c = exp(a)\n"
              "}\n",
              3, 3, "cycle in the definitions: a -> b -> c -> a");
}

TEST(ParserError, SelfReference) {
  expectError("func f(x: f64[n]) -> (a) {\n  a = neg(a)\n}\n", 2, 3,
              "'a' is defined in terms of itself");
}

TEST(ParserError, CycleMetTwiceIsReportedOnce) {
  expectError("func f(x: f64[n]) -> (a) {\n  a = add(a, a, b)\n"
              "  b = neg(a)\n}\n",
              2, 3, "'a' is defined in terms of itself");
}

TEST(ParserError, OutputNeverDefined) {
  expectError("func f(x: f64[n]) -> (r, result) {\n  r = neg(x)\n"
              "  reslt = neg(x)\n}\n",
              1, 26, "output 'result' is never defined; did you mean 'reslt'?");
}

TEST(ParserError, UpdateOfNonShared) {
  Failure F = failureOf("func f(x: f64[n]) -> (x) {\n  update x = neg(x)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:2:10: error: 'x' is not a shared variable; "
                        "only shared variables can be updated"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, UpdateOfUndefined) {
  expectError("shared weights: f64[3] = zeros\n"
              "func f(x: f64[3]) -> (x) {\n  update weight = neg(x)\n}\n",
              3, 10,
              "'weight' is not a shared variable; only shared variables can "
              "be updated; did you mean 'weights'?");
}

TEST(ParserError, UpdatedTwice) {
  Failure F = failureOf("shared w: f64[3] = zeros\n"
                        "func f(x: f64[3]) -> (x) {\n"
                        "  update w = neg(x)\n"
                        "  update w = exp(x)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("t.graph:4:10: error: shared variable 'w' is updated "
                        "twice"),
            std::string::npos)
      << F.Text;
  EXPECT_NE(F.Text.find("t.graph:3:10: note: first updated here"),
            std::string::npos)
      << F.Text;
}

TEST(ParserError, UpdateTypeMismatch) {
  expectError("shared w: f64[784] = zeros\n"
              "func f(x: f64[3]) -> (x) {\n  update w = neg(x)\n}\n",
              3, 14,
              "update of 'w' has type f64[3], but the shared variable is "
              "f64[784]");
}

TEST(ParserError, MultiOutputArity) {
  expectError("func f(x: f64[n, 3]) -> (a) {\n"
              "  a, b, c = max_and_argmax(x, axis=[1])\n}\n",
              2, 3,
              "the statement names 3 values, but op 'max_and_argmax' has 2 "
              "outputs");
}

TEST(ParserError, MultiOutputUsedAsOneValue) {
  expectError("func f(x: f64[n, 3]) -> (a) {\n"
              "  a = neg(max_and_argmax(x, axis=[1]))\n}\n",
              2, 11,
              "op 'max_and_argmax' has 2 outputs; name each of them, as in "
              "'a, b = max_and_argmax(...)'");
}

TEST(ParserError, SeveralNamesForOneValue) {
  expectError("func f(x: f64[n]) -> (a) {\n  a, b = x\n}\n", 2, 3,
              "the statement names 2 values, but its value is a single name");
}

TEST(ParserError, BadDType) {
  expectError("func f(x: float64[n]) -> (x) {\n}\n", 1, 11,
              "unknown dtype 'float64'; did you mean 'f64'?");
  expectError("func f(x: f16[n]) -> (x) {\n}\n", 1, 11,
              "unknown dtype 'f16' (the dtypes are f32 f64 i8 i16 i32 i64 u8 "
              "bool)");
}

TEST(ParserError, NegativeDim) {
  expectError("func f(x: f64[-2]) -> (x) {\n}\n", 1, 15,
              "dimension '-2' is negative");
}

TEST(ParserError, SharedNeedsKnownDims) {
  expectError("shared w: f64[n, 3] = zeros\nfunc f(x: f64[n]) -> (x) {\n}\n", 1,
              15, "shared variable 'w' needs known dims, but 'n' is symbolic");
}

TEST(ParserError, BadInitialisers) {
  const char *Fn = "func f(x: f64[n]) -> (x) {\n}\n";
  expectError(std::string("shared w: f64[3] = random\n") + Fn, 1, 20,
              "unknown initialiser 'random'; expected zeros, ones, a number, "
              "uniform(LOW, HIGH, seed=S), normal(MEAN, STD, seed=S) or "
              "npy(\"FILE.npy\")");
  expectError(std::string("shared w: f64[3] = normal(0, 1, sed=2)\n") + Fn, 1,
              33,
              "normal() has no argument 'sed'; it takes MEAN, STD and "
              "seed=S");
  expectError(std::string("shared w: f64[3] = uniform(0, 1, seed=-1)\n") + Fn,
              1, 39,
              "seed must be an integer from 0 to 18446744073709551615, got "
              "'-1'");
  expectError(std::string("shared w: f64[3] = uniform(1, 0)\n") + Fn, 1, 20,
              "uniform(LOW, HIGH): LOW is above HIGH");
  expectError(std::string("shared w: f64[3] = normal(0, -1)\n") + Fn, 1, 20,
              "normal(MEAN, STD): STD is negative");
  expectError(std::string("shared w: f64[3] = uniform(0)\n") + Fn, 1, 29,
              "expected ',' and HIGH, got ')'");
  expectError(std::string("shared w: u8[] = 256\n") + Fn, 1, 18,
              "initial value 256 does not fit u8, the dtype of 'w'");
  expectError(std::string("shared w: i32[] = 0.5\n") + Fn, 1, 19,
              "initial value 0.5 does not fit i32, the dtype of 'w'");
  expectError(std::string("shared w: f64[3] = npy(\"\")\n") + Fn, 1, 24,
              "npy() needs a file name");
  expectError(std::string("shared w: f64[3] = npy(w.npy)\n") + Fn, 1, 24,
              "expected a file name in quotes, as in npy(\"w.npy\"), got 'w'");
}

TEST(ParserError, IntegerOutOfRange) {
  expectError("func f(x: f64[n]) -> (r) {\n"
              "  r = add(x, 9223372036854775808)\n}\n",
              2, 14,
              "integer literal '9223372036854775808' is out of range for i64");
  // The most negative i64 is fine.
  EXPECT_TRUE(parseOK("func f(x: f64[n]) -> (r) {\n"
                      "  r = add(x, -9223372036854775808)\n}\n"));
}

TEST(ParserError, FloatOutOfRange) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = add(x, 1e999)\n}\n", 2, 14,
              "number literal '1e999' is out of range for f64");
}

TEST(ParserError, InvalidNumber) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = add(x, 0x1f)\n}\n", 2, 14,
              "invalid number '0x1f'");
}

TEST(ParserError, NoFunction) {
  expectError("shared w: f64[3] = zeros\n", 1, 1,
              "no function in this file; a .graph file defines at least one "
              "'func'");
  expectError("", 1, 1,
              "no function in this file; a .graph file defines at least one "
              "'func'");
}

TEST(ParserError, UnterminatedString) {
  expectError(
      "shared w: f64[3] = npy(\"w.npy)\nfunc f(x: f64[n]) -> (x) {\n}\n", 1, 24,
      "unterminated string (a string ends with '\"' on the same line)");
}

TEST(ParserError, BadEscape) {
  expectError(
      "shared w: f64[3] = npy(\"a\\nb\")\nfunc f(x: f64[n]) -> (x) {\n}\n", 1,
      26, "unknown escape '\\n' in string; only \\\" and \\\\ are allowed");
}

TEST(ParserError, StrayCharacter) {
  expectError("func f(x: f64[n]) -> (r) {\n  r = add(x, $)\n}\n", 2, 14,
              "unexpected character '$'");
}

TEST(ParserError, NulByte) {
  std::string Text = "func f(x: f64[n]) -> (r) {\n  r = add(x, ";
  Text += '\0';
  Text += ")\n}\n";
  Failure F = failureOf(Text);
  EXPECT_EQ(F.Count, 1u);
  // The line is shown with '?' for the byte, and the caret under it.
  EXPECT_EQ(F.Text, "t.graph:2:14: error: unexpected NUL byte\n"
                    "  r = add(x, ?)\n"
                    "             ^\n");
}

TEST(ParserError, NonAsciiCharacter) {
  Failure F =
      failureOf("func f(x: f64[n]) -> (r) {\n  r = add(x, \xc3\xa9)\n}\n");
  EXPECT_EQ(F.Count, 1u);
  EXPECT_EQ(F.Text, "t.graph:2:14: error: unexpected non-ASCII character "
                    "'\\xC3\\xA9'; the format is ASCII outside comments\n"
                    "  r = add(x, ?\?)\n"
                    "             ^\n");
  // Comments may hold anything.
  EXPECT_TRUE(parseOK("# caf\xc3\xa9 \x01\n"
                      "func f(x: f64[n]) -> (x) {\n}\n"));
}

TEST(ParserError, DeepNesting) {
  std::string Text = "func f(x: f64[n]) -> (r) {\n  r = ";
  for (int I = 0; I < 1000; ++I)
    Text += "neg(";
  Text += "x";
  for (int I = 0; I < 1000; ++I)
    Text += ")";
  Text += "\n}\n";
  expectError(Text, 2, 1031,
              "expression nested too deeply (more than 256 levels of calls "
              "and lists)");
  std::string List = "func f(x: f64[n]) -> (r) {\n  r = sum(x, axis=";
  List += std::string(1000, '[') + std::string(1000, ']') + ")\n}\n";
  Failure F = failureOf(List);
  EXPECT_EQ(F.Count, 1u);
  EXPECT_NE(F.Text.find("expression nested too deeply"), std::string::npos);
}

TEST(ParserError, AllErrorsInSourceOrderWithoutCascades) {
  Failure F = failureOf("func f(x: f64[n]) -> (r, s) {\n"
                        "  r = add(a, y)\n" // y undefined
                        "  a = neg(q)\n"    // q undefined; r then fails
                        "  s = neg(r)\n"    // fails silently
                        "  t = add(x, $)\n" // syntax
                        "  u = mul(t, 2)\n" // t did not parse: silent
                        "}\n"
                        "func g(x: f64[n]) -> (r) {\n"
                        "  r = nope(x)\n"
                        "}\n");
  EXPECT_EQ(F.Count, 4u) << F.Text;
  size_t Y = F.Text.find("2:14: error: undefined name 'y'");
  size_t Q = F.Text.find("3:11: error: undefined name 'q'");
  size_t Dollar = F.Text.find("5:14: error: unexpected character '$'");
  size_t Nope = F.Text.find("9:7: error: unknown op 'nope'");
  ASSERT_NE(Y, std::string::npos) << F.Text;
  ASSERT_NE(Q, std::string::npos) << F.Text;
  ASSERT_NE(Dollar, std::string::npos) << F.Text;
  ASSERT_NE(Nope, std::string::npos) << F.Text;
  EXPECT_LT(Y, Q);
  EXPECT_LT(Q, Dollar);
  EXPECT_LT(Dollar, Nope);
}

TEST(ParserError, ManyErrorsStayLinear) {
  // Every statement uses an undefined name close to thousands of defined
  // ones: suggestions stop after a budget instead of costing N^2 edit
  // distances.
  std::string Text = "func f(x: f64[n]) -> (x) {\n";
  for (int I = 0; I < 20000; ++I)
    Text += "  value" + std::to_string(I) + " = neg(valu" + std::to_string(I) +
            ")\n";
  Text += "}\n";
  Failure F = failureOf(Text);
  EXPECT_EQ(F.Count, 20000u);
  EXPECT_NE(F.Text.find("2:16: error: undefined name 'valu0'; did you mean "
                        "'value0'?"),
            std::string::npos);
  EXPECT_NE(F.Text.find("20001:20: error: undefined name 'valu19999'\n"),
            std::string::npos);
}

TEST(ParserError, BrokenSharedIsNotAlsoUndefined) {
  expectError(
      "shared w: f64[3] = rand\n"
      "func f(x: f64[3]) -> (r) {\n  r = add(x, w)\n  update w = r\n}\n",
      1, 20,
      "unknown initialiser 'rand'; expected zeros, ones, a number, "
      "uniform(LOW, HIGH, seed=S), normal(MEAN, STD, seed=S) or "
      "npy(\"FILE.npy\")");
}

TEST(ParserError, NoOutputsNoUpdates) {
  expectError("func f(x: f64[n]) -> () {\n  r = neg(x)\n}\n", 1, 6,
              "function 'f' has no outputs and no updates");
}
