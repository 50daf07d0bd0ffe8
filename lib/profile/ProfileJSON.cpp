//===- profile/ProfileJSON.cpp - Profiles as JSON -------------------------===//
//
// The versioned JSON form of a Profile (docs/profile-json.md); files of
// version 1, before the memory profile, and of version 2, before the
// optimizer profile and provenance, are still read. The reader (LLVM's
// json::ObjectMapper) checks everything and names the file and the JSON
// path of the first problem ("a.json: functions[0].applies[3].calls:
// expected an integer >= 0"), so that a bad file is a message, never a
// crash or a wrong report.
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include <cmath>
#include <limits>

using namespace llvm;

namespace graphjit {

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// JSON has no NaN or infinity; the model never holds them, but a writer
/// must not produce unreadable files if it ever does.
double finite(double D) { return std::isfinite(D) ? D : 0; }

void writeIntegers(json::OStream &J, StringRef Key, ArrayRef<int64_t> Ns) {
  J.attributeArray(Key, [&] {
    for (int64_t N : Ns)
      J.value(N);
  });
}

void writeVarIds(json::OStream &J, StringRef Key, ArrayRef<int> Ids) {
  J.attributeArray(Key, [&] {
    for (int V : Ids)
      J.value(int64_t(V));
  });
}

void writeTensors(json::OStream &J, StringRef Key,
                  ArrayRef<TensorInfo> Tensors) {
  J.attributeArray(Key, [&] {
    for (const TensorInfo &T : Tensors)
      J.object([&] {
        J.attribute("dtype", T.DType);
        writeIntegers(J, "shape", T.Shape);
        writeIntegers(J, "strides", T.Strides);
      });
  });
}

/// An Apply's memory fields: all of them when its function recorded
/// memory, else only those that hold something (none, in practice).
void writeApplyMemory(json::OStream &J, const ApplyProfile &A, bool All) {
  if (All || !A.InputVars.empty())
    writeVarIds(J, "input_vars", A.InputVars);
  if (All || !A.OutputMem.empty())
    J.attributeArray("outputs_memory", [&] {
      for (const OutputMemory &O : A.OutputMem)
        J.object([&] {
          J.attribute("var", int64_t(O.Var));
          J.attribute("kind", O.Kind);
          J.attribute("input", int64_t(O.Input));
          J.attribute("bytes", O.Bytes);
          writeIntegers(J, "shape", O.Shape);
          J.attribute("allocated", O.Allocated);
          if (O.Storage >= 0)
            J.attribute("storage", int64_t(O.Storage));
        });
    });
  if (All || A.AllocatedBytes)
    J.attribute("allocated_bytes", A.AllocatedBytes);
  if (All || A.Allocations)
    J.attribute("allocations", A.Allocations);
}

void writeStrings(json::OStream &J, StringRef Key,
                  ArrayRef<std::string> Strings) {
  J.attributeArray(Key, [&] {
    for (const std::string &S : Strings)
      J.value(S);
  });
}

void writeOptimizer(json::OStream &J, const OptimizerProfile &O) {
  J.attributeObject("optimizer", [&] {
    J.attribute("recorded", O.Recorded);
    J.attribute("name", O.Name);
    J.attribute("excluding", O.Excluding);
    J.attribute("including", O.Including);
    J.attribute("runs", O.Runs);
    J.attribute("seconds", finite(O.Seconds));
    J.attribute("validate_seconds", finite(O.ValidateSeconds));
    J.attribute("nodes_before", O.NodesBefore);
    J.attribute("nodes_after", O.NodesAfter);
    J.attributeArray("phases", [&] {
      for (const RewritePhaseProfile &P : O.Phases)
        J.object([&] {
          J.attribute("name", P.Name);
          J.attribute("seconds", finite(P.Seconds));
          J.attribute("nodes_before", P.NodesBefore);
          J.attribute("nodes_after", P.NodesAfter);
          J.attribute("visits", P.Visits);
          J.attribute("budget_exhausted", P.BudgetExhausted);
        });
    });
    J.attributeArray("rewrites", [&] {
      for (const RewriteProfile &R : O.Rewrites)
        J.object([&] {
          J.attribute("name", R.Name);
          writeStrings(J, "tags", R.Tags);
          J.attribute("seconds", finite(R.Seconds));
          J.attribute("applied", R.Applied);
          J.attribute("nodes_before", R.NodesBefore);
          J.attribute("nodes_after", R.NodesAfter);
          J.attribute("nodes_created", R.NodesCreated);
        });
    });
  });
}

void writeMemory(json::OStream &J, const FunctionMemory &M) {
  J.attributeObject("memory", [&] {
    J.attribute("recorded", M.Recorded);
    J.attribute("allow_gc", M.AllowGC);
    writeVarIds(J, "kept_vars", M.KeptVars);
    J.attribute("measured_peak", M.MeasuredPeak);
    J.attribute("calls", M.Calls);
    J.attribute("allocations", M.Allocations);
  });
}

/// TimeDistribution's figures by their JSON keys.
constexpr std::pair<StringLiteral, double TimeDistribution::*>
    DistributionFields[] = {{"min", &TimeDistribution::Min},
                            {"p25", &TimeDistribution::P25},
                            {"median", &TimeDistribution::Median},
                            {"p75", &TimeDistribution::P75},
                            {"p90", &TimeDistribution::P90},
                            {"max", &TimeDistribution::Max}};

void writeApply(json::OStream &J, const ApplyProfile &A, bool WithMemory) {
  J.object([&] {
    J.attribute("id", int64_t(A.Id));
    J.attribute("name", A.Name);
    J.attribute("op", A.Op);
    J.attribute("op_class", A.OpClass);
    J.attribute("loc", A.Loc);
    J.attribute("type", A.type());
    J.attribute("calls", A.Calls);
    J.attribute("seconds", finite(A.Seconds));
    J.attribute("flops_per_call", finite(A.FlopsPerCall));
    J.attribute("bytes_per_call", finite(A.BytesPerCall));
    writeTensors(J, "inputs", A.Inputs);
    writeTensors(J, "outputs", A.Outputs);
    // Provenance only for rewritten Applies.
    if (!A.Rewrites.empty())
      writeStrings(J, "rewrites", A.Rewrites);
    if (!A.SourceLocs.empty())
      writeStrings(J, "source_locs", A.SourceLocs);
    if (A.OnDevice)
      J.attribute("on_device", true);
    if (!A.Terms.empty())
      writeStrings(J, "terms", A.Terms);
    if (A.Gradient)
      J.attribute("gradient", true);
    if (A.FirstCallSeconds)
      J.attribute("first_call_seconds", finite(*A.FirstCallSeconds));
    if (const std::optional<TimeDistribution> &D = A.Distribution)
      J.attributeObject("distribution", [&] {
        J.attribute("calls", D->Calls);
        for (auto [Key, Field] : DistributionFields)
          J.attribute(Key, finite((*D).*Field));
        J.attributeArray("buckets", [&] {
          for (const TimeBucket &B : D->Buckets)
            J.array([&] {
              J.value(finite(B.Lower));
              J.value(finite(B.Upper));
              J.value(B.Count);
            });
        });
        if (!D->RunMedians.empty())
          J.attributeArray("run_medians", [&] {
            for (double M : D->RunMedians)
              J.value(finite(M));
          });
      });
    writeApplyMemory(J, A, WithMemory);
  });
}

void writeFunction(json::OStream &J, const FunctionProfile &F) {
  J.object([&] {
    J.attribute("name", F.Name);
    J.attribute("file", F.File);
    J.attribute("calls", F.Calls);
    J.attribute("call_seconds", finite(F.CallSeconds));
    if (F.FirstCallSeconds) {
      J.attribute("first_call_seconds", finite(*F.FirstCallSeconds));
      J.attribute("first_call_in_totals", F.FirstCallInTotals);
    }
    J.attribute("driver_seconds", finite(F.DriverSeconds));
    J.attributeObject("compile", [&] {
      for (unsigned I = 0; I < NumCompileSteps; ++I)
        J.attribute(compileStepName(CompileStep(I)),
                    finite(F.Compile.of(CompileStep(I))));
      J.attribute("validate", finite(F.Compile.Validate));
      J.attribute("cached", F.Compile.Cached);
      if (F.Compile.PartThreads)
        J.attribute("part_threads", int64_t(F.Compile.PartThreads));
      if (!F.Compile.Host.empty())
        J.attributeArray("host", [&] {
          for (const auto &[Name, Seconds] : F.Compile.Host)
            J.object([&] {
              J.attribute("step", Name);
              J.attribute("seconds", finite(Seconds));
            });
        });
    });
    if (!F.InnerOf.empty())
      J.attribute("inner_of", F.InnerOf);
    J.attribute("linker", F.Linker);
    J.attribute("clock", F.Clock);
    J.attribute("instrumentation_ns_per_apply",
                finite(F.InstrumentationNsPerApply));
    // The GPU path's, only where a device ran.
    if (!F.Device.empty()) {
      J.attribute("device", F.Device);
      writeStrings(J, "host_only", F.HostOnly);
      J.attribute("gpu_peak_bytes", F.GpuPeakBytes);
      J.attribute("gpu_peak_reserved_bytes", F.GpuPeakReservedBytes);
    }
    // Memory is left out of functions that did not record it.
    bool WithMemory = !(F.Memory == FunctionMemory());
    if (WithMemory)
      writeMemory(J, F.Memory);
    // So is the optimizer, where profile_optimizer was off.
    if (!(F.Optimizer == OptimizerProfile()))
      writeOptimizer(J, F.Optimizer);
    J.attributeArray("applies", [&] {
      for (const ApplyProfile &A : F.Applies)
        writeApply(J, A, WithMemory);
    });
  });
}

} // namespace

