//===- graphjit-prof.cpp - Reports from profile JSON files ----------------===//
//
// graphjit-prof summary A.json      the report (Theano's summary())
// graphjit-prof merge A.json B.json the sum of runs, printed or -o OUT.json
// graphjit-prof diff A.json B.json  what changed from A to B
// graphjit-prof plot A.json -o A.html  the same as pictures (SVG in HTML)
//
// The files are the JSON export of a Profile (docs/profile-json.md); the
// report is explained in docs/profiling.md. Errors say which file and
// where, and exit with status 1.
//
//===----------------------------------------------------------------------===//
#include "ToolVersion.h"
#include "graphjit/Initialize.h"
#include "graphjit/Profile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace graphjit;

static cl::OptionCategory ProfCategory("graphjit-prof options");

static cl::SubCommand SummaryCmd("summary", "Print the report of a profile");
static cl::SubCommand
    MergeCmd("merge",
             "Sum runs of the same functions; print the report of the sum, "
             "or write it with -o");
static cl::SubCommand DiffCmd("diff",
                              "Print the differences from A.json to B.json");
static cl::SubCommand
    PlotCmd("plot", "Draw a profile as one HTML page of SVG charts: the "
                    "time by Op and by Apply, the time per call, the "
                    "memory over one call");

static cl::list<std::string> SummaryFiles(cl::Positional, cl::OneOrMore,
                                          cl::desc("<profile.json>"),
                                          cl::sub(SummaryCmd));
static cl::list<std::string> MergeFiles(cl::Positional, cl::OneOrMore,
                                        cl::desc("<profile.json>..."),
                                        cl::sub(MergeCmd));
static cl::list<std::string> DiffFiles(cl::Positional, cl::OneOrMore,
                                       cl::desc("<A.json> <B.json>"),
                                       cl::sub(DiffCmd));
static cl::list<std::string> PlotFiles(cl::Positional, cl::OneOrMore,
                                       cl::desc("<profile.json>"),
                                       cl::sub(PlotCmd));
static cl::opt<std::string> PlotOutput("o",
                                       cl::desc("Write the page here "
                                                "(default: stdout)"),
                                       cl::value_desc("OUT.html"),
                                       cl::sub(PlotCmd), cl::cat(ProfCategory));

static cl::opt<std::string> OutputFile("o", cl::desc("Write the sum as JSON"),
                                       cl::value_desc("OUT.json"),
                                       cl::sub(MergeCmd),
                                       cl::cat(ProfCategory));
static cl::opt<unsigned>
    NApply("n-apply", cl::desc("Apply rows to print (profiling__n_apply)"),
           cl::init(20), cl::sub(SummaryCmd), cl::sub(MergeCmd),
           cl::sub(DiffCmd), cl::sub(PlotCmd), cl::cat(ProfCategory));
static cl::opt<unsigned>
    NOps("n-ops", cl::desc("Class and Ops rows to print (profiling__n_ops)"),
         cl::init(20), cl::sub(SummaryCmd), cl::sub(MergeCmd), cl::sub(DiffCmd),
         cl::sub(PlotCmd), cl::cat(ProfCategory));
static cl::opt<double> BandwidthGBs(
    "bandwidth-gbs",
    cl::desc("The machine's memory bandwidth in GB/s, for the tips (default: "
             "the best GB/s in the profile)"),
    cl::init(0), cl::sub(SummaryCmd), cl::sub(MergeCmd), cl::cat(ProfCategory));
static cl::opt<bool> NoTips("no-tips", cl::desc("Leave the tips out"),
                            cl::sub(SummaryCmd), cl::sub(MergeCmd),
                            cl::cat(ProfCategory));
static cl::opt<bool> NoMemory("no-memory",
                              cl::desc("Leave the Memory Profile out"),
                              cl::sub(SummaryCmd), cl::sub(MergeCmd),
                              cl::cat(ProfCategory));
static cl::opt<bool> NoOptimizer("no-optimizer",
                                 cl::desc("Leave the Optimizer Profile out"),
                                 cl::sub(SummaryCmd), cl::sub(MergeCmd),
                                 cl::cat(ProfCategory));
static cl::opt<uint64_t> MinMemorySize(
    "min-memory-size",
    cl::desc("Memory Profile rows of Applies whose outputs take fewer bytes "
             "are only counted (profiling__min_memory_size)"),
    cl::init(1024), cl::sub(SummaryCmd), cl::sub(MergeCmd),
    cl::cat(ProfCategory));

