//===- DeviceCodeCacheTest.cpp - GPU kernels kept on disk ----------------===//
//
// The device code cache (gpu/DeviceCodeCache.h): PTX is kept and found by
// the kernel module, the target and LLVM's version (checked without a
// GPU); where a GPU opens, the driver's own code for it is kept too, found
// by the next compile, loaded and run.
//
//===----------------------------------------------------------------------===//

#include "codegen/nvptx/KernelSpec.h"
#include "gpu/DeviceCodeCache.h"
#include "graphjit/Gpu.h"
#include "graphjit/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace graphjit;
using namespace llvm;

namespace {

constexpr int64_t N = 8;

/// One Elemwise kernel, r = exp(x0) over f64[N], emitted anew for each
/// compile as GpuProgram emits a function's kernels.
class ExpKernel {
public:
  ExpKernel() {
    auto Parsed = parseGraph("func f(x0: f64[8]) -> (r) {\n  r = exp(x0)\n}\n",
                             "exp.graph");
    if (!Parsed) {
      ADD_FAILURE() << toString(Parsed.takeError());
      return;
    }
    M = std::move(*Parsed);
    const Apply &A = *M->lookupFunction("f")->applies().back();
    Spec.K = KernelSpec::Elemwise;
    Spec.Name = "gj_gpu_cache_test";
    Spec.Node = &A;
    Spec.Rank = 1;
    Spec.ElemOp = &A.op();
    Spec.Operands = {DType::F64, DType::F64};
  }

  std::unique_ptr<Module> emit(LLVMContext &Ctx) const {
    auto Mod = emitKernels({Spec}, Ctx, KernelTarget::NVPTX);
    if (!Mod) {
      ADD_FAILURE() << toString(Mod.takeError());
      return nullptr;
    }
    return std::move(*Mod);
  }

  KernelSpec Spec;

private:
  std::unique_ptr<GraphModule> M;
};

struct TempDir {
  SmallString<128> Path;
  TempDir() {
    EXPECT_FALSE(sys::fs::createUniqueDirectory("gj-device-code", Path));
  }
  ~TempDir() { sys::fs::remove_directories(Path); }
  std::string kernels() const { return deviceCodeDirectory(Path); }
};

/// The files in Dir.
std::vector<std::string> entries(StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator I(Dir, EC), End; I != End && !EC;
       I.increment(EC))
    Files.push_back(I->path());
  return Files;
}

Expected<DeviceCode> compile(const ExpKernel &K, StringRef Arch,
                             const CompileCache &Cache, Device *D) {
  LLVMContext Ctx;
  return deviceCodeFor(K.emit(Ctx), Arch, Cache, D);
}

/// A kernel, an empty cache folder, and libdevice (skipped without).
class DeviceCodeCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!sys::fs::exists(libdevicePath()))
      GTEST_SKIP() << "no libdevice at " << libdevicePath();
  }
  ExpKernel K;
  TempDir Dir;
  CompileCache Cache{Dir.kernels()};
};

} // namespace

TEST_F(DeviceCodeCacheTest, PtxIsKeptAndFound) {
  auto First = compile(K, "sm_90", Cache, nullptr);
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  EXPECT_FALSE(First->PtxFromCache);
  EXPECT_NE(First->Ptx.find(".entry gj_gpu_cache_test"), std::string::npos);
  EXPECT_TRUE(First->Binary.empty()) << "no device: no binary";
  EXPECT_EQ(entries(Dir.kernels()).size(), 1u);

  // A fresh module of the same kernels: found, the same text.
  auto Second = compile(K, "sm_90", Cache, nullptr);
  ASSERT_TRUE(bool(Second)) << toString(Second.takeError());
  EXPECT_TRUE(Second->PtxFromCache);
  EXPECT_EQ(Second->Ptx, First->Ptx);

  // Another target is another entry.
  auto Other = compile(K, "sm_80", Cache, nullptr);
  ASSERT_TRUE(bool(Other)) << toString(Other.takeError());
  EXPECT_FALSE(Other->PtxFromCache);
  EXPECT_NE(Other->Ptx, First->Ptx);
  EXPECT_EQ(entries(Dir.kernels()).size(), 2u);

  // The emulated device has no code of its own: PTX alone.
  std::unique_ptr<Device> Emulated = makeEmulatedDevice();
  auto NoBinary = compile(K, "sm_90", Cache, Emulated.get());
  ASSERT_TRUE(bool(NoBinary)) << toString(NoBinary.takeError());
  EXPECT_TRUE(NoBinary->PtxFromCache);
  EXPECT_TRUE(NoBinary->Binary.empty());
}