void writeProfileJSON(raw_ostream &OS, const Profile &P) {
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("graphjit_profile", int64_t(ProfileJSONVersion));
    J.attribute("machine", P.Machine);
    J.attributeArray("functions", [&] {
      for (const FunctionProfile &F : P.Functions)
        writeFunction(J, F);
    });
  });
  OS << "\n";
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//
//
// One fromJSON per struct, on json::ObjectMapper, mapping the members in
// order: the first problem ends the read, and json::Path says where it is.
// json's own fromJSON reads strings, booleans, counts (uint64_t) and
// dims (int64_t); the few scalars it cannot check are read by functions of
// the same signature, through mapWith.

namespace {

/// fromJSON's signature, for the readers json's own fromJSON cannot be.
template <typename T>
using ReadFn = bool (*)(const json::Value &, T &, json::Path);

bool fail(json::Path P, StringLiteral Problem) {
  P.report(Problem);
  return false;
}

/// json::Path::report keeps string literals only; a problem that quotes
/// the file ("not \"Cuda\"") is kept here, on the reading thread, and
/// reported as QuotedMark.
thread_local std::string Quoted;
constexpr StringLiteral QuotedMark = "(quoted)";

bool failQuoting(json::Path P, const Twine &Problem) {
  Quoted = Problem.str();
  return fail(P, QuotedMark);
}

/// Every double in a profile is a time, a rate or a size: finite, >= 0.
bool readSeconds(const json::Value &V, double &Out, json::Path P) {
  std::optional<double> D = V.getAsNumber();
  if (!D)
    return fail(P, "expected a number");
  if (!std::isfinite(*D) || *D < 0)
    return fail(P, "expected a finite number >= 0");
  Out = *D;
  return true;
}

/// json's fromJSON(int) would truncate what does not fit.
bool readInt32(const json::Value &V, int &Out, json::Path P) {
  std::optional<int64_t> N = V.getAsInteger();
  if (!N || *N < std::numeric_limits<int>::min() ||
      *N > std::numeric_limits<int>::max())
    return fail(P, "expected a 32-bit integer");
  Out = int(*N);
  return true;
}

/// Ids and thread counts, held in an unsigned.
bool readUInt32(const json::Value &V, unsigned &Out, json::Path P) {
  uint64_t N = 0;
  if (!json::fromJSON(V, N, P))
    return false;
  if (N > std::numeric_limits<unsigned>::max())
    return fail(P, "expected an integer below 2^32");
  Out = unsigned(N);
  return true;
}

/// "C" (JIT code) or "Py" (run through perform).
bool readType(const json::Value &V, bool &Compiled, json::Path P) {
  std::string Type;
  if (!json::fromJSON(V, Type, P))
    return false;
  if (Type != "C" && Type != "Py")
    return failQuoting(P, "expected \"C\" or \"Py\", not \"" + Type + "\"");
  Compiled = Type == "C";
  return true;
}

/// How an output got its buffer.
bool readKind(const json::Value &V, std::string &Kind, json::Path P) {
  if (!json::fromJSON(V, Kind, P))
    return false;
  if (Kind != "created" && Kind != "view" && Kind != "inplace")
    return failQuoting(P, "expected \"created\", \"view\" or \"inplace\", "
                          "not \"" +
                              Kind + "\"");
  return true;
}

bool readStorage(const json::Value &V, int &Out, json::Path P) {
  return readInt32(V, Out, P) &&
         (Out >= -1 || fail(P, "expected a storage number, or -1 for none"));
}

/// An array, each element read by Read.
template <typename T, ReadFn<T> Read>
bool readEach(const json::Value &V, std::vector<T> &Out, json::Path P) {
  const json::Array *A = V.getAsArray();
  if (!A)
    return fail(P, "expected an array");
  Out.assign(A->size(), T());
  for (size_t I = 0; I < A->size(); ++I)
    if (!Read((*A)[I], Out[I], P.index(I)))
      return false;
  return true;
}

/// An optional member that must be a T where present: json's fromJSON
/// for std::optional would take null too.
template <typename T, ReadFn<T> Read>
bool readSome(const json::Value &V, std::optional<T> &Out, json::Path P) {
  T X{};
  if (!Read(V, X, P))
    return false;
  Out = std::move(X);
  return true;
}

/// A member read by Read, for json::ObjectMapper, which finds the
/// fromJSON below by argument-dependent lookup.
template <typename T> struct ReadWith {
  T &Out;
  ReadFn<T> Read;
};

template <typename T>
bool fromJSON(const json::Value &V, ReadWith<T> &W, json::Path P) {
  return W.Read(V, W.Out, P);
}

template <typename T>
bool mapWith(json::ObjectMapper &O, StringLiteral Key, T &Out, ReadFn<T> Read) {
  ReadWith<T> W{Out, Read};
  return O.map(Key, W);
}

template <typename T>
bool mapOptionalWith(json::ObjectMapper &O, StringLiteral Key, T &Out,
                     ReadFn<T> Read) {
  ReadWith<T> W{Out, Read};
  return O.mapOptional(Key, W);
}

/// A host's compile step: {"step": NAME, "seconds": S}.
bool readHostStep(const json::Value &V, std::pair<std::string, double> &S,
                  json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("step", S.first) &&
         mapWith(O, "seconds", S.second, readSeconds);
}

} // namespace

