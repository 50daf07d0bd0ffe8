//===- GpuKernelTest.cpp - GPU kernels run on the host, and as PTX ------===//
//
// Without a GPU, the GPU kernels are checked twice. Their bodies, emitted
// for the host (KernelTarget::Host) and JIT-compiled, run on host arrays
// through the kernel ABI and must compute what the CPU op's perform does:
// Elemwise and Fill to the bit, reductions and softmax to 1e-12 (f64) and
// 1e-5 (f32) relative. The same specs emitted for NVPTX must become PTX
// that ptxas accepts for sm_80 and sm_90, with an .entry per kernel, no
// external calls (the math is libdevice's) and no local-memory copy of the
// parameters. Operands are contiguous (the flat path), broadcast, 0-d and
// transposed (the unravelled path), in several dtypes and ranks 0 to 3.
//
//===----------------------------------------------------------------------===//

#include "codegen/nvptx/KernelSpec.h"
#include "graphjit/Op.h"
#include "graphjit/Parser.h"
#include "jit/JitEngine.h"
#include "ops/Strided.h"
#include "ops/StructuralParams.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace graphjit;

namespace {

const DType F64 = DType::F64, F32 = DType::F32, I32 = DType::I32,
            Bool = DType::Bool;
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// An array of shape Sh holding a deterministic mix of values (negative,
/// fractional, and for floats a NaN, -0.0 and inf when Special); with
/// Transposed, a view whose strides run backwards over its dims (the
/// memory of the reversed shape), so that nothing is contiguous.
NDArray values(DType T, const Shape &Sh, unsigned Seed, bool Transposed = false,
               bool Special = false) {
  Shape Mem(Sh.rbegin(), Sh.rend());
  NDArray A = NDArray::zeros(T, Transposed ? Mem : Sh);
  dispatchDType(T, [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    for (int64_t I = 0; I < A.numElements(); ++I) {
      double V = std::sin(double(I) * 1.7 + Seed) * 3.0;
      if (!isFloat(T))
        V = T == Bool ? double((I + Seed) % 3 == 0)
                      : double(int64_t(I * 7 + Seed) % 11 - 5);
      else if (Special && I % 7 == 3)
        V = std::array<double, 3>{NaN, -0.0, INFINITY}[(I / 7) % 3];
      A.dataAs<E>()[I] = static_cast<E>(V);
    }
  });
  if (!Transposed)
    return A;
  Shape Strides(A.strides().rbegin(), A.strides().rend());
  return A.view(Sh, Strides);
}

std::string typeOf(const NDArray &A) {
  std::string S = dtypeName(A.dtype()).str() + "[";
  for (unsigned D = 0; D < A.rank(); ++D)
    S += (D ? ", " : "") + std::to_string(A.dim(D));
  return S + "]";
}

/// Every element equal: the same bits (Tol 0), or within Tol relative,
/// NaN matching NaN.
::testing::AssertionResult agrees(const NDArray &Got, const NDArray &Want,
                                  double Tol) {
  if (Got.dtype() != Want.dtype() || Got.shape() != Want.shape())
    return ::testing::AssertionFailure()
           << "got " << typeOf(Got) << ", want " << typeOf(Want);
  for (int64_t I = 0; I < Want.numElements(); ++I) {
    bool Same = std::memcmp(Got.data() + Got.byteOffsetOf(I),
                            Want.data() + Want.byteOffsetOf(I),
                            Want.elementSize()) == 0;
    if (Same)
      continue;
    double G = Got.getDouble(I), W = Want.getDouble(I);
    bool Close =
        Tol > 0 && ((std::isnan(G) && std::isnan(W)) ||
                    std::fabs(G - W) <= Tol * std::max(1.0, std::fabs(W)));
    if (!Close)
      return ::testing::AssertionFailure()
             << "element " << I << ": got " << Got.str() << ", want "
             << Want.str();
  }
  return ::testing::AssertionSuccess();
}

/// The text of entry Name in Ptx, "" if there is none.
llvm::StringRef entryBody(llvm::StringRef Ptx, const std::string &Name) {
  size_t At = Ptx.find(".entry " + Name + "(");
  if (At == llvm::StringRef::npos)
    return "";
  llvm::StringRef Rest = Ptx.substr(At);
  return Rest.take_front(Rest.find("\n}\n"));
}

/// One kernel to check: its spec, the arrays it runs on (the output
/// first, which the kernel writes) with their strides over the iteration
/// space, and what perform computed.
struct Case {
  KernelSpec Spec;
  Shape Space;
  uint64_t Items = 0;
  std::vector<NDArray> Arrays;
  std::vector<Shape> Strides;
  NDArray Want;
  double Tol = 0;

