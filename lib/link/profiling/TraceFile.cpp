//===- TraceFile.cpp - The process's timeline, in a file ------------------===//

#include "link/profiling/TraceFile.h"
#include "graphjit/ProfileStats.h"
#include "jit/JitEngine.h"
#include "runtime/Clock.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>

using namespace graphjit;

namespace {

std::mutex TraceLock;
std::string TracePath; // Set once the trace is on.
std::atomic<bool> Written{false};

void writeAtExit() {
  if (llvm::Error E = writeProcessTrace())
    llvm::errs() << "graphjit: error: " << llvm::toString(std::move(E))
                 << "\n";
}

/// A descriptor's Applies by id.
const gj_profile_apply *findApply(const gj_profile_desc &D, int32_t Id) {
  const gj_profile_apply *End = D.applies + D.num_applies;
  const gj_profile_apply *It = std::lower_bound(
      D.applies, End, Id,
      [](const gj_profile_apply &A, int32_t Id) { return A.id < Id; });
  return It != End && It->id == Id ? It : nullptr;
}

} // namespace

void graphjit::startProcessTrace(const Flags &Fl) {
  std::lock_guard<std::mutex> Guard(TraceLock);
  // Once per process, and only for a file: a second start would drop
  // what the first recorded.
  if (!TracePath.empty() || Fl.ProfilingTrace.empty())
    return;
  TracePath = Fl.ProfilingTrace;
  // The clock is calibrated before the first call, not during it.
  ProfileClock::get();
  TraceRuntime::start(Fl.ProfilingTraceEvents);
  // The file is written from the descriptors in JIT code: the engine must
  // outlive the handler, so it is made first (exit runs the handlers and
  // static destructors in reverse order).
  llvm::consumeError(JitEngine::get().takeError());
  std::atexit(writeAtExit);
}