// The structs' fromJSON: static, but in graphjit's namespace, where
// argument-dependent lookup finds them from json::ObjectMapper.

static bool fromJSON(const json::Value &V, TensorInfo &T, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!(O && O.map("dtype", T.DType) && O.map("shape", T.Shape) &&
        O.map("strides", T.Strides)))
    return false;
  if (T.Strides.size() != T.Shape.size())
    return failQuoting(P.field("strides"),
                       "expected as many strides as dims (" +
                           Twine(T.Shape.size()) + ")");
  return true;
}

/// [lower seconds, upper seconds, count].
static bool fromJSON(const json::Value &V, TimeBucket &B, json::Path P) {
  const json::Array *A = V.getAsArray();
  std::optional<double> Lo, Hi;
  std::optional<uint64_t> N;
  if (A && A->size() == 3) {
    Lo = (*A)[0].getAsNumber();
    Hi = (*A)[1].getAsNumber();
    N = (*A)[2].getAsUINT64();
  }
  if (!Lo || !Hi || !N || !(*Lo >= 0) || !(*Hi >= *Lo) || !std::isfinite(*Hi))
    return fail(P, "expected [lower seconds, upper seconds, count], 0 <= "
                   "lower <= upper");
  B = {*Lo, *Hi, *N};
  return true;
}

