//===- profile/MemoryReport.cpp - The Memory Profile section --------------===//
//
// printMemoryProfile(): Theano's Memory Profile, from the simulation
// (MemorySimulation.cpp) and the allocator's measured peak, which must
// agree with the simulation exactly (docs/profiling.md, "Memory Profile").
//
//===----------------------------------------------------------------------===//
#include "profile/MemoryReport.h"
#include "graphjit/Type.h"
#include "profile/ProfileTables.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <map>

using namespace llvm;

namespace graphjit {
namespace profile {

uint64_t outputBytes(const ApplyProfile &A) {
  uint64_t Sum = 0;
  for (const OutputMemory &O : A.OutputMem)
    Sum += O.Bytes;
  return Sum;
}

std::string kilobytes(uint64_t Bytes) {
  // nearbyint rounds half to even in the default rounding mode.
  return formatv("{0}KB", uint64_t(std::nearbyint(double(Bytes) / 1024)));
}

namespace {

/// "[(1000, 1000), ()]": one tuple per output.
std::string outputShapes(const ApplyProfile &A) {
  std::string S = "[";
  for (size_t I = 0; I < A.OutputMem.size(); ++I)
    S += (I ? ", " : "") + shapeStr(A.OutputMem[I].Shape);
  return S + "]";
}

/// "c v i" from the op's declaration, then '!' when a declared view or
/// in-place output was seen in memory of its own.
std::string outputCodes(const ApplyProfile &A) {
  std::string S;
  bool Allocated = false;
  for (const OutputMemory &O : A.OutputMem) {
    if (!S.empty())
      S += " ";
    S += O.Kind == "view" ? "v" : O.Kind == "inplace" ? "i" : "c";
    Allocated |= O.Allocated;
  }
  return Allocated ? S + "!" : S;
}

/// "(agree)", or how far the measured peak is from the simulated one: any
/// difference means the simulation or the allocator is wrong.
std::string agreement(uint64_t Simulated, uint64_t Measured) {
  if (Simulated == Measured)
    return "(agree)";
  uint64_t Gap =
      Measured > Simulated ? Measured - Simulated : Simulated - Measured;
  return formatv("(DISAGREE: measured {0} bytes {1})", Gap,
                 Measured > Simulated ? "more" : "less");
}

void printPeaks(raw_ostream &OS, const FunctionProfile &F) {
  MemorySimulation Sim = simulateMemory(F);
  const FunctionMemory &M = F.Memory;
  OS << "    Max if no gc (allow_gc=False): " << kilobytes(Sim.NoGC) << "\n";
  OS << "    Max if linker=c|py: " << kilobytes(Sim.GC) << "\n";
  OS << "    Memory saved if gc is enabled (linker=c|py): "
     << kilobytes(Sim.NoGC - std::min(Sim.NoGC, Sim.GC)) << "\n";
  uint64_t InUse = M.AllowGC ? Sim.GC : Sim.NoGC;
  OS << "    Max if linker=" << (F.Linker.empty() ? "unknown" : F.Linker)
     << " (in use, allow_gc=" << (M.AllowGC ? "True" : "False")
     << "): " << kilobytes(InUse) << " simulated, " << kilobytes(M.MeasuredPeak)
     << " measured " << agreement(InUse, M.MeasuredPeak) << "\n";
  OS << "    Minimum peak from all valid apply node orders: ";
  if (Sim.MinPeakExact)
    OS << kilobytes(Sim.MinPeak)
       << format(" (took %.3fs to compute)\n", Sim.MinPeakSeconds);
  else
    OS << "skipped (" << Sim.MinPeakSkipped << ")\n";
  // What the compiled function keeps between calls without profile_memory:
  // each storage as large as the largest value it holds.
  std::map<int, uint64_t> Storages;
  for (const ApplyProfile &A : F.Applies)
    for (const OutputMemory &O : A.OutputMem)
      if (O.Storage >= 0)
        Storages[O.Storage] = std::max(Storages[O.Storage], O.Bytes);
  if (!Storages.empty()) {
    uint64_t Arena = 0;
    for (auto [Storage, Bytes] : Storages)
      Arena += Bytes;
    OS << "    Planned arena (without profile_memory, kept between calls): "
       << kilobytes(Arena) << " in " << Storages.size() << " storage"
       << (Storages.size() == 1 ? "" : "s") << "\n";
  }
  OS << "\n";
}

void printApplyRows(raw_ostream &OS, const FunctionProfile &F,
                    const SummaryOptions &Opts) {
  std::vector<const ApplyProfile *> Rows;
  for (const ApplyProfile &A : F.Applies)
    Rows.push_back(&A);
  llvm::stable_sort(Rows, [](const ApplyProfile *L, const ApplyProfile *R) {
    uint64_t BL = outputBytes(*L), BR = outputBytes(*R);
    if (BL != BR)
      return BL > BR;
    return L->Id < R->Id;
  });
  OS << "    <Sum apply outputs (bytes)> <Allocated (bytes)> <Apply outputs "
        "shape> <created/inplace/view> <Apply node>\n\n";
  // Sorted by size, so the rows at or above the minimum come first.
  size_t Shown = 0;
  while (Shown < Rows.size() && Shown < Opts.NApply &&
         outputBytes(*Rows[Shown]) >= Opts.MinMemorySize)
    ++Shown;
  uint64_t Total = 0, Rest = 0;
  for (size_t I = 0; I < Rows.size(); ++I) {
    const ApplyProfile &A = *Rows[I];
    Total += outputBytes(A);
    if (I >= Shown) {
      Rest += outputBytes(A);
      continue;
    }
    OS << format("     %9lluB %9lluB  ", (unsigned long long)outputBytes(A),
                 (unsigned long long)A.AllocatedBytes)
       << outputShapes(A) << " " << outputCodes(A) << " " << A.Name << "\n";
  }
  // Theano's line, its doubled parentheses included.
  std::string Share =
      Total == 0
          ? "0%"
          : formatv("({0:f2}%)", percent(double(Rest), double(Total))).str();
  OS << format("   ... (remaining %zu Apply account for %4lluB/%lluB (%s) of "
               "the Apply with dense outputs sizes)\n\n",
               Rows.size() - Shown, (unsigned long long)Rest,
               (unsigned long long)Total, Share.c_str());
  if (Shown == 0 && Opts.NApply > 0)
    OS << "    All Apply nodes have output sizes that take less than "
       << Opts.MinMemorySize << "B.\n";
  OS << "    <created/inplace/view> is taken from the Op's declaration.\n";
  OS << "    <Allocated> is what the runtime's allocator gave the Apply in "
        "one call (the most over all calls); an Apply marked '!' declared a "
        "view or in-place output but allocated memory for it.\n\n";
}

} // namespace

void printMemoryProfile(raw_ostream &OS, const FunctionProfile &F,
                        const SummaryOptions &Opts) {
  if (!Opts.Memory || !F.Memory.Recorded)
    return;
  OS << "Memory Profile\n";
  OS << "(Sparse variables are ignored)\n";
  OS << "---\n";
  printPeaks(OS, F);
  if (!F.Device.empty())
    OS << "  GPU memory (device pool of the process, arrays on the device "
          "are not counted above): peak "
       << kilobytes(F.GpuPeakBytes) << " in arrays, peak "
       << kilobytes(F.GpuPeakReservedBytes) << " held by the pool\n";
  printApplyRows(OS, F, Opts);
}

} // namespace profile
} // namespace graphjit
