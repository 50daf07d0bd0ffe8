//===- GpuFunctionTest.cpp - The GPU path, end to end ---------------------===//
//
// Functions compiled with device=cuda-emulated (always) and device=cuda
// (where a GPU opens; skipped with the reason otherwise) against the same
// functions on the CPU: placement, every kind of GPU Apply, transfers,
// profiles with device times, device memory counters, errors and the
// no-device path. The NumPy scripts run on the emulated device too
// (numpy-gpu/ in CTest); the kernels alone are in GpuKernelTest.
//
//===----------------------------------------------------------------------===//

#include "gpu/Device.h"
#include "ops/gpu/GpuOps.h"
#include "gpu/GpuProgram.h"
#include "graphjit/Function.h"
#include "graphjit/Gpu.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "graphjit/Random.h"
#include "gtest/gtest.h"
#include <cmath>
#include <thread>

using namespace graphjit;

namespace {

struct Program {
  std::unique_ptr<GraphModule> M;
  std::unique_ptr<Function> Fn;
};

llvm::Expected<Program> compileText(llvm::StringRef Text, llvm::StringRef Device,
                                    bool Profile = false,
                                    std::string Optimizer = "fast_run",
                                    std::vector<std::string> Excluding = {}) {
  Program P;
  auto M = parseGraph(Text, "gpu.graph");
  if (!M)
    return M.takeError();
  P.M = std::move(*M);
  if (llvm::Error E = P.M->initShared())
    return E;
  CompileOptions O;
  O.Device = Device.str();
  O.Profile = Profile;
  O.Rewrite = RewriteOptions{Optimizer, Excluding, {}};
  auto Fn = Function::compile(*P.M->functions().front(), O);
  if (!Fn)
    return Fn.takeError();
  P.Fn = std::move(*Fn);
  return P;
}

std::vector<NDArray> inputsFor(const FunctionGraph &F, const DimBindings &D,
                               uint64_t Seed) {
  Rng R(Seed);
  std::vector<NDArray> In;
  for (const Variable *V : F.inputs()) {
    Shape S;
    for (const Dim &Di : V->type().Dims)
      S.push_back(Di.isKnown() ? Di.Size : D.lookup(Di.Symbol));
    NDArray A = NDArray::zeros(V->type().Dtype, S);
    fillDefaultInput(A, R);
    In.push_back(A);
  }
  return In;
}

::testing::AssertionResult close(const NDArray &Got, const NDArray &Want) {
  if (Got.dtype() != Want.dtype() || Got.shape() != Want.shape())
    return ::testing::AssertionFailure()
           << "got " << dtypeName(Got.dtype()).str() << " "
           << shapeStr(Got.shape()) << ", the CPU "
           << dtypeName(Want.dtype()).str() << " " << shapeStr(Want.shape());
  if (Got.onDevice())
    return ::testing::AssertionFailure() << "a result left on the device";
  double Tol = Want.dtype() == DType::F32 ? 1e-5 : 1e-12;
  for (int64_t I = 0; I < Want.numElements(); ++I) {
    double G = Got.getDouble(I), W = Want.getDouble(I);
    bool Same = isFloat(Want.dtype())
                    ? (std::isnan(G) && std::isnan(W)) || G == W ||
                          std::fabs(G - W) <= Tol * (1 + std::fabs(W))
                    : G == W;
    if (!Same)
      return ::testing::AssertionFailure()
             << "element " << I << ": " << G << ", the CPU " << W;
  }
  return ::testing::AssertionSuccess();
}

/// Graphs covering every GPU form: kernels, views, cuBLAS, host-only ops
/// between device ones, and the examples' training steps.
struct Case {
  const char *Name;
  const char *Text;
  DimBindings Dims;
};

std::vector<Case> cases() {
  DimBindings N4{{"n", 4}}, N0{{"n", 0}}, N7{{"n", 7}};
  return {
      {"elemwise_broadcast",
       "func f(x: f64[n, 3], y: f64[3], k: i32[n, 1]) -> (r, s) {\n"
       "  r = add(mul(x, y), 1.5)\n"
       "  s = switch(gt(k, 4), k, neg(k))\n}\n",
       N4},
      {"fused_chain_f32",
       "func f(x: f32[n], y: f32[n]) -> (r) {\n"
       "  r = tanh(add(mul(exp(x), y), sqr(sub(x, y))))\n}\n",
       N7},
      {"reductions",
       "func f(x: f64[n, 3, 5]) -> (a, b, c, d) {\n"
       "  a = sum(x, axis=[0, 2])\n  b = max(x, axis=[1])\n"
       "  c = mean(x)\n  d = prod(x, axis=[2], keepdims=true)\n}\n",
       N4},
      {"split_reductions", // few outputs of many elements: two steps
       "func f(x: f32[n, 3, m], b: i32[n, m]) -> (a, c, d, e, g, h) {\n"
       "  a = sum(x, axis=[0])\n  c = mean(x)\n"
       "  d = max(x, axis=[0, 2], keepdims=true)\n  e = sum(b)\n"
       "  g = any(gt(b, 8), axis=[0])\n  h = prod(mul(x, 1.001), axis=[0])\n}\n",
       {{"n", 1024}, {"m", 2}}},
      {"bool_reductions",
       "func f(x: i32[n, 6]) -> (a, b) {\n"
       "  a = any(gt(x, 8), axis=[1])\n  b = all(lt(x, 9), axis=[0])\n}\n",
       N7},
      {"softmax_both_axes",
       "func f(x: f32[n, 6]) -> (p, q) {\n"
       "  p = softmax(x, axis=1)\n  q = log_softmax(x, axis=0)\n}\n",
       N4},
      {"alloc_and_fills",
       "func f(v: f64[3], x: i32[n, 2]) -> (a, z, o) {\n"
       "  a = alloc(v, shape=[2, 3])\n  z = zeros_like(x)\n"
       "  o = ones_like(x)\n}\n",
       N4},
      {"views",
       "func f(x: f64[4, 6]) -> (t, r, s, u) {\n"
       "  t = exp(transpose(x))\n  r = reshape(transpose(x), shape=[3, 8])\n"
       "  s = subtensor(x, axis=1, start=1, step=2)\n"
       "  u = neg(subtensor(x, axis=0, step=-1))\n}\n",
       {}},
      {"dots",
       "func f(a: f64[n, 5], b: f64[5, 3], v: f64[5], w: f32[5, 5]) -> "
       "(mm, mv, vm, vv, tt, ff) {\n"
       "  mm = dot(a, b)\n  mv = dot(a, v)\n  vm = dot(v, b)\n"
       "  vv = dot(v, v)\n  tt = dot(transpose(b), transpose(a))\n"
       "  ff = dot(w, transpose(w))\n}\n",
       N4},
      {"gemm_and_reversed",
       "func f(c: f64[4, 3], a: f64[5, 4], b: f64[5, 3]) -> (g, h) {\n"
       "  g = gemm(c, a, b, alpha=0.5, beta=2.0, trans_a=true)\n"
       "  h = dot(subtensor(transpose(a), axis=1, step=-1), b)\n}\n",
       {}},
      {"host_only_between",
       "func f(x: f32[n, 4], w: f32[4, 3]) -> (k, p) {\n"
       "  h = tanh(dot(x, w))\n  k = argmax(h, axis=1)\n"
       "  p = softmax(mul(h, mean(cast(k, dtype=f32))), axis=1)\n}\n",
       N7},
      {"empty",
       "func f(x: f64[n, 3]) -> (r, s) {\n"
       "  r = exp(x)\n  s = sum(x, axis=[0])\n}\n",
       N0},
      {"mlp_train_step",
       "shared W: f32[4, 3] = normal(0.0, 0.5, seed=3)\nshared b: f32[3] = "
       "zeros\nfunc f(x: f32[n, 4], y: f32[n, 3]) -> (cost) {\n"
       "  p = softmax(add(dot(tanh(x), W), b), axis=1)\n"
       "  cost = mean(sum(sqr(sub(p, y)), axis=[1]))\n"
       "  update W = sub(W, mul(0.1, dot(transpose(tanh(x)), sub(p, y))))\n"
       "  update b = sub(b, mul(0.1, sum(sub(p, y), axis=[0])))\n}\n",
       N7},
  };
}

/// The device a test runs on, or the reason it cannot.
std::optional<std::string> unavailable(const std::string &Name) {
  llvm::Expected<DeviceKind> K = parseDeviceKind(Name);
  if (!K)
    return llvm::toString(K.takeError());
  llvm::Expected<Device &> D = openDevice(*K);
  if (!D)
    return llvm::toString(D.takeError());
  return std::nullopt;
}

class GpuSuite : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (std::optional<std::string> Why = unavailable(GetParam()))
      GTEST_SKIP() << "device " << GetParam() << ": " << *Why;
  }
};

} // namespace

