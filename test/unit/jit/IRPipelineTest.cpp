//===- IRPipelineTest.cpp - The kernel pipeline against LLVM's O2 ---------===//
//
// The kernel pipeline (jit/IRPipeline.h) replaces LLVM's default<O2> at
// the default level. What it must still do as O2 does: inline the scalar
// kernels and delete them, vectorize a kernel's loop, inline a small
// module's thunks into its driver; leave optnone glue alone; what the
// compile cache must tell apart; and a function compiled either way
// computes the same numbers.
//
//===----------------------------------------------------------------------===//
#include "PartsTestUtil.h"
#include "StructuralOpsTestUtil.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "jit/IRPipeline.h"
#include "jit/JitEngine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace graphjit;
using namespace graphjit::testutil;

namespace {

std::unique_ptr<llvm::TargetMachine> hostMachine() {
  llvm::cantFail(JitEngine::get()); // Registers the host target.
  auto JTMB = llvm::cantFail(llvm::orc::JITTargetMachineBuilder::detectHost());
  JTMB.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return llvm::cantFail(JTMB.createTargetMachine());
}

// A kernel as graphjit lowers one: a noinline loop over arrays calling an
// always-inlined scalar function; and a driver calling a thunk that the
// inliner may inline.
const char *KernelIR = R"(
define internal double @scalar_add(double %a, double %b) alwaysinline {
  %r = fadd double %a, %b
  ret double %r
}
define void @kernel(ptr noalias %out, i64 %n, ptr readonly %x, ptr readonly %y) noinline nounwind {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %exit
body:
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %a = load double, ptr %px
  %b = load double, ptr %py
  %s = call double @scalar_add(double %a, double %b)
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %s, ptr %po
  %next = add nuw nsw i64 %i, 1
  br label %head
exit:
  ret void
}
define internal i32 @thunk(ptr %frame) nounwind {
  %v = load i32, ptr %frame
  %w = add i32 %v, 1
  ret i32 %w
}
define i32 @driver(ptr %frame) nounwind {
  %r = call i32 @thunk(ptr %frame)
  ret i32 %r
}
define i32 @glue(i32 %v) noinline optnone nounwind {
  %w = add i32 2, 3
  %r = add i32 %v, %w
  ret i32 %r
}
)";

bool hasVectorFAdd(const llvm::Function &F) {
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (I.getOpcode() == llvm::Instruction::FAdd && I.getType()->isVectorTy())
      return true;
  return false;
}

bool callsAnything(const llvm::Function &F) {
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (llvm::isa<llvm::CallBase>(I))
      return true;
  return false;
}

TEST(IRPipeline, KernelPipelineParses) {
  llvm::PassBuilder PB;
  llvm::ModulePassManager MPM;
  llvm::Error E = PB.parsePassPipeline(MPM, kernelPipeline());
  EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
}

TEST(IRPipeline, DoesWhatO2DoesToKernels) {
  auto TM = hostMachine();
  for (bool LLVMPipeline : {false, true}) {
    SCOPED_TRACE(LLVMPipeline ? "LLVM's O2" : "kernel pipeline");
    llvm::LLVMContext Ctx;
    std::unique_ptr<llvm::Module> M = parseIR(Ctx, KernelIR);
    ASSERT_TRUE(M);
    M->setDataLayout(TM->createDataLayout());
    M->setTargetTriple(TM->getTargetTriple().str());
    optimizeIR(*M, *TM, Optimization{2, LLVMPipeline});
    // Inlined everywhere, then deleted.
    EXPECT_EQ(M->getFunction("scalar_add"), nullptr);
    EXPECT_EQ(M->getFunction("thunk"), nullptr);
    // The loop vectorized, whatever the host's width.
    EXPECT_TRUE(hasVectorFAdd(*M->getFunction("kernel")));
    EXPECT_FALSE(callsAnything(*M->getFunction("driver")));
    // The function passes skip optnone glue (a long driver), which keeps
    // its constant arithmetic. (LLVM's O2 folds it in a module pass.)
    if (!LLVMPipeline) {
      std::string Glue;
      llvm::raw_string_ostream(Glue) << *M->getFunction("glue");
      EXPECT_NE(Glue.find("add i32 2, 3"), std::string::npos) << Glue;
    }
  }
}

