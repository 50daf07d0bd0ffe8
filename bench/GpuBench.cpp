//===- GpuBench.cpp - The GPU path against the device and the CPU --------===//
//
// Measures, side by side in one run, on one device (issue 7, section 6):
//  - elemwise bandwidth: y = x * 2.0 + 1.0 on f32 (n = 2^26 on a GPU),
//    compiled for the device with the profiler on; the GpuElemwise Apply's
//    device time per call, read from the profile, gives the bytes it moves
//    (read x, write y) per second. Against it, the device's own
//    device-to-device copy bandwidth (Device::copyOnDevice between two pool
//    buffers of the same size, timed with the device's timer marks; read
//    plus write). Target: the elemwise at least 0.8 of the copy;
//  - the perceptron train step (examples/mlp.graph, n = 4096) on the
//    device against the CPU (device=cpu, the default linker), called in
//    alternation: the median time per call of each and CPU / device. The
//    GPU path keeps shared values on the host, so the device's time
//    includes copying the weights there and back on every call;
//  - profiling on the device: the same step compiled with and without
//    Profile, called in alternation (target: at most 2% slower);
//  - the first call of a fresh process: this program runs itself again
//    (-first-call-probe) twice on one empty compile cache, cold then
//    warm, and each child times opening the device, compiling the step
//    (the kernels' share apart) and its first call. Target: compile plus
//    first call under 50 ms with the cache warm (the device's start-up,
//    which no cache removes, is shown apart).
//
// The device is `cuda` when a GPU opens, else `cuda-emulated` (the GPU path
// run on the host: a smoke run whose numbers say nothing about a GPU, with
// a smaller elemwise by default); -device= chooses. No figure is asserted.
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "gpu/Device.h"
#include "gpu/DevicePool.h"
#include "graphjit/Initialize.h"
#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <type_traits>

using namespace graphjit;
using namespace graphjit::bench;
using llvm::format;
using llvm::outs;
namespace cl = llvm::cl;

static cl::OptionCategory GpuBenchCategory("graphjit-gpu-bench options");
static cl::opt<std::string> DeviceOpt(
    "device",
    cl::desc("cuda or cuda-emulated (default: cuda when a GPU opens, else "
             "cuda-emulated)"),
    cl::init(""), cl::cat(GpuBenchCategory));
static cl::opt<int64_t>
    ElemN("n",
          cl::desc("Elements of the elemwise graph (default: 2^26 on a GPU, "
                   "2^22 on the emulated device)"),
          cl::init(0), cl::cat(GpuBenchCategory));
static cl::opt<int64_t>
    MlpN("mlp-n",
         cl::desc("Rows of the perceptron train step's batch"),
         cl::init(4096), cl::cat(GpuBenchCategory));
static cl::opt<int> Reps("reps",
                         cl::desc("Repetitions of each measurement (the "
                                  "median is printed)"),
                         cl::init(0), cl::cat(GpuBenchCategory));

static cl::opt<std::string> FirstCallProbe(
    "first-call-probe",
    cl::desc("Internal: as a fresh process with this compile cache "
             "directory, time the step's compile and first call"),
    cl::init(""), cl::Hidden, cl::cat(GpuBenchCategory));

template <typename T> static T orDie(llvm::Expected<T> V) {
  if (!V) {
    llvm::errs() << "graphjit-gpu-bench: " << llvm::toString(V.takeError())
                 << "\n";
    std::exit(1);
  }
  if constexpr (std::is_reference_v<T>)
    return *V;
  else
    return std::move(*V);
}

static void orDie(llvm::Error E) {
  if (E) {
    llvm::errs() << "graphjit-gpu-bench: " << llvm::toString(std::move(E))
                 << "\n";
    std::exit(1);
  }
}

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

static std::unique_ptr<Function> compileOn(FunctionGraph &F,
                                           llvm::StringRef Device,
                                           bool Profile) {
  CompileOptions O;
  O.Device = Device.str();
  O.Profile = Profile;
  return compileOrDie(F, O);
}

/// The whole GpuElemwise's device seconds and calls in Fn's profile so far.
static std::pair<double, uint64_t> elemwiseDeviceTime(const Function &Fn,
                                                      std::string &Name) {
  FunctionProfile P = Fn.profile()->profile().Functions.at(0);
  for (const ApplyProfile &A : P.Applies)
    if (A.OnDevice && A.OpClass == "GpuElemwise") {
      Name = A.Op;
      return {A.Seconds, A.Calls};
    }
  llvm::errs() << "graphjit-gpu-bench: the elemwise graph has no GpuElemwise "
                  "Apply on the device\n";
  std::exit(1);
}

