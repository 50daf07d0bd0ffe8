//===- TraceRuntimeTest.cpp - Rings of Apply slices ----------------------===//
//
// The timeline's runtime: slices recorded only while a trace is on, each
// thread's ring keeping its last slices in order and counting what it
// dropped, threads apart, devices on tracks of their own, start() dropping
// what came before; and the writer's trace-event JSON read back.
//
//===----------------------------------------------------------------------===//

#include "link/profiling/TraceFile.h"
#include "runtime/TraceRuntime.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <thread>

using namespace graphjit;

namespace {

const gj_profile_apply Applies[] = {{0, "Add(x, y)", "t.graph:1", "C"},
                                    {2, "Mul(a, b)", "t.graph:3", "Py"}};
const gj_profile_desc Desc = {GRAPHJIT_RUNTIME_ABI_VERSION, 3, "gj_driver",
                              2, Applies, GJ_PROFILE_CLOCK_CALL};

TEST(TraceRuntime, RecordsOnlyWhileOn) {
  TraceRuntime::start(8);
  gj_trace_slice(&Desc, 0, 100, 150);
  TraceRuntime::stop();
  gj_trace_slice(&Desc, 2, 150, 180);
  std::vector<ThreadTrace> T = TraceRuntime::snapshot();
  ASSERT_EQ(1u, T.size());
  ASSERT_EQ(1u, T[0].Slices.size());
  EXPECT_EQ(0, T[0].Slices[0].Apply);
  EXPECT_EQ(100u, T[0].Slices[0].Start);
  EXPECT_EQ(150u, T[0].Slices[0].End);
  EXPECT_FALSE(TraceRuntime::active());
}

TEST(TraceRuntime, RingKeepsTheLastSlicesInOrder) {
  TraceRuntime::start(3);
  for (int I = 0; I < 7; ++I)
    gj_trace_slice(&Desc, I % 3, 10 * I, 10 * I + 5);
  std::vector<ThreadTrace> T = TraceRuntime::snapshot();
  ASSERT_EQ(1u, T.size());
  EXPECT_EQ(4u, T[0].Dropped);
  ASSERT_EQ(3u, T[0].Slices.size());
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(uint64_t(10 * (I + 4)), T[0].Slices[I].Start);
  // start() drops everything before it.
  TraceRuntime::start(3);
  EXPECT_TRUE(TraceRuntime::snapshot().empty());
  TraceRuntime::stop();
}

TEST(TraceRuntime, ThreadsHaveRingsOfTheirOwn) {
  TraceRuntime::start(1000);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([T] {
      for (int I = 0; I < 500; ++I)
        gj_trace_slice(&Desc, 0, 1000 * T + I, 1000 * T + I + 1);
    });
  for (std::thread &T : Threads)
    T.join();
  TraceRuntime::stop();
  std::vector<ThreadTrace> All = TraceRuntime::snapshot();
  ASSERT_EQ(4u, All.size());
  for (const ThreadTrace &T : All) {
    EXPECT_EQ(500u, T.Slices.size());
    EXPECT_EQ(0u, T.Dropped);
    for (size_t I = 1; I < T.Slices.size(); ++I)
      EXPECT_EQ(T.Slices[I - 1].Start + 1, T.Slices[I].Start);
  }
}

TEST(TraceRuntime, DevicesHaveTracksOfTheirOwn) {
  TraceRuntime::deviceSlice("GPU", &Desc, 0, 1, 2); // Off: nothing.
  TraceRuntime::start(2);
  gj_trace_slice(&Desc, 0, 100, 150);
  for (int I = 0; I < 3; ++I)
    TraceRuntime::deviceSlice("GPU", &Desc, 2, 10 * I, 10 * I + 5);
  TraceRuntime::deviceSlice("other GPU", &Desc, 0, 7, 8);
  TraceRuntime::stop();
  std::vector<ThreadTrace> T = TraceRuntime::snapshot();
  ASSERT_EQ(3u, T.size()); // The thread first, then the devices.
  EXPECT_EQ("", T[0].Device);
  EXPECT_EQ("GPU", T[1].Device);
  EXPECT_EQ(1u, T[1].Thread);
  EXPECT_EQ(1u, T[1].Dropped); // A ring of the trace's capacity.
  ASSERT_EQ(2u, T[1].Slices.size());
  EXPECT_EQ(10u, T[1].Slices[0].Start);
  EXPECT_EQ(25u, T[1].Slices[1].End);
  EXPECT_EQ("other GPU", T[2].Device);
  EXPECT_EQ(2u, T[2].Thread);
  EXPECT_TRUE(TraceRuntime::recorded(&Desc));
}

TEST(TraceFile, DeviceTracksAreProcessTwo) {
  std::vector<ThreadTrace> T(2);
  T[0].Thread = 1;
  T[0].Slices = {{&Desc, 2, 1000, 1100}};
  T[1].Thread = 1;
  T[1].Device = "NVIDIA H100";
  T[1].Slices = {{&Desc, 2, 1200, 1300}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeTraceEvents(OS, T);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(OS.str());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Array &Events = *V->getAsObject()->getArray("traceEvents");
  // Both processes' names, each track's name and slice.
  ASSERT_EQ(6u, Events.size());
  const llvm::json::Object &Track = *Events[4].getAsObject();
  EXPECT_EQ("thread_name", *Track.getString("name"));
  EXPECT_EQ(2, *Track.getInteger("pid"));
  EXPECT_EQ("NVIDIA H100", *Track.getObject("args")->getString("name"));
  const llvm::json::Object &OnDevice = *Events[5].getAsObject();
  EXPECT_EQ(2, *OnDevice.getInteger("pid"));
  EXPECT_EQ("device", *OnDevice.getString("cat"));
  EXPECT_EQ("C", *OnDevice.getObject("args")->getString("type"));
  EXPECT_DOUBLE_EQ(0.2, *OnDevice.getNumber("ts"));
  const llvm::json::Object &OnHost = *Events[3].getAsObject();
  EXPECT_EQ(1, *OnHost.getInteger("pid"));
  EXPECT_EQ("apply", *OnHost.getString("cat"));
  EXPECT_EQ("Py", *OnHost.getObject("args")->getString("type"));

  // Marked compiled (a GPU Apply, as the report counts it), its host
  // slice says C too.
  TraceRuntime::markCompiled(&Desc, {false, false, true});
  Text.clear();
  writeTraceEvents(OS, T);
  TraceRuntime::markCompiled(&Desc, {});
  V = llvm::json::parse(OS.str());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &Marked =
      *(*V->getAsObject()->getArray("traceEvents"))[3].getAsObject();
  EXPECT_EQ("C", *Marked.getObject("args")->getString("type"));
}

TEST(TraceFile, WritesTraceEvents) {
  TraceRuntime::nameFunction(&Desc, "train");
  // The call clock counts nanoseconds: 1,500 ns is 1.5 microseconds.
  std::vector<ThreadTrace> T(1);
  T[0].Thread = 1;
  T[0].Dropped = 2;
  T[0].Slices = {{&Desc, 0, 1000, 2500}, {&Desc, 2, 2500, 2600},
                 {&Desc, -1, 1000, 3000}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeTraceEvents(OS, T);
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(OS.str());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object &Top = *V->getAsObject();
  EXPECT_EQ(2, Top.getObject("otherData")->getInteger("dropped"));
  EXPECT_EQ(3, Top.getObject("otherData")->getInteger("slices"));
  const llvm::json::Array &Events = *Top.getArray("traceEvents");
  ASSERT_EQ(5u, Events.size()); // process and thread names, three slices
  const llvm::json::Object &Add = *Events[2].getAsObject();
  EXPECT_EQ("Add(x, y)", *Add.getString("name"));
  EXPECT_EQ("X", *Add.getString("ph"));
  EXPECT_DOUBLE_EQ(0.0, *Add.getNumber("ts"));
  EXPECT_DOUBLE_EQ(1.5, *Add.getNumber("dur"));
  EXPECT_EQ("C", *Add.getObject("args")->getString("type"));
  EXPECT_EQ("train", *Add.getObject("args")->getString("function"));
  const llvm::json::Object &Mul = *Events[3].getAsObject();
  EXPECT_EQ("Mul(a, b)", *Mul.getString("name"));
  EXPECT_DOUBLE_EQ(1.5, *Mul.getNumber("ts"));
  EXPECT_DOUBLE_EQ(0.1, *Mul.getNumber("dur"));
  const llvm::json::Object &Call = *Events[4].getAsObject();
  EXPECT_EQ("train (call)", *Call.getString("name"));
  EXPECT_EQ("call", *Call.getString("cat"));
  EXPECT_DOUBLE_EQ(2.0, *Call.getNumber("dur"));
}

} // namespace