static bool fromJSON(const json::Value &V, TimeDistribution &D, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O || !O.map("calls", D.Calls))
    return false;
  for (auto [Key, Field] : DistributionFields)
    if (!mapWith(O, Key, D.*Field, readSeconds))
      return false;
  return O.mapOptional("buckets", D.Buckets) &&
         mapOptionalWith(O, "run_medians", D.RunMedians,
                         readEach<double, readSeconds>);
}

static bool fromJSON(const json::Value &V, OutputMemory &M, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapWith(O, "var", M.Var, readInt32) &&
         mapWith(O, "kind", M.Kind, readKind) &&
         mapOptionalWith(O, "input", M.Input, readInt32) &&
         O.map("bytes", M.Bytes) && O.mapOptional("shape", M.Shape) &&
         O.mapOptional("allocated", M.Allocated) &&
         mapOptionalWith(O, "storage", M.Storage, readStorage);
}

/// A view names the input it shares: the memory simulation needs it.
static bool checkViewInputs(const ApplyProfile &A, json::Path P) {
  for (size_t I = 0; I < A.OutputMem.size(); ++I) {
    const OutputMemory &M = A.OutputMem[I];
    if (M.Kind != "created" &&
        (M.Input < 0 || size_t(M.Input) >= A.InputVars.size()))
      return failQuoting(P.index(I).field("input"),
                         "expected the position of one of the " +
                             Twine(A.InputVars.size()) + " input_vars");
  }
  return true;
}