// Each case on the device against the CPU, over three calls (shared
// variables updated on the host between them).
TEST_P(GpuSuite, ResultsAreTheCpuLinkers) {
  for (const Case &C : cases()) {
    SCOPED_TRACE(C.Name);
    auto Cpu = compileText(C.Text, "cpu");
    auto Gpu = compileText(C.Text, GetParam());
    ASSERT_TRUE(bool(Cpu)) << llvm::toString(Cpu.takeError());
    ASSERT_TRUE(bool(Gpu)) << llvm::toString(Gpu.takeError());
    EXPECT_TRUE(hasDeviceApplies(Gpu->Fn->graph())) << C.Name;
    for (uint64_t Call = 0; Call < 3; ++Call) {
      std::vector<NDArray> In = inputsFor(Cpu->Fn->graph(), C.Dims, Call);
      auto Want = Cpu->Fn->call(In, C.Dims);
      auto Got = Gpu->Fn->call(In, C.Dims);
      ASSERT_TRUE(bool(Want)) << llvm::toString(Want.takeError());
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      ASSERT_EQ(Want->size(), Got->size());
      for (size_t I = 0; I < Want->size(); ++I)
        EXPECT_TRUE(close((*Got)[I], (*Want)[I]))
            << "output " << I << ", call " << Call;
      auto SC = Cpu->M->sharedVariables(), SG = Gpu->M->sharedVariables();
      for (size_t I = 0; I < SC.size(); ++I)
        EXPECT_TRUE(close(SG[I]->Value, SC[I]->Value))
            << "shared " << SC[I]->Name << ", call " << Call;
    }
  }
}