void graphjit::writeTraceEvents(llvm::raw_ostream &OS,
                                const std::vector<ThreadTrace> &Threads) {
  const ProfileClock &Clock = ProfileClock::get();
  // Time zero: the first slice's start, per clock (a module instrumented
  // elsewhere may read the other one).
  llvm::DenseMap<uint32_t, uint64_t> Zero;
  uint64_t Dropped = 0, Slices = 0, Samples = 0;
  for (const ThreadTrace &T : Threads) {
    Dropped += T.Dropped;
    for (const TraceSlice &S : T.Slices) {
      ++(S.Apply == GJ_TRACE_LIVE_BYTES ? Samples : Slices);
      auto [It, New] = Zero.try_emplace(S.Desc->clock, S.Start);
      if (!New)
        It->second = std::min(It->second, S.Start);
    }
  }
  // A copy: a later insertion may move the map's strings.
  llvm::DenseMap<const gj_profile_desc *, std::string> Names;
  auto NameOf = [&](const gj_profile_desc *D) -> std::string {
    auto [It, New] = Names.try_emplace(D);
    if (New)
      It->second = TraceRuntime::functionName(D);
    return It->second;
  };
  // The type each Apply has in the report ("C" for a GPU Apply, which the
  // descriptor calls "Py": the host reaches its kernels through
  // gj_perform).
  llvm::DenseMap<const gj_profile_desc *, std::vector<bool>> CompiledOf;
  auto TypeOf = [&](const gj_profile_desc *D,
                    const gj_profile_apply &A) -> std::string {
    auto [It, New] = CompiledOf.try_emplace(D);
    if (New)
      It->second = TraceRuntime::compiledApplies(D);
    return A.id >= 0 && size_t(A.id) < It->second.size() && It->second[A.id]
               ? "C"
               : A.kind;
  };
  auto Micros = [&](uint64_t Ticks, uint32_t C) {
    return Clock.seconds(Ticks, C) * 1e6;
  };

  llvm::json::OStream J(OS);
  J.objectBegin();
  J.attribute("displayTimeUnit", "ns");
  J.attributeBegin("otherData");
  J.objectBegin();
  J.attribute("producer", "graphjit");
  J.attribute("clock", Clock.clockName());
  J.attribute("slices", int64_t(Slices));
  J.attribute("samples", int64_t(Samples));
  J.attribute("dropped", int64_t(Dropped));
  J.objectEnd();
  J.attributeEnd();
  J.attributeBegin("traceEvents");
  J.arrayBegin();
  // The host's threads are process 1; the devices' tracks process 2.
  auto ProcessName = [&](int Pid, const char *Name) {
    J.object([&] {
      J.attribute("ph", "M");
      J.attribute("name", "process_name");
      J.attribute("pid", Pid);
      J.attributeObject("args", [&] { J.attribute("name", Name); });
    });
  };
  ProcessName(1, "graphjit");
  if (llvm::any_of(Threads, [](const ThreadTrace &T) { return !T.Device.empty(); }))
    ProcessName(2, "devices");
  for (const ThreadTrace &T : Threads) {
    const bool OnDevice = !T.Device.empty();
    const int Pid = OnDevice ? 2 : 1;
    J.object([&] {
      J.attribute("ph", "M");
      J.attribute("name", "thread_name");
      J.attribute("pid", Pid);
      J.attribute("tid", T.Thread);
      J.attributeObject("args", [&] {
        std::string Host = "thread " + std::to_string(T.Thread);
        if (!T.Name.empty())
          Host += " (" + T.Name + ")";
        J.attribute("name", OnDevice ? T.Device : Host);
      });
    });
    for (const TraceSlice &S : T.Slices) {
      uint32_t C = S.Desc->clock;
      // Microseconds with nanoseconds in the decimals.
      auto Ts = [&](uint64_t Ticks) {
        return std::round(Micros(Ticks, C) * 1e3) / 1e3;
      };
      if (S.Apply == GJ_TRACE_LIVE_BYTES) {
        // A counter track per function: its live bytes after each Apply.
        J.object([&] {
          J.attribute("ph", "C");
          J.attribute("name", NameOf(S.Desc) + " live bytes");
          J.attribute("pid", 1);
          J.attribute("ts", Ts(S.Start - Zero[C]));
          J.attributeObject("args",
                            [&] { J.attribute("bytes", int64_t(S.End)); });
        });
        continue;
      }
      const gj_profile_apply *A =
          S.Apply >= 0 ? findApply(*S.Desc, S.Apply) : nullptr;
      J.object([&] {
        J.attribute("ph", "X");
        J.attribute("name", A ? std::string(A->name)
                              : NameOf(S.Desc) + " (call)");
        // Transfers between host and device are marked; on a device's
        // track the rest is the device's work.
        llvm::StringRef Name = A ? llvm::StringRef(A->name) : llvm::StringRef();
        J.attribute("cat", !A ? "call"
                           : Name.starts_with("GpuFromHost(") ||
                                     Name.starts_with("HostFromGpu(")
                               ? "transfer"
                           : OnDevice ? "device"
                                      : "apply");
        J.attribute("pid", Pid);
        J.attribute("tid", T.Thread);
        J.attribute("ts", Ts(S.Start - Zero[C]));
        J.attribute("dur", Ts(S.End - S.Start));
        J.attributeObject("args", [&] {
          J.attribute("function", NameOf(S.Desc));
          if (A) {
            J.attribute("id", A->id);
            J.attribute("loc", A->loc);
            J.attribute("type", OnDevice ? std::string("C")
                                         : TypeOf(S.Desc, *A));
          }
        });
      });
    }
  }
  J.arrayEnd();
  J.attributeEnd();
  J.objectEnd();
  OS << "\n";
}

llvm::Error graphjit::writeProcessTrace() {
  std::string Path;
  {
    std::lock_guard<std::mutex> Guard(TraceLock);
    Path = TracePath;
  }
  if (Path.empty() || Written.exchange(true))
    return llvm::Error::success();
  TraceRuntime::stop();
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC)
    return llvm::createStringError("cannot write the trace '" + Path +
                                   "': " + EC.message());
  writeTraceEvents(OS, TraceRuntime::snapshot());
  OS.close();
  if (OS.has_error()) {
    OS.clear_error();
    return llvm::createStringError("cannot write the trace '" + Path + "'");
  }
  return llvm::Error::success();
}