/// Version 3's members of an Apply: provenance, the GPU path, the model's
/// terms, the first call and the distribution of calls.
static bool mapApplyExtras(json::ObjectMapper &O, ApplyProfile &A) {
  return O.mapOptional("rewrites", A.Rewrites) &&
         O.mapOptional("source_locs", A.SourceLocs) &&
         O.mapOptional("on_device", A.OnDevice) &&
         O.mapOptional("terms", A.Terms) &&
         O.mapOptional("gradient", A.Gradient) &&
         mapOptionalWith(O, "first_call_seconds", A.FirstCallSeconds,
                         readSome<double, readSeconds>) &&
         mapOptionalWith(O, "distribution", A.Distribution,
                         readSome<TimeDistribution, fromJSON>);
}

/// Version 2's members of an Apply: its memory.
static bool mapApplyMemory(json::ObjectMapper &O, ApplyProfile &A,
                           json::Path P) {
  return mapOptionalWith(O, "input_vars", A.InputVars,
                         readEach<int, readInt32>) &&
         O.mapOptional("outputs_memory", A.OutputMem) &&
         checkViewInputs(A, P.field("outputs_memory")) &&
         O.mapOptional("allocated_bytes", A.AllocatedBytes) &&
         O.mapOptional("allocations", A.Allocations);
}

