//===- CudaDeviceTest.cpp - Opening devices, and what they do ------------===//
//
// Without a GPU (CI, most machines): opening the CUDA device fails with
// "no CUDA device" and the reason, the row-major to cuBLAS mapping is
// checked through the host's column-major BLAS, and the emulated device
// does everything. With a GPU, the same copies and products run on it too.
//
//===----------------------------------------------------------------------===//

#include "gpu/Cublas.h"
#include "gpu/Device.h"
#include "gpu/DevicePool.h"
#include "llvm/ADT/StringRef.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <atomic>
#include "ops/linalg/BlasSymbols.h"
#include <cblas.h>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>

using namespace graphjit;
using namespace llvm;

namespace {

std::string errorOf(Expected<std::unique_ptr<Device>> D) {
  if (D)
    return "(opened " + (*D)->name() + ")";
  return toString(D.takeError());
}

/// The process's GPU, or null with the reason in Why.
Device *realGpu(std::string &Why) {
  Expected<Device &> D = openDevice(DeviceKind::Cuda);
  if (D)
    return &*D;
  Why = toString(D.takeError());
  return nullptr;
}

/// Row-major op(X)[I][J] for X stored with row stride Ld.
template <typename T>
T at(const std::vector<T> &X, bool Trans, int64_t Ld, int64_t I, int64_t J) {
  return Trans ? X[J * Ld + I] : X[I * Ld + J];
}

/// Runs C = Alpha op(A) op(B) + Beta C on D with padded leading dimensions
/// and checks it against a naive loop.
template <typename T> void checkGemm(Device &D, bool TransA, bool TransB) {
  const int64_t M = 3, N = 4, K = 5, Pad = 2;
  DeviceGemm G;
  G.Dtype = sizeof(T) == 4 ? DType::F32 : DType::F64;
  G.TransA = TransA;
  G.TransB = TransB;
  G.M = M;
  G.N = N;
  G.K = K;
  G.Alpha = 1.5;
  G.Beta = 0.5;
  int64_t RowsA = TransA ? K : M, RowsB = TransB ? N : K;
  G.LdA = (TransA ? M : K) + Pad;
  G.LdB = (TransB ? K : N) + Pad;
  G.LdC = N + Pad;
  std::mt19937 Rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  auto Fill = [&](int64_t Count) {
    std::vector<T> V(Count);
    for (T &X : V)
      X = T(U(Rng));
    return V;
  };
  std::vector<T> A = Fill(RowsA * G.LdA), B = Fill(RowsB * G.LdB),
                 C = Fill(M * G.LdC);

  std::vector<T> Want = C;
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      double S = 0;
      for (int64_t L = 0; L < K; ++L)
        S += double(at(A, TransA, G.LdA, I, L)) *
             double(at(B, TransB, G.LdB, L, J));
      Want[I * G.LdC + J] = T(G.Alpha * S + G.Beta * double(C[I * G.LdC + J]));
    }

  auto Upload = [&](const std::vector<T> &V) {
    Expected<DeviceAddress> P = D.rawAlloc(V.size() * sizeof(T));
    EXPECT_TRUE(bool(P));
    if (!P) {
      consumeError(P.takeError());
      return DeviceAddress(0);
    }
    EXPECT_FALSE(bool(D.copyToDevice(*P, V.data(), V.size() * sizeof(T))));
    return *P;
  };
  G.A = Upload(A);
  G.B = Upload(B);
  G.C = Upload(C);
  ASSERT_TRUE(G.A && G.B && G.C);
  Error E = D.gemm(G);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  std::vector<T> Got(C.size());
  ASSERT_FALSE(bool(D.copyToHost(Got.data(), G.C, Got.size() * sizeof(T))));
  for (DeviceAddress P : {G.A, G.B, G.C})
    D.rawFree(P);
  double Tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (int64_t I = 0; I < M; ++I)
    for (int64_t J = 0; J < G.LdC; ++J) {
      size_t X = I * G.LdC + J;
      EXPECT_NEAR(Got[X], Want[X], Tol)
          << "C[" << I << "][" << J << "] TransA=" << TransA
          << " TransB=" << TransB << (J >= N ? " (padding)" : "");
    }
}

template <typename T> void checkAllGemms(Device &D) {
  for (bool TA : {false, true})
    for (bool TB : {false, true})
      checkGemm<T>(D, TA, TB);
}