  std::vector<uint64_t> abiArgs() const {
    std::vector<uint64_t> A = {Items};
    for (int64_t D : Space)
      A.push_back(uint64_t(D));
    for (size_t K = 0; K < Arrays.size(); ++K) {
      A.push_back(reinterpret_cast<uintptr_t>(Arrays[K].data()));
      for (int64_t S : Strides[K])
        A.push_back(uint64_t(S));
    }
    return A;
  }
};

double tolerance(DType T) { return T == F64 ? 1e-12 : T == F32 ? 1e-5 : 0; }

/// A set of kernels compiled together, as the runtime compiles a
/// function's.
class KernelSuite {
public:
  /// r = Expr(x0, x1, ...) on these inputs, through the Elemwise kernel.
  void elemwise(const std::string &Expr, std::vector<NDArray> In) {
    const Apply &N = apply(Expr, In);
    Case C = start(N, KernelSpec::Elemwise);
    C.Want = perform(N, In);
    C.Space = C.Want.shape();
    C.Spec.Rank = C.Space.size();
    C.Spec.ElemOp = &N.op();
    addOutput(C, C.Want.dtype(), C.Want.shape());
    C.Strides.push_back(C.Arrays[0].strides());
    for (const NDArray &X : In) {
      C.Spec.Operands.push_back(X.dtype());
      C.Arrays.push_back(X);
      C.Strides.push_back(broadcastStrides(X, C.Space));
    }
    C.Items = C.Want.numElements();
    Cases.push_back(std::move(C));
  }

  /// A Fill of V into an array of Sh (transposed: a non-contiguous one).
  void fill(DType T, const Shape &Sh, double V, bool Transposed) {
    const Apply &N = apply("neg(x0)", {values(F64, {}, 0)});
    Case C = start(N, KernelSpec::Fill);
    C.Spec.Value = V;
    C.Spec.Rank = Sh.size();
    C.Space = Sh;
    C.Spec.Operands = {T};
    C.Arrays.push_back(values(T, Sh, 1, Transposed));
    C.Strides.push_back(C.Arrays[0].strides());
    C.Want = NDArray::zeros(T, Sh);
    dispatchDType(T, [&](auto Tag) {
      using E = typename decltype(Tag)::type;
      for (int64_t I = 0; I < C.Want.numElements(); ++I)
        C.Want.dataAs<E>()[I] = static_cast<E>(V);
    });
    C.Items = C.Want.numElements();
    Cases.push_back(std::move(C));
  }

  /// r = Expr(x0), a reduction: one item per output element.
  void reduce(const std::string &Expr, NDArray X) {
    const Apply &N = apply(Expr, {X});
    Case C = start(N, KernelSpec::Reduce);
    std::optional<ReductionInfo> Info = reductionInfo(N.op(), X.rank());
    ASSERT_TRUE(Info.has_value()) << Expr;
    C.Spec.Reduction = *Info;
    C.Spec.Rank = X.rank();
    C.Space = X.shape();
    C.Want = perform(N, {X});
    addOutput(C, C.Want.dtype(), C.Want.shape());
    // The output's strides over the input's dims: 0 along reduced ones.
    Shape OutStrides(X.rank(), 0);
    C.Items = 1;
    for (unsigned D = 0, O = 0; D < X.rank(); ++D) {
      if (!Info->Reduced[D]) {
        OutStrides[D] = C.Arrays[0].strides()[O];
        C.Items *= X.dim(D);
      }
      if (!Info->Reduced[D] || Info->KeepDims)
        ++O;
    }
    C.Strides.push_back(OutStrides);
    C.Spec.Operands.push_back(X.dtype());
    C.Arrays.push_back(X);
    C.Strides.push_back(X.strides());
    C.Tol = tolerance(C.Want.dtype());
    Cases.push_back(std::move(C));
  }

