//===- ProfileBindings.cpp - Profiles for Python --------------------------===//
//
// A profile crosses to Python as its JSON (docs/profile-json.md), the form
// that already holds every fact the report prints: Python reads it as plain
// data (graphjit.Profile, python/graphjit/profile.py), and hands it back
// here to be printed, merged or diffed by the same code as graphjit-prof.
//
//===----------------------------------------------------------------------===//
#include "Errors.h"
#include "NativeModule.h"
#include "ProfileHandle.h"
#include "graphjit/Flags.h"
#include "graphjit/Profile.h"
#include "graphjit/ProfileStats.h"
#include "llvm/Support/raw_ostream.h"
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using namespace graphjit;
using namespace graphjit::python;

static std::string toJSON(const Profile &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeProfileJSON(OS, P);
  return S;
}

static Profile fromJSON(const std::string &Text, const std::string &Name) {
  return unwrap(readProfileJSON(Text, Name), ErrorKind::Value);
}

static SummaryOptions summaryOptions(unsigned NApply, unsigned NOps,
                                     bool Tips, bool TensorLines,
                                     bool Memory, uint64_t MinMemorySize,
                                     bool Optimizer) {
  SummaryOptions O;
  O.NApply = NApply;
  O.NOps = NOps;
  O.Tips = Tips;
  O.TensorLines = TensorLines;
  O.Memory = Memory;
  O.MinMemorySize = MinMemorySize;
  O.Optimizer = Optimizer;
  return O;
}

#define GRAPHJIT_SUMMARY_ARGS                                                  \
  "n_apply"_a = 20, "n_ops"_a = 20, "tips"_a = true,                           \
  "tensor_lines"_a = true, "memory"_a = true, "min_memory_size"_a = 1024,      \
  "optimizer"_a = true

void graphjit::python::bindProfiles(nb::module_ &M) {
  nb::class_<ProfileHandle>(
      M, "ProfileStats",
      "Where profiled functions report (Theano's ProfileStats). Hand one "
      "to several functions (profile=stats) for their combined report.")
      .def(
          "__init__",
          [](ProfileHandle *H, const std::string &Name) {
            new (H) ProfileHandle{std::make_shared<ProfileStats>(Name), Name};
          },
          "name"_a = "")
      .def_ro("name", &ProfileHandle::Name)
      .def(
          "to_json",
          [](const ProfileHandle &H) { return toJSON(H.Stats->profile()); },
          "The profile as it stands now, as graphjit's profile JSON.")
      .def(
          "summary_text",
          [](const ProfileHandle &H, unsigned NApply, unsigned NOps, bool Tips,
             bool TensorLines, bool Memory, uint64_t MinMem, bool Opt) {
            std::string S;
            llvm::raw_string_ostream OS(S);
            H.Stats->summary(OS, summaryOptions(NApply, NOps, Tips,
                                                TensorLines, Memory, MinMem,
                                                Opt));
            return S;
          },
          GRAPHJIT_SUMMARY_ARGS);

  M.def(
      "start_trace",
      [](const std::string &Path, unsigned Events) {
        if (Path.empty())
          throw nb::value_error("trace: the file name is empty");
        Flags Fl = unwrap(processFlags());
        Fl.ProfilingTrace = Path;
        Fl.ProfilingTraceEvents = Events;
        setProcessFlags(Fl);
      },
      "path"_a, "events"_a,
      "Sets profiling__trace (and profiling__trace_events): the functions "
      "compiled from now on record the timeline, written at exit or by "
      "write_trace().");
  M.def(
      "write_trace", [] { check(writeProcessTrace()); },
      "Writes the timeline now (once); nothing if none was asked for.");
  M.def(
      "profile_summary",
      [](const std::string &JSON, unsigned NApply, unsigned NOps, bool Tips,
         bool TensorLines, bool Memory, uint64_t MinMem, bool Opt) {
        Profile P = fromJSON(JSON, "<profile>");
        std::string S;
        llvm::raw_string_ostream OS(S);
        printSummary(OS, P, summaryOptions(NApply, NOps, Tips, TensorLines,
                                           Memory, MinMem, Opt));
        return S;
      },
      "json"_a, GRAPHJIT_SUMMARY_ARGS,
      "The report of a profile given as JSON: graphjit-prof summary.");
  M.def(
      "profile_normalize",
      [](const std::string &JSON, const std::string &Name) {
        return toJSON(fromJSON(JSON, Name));
      },
      "json"_a, "name"_a = "<profile>",
      "Reads a profile JSON of any version and writes it in this one; a "
      "ValueError names the file and the JSON path of what is wrong.");
  M.def(
      "profile_merge",
      [](const std::vector<std::string> &JSONs,
         const std::vector<std::string> &Names) {
        std::vector<Profile> Ps;
        for (size_t I = 0; I < JSONs.size(); ++I)
          Ps.push_back(fromJSON(JSONs[I], I < Names.size() ? Names[I]
                                                           : "<profile>"));
        return toJSON(unwrap(mergeProfiles(Ps, Names), ErrorKind::Value));
      },
      "jsons"_a, "names"_a = std::vector<std::string>(),
      "Sums runs of the same functions: graphjit-prof merge.");
  M.def(
      "profile_diff",
      [](const std::string &A, const std::string &B, const std::string &NameA,
         const std::string &NameB, unsigned NApply) {
        ProfileDiff D = diffProfiles(fromJSON(A, NameA), fromJSON(B, NameB));
        SummaryOptions O;
        O.NApply = NApply;
        O.NOps = NApply;
        std::string S;
        llvm::raw_string_ostream OS(S);
        printDiff(OS, D, NameA, NameB, O);
        return S;
      },
      "a"_a, "b"_a, "name_a"_a = "A", "name_b"_a = "B", "n_rows"_a = 20,
      "What changed from A to B: graphjit-prof diff.");
  M.def(
      "profile_html",
      [](const std::string &JSON, unsigned NApply, unsigned NOps) {
        SummaryOptions O;
        O.NApply = NApply;
        O.NOps = NOps;
        std::string S;
        llvm::raw_string_ostream OS(S);
        writeProfileHTML(OS, fromJSON(JSON, "<profile>"), O);
        return S;
      },
      "json"_a, "n_apply"_a = 20, "n_ops"_a = 20,
      "The profile as an HTML page of SVG charts: graphjit-prof plot.");
}
