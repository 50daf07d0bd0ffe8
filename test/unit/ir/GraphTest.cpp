//===- GraphTest.cpp - The graph IR and the C++ builder -------------------===//

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "gtest/gtest.h"

using namespace graphjit;

static TensorType vec(DType T, const char *N) {
  return TensorType(T, {Dim::symbolic(N)});
}

// The tutorial's (x + y + z) * 2, built through the API.
static FunctionGraph *buildExample(GraphModule &M) {
  FunctionBuilder B(M, "example");
  Variable *X = B.input("x", vec(DType::F64, "n"));
  Variable *Y = B.input("y", vec(DType::F64, "n"));
  Variable *Z = B.input("z", vec(DType::F64, "n"));
  Variable *S = llvm::cantFail(B.apply("add", {X, Y}));
  Variable *T = llvm::cantFail(B.apply("add", {S, Z}));
  Variable *R = llvm::cantFail(B.apply("mul", {T, B.literal(2.0)}));
  B.name(R, "r");
  B.output(R);
  return llvm::cantFail(B.finish());
}

TEST(Graph, NamesFollowTheano) {
  GraphModule M;
  FunctionGraph *F = buildExample(M);
  std::vector<Apply *> Nodes = F->applies();
  ASSERT_EQ(3u, Nodes.size());
  EXPECT_EQ("Elemwise{add,no_inplace}(x, y)", Nodes[0]->displayName());
  EXPECT_EQ("Elemwise{add,no_inplace}(Elemwise{add,no_inplace}.0, z)",
            Nodes[1]->displayName());
  EXPECT_EQ("Elemwise{mul,no_inplace}(Elemwise{add,no_inplace}.0, "
            "TensorConstant{2.0})",
            Nodes[2]->displayName());
  EXPECT_EQ(2u, Nodes[2]->id());
  EXPECT_EQ("f64[n]", F->outputs()[0]->type().str());
  EXPECT_EQ(std::vector<std::string>{"n"}, F->symbolicDims());
  EXPECT_EQ(1u, F->clients(Nodes[0]->output()).size());
}

TEST(Graph, EqualOpsAreEqual) {
  GraphModule M;
  FunctionGraph *F = buildExample(M);
  std::vector<Apply *> N = F->applies();
  EXPECT_TRUE(N[0]->op().equals(N[1]->op()));
  EXPECT_EQ(N[0]->op().hash(), N[1]->op().hash());
  EXPECT_FALSE(N[0]->op().equals(N[2]->op()));
}

TEST(Graph, LiteralsTakeTheOperandsDType) {
  GraphModule M;
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", vec(DType::F32, "n"));
  Variable *I = B.input("i", vec(DType::I32, "n"));
  Variable *Two = B.literal(2.0);
  EXPECT_EQ(DType::F32, llvm::cantFail(B.apply("mul", {X, Two}))->type().Dtype);
  EXPECT_EQ(DType::F32, Two->type().Dtype);
  // A float literal among integers is f64, as in NumPy.
  EXPECT_EQ(DType::F64, llvm::cantFail(B.apply("mul", {I, B.literal(2.5)}))
                            ->type()
                            .Dtype);
  EXPECT_EQ(DType::I32,
            llvm::cantFail(B.apply("add", {I, B.literal(int64_t(3))}))
                ->type()
                .Dtype);
  EXPECT_EQ(DType::F64, literalDType(true, {}));
  EXPECT_EQ(DType::I64, literalDType(false, {DType::Bool}));
}

TEST(Graph, LiteralThatDoesNotFitIsAnError) {
  GraphModule M;
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", vec(DType::I8, "n"));
  llvm::Expected<Variable *> R = B.apply("add", {X, B.literal(int64_t(1000))});
  ASSERT_FALSE(bool(R));
  EXPECT_EQ("literal 1000 does not fit in i8", llvm::toString(R.takeError()));
}

TEST(Graph, UpdatesAreChecked) {
  GraphModule M;
  M.addShared("w", TensorType(DType::F64, {Dim::known(3)}), SharedInit());
  FunctionBuilder B(M, "f");
  Variable *X = B.input("x", TensorType(DType::F64, {Dim::known(4)}));
  llvm::Error E = B.update("w", X);
  EXPECT_EQ("update of 'w' has type f64[4], but the shared variable is "
            "f64[3]",
            llvm::toString(std::move(E)));
  E = B.update("x", X);
  EXPECT_NE(std::string::npos, llvm::toString(std::move(E)).find("not a shared"));
}