static int fail(Error E) {
  WithColor::error(errs(), "graphjit-prof") << toString(std::move(E)) << "\n";
  return 1;
}

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "graphjit-prof") << Msg << "\n";
  return 1;
}

static SummaryOptions summaryOptions() {
  SummaryOptions Opts;
  Opts.NApply = NApply;
  Opts.NOps = NOps;
  Opts.BandwidthGBs = BandwidthGBs;
  Opts.Tips = !NoTips;
  Opts.Memory = !NoMemory;
  Opts.Optimizer = !NoOptimizer;
  Opts.MinMemorySize = MinMemorySize;
  return Opts;
}

/// Writes File through Write, keeping it only if all of it was written.
static int writeOutput(StringRef File, function_ref<void(raw_ostream &)> Write) {
  std::error_code EC;
  ToolOutputFile Out(File, EC, sys::fs::OF_Text);
  if (EC)
    return fail(File + ": cannot write: " + EC.message());
  Write(Out.os());
  Out.os().flush();
  if (Out.os().has_error())
    return fail(File + ": cannot write: " + Out.os().error().message());
  Out.keep();
  return 0;
}

static int runSummary() {
  if (SummaryFiles.size() != 1)
    return fail("summary takes one profile (to sum runs, use merge)");
  Expected<Profile> P = readProfileJSONFile(SummaryFiles[0]);
  if (!P)
    return fail(P.takeError());
  printSummary(outs(), *P, summaryOptions());
  return 0;
}

static int runMerge() {
  std::vector<Profile> Profiles;
  std::vector<std::string> Names;
  for (const std::string &File : MergeFiles) {
    Expected<Profile> P = readProfileJSONFile(File);
    if (!P)
      return fail(P.takeError());
    Profiles.push_back(std::move(*P));
    Names.push_back(File);
  }
  Expected<Profile> Sum = mergeProfiles(Profiles, Names);
  if (!Sum)
    return fail(Sum.takeError());
  if (OutputFile.empty()) {
    printSummary(outs(), *Sum, summaryOptions());
    return 0;
  }
  return writeOutput(OutputFile,
                     [&](raw_ostream &OS) { writeProfileJSON(OS, *Sum); });
}

static int runDiff() {
  if (DiffFiles.size() != 2)
    return fail("diff takes two profiles, A.json and B.json");
  Expected<Profile> A = readProfileJSONFile(DiffFiles[0]);
  if (!A)
    return fail(A.takeError());
  Expected<Profile> B = readProfileJSONFile(DiffFiles[1]);
  if (!B)
    return fail(B.takeError());
  printDiff(outs(), diffProfiles(*A, *B), DiffFiles[0], DiffFiles[1],
            summaryOptions());
  return 0;
}

static int runPlot() {
  if (PlotFiles.size() != 1)
    return fail("plot takes one profile (to sum runs, merge them first)");
  Expected<Profile> P = readProfileJSONFile(PlotFiles[0]);
  if (!P)
    return fail(P.takeError());
  auto Write = [&](raw_ostream &OS) {
    writeProfileHTML(OS, *P, summaryOptions());
  };
  if (PlotOutput.empty()) {
    Write(outs());
    return 0;
  }
  return writeOutput(PlotOutput, Write);
}

int main(int argc, char **argv) {
  graphjit::initialize();
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(ProfCategory);
  setToolVersionPrinter("graphjit-prof");
  cl::ParseCommandLineOptions(
      argc, argv,
      "graphjit-prof: reports from graphjit profiles (JSON)\n\n"
      "  graphjit-prof summary A.json [-n-apply=N] [-n-ops=N] "
      "[-min-memory-size=BYTES]\n"
      "                        [-no-memory] [-no-optimizer] [-no-tips]\n"
      "  graphjit-prof merge A.json B.json ... [-o OUT.json]\n"
      "  graphjit-prof diff A.json B.json\n"
      "  graphjit-prof plot A.json [-o OUT.html] [-n-apply=N] [-n-ops=N]\n");
  if (SummaryCmd)
    return runSummary();
  if (MergeCmd)
    return runMerge();
  if (DiffCmd)
    return runDiff();
  if (PlotCmd)
    return runPlot();
  return fail(
      "expected a subcommand: summary, merge, diff or plot (see -help)");
}