  /// r = softmax or log_softmax of x0 along Axis: one item per row.
  void softmax(bool Log, NDArray X, int Axis) {
    std::string Expr = std::string(Log ? "log_softmax" : "softmax") +
                       "(x0, axis=" + std::to_string(Axis) + ")";
    const Apply &N = apply(Expr, {X});
    Case C = start(N, KernelSpec::Softmax);
    std::optional<SoftmaxInfo> Info = softmaxInfo(N.op(), X.rank());
    ASSERT_TRUE(Info.has_value()) << Expr;
    C.Spec.SoftmaxParams = *Info;
    C.Spec.Rank = X.rank();
    C.Space = X.shape();
    C.Want = perform(N, {X});
    addOutput(C, C.Want.dtype(), C.Want.shape());
    C.Strides.push_back(C.Arrays[0].strides());
    C.Spec.Operands.push_back(X.dtype());
    C.Arrays.push_back(X);
    C.Strides.push_back(X.strides());
    C.Items = 1;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (D != Info->Axis)
        C.Items *= X.dim(D);
    C.Tol = tolerance(C.Want.dtype());
    Cases.push_back(std::move(C));
  }

  std::vector<KernelSpec> specs() const {
    std::vector<KernelSpec> S;
    for (const Case &C : Cases)
      S.push_back(C.Spec);
    return S;
  }

  /// Every kernel JIT-compiled for the host, run, and compared.
  void runOnHost() {
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    JitEngine &J = llvm::cantFail(JitEngine::get());
    auto M = emitKernels(specs(), *Ctx, KernelTarget::Host,
                         HostTarget{J.triple(), &J.dataLayout()});
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    auto Code =
        J.compile(std::move(*M), std::move(Ctx), Cases[0].Spec.Name, Optimization{});
    ASSERT_TRUE(bool(Code)) << llvm::toString(Code.takeError());
    for (const Case &C : Cases) {
      auto Entry = J.lookup(*Code, C.Spec.Name);
      ASSERT_TRUE(bool(Entry)) << llvm::toString(Entry.takeError());
      std::vector<uint64_t> Args = C.abiArgs();
      reinterpret_cast<void (*)(const uint64_t *)> (*Entry)(Args.data());
      EXPECT_TRUE(agrees(C.Arrays[0], C.Want, C.Tol))
          << C.Spec.Name << ": " << Text[&C - Cases.data()];
    }
    J.release(*Code);
  }

  /// The kernels as PTX for Arch (returned); ptxas must accept it.
  std::string compileForGpu(llvm::StringRef Arch) {
    SCOPED_TRACE(Arch.str());
    if (!llvm::sys::fs::exists(libdevicePath())) {
      ADD_FAILURE() << "no libdevice at " << libdevicePath();
      return "";
    }
    llvm::LLVMContext Ctx;
    auto M = emitKernels(specs(), Ctx, KernelTarget::NVPTX);
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError());
      return "";
    }
    llvm::Expected<std::string> Ptx = compileToPtx(std::move(*M), Arch);
    if (!Ptx) {
      ADD_FAILURE() << llvm::toString(Ptx.takeError());
      return "";
    }
    EXPECT_EQ(Ptx->find(".extern"), std::string::npos) << *Ptx;
    for (const Case &C : Cases) {
      llvm::StringRef Body = entryBody(*Ptx, C.Spec.Name);
      EXPECT_FALSE(Body.empty()) << "no .entry " << C.Spec.Name;
      // The parameters are read where they are used, not copied to a
      // local array. (libdevice's trig range reduction has one of its own.)
      EXPECT_FALSE(Body.contains(".local")) << Body.str();
    }
    runPtxas(*Ptx, Arch);
    return *Ptx;
  }

  const std::string &name(size_t I) const { return Cases[I].Spec.Name; }

