//===- profile/ReportPrinter.cpp - Theano's printed profile ---------------===//
//
// printSummary() section by section, as PyTensor's profiling.py does:
// the global section (summary_function), the Class, Ops and Apply tables
// (summary_class, summary_ops, summary_nodes), the time by model variable
// (graphjit's own, in TermReport.cpp), the Memory Profile (summary_memory,
// in MemoryReport.cpp), the Optimizer Profile (profile_optimizer, in
// OptimizerReport.cpp) and the tips (print_tips), with Theano's columns and
// number formats (docs/profiling.md).
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/MemoryReport.h"
#include "profile/OptimizerReport.h"
#include "profile/ProfileTables.h"
#include "profile/TermReport.h"
#include "graphjit/Type.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace graphjit {
using namespace profile;

namespace {

class ReportPrinter {
public:
  ReportPrinter(raw_ostream &OS, const FunctionProfile &F,
                const SummaryOptions &Opts)
      : OS(OS), F(F), Opts(Opts), ThunkSeconds(F.thunkSeconds()) {}

  void printGlobal(StringRef Machine);
  void printGroupTable(bool ByOp);
  void printApplyTable();
  void printDistributions();
  void printTips(StringRef Machine);

private:
  raw_ostream &OS;
  const FunctionProfile &F;
  const SummaryOptions &Opts;
  double ThunkSeconds;

  void printTensorLines(StringRef Kind, ArrayRef<TensorInfo> Tensors);
};

/// The <apply time> column, 7 characters as Theano's "%7.3f": below a
/// millisecond (which Theano prints as 0.000) with two significant digits.
std::string applyTime(double Seconds) {
  if (Seconds == 0 || Seconds >= 1e-3)
    return formatv("{0,7:f3}", Seconds).str();
  return formatv("{0,7:e1}", Seconds).str();
}

} // namespace

