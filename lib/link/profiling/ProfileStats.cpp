//===- ProfileStats.cpp - Where profiled functions report -----------------===//

#include "graphjit/ProfileStats.h"
#include "graphjit/Flags.h"
#include "ops/linalg/BlasInfo.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/FileSystem.h"
#include <atomic>
#include <thread>
#include <cstdlib>

using namespace graphjit;

unsigned ProfileStats::attach(Snapshot Take, std::string DebugPrint) {
  std::lock_guard<std::mutex> Guard(Lock);
  Sources.push_back({NextHandle, std::move(Take), std::nullopt,
                     std::move(DebugPrint)});
  return NextHandle++;
}

void ProfileStats::detach(unsigned Handle) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (Source &S : Sources)
    if (S.Handle == Handle && !S.Final) {
      S.Final = S.Take();
      S.Take = nullptr;
    }
}

/// The report's Machine line: the CPU, its threads, and the BLAS with its
/// kernel and threads (as when first asked).
static const std::string &machineDescription() {
  static const std::string Description = [] {
    const BlasInfo &B = blasInfo();
    std::string S;
    llvm::raw_string_ostream OS(S);
    OS << llvm::sys::getHostCPUName() << " CPU, "
       << std::thread::hardware_concurrency() << " threads; BLAS: "
       << B.Library;
    if (!B.Kernel.empty())
      OS << ", kernel " << B.Kernel
         << (B.FallbackKernel ? FallbackKernelMark : "");
    if (B.Threads)
      OS << ", " << B.Threads << (B.Threads == 1 ? " thread" : " threads");
    return S;
  }();
  return Description;
}

Profile ProfileStats::profile() const {
  std::lock_guard<std::mutex> Guard(Lock);
  Profile P;
  P.Machine = machineDescription();
  for (const Source &S : Sources)
    P.Functions.push_back(S.Final ? *S.Final : S.Take());
  return P;
}

std::vector<std::string> ProfileStats::debugPrints() const {
  std::lock_guard<std::mutex> Guard(Lock);
  std::vector<std::string> D;
  for (const Source &S : Sources)
    D.push_back(S.DebugPrint);
  return D;
}

void ProfileStats::summary(llvm::raw_ostream &OS,
                           const SummaryOptions &Opts) const {
  Profile P = profile();
  if (!Name.empty())
    OS << "Profile: " << Name << "\n";
  printSummary(OS, P, Opts);
}

llvm::Error ProfileStats::report(const Flags &F) const {
  SummaryOptions Opts;
  Opts.NApply = F.ProfilingNApply;
  Opts.NOps = F.ProfilingNOps;
  Opts.MinMemorySize = F.ProfilingMinMemorySize;
  auto Print = [&](llvm::raw_ostream &OS) {
    if (F.ProfilingDebugprint)
      for (const std::string &D : debugPrints())
        OS << D << "\n";
    summary(OS, Opts);
    OS.flush();
  };
  // Streams of their own: at exit, llvm::outs() may be destroyed already.
  const std::string &Dest = F.ProfilingDestination;
  if (Dest == "stdout" || Dest == "stderr") {
    llvm::raw_fd_ostream OS(Dest == "stdout" ? 1 : 2, /*shouldClose=*/false);
    Print(OS);
    return llvm::Error::success();
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Dest, EC, llvm::sys::fs::OF_Text);
  if (EC)
    return llvm::createStringError("cannot write the profile to '" + Dest +
                                   "': " + EC.message());
  Print(OS);
  return llvm::Error::success();
}

/// The process's stats once something profiles into them; null before.
static std::shared_ptr<ProfileStats> *ProcessStats = nullptr;
/// Set when the profile was printed before exit.
static std::atomic<bool> ProcessProfileReported{false};

llvm::Error graphjit::reportProcessProfile() {
  if (!ProcessStats || ProcessProfileReported.exchange(true))
    return llvm::Error::success();
  llvm::Expected<const Flags &> F = processFlags();
  if (!F)
    return F.takeError();
  return (*ProcessStats)->report(*F);
}

// At exit: every function's profile and their sum, where the flags say.
static void printProcessProfile() {
  if (llvm::Error E = reportProcessProfile())
    llvm::errs() << "graphjit: error: " << llvm::toString(std::move(E))
                 << "\n";
}

std::shared_ptr<ProfileStats> graphjit::processProfileStats() {
  // Never destroyed: it is printed at exit, after main's objects are gone.
  static auto *Stats = [] {
    auto *S = new std::shared_ptr<ProfileStats>(
        std::make_shared<ProfileStats>());
    ProcessStats = S;
    std::atexit(printProcessProfile);
    return S;
  }();
  return *Stats;
}
