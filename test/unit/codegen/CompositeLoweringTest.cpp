//===- CompositeLoweringTest.cpp - Fused Elemwise as JIT code vs. perform -===//
//
// Composite Elemwise Applies compiled by the "c" linker must equal the
// "py" linker's perform bit for bit, on every path of the lowering (flat,
// streamed, unit rows, strided rows, 0-d, empty), with mixed dtypes, casts,
// switch, second and n-ary steps. Different programs never share a loop
// kernel; equal ones do; the flat loop of a float program vectorizes.
//
//===----------------------------------------------------------------------===//

#include "runtime/FlatElemwise.h"
#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "ElemwiseTestValues.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace graphjit;
using namespace graphjit::testutil;

namespace {


Dim S(const char *Name) { return Dim::symbolic(Name); }
Dim K(int64_t N) { return Dim::known(N); }

/// One output per expression, each a composite of all the inputs.
BuildFn composites(std::vector<std::string> Exprs) {
  return [=](FunctionBuilder &B, std::vector<Variable *> In) {
    for (const std::string &E : Exprs) {
      auto V = B.apply("composite", In, {{"expr", AttrValue::ident(E)}});
      if (V)
        B.output(*V);
      else
        ADD_FAILURE() << E << ": " << llvm::toString(V.takeError());
    }
  };
}

/// py and c agree bit for bit on Args; every Apply runs as JIT code.
void agree(const std::vector<TensorType> &Types, const BuildFn &Build,
           const std::vector<NDArray> &Args) {
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  Compiled C = compile(Types, Build, LinkerKind::C);
  ASSERT_TRUE(Py.Fn && C.Fn);
  for (const Apply *N : C.Fn->graph().applies())
    EXPECT_TRUE(C.Fn->isCompiled(N->id())) << N->displayName();
  auto Want = Py.Fn->call(Args);
  auto Got = C.Fn->call(Args);
  ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
  ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
  ASSERT_EQ(Want->size(), Got->size());
  for (size_t I = 0; I < Want->size(); ++I)
    EXPECT_TRUE(sameValues((*Want)[I], (*Got)[I]))
        << C.Fn->graph().outputs()[I]->displayName();
}

struct StreamEverything {
  uint64_t Saved = elemwiseStreamingThreshold();
  StreamEverything() { setElemwiseStreamingThreshold(0); }
  ~StreamEverything() { setElemwiseStreamingThreshold(Saved); }
};

const std::vector<std::string> FloatPrograms = {
    "((i0 + i1) + i2) * i3",
    "(i0 + i1 + i2) * i3",
    "exp(-i0) / (sigmoid(i1) + softplus(i2)) - tanh(i3)",
    "log1p(abs(i0)) * expm1(i1) + erf(i2) ** sqr(i3)",
    "clip(i0, i1, i2) // i3 + (i0 % i1)",
    "switch(i0 < i1, i2 * i3, Cast{int16}(i3 - i2))",
    "second(i0, i1 * i2 * i3 * i1)",
    "Cast{bool}(i0) + (i1 >= i2) + and(i3, not(i0))"};

const std::vector<std::string> IntPrograms = {
    "(i0 * i1 + i2) * i2 - i0", "(i0 // i1) % (i2 + i1)",
    "switch(i0 >= i1, -i2, abs(i1)) + sqr(i0)", "i0 / i1 + exp(i2)",
    "Cast{int8}(i0 * i1) == Cast{uint8}(i2)"};

} // namespace

TEST(CompositeLowering, FloatProgramsOnEveryPath) {
  for (DType T : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(T).str());
    std::vector<TensorType> Types(4, TensorType(T, {S("n")}));
    // Flat: short, and long enough for the vector loop and its remainder.
    for (int64_t N : {int64_t(1), int64_t(37), int64_t(1003)})
      agree(Types, composites(FloatPrograms),
            {values(T, {N}), values(T, {N}, 3), values(T, {N}, 7),
             values(T, {N}, 1)});
    // Rows: a broadcast row and a 0-d operand (unit rows), a transposed one
    // (strided rows), an empty output.
    std::vector<TensorType> Mixed = {
        TensorType(T, {S("m"), S("n")}), TensorType(T, {S("n")}),
        TensorType(T, {}), TensorType(T, {S("m"), S("n")})};
    agree(Mixed, composites(FloatPrograms),
          {values(T, {9, 31}), values(T, {31}, 2), values(T, {}, 4),
           values(T, {9, 31}, 5)});
    agree(Mixed, composites(FloatPrograms),
          {values(T, {9, 31}), values(T, {31}, 2), values(T, {}, 4),
           transposed(T, 9, 31, 5)});
    agree(Mixed, composites(FloatPrograms),
          {values(T, {0, 31}), values(T, {31}, 2), values(T, {}, 4),
           values(T, {0, 31})});
    // Statically one element: no loop at all.
    agree(std::vector<TensorType>(4, TensorType(T, {})),
          composites(FloatPrograms),
          {values(T, {}), values(T, {}, 1), values(T, {}, 2),
           values(T, {}, 3)});
  }
}