void ReportPrinter::printGlobal(StringRef Machine) {
  OS << "Function profiling\n";
  OS << "==================\n";
  OS << "  Message: " << F.Name << "\n";
  if (!F.InnerOf.empty())
    OS << "  Loop body of: " << F.InnerOf
       << " (its time is that Apply's; sums leave it out)\n";
  if (!F.File.empty())
    OS << "  File: " << F.File << "\n";
  OS << "  Time in " << F.Calls
     << " calls to Function.__call__: " << format("%e", F.CallSeconds) << "s\n";
  auto ShareOfCall = [&](double Seconds) {
    if (F.CallSeconds > 0)
      OS << format(" (%.3f%%)", percent(Seconds, F.CallSeconds));
    OS << "\n";
  };
  OS << "  Time in Function.fn.__call__ (the driver): "
     << format("%e", F.DriverSeconds) << "s";
  ShareOfCall(F.DriverSeconds);
  OS << "  Time in thunks: " << format("%e", ThunkSeconds) << "s";
  ShareOfCall(ThunkSeconds);
  OS << "  Total compile time: " << format("%e", F.Compile.total()) << "s";
  if (F.Compile.Cached)
    OS << " (object from the compile cache)";
  OS << "\n";
  OS << "    Number of Apply nodes: " << F.Applies.size() << "\n";
  OS << "    Rewrite time: " << format("%e", F.Compile.Rewrite)
     << "s (validate " << format("%e", F.Compile.Validate) << "s)\n";
  // The pipeline's other steps, in order (CompileSteps.h); the GPU's
  // kernels only where there are some.
  static constexpr std::pair<CompileStep, const char *> Steps[] = {
      {CompileStep::Schedule, "Schedule time"},
      {CompileStep::Lower, "Lower time (FunctionGraph to LLVM IR)"},
      {CompileStep::Instrument, "Instrument time (the Apply timers)"},
      {CompileStep::Optimize, "Optimize time (LLVM passes)"},
      {CompileStep::Codegen, "Codegen time (machine code)"},
      {CompileStep::Link, "Link time (JIT linking)"},
      {CompileStep::Kernels, "Kernels time (GPU kernels, PTX, loading)"}};
  for (const auto &[Step, Label] : Steps)
    if (Step != CompileStep::Kernels || F.Compile.Kernels > 0)
      OS << "    " << Label << ": " << format("%e", F.Compile.of(Step))
         << "s\n";
  if (!F.Compile.Host.empty()) {
    // What handed graphjit the graph (PyTensor): its steps before ours.
    OS << "  Compile time before graphjit: "
       << format("%e", F.Compile.hostTotal()) << "s\n";
    for (const auto &[Name, Seconds] : F.Compile.Host)
      OS << "    " << Name << ": " << format("%e", Seconds) << "s\n";
  }
  if (!F.Linker.empty())
    OS << "  Linker: " << F.Linker << "\n";
  if (!F.Device.empty()) {
    double Kernels = 0, Transfers = 0;
    unsigned OnDevice = 0;
    for (const ApplyProfile &A : F.Applies) {
      if (!A.OnDevice)
        continue;
      ++OnDevice;
      bool Transfer = A.OpClass == "GpuFromHost" || A.OpClass == "HostFromGpu";
      (Transfer ? Transfers : Kernels) += A.Seconds;
    }
    OS << "  Device: " << F.Device << " (" << OnDevice
       << " Apply nodes timed by the device's own timers)\n";
    OS << "    Time on the device: " << format("%e", Kernels + Transfers)
       << "s (compute " << format("%e", Kernels) << "s, transfers "
       << format("%e", Transfers) << "s)\n";
    OS << "    Device memory: peak " << (F.GpuPeakBytes + 1023) / 1024
       << "KB in arrays, peak " << (F.GpuPeakReservedBytes + 1023) / 1024
       << "KB held by the pool (gpu_allocated())\n";
  }
  if (!F.Clock.empty())
    OS << "  Clock: " << F.Clock << "\n";
  OS << "  Instrumentation cost: "
     << format("%.1f", F.InstrumentationNsPerApply)
     << " ns per Apply call (already subtracted)\n";
  if (F.FirstCallSeconds)
    OS << "  Time in the first call: " << format("%e", *F.FirstCallSeconds)
       << "s (shown apart: it pays page faults and warm-up)\n";
  if (!Machine.empty())
    OS << "  Machine: " << Machine << "\n";
  OS << "\n";
}

void ReportPrinter::printGroupTable(bool ByOp) {
  std::vector<GroupRow> Rows;
  for (GroupRow &R : groupApplies(F.Applies, ByOp))
    if (R.Calls > 0)
      Rows.push_back(std::move(R));
  StringRef Title = ByOp ? "Ops" : "Class";
  OS << Title << "\n---\n";
  OS << "<% time> <sum %> <apply time> <time per call> <type> <#call> "
        "<#apply> <"
     << (ByOp ? "Op" : "Class") << " name>\n";
  size_t Shown = std::min<size_t>(Rows.size(), Opts.NOps);
  double Sum = 0;
  for (size_t I = 0; I < Shown; ++I) {
    const GroupRow &R = Rows[I];
    Sum += R.Seconds;
    OS << format("  %4.1f%%   %5.1f%%     %ss       %8.2es    %2s  %6llu  "
                 "  %4u   ",
                 percent(R.Seconds, ThunkSeconds), percent(Sum, ThunkSeconds),
                 applyTime(R.Seconds).c_str(),
                 safeRatio(R.Seconds, double(R.Calls)),
                 R.Type.c_str(), (unsigned long long)R.Calls, R.Applies)
       << R.Name << "\n";
  }
  std::vector<double> Seconds;
  for (const GroupRow &R : Rows)
    Seconds.push_back(R.Seconds);
  Remaining Rest = remainingAfter(Seconds, Shown, ThunkSeconds);
  OS << format("   ... (remaining %zu %s account for %6.2f%%(%.2fs) of the "
               "runtime)\n\n",
               Rest.Count, ByOp ? "Ops" : "Classes", Rest.Percent,
               Rest.Seconds);
}