void checkCopies(Device &D) {
  std::vector<uint8_t> Src(10000), Back(10000);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = uint8_t(I * 7 + 3);
  Expected<DeviceAddress> A = D.rawAlloc(Src.size());
  Expected<DeviceAddress> B = D.rawAlloc(Src.size());
  ASSERT_TRUE(A && B);
  ASSERT_FALSE(bool(D.copyToDevice(*A, Src.data(), Src.size())));
  ASSERT_FALSE(bool(D.copyOnDevice(*B, *A, Src.size())));
  ASSERT_FALSE(bool(D.copyToHost(Back.data(), *B, Back.size())));
  EXPECT_EQ(Src, Back);
  // Part of a buffer, at an offset; zero bytes is a no-op.
  std::vector<uint8_t> Part(100, 0);
  ASSERT_FALSE(bool(D.copyToHost(Part.data(), *B + 5000, 100)));
  EXPECT_TRUE(std::equal(Part.begin(), Part.end(), Src.begin() + 5000));
  EXPECT_FALSE(bool(D.copyToHost(Part.data(), *B, 0)));
  EXPECT_FALSE(bool(D.synchronize()));
  D.rawFree(*A);
  D.rawFree(*B);
}

/// A host kernel by the ABI of KernelSpec.h: rank 1, out[i] = in[i] + 1.
/// Args: WorkItems, dim, out address, out stride, in address, in stride.
std::atomic<int> AddOneCalls{0};
void addOneKernel(const uint64_t *Args) {
  ++AddOneCalls;
  for (uint64_t I = 0; I < Args[0]; ++I) {
    auto *Out = reinterpret_cast<double *>(Args[2] + I * Args[3]);
    auto *In = reinterpret_cast<const double *>(Args[4] + I * Args[5]);
    *Out = *In + 1;
  }
}

} // namespace

TEST(CudaDevice, MissingDriverLibrary) {
  std::string Msg = errorOf(openCudaDevice("/nonexistent/libcuda.so.1"));
  EXPECT_TRUE(StringRef(Msg).starts_with("no CUDA device")) << Msg;
  EXPECT_NE(Msg.find("/nonexistent/libcuda.so.1"), std::string::npos) << Msg;
}

TEST(CudaDevice, StubDriverLibrary) {
  const char *Stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::ifstream(Stub))
    GTEST_SKIP() << Stub << " does not exist (no CUDA toolkit)";
  std::string Msg = errorOf(openCudaDevice(Stub));
  EXPECT_TRUE(StringRef(Msg).starts_with("no CUDA device")) << Msg;
  EXPECT_TRUE(Msg.find("CUDA_ERROR_STUB_LIBRARY") != std::string::npos ||
              Msg.find("34") != std::string::npos)
      << Msg;
}

TEST(CudaDevice, OpenDeviceGivesTheSameAnswerEachTime) {
  Expected<Device &> A = openDevice(DeviceKind::Cuda);
  Expected<Device &> B = openDevice(DeviceKind::Cuda);
  ASSERT_EQ(bool(A), bool(B));
  if (A) {
    EXPECT_EQ(&*A, &*B);
    EXPECT_FALSE(A->isEmulated());
    EXPECT_TRUE(A->arch() == "sm_80" || A->arch() == "sm_90") << A->arch();
    return;
  }
  std::string MsgA = toString(A.takeError()), MsgB = toString(B.takeError());
  EXPECT_TRUE(StringRef(MsgA).starts_with("no CUDA device")) << MsgA;
  EXPECT_EQ(MsgA, MsgB);
}

TEST(CudaDevice, ParseDeviceKind) {
  for (DeviceKind K :
       {DeviceKind::Cpu, DeviceKind::Cuda, DeviceKind::CudaEmulated}) {
    Expected<DeviceKind> P = parseDeviceKind(deviceKindName(K));
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    EXPECT_EQ(*P, K);
  }
  EXPECT_EQ(deviceKindName(DeviceKind::CudaEmulated), "cuda-emulated");
  for (StringRef Bad : {"gpu", "CUDA", "", "cuda0"}) {
    Expected<DeviceKind> P = parseDeviceKind(Bad);
    ASSERT_FALSE(bool(P)) << Bad.str();
    std::string Msg = toString(P.takeError());
    for (const char *Good : {"cpu", "cuda", "cuda-emulated"})
      EXPECT_NE(Msg.find(Good), std::string::npos) << Msg;
  }
  Expected<Device &> Cpu = openDevice(DeviceKind::Cpu);
  EXPECT_FALSE(bool(Cpu));
  consumeError(Cpu.takeError());
}