private:
  std::vector<std::unique_ptr<GraphModule>> Modules;
  std::vector<Case> Cases;
  std::vector<std::string> Text; ///< Each case's function, for messages.

  /// The Apply of `r = Expr` in a function of inputs x0, x1, ... typed as
  /// In.
  const Apply &apply(const std::string &Expr, const std::vector<NDArray> &In) {
    std::string Src = "func f(";
    for (size_t I = 0; I < In.size(); ++I)
      Src += (I ? ", x" : "x") + std::to_string(I) + ": " + typeOf(In[I]);
    Src += ") -> (r) {\n  r = " + Expr + "\n}\n";
    auto M = parseGraph(Src, "kernel.graph");
    if (!M) {
      ADD_FAILURE() << llvm::toString(M.takeError()) << "\n" << Src;
      std::abort();
    }
    Modules.push_back(std::move(*M));
    Text.push_back(Src);
    return *Modules.back()->lookupFunction("f")->applies().back();
  }

  Case start(const Apply &N, KernelSpec::Kind K) {
    Case C;
    C.Spec.K = K;
    C.Spec.Name = "gj_gpu_test" + std::to_string(Cases.size());
    C.Spec.Node = &N;
    return C;
  }

  static void addOutput(Case &C, DType T, const Shape &Sh) {
    C.Spec.Operands.push_back(T);
    // Garbage in the output, so that an element not written shows.
    C.Arrays.push_back(values(T, Sh, 99));
  }

  static NDArray perform(const Apply &N, const std::vector<NDArray> &In) {
    std::vector<NDArray> Out(N.op().numOutputs());
    if (llvm::Error E = N.op().perform(In, Out, ExecContext{})) {
      ADD_FAILURE() << llvm::toString(std::move(E));
      return NDArray::zeros(F64, {});
    }
    return Out[0];
  }

  static void runPtxas(const std::string &Ptx, llvm::StringRef Arch) {
    const std::string Ptxas = "/usr/local/cuda/bin/ptxas";
    if (!llvm::sys::fs::can_execute(Ptxas))
      GTEST_SKIP() << "no " << Ptxas << ": PTX not assembled";
    llvm::SmallString<128> File, Log;
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("gj-kernels", "ptx", File));
    ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("gj-ptxas", "log", Log));
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(File, EC);
      ASSERT_FALSE(EC) << EC.message();
      OS << Ptx;
    }
    std::string ArchFlag = ("-arch=" + Arch).str();
    llvm::StringRef Args[] = {Ptxas, ArchFlag, File, "-o", "/dev/null"};
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(),
                                                  Log.str()};
    std::string Error;
    int Rc = llvm::sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Redirects, 0,
                                       0, &Error);
    auto Out = llvm::MemoryBuffer::getFile(Log);
    EXPECT_EQ(Rc, 0) << "ptxas " << ArchFlag << ": " << Error << "\n"
                     << (Out ? (*Out)->getBuffer().str() : "") << "\n"
                     << Ptx;
    llvm::sys::fs::remove(File);
    llvm::sys::fs::remove(Log);
  }
};

void runEverywhere(KernelSuite &S) {
  S.runOnHost();
  S.compileForGpu("sm_80");
  S.compileForGpu("sm_90");
}

} // namespace