void ReportPrinter::printTensorLines(StringRef Kind,
                                     ArrayRef<TensorInfo> Tensors) {
  for (size_t I = 0; I < Tensors.size(); ++I) {
    const TensorInfo &T = Tensors[I];
    OS << "    " << Kind << " " << I << ": dtype=" << T.DType
       << ", shape=" << shapeStr(T.Shape) << ", strides=" << stridesString(T)
       << "\n";
  }
}

void ReportPrinter::printApplyTable() {
  std::vector<size_t> Order = sortedApplies(F.Applies);
  OS << "Apply\n------\n";
  // <type> as in the Class and Ops tables: C (JIT code) or Py (perform).
  OS << "<% time> <sum %> <apply time> <time per call> <type> <#call> <id> "
        "<Mflops> <Gflops/s> <GB/s> <Apply name>\n";
  size_t Shown = std::min<size_t>(Order.size(), Opts.NApply);
  double Sum = 0;
  for (size_t I = 0; I < Shown; ++I) {
    const ApplyProfile &A = F.Applies[Order[I]];
    Sum += A.Seconds;
    std::string Mflops, Gflops, GBs;
    if (A.FlopsPerCall > 0) {
      Mflops = formatv("{0:f1}", A.FlopsPerCall / 1e6).str();
      if (A.Seconds > 0)
        Gflops = formatv("{0:f2}", gflopsPerSecond(A)).str();
    }
    if (A.BytesPerCall > 0 && A.Seconds > 0)
      GBs = formatv("{0:f2}", gbytesPerSecond(A)).str();
    OS << format("  %4.1f%%   %5.1f%%     %ss       %.2es    %2s  %6llu  %4u "
                 "%8s %10s %7s  ",
                 percent(A.Seconds, ThunkSeconds), percent(Sum, ThunkSeconds),
                 applyTime(A.Seconds).c_str(),
                 safeRatio(A.Seconds, double(A.Calls)), A.type().str().c_str(),
                 (unsigned long long)A.Calls, A.Id, Mflops.c_str(),
                 Gflops.c_str(), GBs.c_str())
       << A.Name << "\n";
    // A rewritten Apply says what it stands for instead of where it was
    // written (its own statement comes first).
    std::string From = provenanceText(A);
    if (!From.empty())
      OS << "    " << From << "\n";
    else if (!A.Loc.empty())
      OS << "    at " << A.Loc << "\n";
    if (Opts.TensorLines) {
      printTensorLines("input", A.Inputs);
      printTensorLines("output", A.Outputs);
    }
  }
  std::vector<double> Seconds;
  for (size_t I : Order)
    Seconds.push_back(F.Applies[I].Seconds);
  Remaining Rest = remainingAfter(Seconds, Shown, ThunkSeconds);
  OS << format("   ... (remaining %zu Apply instances account for "
               "%.2f%%(%.2fs) of the runtime)\n",
               Rest.Count, Rest.Percent, Rest.Seconds);
  size_t NeverRan = F.Applies.size() - Order.size();
  if (NeverRan)
    OS << "   (" << NeverRan << " Apply instance" << (NeverRan == 1 ? "" : "s")
       << " never ran)\n";
  OS << "\n";
}