struct Results {
  double ElemGBs = 0, CopyGBs = 0;
  double MlpCpu = 0, MlpDevice = 0;
  double Plain = 0, Profiled = 0;
  double WarmFirstCall = 0; ///< Compile plus first call, cache warm.
};

static void benchElemwise(DeviceKind Kind, int64_t N, int NReps,
                          Results &R) {
  const size_t Bytes = size_t(N) * sizeof(float);
  auto M = orDie(parseGraph("func ew(x: f32[n]) -> (y) {\n"
                            "  y = add(mul(x, 2.0), 1.0)\n}\n",
                            "elemwise.graph"));
  auto Fn = compileOn(*M->functions().front(), deviceKindName(Kind), true);
  std::vector<NDArray> In = {randomArray(DType::F32, {N}, 1)};
  callOrDie(*Fn, In); // Kernels loaded, pool filled.

  // The device's own copy, device to device, between two buffers as large.
  DevicePool &Pool = orDie<DevicePool &>(devicePool(Kind));
  Device &Dev = Pool.device();
  auto Src = orDie(Pool.allocate(Bytes)), Dst = orDie(Pool.allocate(Bytes));
  auto Addr = [](const std::shared_ptr<Buffer> &B) {
    return DeviceAddress(reinterpret_cast<uintptr_t>(B->data()));
  };
  orDie(Dev.copyToDevice(Addr(Src), In[0].data(), Bytes));
  orDie(Dev.copyOnDevice(Addr(Dst), Addr(Src), Bytes)); // Warm-up.
  orDie(Dev.synchronize());

  // In alternation, per repetition: the elemwise's device seconds per call
  // over Inner calls (from the profile), then the copy's over CopyInner
  // copies (from the device's timer marks).
  const int Inner = 3, CopyInner = 5;
  std::vector<double> DevTimes, Wall, Copy;
  std::string Name;
  for (int Rep = 0; Rep < NReps; ++Rep) {
    auto [S0, C0] = elemwiseDeviceTime(*Fn, Name);
    double Start = now();
    for (int I = 0; I < Inner; ++I)
      callOrDie(*Fn, In);
    Wall.push_back((now() - Start) / Inner);
    auto [S1, C1] = elemwiseDeviceTime(*Fn, Name);
    DevTimes.push_back((S1 - S0) / double(C1 - C0));

    TimerMark From = orDie(Dev.mark());
    for (int I = 0; I < CopyInner; ++I)
      orDie(Dev.copyOnDevice(Addr(Dst), Addr(Src), Bytes));
    TimerMark To = orDie(Dev.mark());
    orDie(Dev.synchronize());
    Copy.push_back(orDie(Dev.elapsedSeconds(From, To)) / CopyInner);
    Dev.resetMarks();
  }
  double TElem = median(DevTimes), TCopy = median(Copy);
  R.ElemGBs = 2.0 * Bytes / TElem / 1e9;
  R.CopyGBs = 2.0 * Bytes / TCopy / 1e9;

  outs() << format("%s: %.3f ms per call on the device: %.1f GB/s (read x "
                   "+ write y, %.1f MB)\n",
                   Name.c_str(), TElem * 1e3, R.ElemGBs, 2.0 * Bytes / 1e6);
  outs() << format("  the whole call, with x to the device and y back: "
                   "%.3f ms\n",
                   median(Wall) * 1e3);
  outs() << format("device-to-device copy of %.1f MB: %.3f ms: %.1f GB/s "
                   "(read + write)\n",
                   Bytes / 1e6, TCopy * 1e3, R.CopyGBs);
  outs() << format("elemwise / copy bandwidth: %.2f (target >= 0.8)\n",
                   R.ElemGBs / R.CopyGBs);
}

static std::vector<NDArray> mlpInputs(int64_t N) {
  return {randomArray(DType::F32, {N, 784}, 1),
          randomArray(DType::F32, {N, 10}, 2)};
}