TEST(Schedule, LastUsesAllowGC) {
  GraphModule M;
  FunctionGraph *F = buildExample(M);
  Schedule S = makeSchedule(*F);
  std::vector<Apply *> N = F->applies();
  EXPECT_EQ(1, S.LastUse[N[0]->output()->id()]);
  EXPECT_EQ(2, S.LastUse[N[1]->output()->id()]);
  EXPECT_EQ(-1, S.LastUse[N[2]->output()->id()]); // an output
  EXPECT_EQ(-1, S.LastUse[F->inputs()[0]->id()]);
}

static NDArray vector(std::initializer_list<double> V) {
  NDArray A = NDArray::zeros(DType::F64, {int64_t(V.size())});
  int I = 0;
  for (double D : V)
    A.dataAs<double>()[I++] = D;
  return A;
}

TEST(PyLinker, RunsTheExample) {
  for (bool GC : {true, false}) {
    GraphModule M;
    FunctionGraph *F = buildExample(M);
    CompileOptions O;
    O.AllowGC = GC;
    auto Fn = llvm::cantFail(Function::compile(*F, O));
    auto R = llvm::cantFail(
        Fn->call({vector({1, 2}), vector({3, 4}), vector({5, 6})}));
    ASSERT_EQ(1u, R.size());
    EXPECT_EQ(18, R[0].getDouble(0));
    EXPECT_EQ(24, R[0].getDouble(1));
  }
}

TEST(PyLinker, ChecksInputsAndSurvivesErrors) {
  GraphModule M;
  FunctionGraph *F = buildExample(M);
  auto Fn = llvm::cantFail(Function::compile(*F));
  auto Bad = Fn->call({vector({1, 2}), vector({3}), vector({5, 6})});
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ("input 'y' dim 0 is 1, but 'n' is 2 from input 'x' dim 0",
            llvm::toString(Bad.takeError()));
  auto Good = Fn->call({vector({1}), vector({1}), vector({1})});
  ASSERT_TRUE(bool(Good));
  EXPECT_EQ(6, (*Good)[0].getDouble(0));
}

TEST(PyLinker, UpdatesUseValuesFromBeforeTheCall) {
  GraphModule M;
  TensorType Scalar = TensorType::scalar(DType::F64);
  SharedVariable *A = M.addShared("a", Scalar, SharedInit());
  SharedVariable *Bv = M.addShared("b", Scalar, SharedInit());
  A->Value = NDArray::scalar(DType::F64, 1);
  Bv->Value = NDArray::scalar(DType::F64, 2);
  FunctionBuilder B(M, "swap");
  Variable *RA = llvm::cantFail(B.shared("a"));
  Variable *RB = llvm::cantFail(B.shared("b"));
  Variable *Sum = llvm::cantFail(B.apply("add", {RA, RB}));
  B.output(Sum);
  llvm::cantFail(B.update("a", RB));
  llvm::cantFail(B.update("b", RA));
  auto Fn = llvm::cantFail(Function::compile(*llvm::cantFail(B.finish())));
  auto R = llvm::cantFail(Fn->call({}));
  EXPECT_EQ(3, R[0].getDouble(0));
  EXPECT_EQ(2, A->Value.getDouble(0));
  EXPECT_EQ(1, Bv->Value.getDouble(0));
}

TEST(Linkers, NamesAreTheanos) {
  EXPECT_EQ(LinkerKind::CPy, llvm::cantFail(parseLinker("cpy")));
  EXPECT_EQ(LinkerKind::CPy, llvm::cantFail(parseLinker("c|py")));
  EXPECT_EQ(LinkerKind::C, llvm::cantFail(parseLinker("c")));
  EXPECT_EQ(LinkerKind::Py, llvm::cantFail(parseLinker("py")));
  auto Bad = parseLinker("fast");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ("unknown linker 'fast' (known: py, c|py, cpy, c)",
            llvm::toString(Bad.takeError()));
}

TEST(Linkers, JitDriverRunsTheExample) {
  GraphModule M;
  FunctionGraph *F = buildExample(M);
  CompileOptions O;
  O.Linker = LinkerKind::CPy;
  auto Fn = llvm::cantFail(Function::compile(*F, O));
  auto R = llvm::cantFail(
      Fn->call({vector({1, 2}), vector({3, 4}), vector({5, 6})}));
  EXPECT_EQ(18, R[0].getDouble(0));
  EXPECT_EQ(24, R[0].getDouble(1));
  // A call that fails inside JIT code reports the node and leaves the
  // function usable.
  auto Bad = Fn->call({vector({1, 2}), vector({3, 4}), vector({5, 6, 7})});
  ASSERT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
  EXPECT_TRUE(bool(Fn->call({vector({1}), vector({1}), vector({1})})));
}