TEST(IRPipeline, TheCacheTellsThePipelinesApart) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  if (Engine.cacheDirectory().empty())
    GTEST_SKIP() << "no compile cache (GRAPHJIT_CACHE_DIR is empty)";
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M = parseIR(Ctx, KernelIR);
  ASSERT_TRUE(M);
  std::string Kernel = Engine.cacheKey(*M, Optimization{2, false});
  std::string LLVMs = Engine.cacheKey(*M, Optimization{2, true});
  EXPECT_FALSE(Kernel.empty());
  EXPECT_NE(Kernel, LLVMs);
  // Only level 2 has two pipelines.
  EXPECT_EQ(Engine.cacheKey(*M, Optimization{3, false}),
            Engine.cacheKey(*M, Optimization{3, true}));
}

// A new version of graphjit never links an object an older one stored:
// the key takes the version, with the target and LLVM's.
TEST(IRPipeline, TheCacheKeysOnGraphjitsVersion) {
  JitEngine &Engine = llvm::cantFail(JitEngine::get());
  std::string Config = Engine.cacheConfiguration(Optimization{2, false});
  EXPECT_NE(Config.find(" graphjit " GRAPHJIT_VERSION), std::string::npos)
      << Config;
  EXPECT_NE(Config.find(" LLVM " LLVM_VERSION_STRING), std::string::npos)
      << Config;
}

// The logistic regression step's kernels (softplus, sigmoid, sums, a
// product), compiled with either pipeline: the same numbers, to the bit.
TEST(IRPipeline, SameNumbersEitherWay) {
  auto G = parseGraph(
      "func step(x: f64[n, m], y: f64[n], w: f64[m], b: f64[]) -> (c, g) {\n"
      "  z = add(dot(x, w), b)\n"
      "  xent = add(mul(y, softplus(neg(z))), mul(sub(1.0, y), softplus(z)))\n"
      "  c = add(mean(xent), mul(0.01, sum(sqr(w))))\n"
      "  g = true_div(sub(sigmoid(z), y), 7.0)\n"
      "}\n",
      "pipeline.graph");
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  const int64_t N = 7, Cols = 5;
  std::vector<double> X(N * Cols), Y(N), W(Cols);
  for (int64_t I = 0; I < N * Cols; ++I)
    X[I] = std::sin(0.7 * double(I)) * 3;
  for (int64_t I = 0; I < N; ++I)
    Y[I] = double(I % 2);
  for (int64_t I = 0; I < Cols; ++I)
    W[I] = 0.25 * double(I) - 0.5;
  NDArray XA = arr(DType::F64, {N, Cols}, X);
  std::vector<std::vector<double>> Results[2];
  for (bool LLVMPipeline : {false, true}) {
    CompileOptions O;
    O.LLVMPipeline = LLVMPipeline;
    auto Fn = Function::compile(*(*G)->functions().front(), O);
    ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
    auto Out = (*Fn)->call({XA, f64Vector(Y), f64Vector(W),
                            NDArray::scalar(DType::F64, 0.125)});
    ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
    for (const NDArray &A : *Out)
      Results[LLVMPipeline].push_back(values(A));
  }
  EXPECT_EQ(Results[0], Results[1]);
  // And the numbers are the step's: the gradient's first element by hand.
  double Z0 = 0.125;
  for (int64_t J = 0; J < Cols; ++J)
    Z0 += X[J] * W[J];
  EXPECT_DOUBLE_EQ(Results[0][1][0], (1 / (1 + std::exp(-Z0)) - Y[0]) / 7.0);
}

} // namespace