static bool fromJSON(const json::Value &V, ApplyProfile &A, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && mapWith(O, "id", A.Id, readUInt32) && O.map("name", A.Name) &&
         O.map("op", A.Op) && O.map("op_class", A.OpClass) &&
         O.mapOptional("loc", A.Loc) &&
         mapWith(O, "type", A.Compiled, readType) && O.map("calls", A.Calls) &&
         mapWith(O, "seconds", A.Seconds, readSeconds) &&
         mapOptionalWith(O, "flops_per_call", A.FlopsPerCall, readSeconds) &&
         mapOptionalWith(O, "bytes_per_call", A.BytesPerCall, readSeconds) &&
         O.mapOptional("inputs", A.Inputs) &&
         O.mapOptional("outputs", A.Outputs) && mapApplyExtras(O, A) &&
         mapApplyMemory(O, A, P);
}

static bool fromJSON(const json::Value &V, CompileSplit &C, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O)
    return false;
  // Profiles written before a step was timed apart lack its key. The keys
  // are the steps' names, not literals, so O.map cannot take them.
  for (unsigned I = 0; I < NumCompileSteps; ++I) {
    StringRef Key = compileStepName(CompileStep(I));
    if (const json::Value *S = V.getAsObject()->get(Key))
      if (!readSeconds(*S, C.of(CompileStep(I)), P.field(Key)))
        return false;
  }
  return mapOptionalWith(O, "validate", C.Validate, readSeconds) &&
         mapOptionalWith(O, "part_threads", C.PartThreads, readUInt32) &&
         mapOptionalWith(
             O, "host", C.Host,
             readEach<std::pair<std::string, double>, readHostStep>) &&
         O.mapOptional("cached", C.Cached);
}

static bool fromJSON(const json::Value &V, FunctionMemory &M, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("recorded", M.Recorded) &&
         O.mapOptional("allow_gc", M.AllowGC) &&
         mapOptionalWith(O, "kept_vars", M.KeptVars,
                         readEach<int, readInt32>) &&
         O.mapOptional("measured_peak", M.MeasuredPeak) &&
         O.mapOptional("calls", M.Calls) &&
         O.mapOptional("allocations", M.Allocations);
}

static bool fromJSON(const json::Value &V, RewritePhaseProfile &R,
                     json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("name", R.Name) &&
         mapOptionalWith(O, "seconds", R.Seconds, readSeconds) &&
         O.mapOptional("nodes_before", R.NodesBefore) &&
         O.mapOptional("nodes_after", R.NodesAfter) &&
         O.mapOptional("visits", R.Visits) &&
         O.mapOptional("budget_exhausted", R.BudgetExhausted);
}

static bool fromJSON(const json::Value &V, RewriteProfile &R, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("name", R.Name) && O.mapOptional("tags", R.Tags) &&
         mapOptionalWith(O, "seconds", R.Seconds, readSeconds) &&
         O.mapOptional("applied", R.Applied) &&
         O.mapOptional("nodes_before", R.NodesBefore) &&
         O.mapOptional("nodes_after", R.NodesAfter) &&
         O.mapOptional("nodes_created", R.NodesCreated);
}

/// Rewrites are matched by name (the join, merges, diffs).
static bool checkUniqueNames(ArrayRef<RewriteProfile> Rewrites, json::Path P) {
  DenseSet<StringRef> Names;
  for (size_t I = 0; I < Rewrites.size(); ++I)
    if (!Names.insert(Rewrites[I].Name).second)
      return failQuoting(P.index(I).field("name"), "duplicate rewrite '" +
                                                       Rewrites[I].Name +
                                                       "' in this function");
  return true;
}

static bool fromJSON(const json::Value &V, OptimizerProfile &Opt,
                     json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("recorded", Opt.Recorded) &&
         O.mapOptional("name", Opt.Name) &&
         O.mapOptional("excluding", Opt.Excluding) &&
         O.mapOptional("including", Opt.Including) &&
         mapOptionalWith(O, "seconds", Opt.Seconds, readSeconds) &&
         mapOptionalWith(O, "validate_seconds", Opt.ValidateSeconds,
                         readSeconds) &&
         O.mapOptional("runs", Opt.Runs) &&
         O.mapOptional("nodes_before", Opt.NodesBefore) &&
         O.mapOptional("nodes_after", Opt.NodesAfter) &&
         O.mapOptional("phases", Opt.Phases) &&
         O.mapOptional("rewrites", Opt.Rewrites) &&
         checkUniqueNames(Opt.Rewrites, P.field("rewrites"));
}

