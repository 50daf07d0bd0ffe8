//===- OpKindTest.cpp - isa<>/dyn_cast<> on op kinds, not class names -----===//

#include "codegen/ThunkEmitter.h"
#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "ops/shape/AllocOps.h"
#include "ops/reduction/ArgReductionOps.h"
#include "ops/cumulative/CumulativeOps.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/indexing/GatherOps.h"
#include "ops/linalg/GemmOp.h"
#include "ops/indexing/IndexingOps.h"
#include "ops/linalg/LinalgOps.h"
#include "ops/nn/NNOps.h"
#include "ops/reduction/ReductionOps.h"
#include "ops/shape/ShapeOps.h"
#include "llvm/Support/Casting.h"
#include "gtest/gtest.h"

using namespace graphjit;

namespace {

const char *EveryFamily = R"(
func f(x: f64[4, 3], m: f64[3, 5], i: i64[2]) -> (a, b, c, d, e, g, h, k, l, n, o, p, q, r, s) {
  a = add(x, 1.0)
  b = transpose(x)
  c = reshape(x, shape=[3, 4])
  d = shape(x, axis=0)
  e = subtensor(x, axis=0, start=1)
  g = concatenate(x, x, axis=0)
  h = alloc(1.0, shape=[2, 2])
  k = zeros_like(x)
  l = sum(x, axis=0)
  n = argmax(x, axis=1)
  o = softmax(x)
  p = dot(x, m)
  q = take(x, i)
  r = cumsum(x, axis=0)
  s = gemm(p, x, m, alpha=1.0, beta=1.0)
}
)";

const Op &opOf(const FunctionGraph &F, const char *Output) {
  for (const Variable *V : F.outputs())
    if (V->name() == Output)
      return V->owner()->op();
  ADD_FAILURE() << "no output " << Output;
  return F.outputs()[0]->owner()->op();
}

// Each op of the format is of its class, and of no other.
TEST(OpKind, EveryOpIsOfItsClass) {
  auto M = parseGraph(EveryFamily, "kinds.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const FunctionGraph &F = *(*M)->functions().front();
  EXPECT_TRUE(llvm::isa<Elemwise>(opOf(F, "a")));
  EXPECT_TRUE(llvm::isa<DimShuffleOp>(opOf(F, "b")));
  EXPECT_TRUE(llvm::isa<ReshapeOp>(opOf(F, "c")));
  EXPECT_TRUE(llvm::isa<ShapeIOp>(opOf(F, "d")));
  EXPECT_TRUE(llvm::isa<SubtensorOp>(opOf(F, "e")));
  EXPECT_TRUE(llvm::isa<JoinOp>(opOf(F, "g")));
  EXPECT_TRUE(llvm::isa<AllocOp>(opOf(F, "h")));
  EXPECT_TRUE(llvm::isa<FillLikeOp>(opOf(F, "k")));
  EXPECT_TRUE(llvm::isa<ReduceOp>(opOf(F, "l")));
  EXPECT_TRUE(llvm::isa<ArgReduceOp>(opOf(F, "n")));
  EXPECT_TRUE(llvm::isa<SoftmaxOp>(opOf(F, "o")));
  EXPECT_TRUE(llvm::isa<DotOp>(opOf(F, "p")));
  EXPECT_TRUE(llvm::isa<TakeOp>(opOf(F, "q")));
  EXPECT_TRUE(llvm::isa<CumOp>(opOf(F, "r")));
  EXPECT_TRUE(llvm::isa<GemmOp>(opOf(F, "s")));

  // Kinds are exclusive: every pair of outputs of different classes.
  std::vector<OpKind> Kinds;
  for (const Variable *V : F.outputs())
    Kinds.push_back(V->owner()->op().kind());
  for (size_t I = 0; I < Kinds.size(); ++I)
    for (size_t J = I + 1; J < Kinds.size(); ++J)
      EXPECT_NE(Kinds[I], Kinds[J]) << F.outputs()[I]->name() << " and "
                                    << F.outputs()[J]->name();
  EXPECT_FALSE(llvm::isa<DotOp>(opOf(F, "s")));
  EXPECT_EQ(llvm::dyn_cast<Elemwise>(&opOf(F, "b")), nullptr);
  EXPECT_EQ(llvm::cast<Elemwise>(opOf(F, "a")).scalarOp(), ScalarOpKind::Add);
}

/// An op from outside graphjit that calls itself Elemwise.
class ImpostorOp final : public Op {
public:
  ImpostorOp() : Op("impostor", {}) {}
  std::string name() const override { return "Elemwise{add,no_inplace}"; }
  llvm::StringRef className() const override { return "Elemwise"; }
  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override {
    return std::vector<TensorType>{In[0]};
  }
  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const override {
    Out[0] = In[0].copy();
    return llvm::Error::success();
  }
};

// No lowering, rewrite or cast takes a foreign op for one of graphjit's
// by its name: it runs its own perform.
TEST(OpKind, ForeignOpsAreNeverTakenForGraphjitsByName) {
  GraphModule M;
  FunctionBuilder B(M, "f");
  TensorType T{DType::F64, {Dim::known(3)}};
  Variable *X = B.input("x", T);
  FunctionGraph &F = B.graph();
  Apply *N = F.addApply(std::make_shared<ImpostorOp>(), {X}, {T}, {});
  B.output(N->output(0));
  ASSERT_TRUE(bool(B.finish()));
  EXPECT_EQ(N->op().kind(), OpKind::Foreign);
  EXPECT_FALSE(llvm::isa<Elemwise>(N->op()));
  EXPECT_EQ(findLowering(*N), nullptr);

  CompileOptions O;
  O.Profile = true;
  auto Fn = Function::compile(F, O);
  ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
  EXPECT_FALSE((*Fn)->isCompiled(0)); // Py: its perform, not JIT code
  double In[3] = {1, 2, 3};
  auto R = (*Fn)->call({NDArray::wrap(In, DType::F64, {3}, {8})});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ((*R)[0].dataAs<double>()[2], 3.0); // a copy, not an add
}

} // namespace