// Each Apply's time per call with the first call apart, where the
// distributions were recorded; in the Apply table's order.
void ReportPrinter::printDistributions() {
  if (llvm::none_of(F.Applies, [](const ApplyProfile &A) {
        return A.Distribution.has_value();
      }))
    return;
  OS << "Apply time per call (steady state: the first call apart; each "
        "figure within 12%)\n";
  OS << "-------------------\n";
  OS << "<first call> <min> <median> <p90> <max> <#call> <id> <Apply name>\n";
  std::vector<size_t> Order = sortedApplies(F.Applies);
  size_t Shown = std::min<size_t>(Order.size(), Opts.NApply);
  for (size_t I = 0; I < Shown; ++I) {
    const ApplyProfile &A = F.Applies[Order[I]];
    std::string First =
        A.FirstCallSeconds ? formatv("{0:e2}s", *A.FirstCallSeconds).str()
                           : "-";
    if (!A.Distribution) {
      const char *None = "-";
      OS << format("  %10s  %9s  %9s  %9s  %9s  %6s  %4u  ", First.c_str(),
                   None, None, None, None, None, A.Id)
         << A.Name << "\n";
      continue;
    }
    const TimeDistribution &D = *A.Distribution;
    OS << format("  %10s  %.2es  %.2es  %.2es  %.2es  %6llu  %4u  ",
                 First.c_str(), D.Min, D.Median, D.P90, D.Max,
                 (unsigned long long)D.Calls, A.Id)
       << A.Name << "\n";
  }
  OS << format("   ... (remaining %zu Apply instances)\n\n",
               Order.size() - Shown);
}

void ReportPrinter::printTips(StringRef Machine) {
  OS << "Here are tips to potentially make your code run faster\n"
        "                 (computed from this profile).\n"
        "                 Test them first, as they are not guaranteed to "
        "always provide a speedup.\n";
  std::vector<std::string> Tips = computeTips(F, Opts);
  // The Machine line marks an OpenBLAS on kernels older than the CPU
  // (lib/ops/linalg/BlasInfo.h).
  if (Machine.contains(FallbackKernelMark))
    Tips.insert(Tips.begin(),
                "OpenBLAS runs kernels without AVX on this CPU, which has "
                "AVX2 (Machine above): it does not know the CPU, and products "
                "and LAPACK calls run several times slower than they could. "
                "Set OPENBLAS_CORETYPE=Haswell (SkylakeX where the CPU has "
                "AVX-512), or use a newer OpenBLAS.");
  if (Tips.empty())
    OS << "  Sorry, no tip for today.\n";
  for (const std::string &Tip : Tips)
    OS << "  - " << Tip << "\n";
  OS << "\n";
}

/// Whether F's Apply times came from the sampler (profiling__mode=sample)
/// and it caught none of them: calls too short or too few for one sample.
static bool sampledNothing(const FunctionProfile &F) {
  if (!StringRef(F.Clock).starts_with("sampled every") || F.Calls == 0)
    return false;
  for (const ApplyProfile &A : F.Applies)
    if (A.Seconds > 0)
      return false;
  return true;
}

void printFunctionSummary(raw_ostream &OS, const FunctionProfile &F,
                          const SummaryOptions &Opts, StringRef Machine) {
  ReportPrinter P(OS, F, Opts);
  P.printGlobal(Machine);
  const bool NoSamples = sampledNothing(F);
  if (NoSamples) {
    // Tables and tips of zeros would only mislead.
    OS << "No samples: the sampler (see Clock above) caught no Apply in "
       << F.Calls << " calls taking " << format("%e", F.CallSeconds)
       << "s in all. Profile more calls, or profile without "
          "profiling__mode=sample for every Apply's exact time.\n\n";
  } else {
    P.printGroupTable(/*ByOp=*/false);
    P.printGroupTable(/*ByOp=*/true);
    P.printApplyTable();
    P.printDistributions();
    printTermTable(OS, F, Opts);
  }
  printMemoryProfile(OS, F, Opts);
  printOptimizerProfile(OS, F, Opts);
  if (Opts.Tips && !NoSamples)
    P.printTips(Machine);
}

void printSummary(raw_ostream &OS, const Profile &P,
                  const SummaryOptions &Opts) {
  if (P.Functions.empty()) {
    OS << "No function was profiled.\n";
    return;
  }
  for (const FunctionProfile &F : P.Functions)
    printFunctionSummary(OS, F, Opts, P.Machine);
  if (llvm::count_if(P.Functions, [](const FunctionProfile &F) {
        return F.InnerOf.empty();
      }) > 1)
    printFunctionSummary(OS, sumOfFunctions(P), Opts, P.Machine);
}

} // namespace graphjit