// Profiled on the device: every GPU Apply and transfer has device time,
// the report shows the device and the Gpu classes, the tips name what
// stayed on the host, and the JSON keeps it all.
TEST_P(GpuSuite, ProfileHasDeviceTimes) {
  std::vector<Case> All = cases();
  const Case &C = All[10]; // host_only_between
  auto P = compileText(C.Text, GetParam(), /*Profile=*/true);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<NDArray> In = inputsFor(P->Fn->graph(), C.Dims, 1);
  for (int I = 0; I < 3; ++I)
    ASSERT_TRUE(bool(P->Fn->call(In, C.Dims)));
  Profile Prof = P->Fn->profile()->profile();
  ASSERT_EQ(1u, Prof.Functions.size());
  const FunctionProfile &F = Prof.Functions[0];
  EXPECT_FALSE(F.Device.empty());
  ASSERT_EQ(1u, F.HostOnly.size());
  EXPECT_NE(std::string::npos, F.HostOnly[0].find("Argmax"));
  unsigned OnDevice = 0;
  for (const ApplyProfile &A : F.Applies) {
    bool Gpu = llvm::StringRef(A.OpClass).starts_with("Gpu") ||
               A.OpClass == "HostFromGpu";
    EXPECT_EQ(Gpu, A.OnDevice) << A.Name;
    if (!A.OnDevice)
      continue;
    ++OnDevice;
    EXPECT_EQ(3u, A.Calls) << A.Name;
    EXPECT_GT(A.Seconds, 0) << A.Name;
  }
  EXPECT_GE(OnDevice, 5u);
  EXPECT_GT(F.GpuPeakBytes, 0u);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  P->Fn->profile()->summary(OS);
  EXPECT_NE(std::string::npos, Text.find("Device: " + F.Device));
  EXPECT_NE(std::string::npos, Text.find("GpuElemwise"));
  EXPECT_NE(std::string::npos, Text.find("GpuDot"));
  EXPECT_NE(std::string::npos, Text.find("These ops stayed on the host"));
  std::string Json;
  llvm::raw_string_ostream JS(Json);
  writeProfileJSON(JS, Prof);
  auto Back = readProfileJSON(Json, "gpu.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(*Back == Prof);
  // Two runs merged: device times add up and stay device times.
  auto Sum = mergeProfiles({Prof, Prof});
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  const FunctionProfile &S = Sum->Functions[0];
  EXPECT_EQ(F.Device, S.Device);
  EXPECT_EQ(F.HostOnly, S.HostOnly);
  for (size_t I = 0; I < S.Applies.size(); ++I) {
    EXPECT_EQ(F.Applies[I].OnDevice, S.Applies[I].OnDevice);
    EXPECT_EQ(2 * F.Applies[I].Calls, S.Applies[I].Calls);
  }
}

// The pool's counters: arrays of a call are freed when it ends (outputs
// come back to the host); constants copied once stay until the function
// goes.
TEST_P(GpuSuite, DeviceMemoryIsCountedAndFreed) {
  uint64_t Before = gpu_allocated();
  gpu_reset_peak();
  {
    auto P = compileText("func f(x: f64[1000]) -> (r) {\n"
                         "  r = mul(exp(x), 3.0)\n}\n",
                         GetParam(), false, "None");
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    std::vector<NDArray> In = inputsFor(P->Fn->graph(), {}, 2);
    ASSERT_TRUE(bool(P->Fn->call(In)));
    // allow_gc frees x's copy after exp: at most two arrays of 8000 bytes
    // and the constant were ever live together.
    EXPECT_EQ(2 * 8000u + 8, gpu_peak_allocated() - Before);
    // The constant 3.0 stays on the device for the next call.
    EXPECT_EQ(Before + 8, gpu_allocated());
    GpuMemoryStats S = gpu_memory_stats();
    ASSERT_TRUE(bool(P->Fn->call(In)));
    // The second call reuses the pool's blocks.
    EXPECT_EQ(S.DeviceAllocations, gpu_memory_stats().DeviceAllocations);
    EXPECT_GT(gpu_memory_stats().CacheHits, S.CacheHits);
  }
  EXPECT_EQ(Before, gpu_allocated());
}

// Calls from several threads at once are serialized on the device.
TEST_P(GpuSuite, ConcurrentCalls) {
  auto P = compileText("func f(x: f64[n]) -> (r) {\n  r = sum(exp(x))\n}\n",
                       GetParam());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<std::thread> Threads;
  std::atomic<int> Bad{0};
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      NDArray X = NDArray::zeros(DType::F64, {int64_t(100 + T)});
      for (int I = 0; I < 20; ++I) {
        auto R = P->Fn->call({X});
        // exp(0) summed: the length.
        if (!R || (*R)[0].getDouble(0) != 100 + T)
          ++Bad;
        if (!R)
          llvm::consumeError(R.takeError());
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(0, Bad.load());
}

// A run-time shape error on the device is worded as on the host, names
// the GPU Apply and leaves the function usable.
TEST_P(GpuSuite, ErrorsNameTheGpuApply) {
  auto P = compileText("func f(x: f64[n], y: f64[m]) -> (r) {\n"
                       "  r = add(x, y)\n}\n",
                       GetParam());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  NDArray X = NDArray::zeros(DType::F64, {3}), Y = NDArray::zeros(DType::F64, {4});
  auto R = P->Fn->call({X, Y});
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(std::string::npos, Msg.find("gpu.graph:2:"));
  EXPECT_NE(std::string::npos, Msg.find("GpuElemwise{add,no_inplace}"));
  EXPECT_NE(std::string::npos,
            Msg.find("could not be broadcast together with shapes (3,) (4,)"));
  auto Ok = P->Fn->call({X, X});
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
}

INSTANTIATE_TEST_SUITE_P(Devices, GpuSuite,
                         ::testing::Values("cuda-emulated", "cuda"),
                         [](const auto &I) {
                           return I.param == "cuda" ? std::string("cuda")
                                                    : std::string("emulated");
                         });

//===-- Placement ----------------------------------------------------------===//

namespace {

/// Counts of the op classes of F's Applies.
std::map<std::string, unsigned> classes(const FunctionGraph &F) {
  std::map<std::string, unsigned> C;
  for (const Apply *N : F.applies())
    ++C[N->op().className().str()];
  return C;
}

} // namespace

TEST(GpuPlacement, TransfersOnlyAtTheBoundaries) {
  std::vector<Case> All = cases();
  const Case &C = All[10]; // host_only_between
  auto P = compileText(C.Text, "cuda-emulated");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const FunctionGraph &G = P->Fn->graph();
  auto Count = classes(G);
  // x and w go over once, h comes back once for argmax, whose result k
  // goes over once (k itself is an output already on the host); p comes
  // back.
  EXPECT_EQ(3u, Count["GpuFromHost"]);
  EXPECT_EQ(2u, Count["HostFromGpu"]);
  EXPECT_EQ(1u, Count["Argmax"]);
  for (const Apply *N : G.applies()) {
    std::optional<TransferDirection> D = transferDirection(N->op());
    if (!D || *D != TransferDirection::ToDevice)
      continue;
    // Never back and forth: no copy to the device of a copy to the host.
    const Apply *Src = N->inputs()[0]->owner();
    EXPECT_FALSE(Src && transferDirection(Src->op())) << N->id();
  }
}

TEST(GpuPlacement, AnyOptimizerButExcluded) {
  const char *Text = "func f(x: f64[n]) -> (r) {\n  r = exp(x)\n}\n";
  auto None = compileText(Text, "cuda-emulated", false, "None");
  ASSERT_TRUE(bool(None)) << llvm::toString(None.takeError());
  EXPECT_EQ(1u, classes(None->Fn->graph())["GpuElemwise"]);
  auto Off = compileText(Text, "cuda-emulated", false, "fast_run", {"gpu"});
  ASSERT_TRUE(bool(Off)) << llvm::toString(Off.takeError());
  EXPECT_EQ(0u, classes(Off->Fn->graph())["GpuElemwise"]);
  auto Cpu = compileText(Text, "cpu");
  ASSERT_TRUE(bool(Cpu)) << llvm::toString(Cpu.takeError());
  EXPECT_EQ(1u, classes(Cpu->Fn->graph())["Elemwise"]);
}

TEST(GpuPlacement, WhatStaysOnTheHost) {
  std::string Why;
  TensorType I32(DType::I32, {Dim::known(3)});
  auto M = parseGraph("func f(x: i32[3]) -> (r) {\n  r = pow(x, 2)\n}\n", "p");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const Apply *Pow = (*M)->functions().front()->applies().front();
  EXPECT_EQ(GpuRole::None, gpuRoleOf(Pow->op(), {I32, I32}, &Why));
  EXPECT_NE(std::string::npos, Why.find("integer pow"));
}

TEST(GpuDevice, UnknownNameAndNoCuda) {
  auto Bad = compileText("func f(x: f64[2]) -> (r) {\n  r = exp(x)\n}\n", "tpu");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(std::string::npos, llvm::toString(Bad.takeError())
                                   .find("unknown device 'tpu' (expected cpu, cuda or "
                                         "cuda-emulated)"));
  std::optional<std::string> Why = unavailable("cuda");
  auto P = compileText("func f(x: f64[2]) -> (r) {\n  r = exp(x)\n}\n", "cuda");
  if (!Why) {
    EXPECT_TRUE(bool(P)) << "a GPU opened, yet: "
                         << llvm::toString(P.takeError());
    return;
  }
  ASSERT_FALSE(bool(P));
  std::string Msg = llvm::toString(P.takeError());
  EXPECT_EQ(0u, Msg.find("no CUDA device")) << Msg;
  // Nothing to place: no device is needed at all.
  auto Host = compileText("func f(x: i64[2]) -> (r) {\n  r = shape(x, axis=0)\n}\n",
                          "cuda");
  EXPECT_TRUE(bool(Host)) << llvm::toString(Host.takeError());
}