/// Applies are told apart by id (the report, merges, diffs).
static bool checkUniqueIds(ArrayRef<ApplyProfile> Applies, json::Path P) {
  DenseSet<unsigned> Ids;
  for (size_t I = 0; I < Applies.size(); ++I)
    if (!Ids.insert(Applies[I].Id).second)
      return failQuoting(P.index(I).field("id"), "duplicate id " +
                                                     Twine(Applies[I].Id) +
                                                     " in this function");
  return true;
}

/// Version 3's members of a function: its optimizer and the GPU path's.
static bool mapFunctionExtras(json::ObjectMapper &O, FunctionProfile &F) {
  return O.mapOptional("optimizer", F.Optimizer) &&
         O.mapOptional("device", F.Device) &&
         O.mapOptional("host_only", F.HostOnly) &&
         O.mapOptional("gpu_peak_bytes", F.GpuPeakBytes) &&
         O.mapOptional("gpu_peak_reserved_bytes", F.GpuPeakReservedBytes);
}

static bool fromJSON(const json::Value &V, FunctionProfile &F, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("name", F.Name) && O.mapOptional("file", F.File) &&
         O.map("calls", F.Calls) &&
         mapWith(O, "call_seconds", F.CallSeconds, readSeconds) &&
         mapWith(O, "driver_seconds", F.DriverSeconds, readSeconds) &&
         O.mapOptional("compile", F.Compile) &&
         O.mapOptional("linker", F.Linker) && O.mapOptional("clock", F.Clock) &&
         O.mapOptional("inner_of", F.InnerOf) &&
         mapOptionalWith(O, "instrumentation_ns_per_apply",
                         F.InstrumentationNsPerApply, readSeconds) &&
         mapOptionalWith(O, "first_call_seconds", F.FirstCallSeconds,
                         readSome<double, readSeconds>) &&
         O.mapOptional("first_call_in_totals", F.FirstCallInTotals) &&
         O.mapOptional("memory", F.Memory) && mapFunctionExtras(O, F) &&
         O.map("applies", F.Applies) &&
         checkUniqueIds(F.Applies, P.field("applies"));
}

static bool fromJSON(const json::Value &V, Profile &Out, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.mapOptional("machine", Out.Machine) &&
         O.map("functions", Out.Functions);
}