// The mapping CudaDevice gives cuBLAS, run through the host's
// column-major BLAS: it must compute the row-major product.
TEST(CudaDevice, CublasColumnMajorMapping) {
  for (bool TA : {false, true})
    for (bool TB : {false, true}) {
      const int64_t M = 2, N = 3, K = 4;
      DeviceGemm G;
      G.TransA = TA;
      G.TransB = TB;
      G.M = M;
      G.N = N;
      G.K = K;
      G.Alpha = 2;
      G.Beta = 0;
      G.LdA = (TA ? M : K) + 1;
      G.LdB = (TB ? K : N) + 3;
      G.LdC = N;
      std::vector<double> A((TA ? K : M) * G.LdA), B((TB ? N : K) * G.LdB),
          C(M * N, -1);
      for (size_t I = 0; I < A.size(); ++I)
        A[I] = double(I % 7) - 3;
      for (size_t I = 0; I < B.size(); ++I)
        B[I] = double(I % 5) * 0.5;
      G.A = reinterpret_cast<DeviceAddress>(A.data());
      G.B = reinterpret_cast<DeviceAddress>(B.data());
      G.C = reinterpret_cast<DeviceAddress>(C.data());
      ASSERT_FALSE(bool(checkGemm(G, INT32_MAX)));
      ColumnMajorGemm CM = columnMajor(G);
      EXPECT_EQ(CM.M, N);
      EXPECT_EQ(CM.N, M);
      EXPECT_EQ(CM.A, G.B);
      GJ_BLAS(cblas_dgemm)(CblasColMajor, CM.TransA ? CblasTrans : CblasNoTrans,
                  CM.TransB ? CblasTrans : CblasNoTrans, CM.M, CM.N, CM.K,
                  G.Alpha, reinterpret_cast<const double *>(CM.A), CM.LdA,
                  reinterpret_cast<const double *>(CM.B), CM.LdB, G.Beta,
                  reinterpret_cast<double *>(CM.C), CM.LdC);
      for (int64_t I = 0; I < M; ++I)
        for (int64_t J = 0; J < N; ++J) {
          double S = 0;
          for (int64_t L = 0; L < K; ++L)
            S += at(A, TA, G.LdA, I, L) * at(B, TB, G.LdB, L, J);
          EXPECT_DOUBLE_EQ(C[I * N + J], 2 * S)
              << I << "," << J << " TA=" << TA << " TB=" << TB;
        }
    }
}

TEST(CudaDevice, CopiesOnTheGpu) {
  std::string Why;
  Device *D = realGpu(Why);
  if (!D)
    GTEST_SKIP() << "needs a GPU: " << Why;
  checkCopies(*D);
}

TEST(CudaDevice, GemmOnTheGpu) {
  std::string Why;
  Device *D = realGpu(Why);
  if (!D)
    GTEST_SKIP() << "needs a GPU: " << Why;
  checkAllGemms<float>(*D);
  checkAllGemms<double>(*D);
}

TEST(CudaDevice, PoolAndTimersOnTheGpu) {
  std::string Why;
  Device *D = realGpu(Why);
  if (!D)
    GTEST_SKIP() << "needs a GPU: " << Why;
  Expected<DevicePool &> P = devicePool(DeviceKind::Cuda);
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  Expected<NDArray> A = P->empty(DType::F32, {1000});
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  std::vector<float> Src(1000, 2.5f), Back(1000);
  auto Addr = reinterpret_cast<DeviceAddress>(A->data());
  Expected<TimerMark> M0 = D->mark();
  ASSERT_TRUE(bool(M0)) << toString(M0.takeError());
  ASSERT_FALSE(bool(D->copyToDevice(Addr, Src.data(), 4000)));
  Expected<TimerMark> M1 = D->mark();
  ASSERT_TRUE(bool(M1));
  ASSERT_FALSE(bool(D->copyToHost(Back.data(), Addr, 4000)));
  EXPECT_EQ(Src, Back);
  ASSERT_FALSE(bool(D->synchronize()));
  Expected<double> S = D->elapsedSeconds(*M0, *M1);
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_GE(*S, 0);
  D->resetMarks();
}

TEST(EmulatedDevice, NameAndArch) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  EXPECT_EQ(D->name(), "host (emulated GPU)");
  EXPECT_EQ(D->arch(), "");
  EXPECT_TRUE(D->isEmulated());
  Expected<Device &> Process = openDevice(DeviceKind::CudaEmulated);
  ASSERT_TRUE(bool(Process));
  Expected<Device &> Again = openDevice(DeviceKind::CudaEmulated);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(&*Process, &*Again);
  EXPECT_TRUE(Process->isEmulated());
}