TEST(CompositeLowering, IntegerAndMixedPrograms) {
  for (DType T : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U8}) {
    SCOPED_TRACE(dtypeName(T).str());
    std::vector<TensorType> Types = {TensorType(T, {S("n")}),
                                     TensorType(T, {S("n")}),
                                     TensorType(T, {K(1)})};
    agree(Types, composites(IntPrograms),
          {values(T, {301}), values(T, {301}, 3), values(T, {1}, 4)});
  }
  // Every step promotes on its own: i8 wraps before it meets f32.
  std::vector<TensorType> Types = {
      TensorType(DType::I8, {S("n")}), TensorType(DType::I8, {S("n")}),
      TensorType(DType::F32, {S("n")}), TensorType(DType::F64, {K(1)})};
  agree(Types,
        composites({"((i0 + i1) + i2) * i3", "(i0 + i1 + i2) * i3",
                    "Cast{int16}(i2 * i3) + Cast{float32}(i0 - i1)",
                    "switch(i0 * i1, i2, -i1) + (i3 ** i2)",
                    "sqr(i0 < i1) * i2 + second(i3, i1)"}),
        {values(DType::I8, {77}), values(DType::I8, {77}, 2),
         values(DType::F32, {77}, 1), values(DType::F64, {1}, 3)});
  // bool inputs and a bool output.
  Types = {TensorType(DType::Bool, {S("n")}), TensorType(DType::Bool, {S("n")}),
           TensorType(DType::U8, {S("n")})};
  agree(Types,
        composites({"and(i0, not(i1)) == (i2 > i0)", "i0 + i1 + or(i0, i2)",
                    "second(i0, i2) * i1"}),
        {values(DType::Bool, {45}), values(DType::Bool, {45}, 2),
         values(DType::U8, {45}, 1)});
}

TEST(CompositeLowering, StreamedOutputs) {
  StreamEverything Guard;
  std::vector<TensorType> Types = {TensorType(DType::F64, {S("n")}),
                                   TensorType(DType::I16, {S("n")}),
                                   TensorType(DType::F32, {})};
  // Outputs of 8, 4, 2 and 1 bytes per element, straddling the 1 KiB chunk.
  BuildFn Build = composites(
      {"exp(i0) * i1 + i2", "Cast{float32}(i0 + i1) - i2",
       "i1 * i1 + Cast{int16}(i2 + i0)", "(i0 + i2) < Cast{float64}(i1 + i1)"});
  for (int64_t N : {int64_t(100), int64_t(128), int64_t(1500), int64_t(4097)})
    agree(Types, Build,
          {values(DType::F64, {N}), values(DType::I16, {N}, 2),
           values(DType::F32, {}, 4)});
}

TEST(CompositeLowering, DistinctProgramsNeverShareKernels) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("composite", "ll", Path));
  EmitOptions Emit;
  Emit.LLVM = std::string(Path);
  std::vector<TensorType> Types(2, TensorType(DType::F64, {S("n")}));
  // Two programs with the same dtypes, and the first again.
  BuildFn Build = composites({"(i0 * i1) + i0", "(i0 + i1) * i0",
                              "(i0 * i1) + i0"});
  Compiled C = compile(Types, Build, LinkerKind::C, Emit);
  ASSERT_TRUE(C.Fn);
  NDArray X = values(DType::F64, {50}), Y = values(DType::F64, {50}, 3);
  auto Got = C.Fn->call({X, Y});
  ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
  Compiled Py = compile(Types, Build, LinkerKind::Py);
  auto Want = Py.Fn->call({X, Y});
  ASSERT_TRUE(bool(Want));
  for (size_t I = 0; I < 3; ++I)
    EXPECT_TRUE(sameValues((*Want)[I], (*Got)[I])) << I;
  EXPECT_FALSE(sameBits((*Want)[0], (*Want)[1])); // The test means it.
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  llvm::StringRef IR = (*Buf)->getBuffer();
  auto Count = [&](llvm::StringRef S) {
    size_t N = 0;
    for (size_t P = IR.find(S); P != llvm::StringRef::npos;
         P = IR.find(S, P + 1))
      ++N;
    return N;
  };
  // Each distinct program has its node function, defined once.
  EXPECT_EQ(Count("define internal void @\"gj_ewnode.composite{(i0 * i1) + "
                  "i0}.f64n.f64n.f64r1\""),
            1u)
      << IR.substr(0, 4000).str();
  EXPECT_EQ(Count("define internal void @\"gj_ewnode.composite{(i0 + i1) * "
                  "i0}.f64n.f64n.f64r1\""),
            1u);
  EXPECT_EQ(Count("define internal void @\"gj_ew.composite{(i0 * i1) + "
                  "i0}.f64v.f64v.f64\""),
            1u);
  llvm::sys::fs::remove(Path);
}

TEST(CompositeLowering, FlatLoopVectorizes) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("composite", "ll", Path));
  EmitOptions Emit;
  Emit.LLVMOptimized = std::string(Path);
  Compiled C = compile(
      std::vector<TensorType>(3, TensorType(DType::F64, {S("n")})),
      composites({"((i0 + i1) * i2) - i0"}), LinkerKind::C, Emit);
  ASSERT_TRUE(C.Fn);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf));
  llvm::StringRef IR = (*Buf)->getBuffer();
  EXPECT_NE(IR.find("fadd <"), llvm::StringRef::npos);
  EXPECT_NE(IR.find("fmul <"), llvm::StringRef::npos);
  // Each step rounds on its own: no fused multiply-add.
  EXPECT_EQ(IR.find("fmuladd"), llvm::StringRef::npos);
  EXPECT_EQ(IR.find("llvm.fma"), llvm::StringRef::npos);
  llvm::sys::fs::remove(Path);
}