TEST(GpuKernel, Elemwise) {
  KernelSuite S;
  // Contiguous and broadcast over everything: the flat path.
  S.elemwise("add(x0, x1)", {values(F64, {3, 4}, 1), values(F64, {3, 4}, 2)});
  S.elemwise("mul(x0, x1)", {values(I32, {}, 3), values(I32, {2, 3}, 4)});
  S.elemwise("exp(x0)", {values(F64, {}, 5, false, true)});
  S.elemwise("tanh(x0)", {values(F32, {17}, 6, false, true)});
  S.elemwise("lt(x0, x1)",
             {values(F32, {5}, 7, false, true), values(F64, {5}, 8)});
  // Broadcast along some dims only, and transposed: the unravelled path.
  S.elemwise("sub(x0, x1)", {values(F32, {3, 4}, 9), values(F32, {4}, 10)});
  S.elemwise("true_div(x0, x1)",
             {values(F64, {2, 1, 4}, 11), values(I32, {2, 3, 4}, 12, true)});
  S.elemwise("maximum(x0, x1)", {values(F64, {4, 3}, 13, true, true),
                                 values(F64, {4, 3}, 14, false, true)});
  S.elemwise("and(x0, x1)",
             {values(Bool, {3, 2}, 15, true), values(Bool, {2}, 16)});
  S.elemwise("switch(x0, x1, x2)",
             {values(Bool, {2, 3}, 17), values(I32, {3}, 18),
              values(F32, {2, 1}, 19)});
  // The math libdevice takes over on the GPU; frem as fmod.
  S.elemwise("mod(x0, x1)", {values(F64, {6}, 20), values(F64, {6}, 21)});
  S.elemwise("mod(x0, x1)", {values(F32, {6}, 22), values(F32, {6}, 23)});
  S.elemwise("erf(x0)", {values(F32, {2, 2, 2}, 24, true)});
  S.elemwise("expm1(x0)", {values(F64, {5}, 25)});
  S.elemwise("log1p(x0)", {values(F32, {5}, 26)});
  S.elemwise("pow(x0, x1)", {values(F32, {4}, 27), values(F32, {4}, 28)});
  S.elemwise("sin(x0)", {values(F64, {4}, 29)});
  S.elemwise("cast(x0, dtype=i32)", {values(F64, {2, 3}, 30, true)});
  S.elemwise("int_div(x0, x1)", {values(I32, {7}, 31), values(I32, {7}, 32)});
  // A fused Composite: each step rounded in its own dtype.
  S.elemwise("composite(x0, x1, expr=\"exp(i0) * i1 + tanh(i0)\")",
             {values(F32, {3, 2}, 33), values(F64, {2}, 34)});
  S.elemwise("composite(x0, x1, x2, expr=\"((i0 + i1) + i2) * "
             "Cast{float64}(i1 < i2)\")",
             {values(F64, {2, 3}, 35, true), values(I32, {3}, 36),
              values(F64, {}, 37)});
  runEverywhere(S);
}

TEST(GpuKernel, Fill) {
  KernelSuite S;
  S.fill(F64, {3, 4}, 2.5, false);
  S.fill(F32, {2, 3}, -1.25, true);
  S.fill(I32, {5}, 2.5, false);
  S.fill(Bool, {2, 2}, 2.5, true);
  S.fill(F64, {}, 1, false);
  S.fill(I32, {2, 2, 3}, 0, true);
  runEverywhere(S);
}

TEST(GpuKernel, Reduce) {
  KernelSuite S;
  NDArray X3 = values(F64, {2, 3, 4}, 1);
  S.reduce("sum(x0, axis=[0, 2])", X3);
  S.reduce("sum(x0)", values(F32, {5, 7}, 2));
  S.reduce("sum(x0, axis=[1], keepdims=true)", values(I32, {3, 4}, 3, true));
  S.reduce("sum(x0, axis=[0])", values(Bool, {4, 3}, 4));
  S.reduce("prod(x0, axis=[1])", values(F64, {3, 4}, 5, true));
  S.reduce("prod(x0)", values(I32, {2, 3}, 6));
  S.reduce("mean(x0, axis=[0, 1])", values(F32, {3, 2, 5}, 7, true));
  S.reduce("mean(x0, axis=[1])", values(I32, {2, 5}, 8));
  S.reduce("max(x0, axis=[1])", values(F64, {4, 9}, 9, false, true));
  S.reduce("min(x0, axis=[0, 2])", values(F32, {3, 2, 4}, 10, true, true));
  S.reduce("max(x0)", values(I32, {3, 3}, 11));
  S.reduce("min(x0, axis=[1])", values(Bool, {2, 3}, 12));
  S.reduce("all(x0, axis=[1])", values(F64, {3, 7}, 13, false, true));
  S.reduce("any(x0, axis=[0])", values(Bool, {3, 4}, 14, true));
  S.reduce("all(x0)", values(I32, {4}, 15));
  S.reduce("sum(x0, axis=[])", values(F64, {2, 3}, 16));
  S.reduce("sum(x0)", values(F64, {}, 17));
  S.reduce("sum(x0, axis=[0])", values(F64, {0, 3}, 18));
  S.reduce("mean(x0, axis=[1])", values(F64, {2, 0}, 19));
  runEverywhere(S);
}