namespace {

/// The file's version, read first: what the rest means depends on it.
bool readVersion(const json::Value &Doc, int64_t &Version, json::Path P) {
  json::ObjectMapper O(Doc, P);
  if (!O)
    return false;
  if (!Doc.getAsObject()->get("graphjit_profile"))
    return fail(P, "not a graphjit profile: no \"graphjit_profile\" version");
  if (!O.map("graphjit_profile", Version))
    return false;
  if (Version < OldestProfileJSONVersion || Version > ProfileJSONVersion)
    return failQuoting(P.field("graphjit_profile"),
                       "version " + Twine(Version) +
                           " is not supported (this build reads versions " +
                           Twine(OldestProfileJSONVersion) + " to " +
                           Twine(ProfileJSONVersion) + ")");
  return true;
}

/// A member of a function or of an Apply, and the version that added it.
struct Added {
  int64_t Version;
  StringLiteral Key;
};

constexpr Added FunctionMembers[] = {
    {2, "memory"},    {3, "optimizer"},      {3, "device"},
    {3, "host_only"}, {3, "gpu_peak_bytes"}, {3, "gpu_peak_reserved_bytes"},
};

constexpr Added ApplyMembers[] = {
    {2, "input_vars"},         {2, "outputs_memory"}, {2, "allocated_bytes"},
    {2, "allocations"},        {3, "rewrites"},       {3, "source_locs"},
    {3, "on_device"},          {3, "terms"},          {3, "gradient"},
    {3, "first_call_seconds"}, {3, "distribution"},
};

void forget(json::Value &V, ArrayRef<Added> Members, int64_t Version) {
  if (json::Object *O = V.getAsObject())
    for (const Added &M : Members)
      if (Version < M.Version)
        O->erase(M.Key);
}

/// An older file reads as one without what later versions added, whatever
/// it holds under those names; then the mappers need not know versions.
void forgetNewerMembers(json::Value &Doc, int64_t Version) {
  json::Array *Functions = Doc.getAsObject()->getArray("functions");
  if (!Functions)
    return;
  for (json::Value &F : *Functions) {
    forget(F, FunctionMembers, Version);
    json::Object *O = F.getAsObject();
    // Version 3 timed validation apart, inside the compile times.
    if (json::Object *C = O ? O->getObject("compile") : nullptr; C && Version < 3)
      C->erase("validate");
    if (json::Array *Applies = O ? O->getArray("applies") : nullptr)
      for (json::Value &A : *Applies)
        forget(A, ApplyMembers, Version);
  }
}

/// What json's own fromJSON and json::ObjectMapper report, in the words
/// of the reader's other problems (and of docs/profile-json.md).
constexpr std::pair<StringLiteral, StringLiteral> Rewordings[] = {
    {"missing value", "missing"},
    {"expected object", "expected an object"},
    {"expected array", "expected an array"},
    {"expected string", "expected a string"},
    {"expected boolean", "expected true or false"},
    {"expected integer", "expected an integer"},
    {"expected uint64_t", "expected an integer >= 0"}};

/// R's problem as "FILE: PATH: PROBLEM"; json::Path::Root says it as
/// "PROBLEM at (root).PATH", or as "PROBLEM" at the root.
Error problemIn(StringRef File, const json::Path::Root &R) {
  std::string Said = toString(R.getError());
  auto [Problem, Path] = StringRef(Said).split(" at (root)");
  Path.consume_front(".");
  std::string Text = Problem == QuotedMark ? Quoted : Problem.str();
  for (auto [Json, Ours] : Rewordings)
    if (Problem == Json)
      Text = Ours.str();
  return createStringError(inconvertibleErrorCode(),
                           File + ": " + (Path.empty() ? "(root)" : Path) +
                               ": " + Text);
}

} // namespace

Expected<Profile> readProfileJSON(StringRef Text, StringRef FileName) {
  Expected<json::Value> Doc = json::parse(Text);
  if (!Doc) {
    // json::ParseError logs "[LINE:COL, byte=N]: MESSAGE"; say it as
    // "FILE:LINE:COL: invalid JSON: MESSAGE".
    std::string Msg = toString(Doc.takeError());
    SmallVector<StringRef, 4> Groups;
    Regex Located("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
    if (Located.match(Msg, &Groups))
      return createStringError(inconvertibleErrorCode(),
                               FileName + ":" + Groups[1] + ":" + Groups[2] +
                                   ": invalid JSON: " + Groups[3]);
    return createStringError(inconvertibleErrorCode(),
                             FileName + ": invalid JSON: " + Msg);
  }
  json::Path::Root R;
  int64_t Version = 0;
  if (!readVersion(*Doc, Version, R))
    return problemIn(FileName, R);
  forgetNewerMembers(*Doc, Version);
  Profile P;
  if (!fromJSON(*Doc, P, R))
    return problemIn(FileName, R);
  return P;
}

Expected<Profile> readProfileJSONFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buffer)
    return createStringError(
        Buffer.getError(),
        Path + ": cannot read: " + Buffer.getError().message());
  return readProfileJSON((*Buffer)->getBuffer(), Path);
}

} // namespace graphjit