TEST(EmulatedDevice, RawAllocIsAlignedAndDistinct) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  Expected<DeviceAddress> A = D->rawAlloc(0), B = D->rawAlloc(0),
                          C = D->rawAlloc(100);
  ASSERT_TRUE(A && B && C);
  EXPECT_NE(*A, 0u);
  EXPECT_NE(*A, *B);
  for (DeviceAddress P : {*A, *B, *C}) {
    EXPECT_EQ(P % 64, 0u);
    D->rawFree(P);
  }
}

TEST(EmulatedDevice, Copies) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  checkCopies(*D);
}

TEST(EmulatedDevice, Gemm) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  checkAllGemms<float>(*D);
  checkAllGemms<double>(*D);
}

TEST(EmulatedDevice, GemmRejectsWhatBlasCannotDo) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  DeviceGemm G;
  G.M = G.N = G.K = 2;
  G.LdA = G.LdB = G.LdC = 2;
  G.Dtype = DType::I32;
  std::string Msg = toString(D->gemm(G));
  EXPECT_NE(Msg.find("dtype i32"), std::string::npos) << Msg;
  G.Dtype = DType::F64;
  G.LdB = 1;
  Msg = toString(D->gemm(G));
  EXPECT_NE(Msg.find("leading dimension"), std::string::npos) << Msg;
  // An empty product touches nothing.
  G.M = 0;
  G.LdB = 2;
  EXPECT_FALSE(bool(D->gemm(G)));
}

TEST(EmulatedDevice, Timers) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  Expected<TimerMark> A = D->mark();
  ASSERT_TRUE(bool(A));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Expected<TimerMark> B = D->mark();
  Expected<TimerMark> C = D->mark();
  ASSERT_TRUE(B && C);
  ASSERT_FALSE(bool(D->synchronize()));
  Expected<double> AB = D->elapsedSeconds(*A, *B);
  Expected<double> AC = D->elapsedSeconds(*A, *C);
  Expected<double> BC = D->elapsedSeconds(*B, *C);
  ASSERT_TRUE(AB && AC && BC);
  EXPECT_GE(*AB, 0.004);
  EXPECT_GE(*BC, 0);
  EXPECT_GE(*AC, *AB) << "marks are monotone";

  D->resetMarks();
  Expected<double> Stale = D->elapsedSeconds(*A, *B);
  EXPECT_FALSE(bool(Stale)) << "marks end with resetMarks()";
  consumeError(Stale.takeError());
  Expected<TimerMark> Reused = D->mark();
  ASSERT_TRUE(bool(Reused));
  EXPECT_EQ(*Reused, *A) << "marks are reused after a reset";
}

TEST(EmulatedDevice, LaunchesAHostKernel) {
  std::unique_ptr<Device> D = makeEmulatedDevice();
  KernelImage Image;
  Image.HostLookup = [](StringRef Name) -> void * {
    return Name == "add_one" ? reinterpret_cast<void *>(&addOneKernel)
                             : nullptr;
  };
  Expected<std::vector<KernelHandle>> Ks =
      D->loadKernels(Image, {std::string("add_one")});
  ASSERT_TRUE(bool(Ks)) << toString(Ks.takeError());
  ASSERT_EQ(Ks->size(), 1u);

  const int64_t N = 10;
  std::vector<double> In(N), Out(N, 0);
  for (int64_t I = 0; I < N; ++I)
    In[I] = double(I) * 0.5;
  Expected<DeviceAddress> DIn = D->rawAlloc(N * 8), DOut = D->rawAlloc(N * 8);
  ASSERT_TRUE(DIn && DOut);
  ASSERT_FALSE(bool(D->copyToDevice(*DIn, In.data(), N * 8)));
  int Calls = AddOneCalls;
  std::vector<uint64_t> Args = {N, N, *DOut, 8, *DIn, 8};
  ASSERT_FALSE(bool(D->launch((*Ks)[0], N, Args)));
  ASSERT_FALSE(bool(D->copyToHost(Out.data(), *DOut, N * 8)));
  for (int64_t I = 0; I < N; ++I)
    EXPECT_EQ(Out[I], In[I] + 1);
  EXPECT_EQ(AddOneCalls, Calls + 1);

  // No work items: no call.
  std::vector<uint64_t> None = {0, 0, *DOut, 8, *DIn, 8};
  ASSERT_FALSE(bool(D->launch((*Ks)[0], 0, None)));
  EXPECT_EQ(AddOneCalls, Calls + 1);
  D->rawFree(*DIn);
  D->rawFree(*DOut);

  Expected<std::vector<KernelHandle>> Missing =
      D->loadKernels(Image, {std::string("add_one"), std::string("nope")});
  ASSERT_FALSE(bool(Missing));
  std::string Msg = toString(Missing.takeError());
  EXPECT_NE(Msg.find("nope"), std::string::npos) << Msg;
}