TEST_F(DeviceCodeCacheTest, DamagedEntriesAreCompiledAgain) {
  auto First = compile(K, "sm_90", Cache, nullptr);
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  for (const std::string &F : entries(Dir.kernels())) {
    std::error_code EC;
    raw_fd_ostream OS(F, EC); // truncated: a process killed mid-write
    ASSERT_FALSE(EC) << EC.message();
    OS << "not PTX";
  }
  auto Again = compile(K, "sm_90", Cache, nullptr);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_FALSE(Again->PtxFromCache);
  EXPECT_EQ(Again->Ptx, First->Ptx);
  // Stored anew: the next compile finds it.
  auto Third = compile(K, "sm_90", Cache, nullptr);
  ASSERT_TRUE(bool(Third)) << toString(Third.takeError());
  EXPECT_TRUE(Third->PtxFromCache);
}

TEST_F(DeviceCodeCacheTest, NoDirectoryNoCache) {
  CompileCache None(deviceCodeDirectory(""));
  EXPECT_FALSE(None.enabled());
  for (int I = 0; I < 2; ++I) {
    auto Code = compile(K, "sm_90", None, nullptr);
    ASSERT_TRUE(bool(Code)) << toString(Code.takeError());
    EXPECT_FALSE(Code->PtxFromCache);
  }
}

// On a GPU: the driver's code is kept, found by the next compile, loads
// without the PTX and computes exp.
TEST_F(DeviceCodeCacheTest, DeviceBinaryRunsOnTheGpu) {
  Expected<Device &> D = openDevice(DeviceKind::Cuda);
  if (!D)
    GTEST_SKIP() << toString(D.takeError());
  auto First = compile(K, D->arch(), Cache, &*D);
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  EXPECT_FALSE(First->BinaryFromCache);
  ASSERT_FALSE(First->Binary.empty()) << D->binaryKey();
  EXPECT_EQ(entries(Dir.kernels()).size(), 2u);
  auto Second = compile(K, D->arch(), Cache, &*D);
  ASSERT_TRUE(bool(Second)) << toString(Second.takeError());
  EXPECT_TRUE(Second->PtxFromCache);
  EXPECT_TRUE(Second->BinaryFromCache);
  EXPECT_EQ(Second->Binary, First->Binary);

  KernelImage Image;
  Image.Binary = Second->Binary; // no PTX: the binary alone must load
  auto Kernels = D->loadKernels(Image, {K.Spec.Name});
  ASSERT_TRUE(bool(Kernels)) << toString(Kernels.takeError());
  std::vector<double> X(N), R(N, -1);
  for (int64_t I = 0; I < N; ++I)
    X[I] = 0.25 * double(I) - 1;
  auto DX = D->rawAlloc(N * 8), DR = D->rawAlloc(N * 8);
  ASSERT_TRUE(bool(DX)) << toString(DX.takeError());
  ASSERT_TRUE(bool(DR)) << toString(DR.takeError());
  ASSERT_EQ("", toString(D->copyToDevice(*DX, X.data(), N * 8)));
  ASSERT_EQ("", toString(D->launch((*Kernels)[0], N, {N, N, *DR, 8, *DX, 8})));
  ASSERT_EQ("", toString(D->copyToHost(R.data(), *DR, N * 8)));
  for (int64_t I = 0; I < N; ++I)
    EXPECT_NEAR(R[I], std::exp(X[I]), 1e-14 * std::exp(X[I])) << I;
  D->rawFree(*DX);
  D->rawFree(*DR);
}
