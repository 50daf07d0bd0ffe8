//===- ProfileExport.cpp - Any instrumented program's profile ------------===//

#include "runtime/ProfileExport.h"
#include "runtime/Clock.h"
#include "runtime/ProfileRuntime.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

using namespace graphjit;

namespace {

/// "Elemwise{add,no_inplace}" of "Elemwise{add,no_inplace}(x, y)", and
/// its class "Elemwise", as the report groups them.
llvm::StringRef opOf(llvm::StringRef Name) { return Name.split('(').first; }
llvm::StringRef classOf(llvm::StringRef Op) { return Op.split('{').first; }

void writeFunction(llvm::json::OStream &J, const gj_profile_desc &D) {
  const ProfileClock &Clock = ProfileClock::get();
  ProfileTotals T = ProfileRuntime::totals(D);
  // Sampled ticks include none of the instrumentation's cost.
  double OverheadNs =
      gj_profile_clock_is_sampled(D.clock) ? 0 : Clock.overheadNsPerApply();
  double Overhead = OverheadNs * 1e-9;
  double CallSeconds = Clock.seconds(T.DriverTicks, D.clock);
  J.object([&] {
    J.attribute("name", D.function);
    J.attribute("calls", T.Calls);
    J.attribute("call_seconds", CallSeconds);
    J.attribute("driver_seconds", CallSeconds);
    J.attribute("clock", Clock.clockName(D.clock));
    J.attribute("instrumentation_ns_per_apply", OverheadNs);
    J.attributeArray("applies", [&] {
      for (uint32_t I = 0; I < D.num_applies; ++I) {
        const gj_profile_apply &A = D.applies[I];
        gj_apply_counter C{0, 0};
        if (A.id >= 0 && size_t(A.id) < T.Applies.size())
          C = T.Applies[A.id];
        llvm::StringRef Name = A.name ? A.name : "";
        J.object([&] {
          J.attribute("id", int64_t(A.id));
          J.attribute("name", Name);
          J.attribute("op", opOf(Name));
          J.attribute("op_class", classOf(opOf(Name)));
          J.attribute("loc", A.loc ? A.loc : "");
          J.attribute("type",
                      llvm::StringRef(A.kind ? A.kind : "") == "Py" ? "Py"
                                                                      : "C");
          J.attribute("calls", C.calls);
          J.attribute("seconds",
                      std::max(0.0, Clock.seconds(C.ticks, D.clock) -
                                        Overhead * double(C.calls)));
        });
      }
    });
  });
}

void writeAtExit() {
  const char *Path = std::getenv("GRAPHJIT_PROFILE_JSON");
  if (!Path || !*Path)
    return;
  if (llvm::Error E = writeRuntimeProfile(Path))
    std::fprintf(stderr, "graphjit: GRAPHJIT_PROFILE_JSON: %s\n",
                 llvm::toString(std::move(E)).c_str());
}

} // namespace

void graphjit::writeRuntimeProfile(llvm::raw_ostream &OS) {
  llvm::json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("graphjit_profile", 3);
    J.attribute("machine", "");
    J.attributeArray("functions", [&] {
      for (const gj_profile_desc *D : ProfileRuntime::descriptors())
        writeFunction(J, *D);
    });
  });
  OS << "\n";
}

llvm::Error graphjit::writeRuntimeProfile(llvm::StringRef Path) {
  // Through a temporary file: a program that fails half way leaves no
  // half a profile. Its error names the file: "'p.json': why".
  if (llvm::Error E = llvm::writeToOutput(Path, [](llvm::raw_ostream &OS) {
        writeRuntimeProfile(OS);
        return llvm::Error::success();
      }))
    return llvm::createStringError("cannot write " +
                                   llvm::toString(std::move(E)));
  return llvm::Error::success();
}

void graphjit::arrangeProfileAtExit() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    const char *Path = std::getenv("GRAPHJIT_PROFILE_JSON");
    if (Path && *Path)
      std::atexit(writeAtExit);
  });
}

extern "C" int32_t gj_profile_write(const char *Path) {
  if (!Path || !*Path)
    return 1;
  if (llvm::Error E = writeRuntimeProfile(Path)) {
    std::fprintf(stderr, "graphjit: gj_profile_write: %s\n",
                 llvm::toString(std::move(E)).c_str());
    return 1;
  }
  return 0;
}