static void benchMlp(DeviceKind Kind, int64_t N, int NReps, Results &R) {
  std::string Path = std::string(GRAPHJIT_EXAMPLES_DIR) + "/mlp.graph";
  auto M = orDie(parseGraphFile(Path));
  orDie(M->initShared());
  FunctionGraph &F = *M->lookupFunction("train");
  auto Cpu = compileOn(F, "cpu", false);
  auto Dev = compileOn(F, deviceKindName(Kind), false);
  auto DevProfiled = compileOn(F, deviceKindName(Kind), true);
  std::vector<NDArray> In = mlpInputs(N);
  for (Function *Fn : {Cpu.get(), Dev.get(), DevProfiled.get()})
    callOrDie(*Fn, In); // Warm-up: kernels loaded, pool and caches filled.

  // Inner calls per repetition: about 0.2 s of the slower one.
  double Start = now();
  callOrDie(*Cpu, In);
  callOrDie(*Dev, In);
  int Inner = std::clamp(int(0.2 / (now() - Start)), 1, 50);

  std::tie(R.MlpCpu, R.MlpDevice) = sideBySide(*Cpu, *Dev, In, NReps, Inner);
  size_t SharedBytes = 0;
  for (const auto &S : M->sharedVariables())
    SharedBytes += S->Value.numBytes();
  FunctionProfile P = DevProfiled->profile()->profile().Functions.at(0);
  unsigned OnDevice = 0;
  for (const ApplyProfile &A : P.Applies)
    OnDevice += A.OnDevice;
  outs() << format("mlp train step (n=%lld): cpu %.3f ms, %s %.3f ms per "
                   "call: cpu / device %.2fx\n",
                   (long long)N, R.MlpCpu * 1e3,
                   deviceKindName(Kind).str().c_str(), R.MlpDevice * 1e3,
                   R.MlpCpu / R.MlpDevice);
  outs() << format("  %zu of %zu Applies on the device (transfers included)",
                   size_t(OnDevice), P.Applies.size());
  for (size_t I = 0; I < P.HostOnly.size(); ++I)
    outs() << (I ? "; " : "; on the host: ") << P.HostOnly[I];
  outs() << "\n";
  outs() << format("  the device's time includes the shared variables (%.2f "
                   "MB) copied to the device and back on every call: the GPU "
                   "path keeps shared values on the host\n",
                   SharedBytes / 1e6);

  std::tie(R.Plain, R.Profiled) =
      sideBySide(*Dev, *DevProfiled, In, NReps, Inner);
  outs() << format("profiling on the device, same step: unprofiled %.3f ms, "
                   "profiled %.3f ms: overhead %+.2f%% (target <= 2%%)\n",
                   R.Plain * 1e3, R.Profiled * 1e3,
                   (R.Profiled / R.Plain - 1) * 100);
}

/// The child's side of the first-call measurement: one line of seconds,
/// "device compile kernels first_call".
static int firstCallProbe(DeviceKind Kind, int64_t N) {
  orDie(setCompileCacheDirectory(FirstCallProbe));
  std::string Path = std::string(GRAPHJIT_EXAMPLES_DIR) + "/mlp.graph";
  auto M = orDie(parseGraphFile(Path));
  orDie(M->initShared());
  std::vector<NDArray> In = mlpInputs(N);
  double T0 = now();
  orDie<Device &>(openDevice(Kind));
  double T1 = now();
  auto Fn = compileOn(*M->lookupFunction("train"), deviceKindName(Kind),
                      false);
  double T2 = now();
  callOrDie(*Fn, In);
  double T3 = now();
  outs() << format("%.6f %.6f %.6f %.6f\n", T1 - T0, T2 - T1,
                   Fn->compileTimes().Kernels, T3 - T2);
  return 0;
}

/// Runs this program as a probe on cache directory Dir; the four figures.
static std::vector<double> runProbe(const std::string &Self,
                                    DeviceKind Kind, int64_t N,
                                    llvm::StringRef Dir) {
  llvm::SmallString<128> Out;
  orDie(llvm::errorCodeToError(
      llvm::sys::fs::createTemporaryFile("gj-probe", "txt", Out)));
  std::string DevArg = ("-device=" + deviceKindName(Kind)).str();
  std::string NArg = "-mlp-n=" + std::to_string(N);
  std::string DirArg = ("-first-call-probe=" + Dir).str();
  llvm::StringRef Args[] = {Self, DevArg, NArg, DirArg};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Out.str(),
                                                std::nullopt};
  std::string Err;
  int Rc = llvm::sys::ExecuteAndWait(Self, Args, std::nullopt, Redirects, 0,
                                     0, &Err);
  auto Buf = llvm::MemoryBuffer::getFile(Out);
  llvm::sys::fs::remove(Out);
  std::vector<double> V(4, 0);
  if (Rc != 0 || !Buf ||
      sscanf((*Buf)->getBuffer().str().c_str(), "%lf %lf %lf %lf", &V[0],
             &V[1], &V[2], &V[3]) != 4) {
    llvm::errs() << "graphjit-gpu-bench: the first-call probe failed (rc "
                 << Rc << ") " << Err << "\n";
    std::exit(1);
  }
  return V;
}