TEST(GpuKernel, Softmax) {
  KernelSuite S;
  for (bool Log : {false, true}) {
    S.softmax(Log, values(F64, {3, 5}, 1), 1);
    S.softmax(Log, values(F64, {3, 5}, 2, true), 0);
    S.softmax(Log, values(F32, {4, 6}, 3), 0);
    S.softmax(Log, values(F32, {2, 3, 4}, 4, true), 1);
    S.softmax(Log, values(F64, {7}, 5, false, true), 0);
  }
  runEverywhere(S);
}

TEST(GpuKernel, MathIsLibdevice) {
  // tanh and exp are llvm.tanh and llvm.exp in the scalar kernels, which
  // NVPTX cannot select: they become libdevice's, inlined into the kernel.
  KernelSuite S;
  S.elemwise("tanh(x0)", {values(F32, {8}, 1)});
  S.elemwise("exp(x0)", {values(F64, {8}, 2)});
  S.elemwise("erf(x0)", {values(F64, {8}, 3)});
  std::string Ptx = S.compileForGpu("sm_90");
  for (size_t I = 0; I < 3; ++I) {
    llvm::StringRef Body = entryBody(Ptx, S.name(I));
    EXPECT_FALSE(Body.empty());
    EXPECT_FALSE(Body.contains("call")) << Body.str();
  }
  EXPECT_FALSE(llvm::StringRef(Ptx).contains(".extern"));
  EXPECT_FALSE(llvm::StringRef(Ptx).contains("tanhf"));
}

TEST(GpuKernel, Errors) {
  llvm::LLVMContext Ctx;
  auto M = parseGraph("func f(x: f64[2]) -> (r) {\n  r = neg(x)\n}\n", "e");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  KernelSpec S;
  S.K = KernelSpec::Softmax;
  S.Name = "gj_gpu_bad";
  S.Node = (*M)->lookupFunction("f")->applies().back();
  S.Rank = 1;
  S.Operands = {F64, F64};
  S.SoftmaxParams.Axis = 1;
  JitEngine &J = llvm::cantFail(JitEngine::get());
  auto R = emitKernels({S}, Ctx, KernelTarget::Host,
                       HostTarget{J.triple(), &J.dataLayout()});
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("gj_gpu_bad"),
            std::string::npos);
  // A reduction whose output is not the reduction's dtype.
  S.K = KernelSpec::Reduce;
  S.Reduction.K = ReductionInfo::Sum;
  S.Reduction.Reduced = {true};
  S.Operands = {F64, I32};
  R = emitKernels({S}, Ctx, KernelTarget::NVPTX);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("gives i64"), std::string::npos);
  // An architecture that is not one.
  S.Operands = {DType::I64, I32};
  R = emitKernels({S}, Ctx, KernelTarget::NVPTX);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Ptx = compileToPtx(std::move(*R), "compute_80");
  ASSERT_FALSE(bool(Ptx));
  EXPECT_NE(llvm::toString(Ptx.takeError()).find("compute_80"),
            std::string::npos);
  // libdevice where $GRAPHJIT_LIBDEVICE says, and an error naming it.
  const char *Old = std::getenv("GRAPHJIT_LIBDEVICE");
  std::string Saved = Old ? Old : "";
  setenv("GRAPHJIT_LIBDEVICE", "/nonexistent/libdevice.bc", 1);
  EXPECT_EQ(libdevicePath(), "/nonexistent/libdevice.bc");
  // An integer sum calls no math: it needs no libdevice (a GPU machine
  // with the driver alone runs it).
  R = emitKernels({S}, Ctx, KernelTarget::NVPTX);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  Ptx = compileToPtx(std::move(*R), "sm_80");
  EXPECT_TRUE(bool(Ptx)) << llvm::toString(Ptx.takeError());
  // A softmax calls exp: it does.
  S.K = KernelSpec::Softmax;
  S.Operands = {F64, F64};
  S.SoftmaxParams.Axis = 0;
  R = emitKernels({S}, Ctx, KernelTarget::NVPTX);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  Ptx = compileToPtx(std::move(*R), "sm_80");
  if (Old)
    setenv("GRAPHJIT_LIBDEVICE", Saved.c_str(), 1);
  else
    unsetenv("GRAPHJIT_LIBDEVICE");
  ASSERT_FALSE(bool(Ptx));
  EXPECT_NE(llvm::toString(Ptx.takeError()).find("/nonexistent/libdevice.bc"),
            std::string::npos);
}