static void benchFirstCall(const std::string &Self, DeviceKind Kind,
                           int64_t N, Results &R) {
  llvm::SmallString<128> Dir;
  orDie(llvm::errorCodeToError(
      llvm::sys::fs::createUniqueDirectory("gj-first-call", Dir)));
  for (const char *Which : {"cold", "warm"}) {
    std::vector<double> V = runProbe(Self, Kind, N, Dir);
    outs() << format("first call of a fresh process, compile cache %s: "
                     "device start %.1f ms; compile %.1f ms (kernels %.1f "
                     "ms); first call %.1f ms; compile + first call %.1f "
                     "ms%s\n",
                     Which, V[0] * 1e3, V[1] * 1e3, V[2] * 1e3, V[3] * 1e3,
                     (V[1] + V[3]) * 1e3,
                     Which[0] == 'w' ? " (target < 50 ms)" : "");
    R.WarmFirstCall = V[1] + V[3];
  }
  llvm::sys::fs::remove_directories(Dir);
}

int main(int argc, char **argv) {
  graphjit::initialize();
  llvm::InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(GpuBenchCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "graphjit-gpu-bench: the GPU path's bandwidth, the perceptron step "
      "against the CPU, and profiling's cost on the device\n");

  DeviceKind Kind = DeviceKind::Cuda;
  std::string Why;
  if (DeviceOpt.empty()) {
    llvm::Expected<Device &> D = openDevice(DeviceKind::Cuda);
    if (!D) {
      Why = llvm::toString(D.takeError());
      Kind = DeviceKind::CudaEmulated;
    }
  } else {
    Kind = orDie(parseDeviceKind(DeviceOpt));
    if (Kind == DeviceKind::Cpu) {
      llvm::errs() << "graphjit-gpu-bench: -device= must be cuda or "
                      "cuda-emulated\n";
      return 1;
    }
  }
  if (!FirstCallProbe.empty())
    return firstCallProbe(Kind, MlpN);
  Device &Dev = orDie<Device &>(openDevice(Kind));
  bool Emulated = Dev.isEmulated();
  int64_t N = ElemN ? ElemN : (Emulated ? int64_t(1) << 22 : int64_t(1) << 26);
  int64_t BatchN = MlpN;
  int NReps = Reps ? Reps : (Emulated ? 7 : 11);

  outs() << format("device: %s; kind %s%s%s\n", Dev.name().c_str(),
                   deviceKindName(Kind).str().c_str(),
                   Emulated ? "" : ", arch ", Dev.arch().c_str());
  if (!Why.empty())
    outs() << "  no GPU: " << Why << "\n";
  if (Emulated)
    outs() << "emulated device: these numbers measure the host, not a GPU; "
              "run on a GPU for the targets\n";
  outs() << format("sizes: elemwise n=%lld f32 (%.1f MB per array); mlp "
                   "train step n=%lld (784-256-10, f32); medians of %d "
                   "repetitions\n\n",
                   (long long)N, N * 4 / 1e6, (long long)BatchN, NReps);

  Results R;
  benchElemwise(Kind, N, NReps, R);
  benchMlp(Kind, BatchN, NReps, R);
  benchFirstCall(llvm::sys::fs::getMainExecutable(
                     argv[0], reinterpret_cast<void *>(&firstCallProbe)),
                 Kind, BatchN, R);

  outs() << format("\nsummary (%s, %s)%s\n", deviceKindName(Kind).str().c_str(),
                   Dev.name().c_str(),
                   Emulated ? ": emulated, the targets do not apply" : "");
  auto Met = [&](bool OK) {
    return Emulated ? "n/a (emulated)" : OK ? "met" : "not met";
  };
  double Ratio = R.ElemGBs / R.CopyGBs;
  double Overhead = (R.Profiled / R.Plain - 1) * 100;
  outs() << format("  elemwise / device copy bandwidth   target >= 0.8   "
                   "measured %.2f (%.1f / %.1f GB/s)   %s\n",
                   Ratio, R.ElemGBs, R.CopyGBs, Met(Ratio >= 0.8));
  outs() << format("  mlp train step, cpu / device       no target       "
                   "measured %.2fx (%.3f / %.3f ms)\n",
                   R.MlpCpu / R.MlpDevice, R.MlpCpu * 1e3, R.MlpDevice * 1e3);
  outs() << format("  profiling overhead on the device   target <= 2%%    "
                   "measured %+.2f%%   %s\n",
                   Overhead, Met(Overhead <= 2));
  outs() << format("  first call, cache warm             target < 50 ms  "
                   "measured %.1f ms   %s\n",
                   R.WarmFirstCall * 1e3, Met(R.WarmFirstCall < 0.05));
  return 0;
}
