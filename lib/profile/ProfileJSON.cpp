//===- profile/ProfileJSON.cpp - Profiles as JSON -------------------------===//
//
// The versioned JSON form of a Profile (docs/profile-json.md); files of
// version 1, before the memory profile, and of version 2, before the
// optimizer profile and provenance, are still read. The reader checks
// everything and names the file and the JSON path of the first
// problem ("a.json: functions[0].applies[3].calls: expected an integer"),
// so that a bad file is a message, never a crash or a wrong report.
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
constexpr std::pair<const char *, double TimeDistribution::*>
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

namespace {

class ProfileReader {
public:
  explicit ProfileReader(StringRef File) : File(File) {}
  Expected<Profile> read(const json::Value &Root);

private:
  StringRef File;
  /// The file's version: memory is read from version 2 on; the optimizer,
  /// provenance and the validate time from version 3 on.
  int64_t FileVersion = ProfileJSONVersion;

  Error fail(const std::string &Path, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             File + ": " + (Path.empty() ? "(root)" : Path) +
                                 ": " + Msg);
  }
  static std::string child(const std::string &Path, StringRef Key) {
    return Path.empty() ? Key.str() : Path + "." + Key.str();
  }
  static std::string index(const std::string &Path, size_t I) {
    return Path + "[" + std::to_string(I) + "]";
  }

  /// The member Key of O: an error when Required and absent, null when
  /// absent and optional.
  Expected<const json::Value *> member(const json::Object &O, StringRef Key,
                                       const std::string &Path,
                                       bool Required) const {
    const json::Value *V = O.get(Key);
    if (!V && Required)
      return fail(child(Path, Key), "missing");
    return V;
  }
  /// Converters (json::Value -> optional<T>) shared by members and array
  /// elements, so that both say the same "expected WHAT".
  static std::optional<std::string> convertString(const json::Value &V) {
    if (std::optional<StringRef> S = V.getAsString())
      return S->str();
    return std::nullopt;
  }
  /// An integer that fits T.
  template <typename T>
  static std::optional<T> convertInteger(const json::Value &V) {
    std::optional<int64_t> N = V.getAsInteger();
    if (!N || *N < std::numeric_limits<T>::min() ||
        *N > std::numeric_limits<T>::max())
      return std::nullopt;
    return T(*N);
  }
  /// V, at Path, converted by Convert into Out: an error saying "expected
  /// WHAT" when it does not convert.
  template <typename T, typename ConvertFn>
  Error convert(const json::Value &V, const std::string &Path, T &Out,
                ConvertFn Convert, const char *What) const {
    std::optional<T> X = Convert(V);
    if (!X)
      return fail(Path, Twine("expected ") + What);
    Out = std::move(*X);
    return Error::success();
  }
  /// Member Key converted as by convert(); Out is left as it is when an
  /// optional member is absent.
  template <typename T, typename ConvertFn>
  Error getMember(const json::Object &O, StringRef Key, const std::string &Path,
                  bool Required, T &Out, ConvertFn Convert,
                  const char *What) const {
    auto V = member(O, Key, Path, Required);
    if (!V)
      return V.takeError();
    if (!*V)
      return Error::success();
    return convert(**V, child(Path, Key), Out, Convert, What);
  }
  Error getString(const json::Object &O, StringRef Key, const std::string &Path,
                  bool Required, std::string &Out) const {
    return getMember(O, Key, Path, Required, Out, convertString, "a string");
  }
  Error getUInt(const json::Object &O, StringRef Key, const std::string &Path,
                bool Required, uint64_t &Out) const {
    return getMember(
        O, Key, Path, Required, Out,
        [](const json::Value &V) { return V.getAsUINT64(); },
        "an integer >= 0");
  }
  /// A finite number >= 0.
  Error getSeconds(const json::Object &O, StringRef Key,
                   const std::string &Path, bool Required, double &Out) const {
    if (Error E = getMember(
            O, Key, Path, Required, Out,
            [](const json::Value &V) { return V.getAsNumber(); }, "a number"))
      return E;
    if (!std::isfinite(Out) || Out < 0)
      return fail(child(Path, Key), "expected a finite number >= 0");
    return Error::success();
  }
  /// An optional finite number >= 0, unset when absent.
  Error getOptionalSeconds(const json::Object &O, StringRef Key,
                           const std::string &Path,
                           std::optional<double> &Out) const {
    if (!O.get(Key))
      return Error::success();
    double S = 0;
    if (Error E = getSeconds(O, Key, Path, true, S))
      return E;
    Out = S;
    return Error::success();
  }
  Error getBool(const json::Object &O, StringRef Key, const std::string &Path,
                bool Required, bool &Out) const {
    return getMember(
        O, Key, Path, Required, Out,
        [](const json::Value &V) { return V.getAsBoolean(); },
        "true or false");
  }
  Error getInt32(const json::Object &O, StringRef Key, const std::string &Path,
                 bool Required, int &Out) const {
    return getMember(O, Key, Path, Required, Out, convertInteger<int>,
                     "a 32-bit integer");
  }
  /// A reader of one member into a T, like getUInt.
  template <typename T>
  using GetFn = Error (ProfileReader::*)(const json::Object &, StringRef,
                                         const std::string &, bool, T &) const;
  /// Members of one kind, each read by Get in order, so that the first
  /// problem is the one reported.
  template <typename T>
  Error
  getFields(const json::Object &O, const std::string &Path, bool Required,
            GetFn<T> Get,
            std::initializer_list<std::pair<StringRef, T *>> Fields) const {
    for (const auto &[Key, Field] : Fields)
      if (Error E = (this->*Get)(O, Key, Path, Required, *Field))
        return E;
    return Error::success();
  }
  Expected<const json::Array *> getArray(const json::Object &O, StringRef Key,
                                         const std::string &Path,
                                         bool Required) const;
  Expected<const json::Object *> asObject(const json::Value &V,
                                          const std::string &Path) const {
    if (const json::Object *O = V.getAsObject())
      return O;
    return fail(Path, "expected an object");
  }
  /// The array member Key, its elements read in order by Read
  /// (json::Value, its path, T &) -> Error (an absent optional one: empty).
  template <typename T, typename ReadFn>
  Error readArray(const json::Object &O, StringRef Key, const std::string &Path,
                  bool Required, std::vector<T> &Out, ReadFn Read) const;
  /// The object member Key, read by Read (json::Object, its path) -> Error
  /// when present; it is optional.
  template <typename ReadFn>
  Error readObject(const json::Object &O, StringRef Key,
                   const std::string &Path, ReadFn Read) const;
  /// An array of integers that fit T (an absent optional one: empty).
  template <typename T>
  Error readIntegers(const json::Object &O, StringRef Key,
                     const std::string &Path, bool Required,
                     std::vector<T> &Out) const;
  /// An array of strings (an absent one: empty).
  Error readStrings(const json::Object &O, StringRef Key,
                    const std::string &Path,
                    std::vector<std::string> &Out) const;
  Error readOptimizer(const json::Object &O, const std::string &Path,
                      OptimizerProfile &Out) const;
  Error readRewrite(const json::Value &V, const std::string &Path,
                    RewriteProfile &Out) const;
  Error readPhase(const json::Value &V, const std::string &Path,
                  RewritePhaseProfile &Out) const;
  Error readTensors(const json::Object &O, StringRef Key,
                    const std::string &Path,
                    std::vector<TensorInfo> &Out) const;
  Error readCompile(const json::Object &O, const std::string &Path,
                    CompileSplit &Out) const;
  Error readOutputMemory(const json::Value &V, const std::string &Path,
                         size_t NumInputs, OutputMemory &Out) const;
  Error readApplyMemory(const json::Object &O, const std::string &Path,
                        ApplyProfile &Out) const;
  Error readMemory(const json::Object &O, const std::string &Path,
                   FunctionMemory &Out) const;
  Error readApply(const json::Value &V, const std::string &Path,
                  ApplyProfile &Out) const;
  Error readFunction(const json::Value &V, const std::string &Path,
                     FunctionProfile &Out) const;
};

Expected<const json::Array *> ProfileReader::getArray(const json::Object &O,
                                                      StringRef Key,
                                                      const std::string &Path,
                                                      bool Required) const {
  auto V = member(O, Key, Path, Required);
  if (!V)
    return V.takeError();
  if (!*V)
    return nullptr;
  const json::Array *A = (*V)->getAsArray();
  if (!A)
    return fail(child(Path, Key), "expected an array");
  return A;
}

template <typename T, typename ReadFn>
Error ProfileReader::readArray(const json::Object &O, StringRef Key,
                               const std::string &Path, bool Required,
                               std::vector<T> &Out, ReadFn Read) const {
  auto A = getArray(O, Key, Path, Required);
  if (!A)
    return A.takeError();
  Out.clear();
  if (!*A)
    return Error::success();
  std::string APath = child(Path, Key);
  for (size_t I = 0; I < (*A)->size(); ++I) {
    T X{};
    if (Error E = Read((**A)[I], index(APath, I), X))
      return E;
    Out.push_back(std::move(X));
  }
  return Error::success();
}

template <typename ReadFn>
Error ProfileReader::readObject(const json::Object &O, StringRef Key,
                                const std::string &Path, ReadFn Read) const {
  const json::Value *V = O.get(Key);
  if (!V)
    return Error::success();
  std::string OPath = child(Path, Key);
  auto Obj = asObject(*V, OPath);
  if (!Obj)
    return Obj.takeError();
  return Read(**Obj, OPath);
}

template <typename T>
Error ProfileReader::readIntegers(const json::Object &O, StringRef Key,
                                  const std::string &Path, bool Required,
                                  std::vector<T> &Out) const {
  return readArray(O, Key, Path, Required, Out,
                   [&](const json::Value &V, const std::string &NPath, T &N) {
                     return convert(V, NPath, N, convertInteger<T>,
                                    sizeof(T) == 4 ? "a 32-bit integer"
                                                   : "an integer");
                   });
}

Error ProfileReader::readStrings(const json::Object &O, StringRef Key,
                                 const std::string &Path,
                                 std::vector<std::string> &Out) const {
  return readArray(
      O, Key, Path, /*Required=*/false, Out,
      [&](const json::Value &V, const std::string &SPath, std::string &S) {
        return convert(V, SPath, S, convertString, "a string");
      });
}

Error ProfileReader::readRewrite(const json::Value &V, const std::string &Path,
                                 RewriteProfile &Out) const {
  auto O = asObject(V, Path);
  if (!O)
    return O.takeError();
  if (Error E = getString(**O, "name", Path, true, Out.Name))
    return E;
  if (Error E = readStrings(**O, "tags", Path, Out.Tags))
    return E;
  if (Error E = getSeconds(**O, "seconds", Path, false, Out.Seconds))
    return E;
  return getFields(**O, Path, false, &ProfileReader::getUInt,
                   {{"applied", &Out.Applied},
                    {"nodes_before", &Out.NodesBefore},
                    {"nodes_after", &Out.NodesAfter},
                    {"nodes_created", &Out.NodesCreated}});
}

Error ProfileReader::readPhase(const json::Value &V, const std::string &Path,
                               RewritePhaseProfile &Out) const {
  auto O = asObject(V, Path);
  if (!O)
    return O.takeError();
  if (Error E = getString(**O, "name", Path, true, Out.Name))
    return E;
  if (Error E = getSeconds(**O, "seconds", Path, false, Out.Seconds))
    return E;
  if (Error E = getFields(**O, Path, false, &ProfileReader::getUInt,
                          {{"nodes_before", &Out.NodesBefore},
                           {"nodes_after", &Out.NodesAfter},
                           {"visits", &Out.Visits}}))
    return E;
  return getBool(**O, "budget_exhausted", Path, false, Out.BudgetExhausted);
}

Error ProfileReader::readOptimizer(const json::Object &O,
                                   const std::string &Path,
                                   OptimizerProfile &Out) const {
  return readObject(
      O, "optimizer", Path,
      [&](const json::Object &M, const std::string &OPath) {
        if (Error E = getBool(M, "recorded", OPath, true, Out.Recorded))
          return E;
        if (Error E = getFields(M, OPath, false, &ProfileReader::getString,
                                {{"name", &Out.Name},
                                 {"excluding", &Out.Excluding},
                                 {"including", &Out.Including}}))
          return E;
        if (Error E = getFields(M, OPath, false, &ProfileReader::getSeconds,
                                {{"seconds", &Out.Seconds},
                                 {"validate_seconds", &Out.ValidateSeconds}}))
          return E;
        if (Error E = getFields(M, OPath, false, &ProfileReader::getUInt,
                                {{"runs", &Out.Runs},
                                 {"nodes_before", &Out.NodesBefore},
                                 {"nodes_after", &Out.NodesAfter}}))
          return E;
        if (Error E = readArray(M, "phases", OPath, false, Out.Phases,
                                [&](auto &&...A) { return readPhase(A...); }))
          return E;
        return readArray(
            M, "rewrites", OPath, false, Out.Rewrites,
            [&](const json::Value &V, const std::string &RPath,
                RewriteProfile &R) -> Error {
              if (Error E = readRewrite(V, RPath, R))
                return E;
              // Rows are matched by name (the join, merges, diffs).
              if (any_of(Out.Rewrites, [&](const RewriteProfile &Q) {
                    return Q.Name == R.Name;
                  }))
                return fail(child(RPath, "name"), "duplicate rewrite '" +
                                                      R.Name +
                                                      "' in this function");
              return Error::success();
            });
      });
}

Error ProfileReader::readTensors(const json::Object &O, StringRef Key,
                                 const std::string &Path,
                                 std::vector<TensorInfo> &Out) const {
  return readArray(
      O, Key, Path, /*Required=*/false, Out,
      [&](const json::Value &V, const std::string &TPath,
          TensorInfo &T) -> Error {
        auto TO = asObject(V, TPath);
        if (!TO)
          return TO.takeError();
        if (Error E = getString(**TO, "dtype", TPath, true, T.DType))
          return E;
        if (Error E = readIntegers(**TO, "shape", TPath, true, T.Shape))
          return E;
        if (Error E = readIntegers(**TO, "strides", TPath, true, T.Strides))
          return E;
        if (T.Strides.size() != T.Shape.size())
          return fail(child(TPath, "strides"),
                      "expected as many strides as dims (" +
                          Twine(T.Shape.size()) + ")");
        return Error::success();
      });
}

Error ProfileReader::readCompile(const json::Object &O, const std::string &Path,
                                 CompileSplit &Out) const {
  return readObject(
      O, "compile", Path, [&](const json::Object &C, const std::string &CPath) {
        // Profiles written before a step was timed apart lack its key.
        for (unsigned I = 0; I < NumCompileSteps; ++I)
          if (Error E = getSeconds(C, compileStepName(CompileStep(I)), CPath,
                                   false, Out.of(CompileStep(I))))
            return E;
        if (Error E = getSeconds(C, "validate", CPath, false, Out.Validate))
          return E;
        uint64_t Threads = 0;
        if (Error E = getUInt(C, "part_threads", CPath, false, Threads))
          return E;
        if (Threads > std::numeric_limits<unsigned>::max())
          return fail(child(CPath, "part_threads"),
                      "expected a thread count");
        Out.PartThreads = unsigned(Threads);
        if (Error E = readArray(
                C, "host", CPath, false, Out.Host,
                [&](const json::Value &V, const std::string &HPath,
                    std::pair<std::string, double> &Step) -> Error {
                  auto H = asObject(V, HPath);
                  if (!H)
                    return H.takeError();
                  if (Error E = getString(**H, "step", HPath, true,
                                          Step.first))
                    return E;
                  return getSeconds(**H, "seconds", HPath, true, Step.second);
                }))
          return E;
        return getBool(C, "cached", CPath, false, Out.Cached);
      });
}

Error ProfileReader::readOutputMemory(const json::Value &V,
                                      const std::string &Path, size_t NumInputs,
                                      OutputMemory &Out) const {
  auto O = asObject(V, Path);
  if (!O)
    return O.takeError();
  if (Error E = getInt32(**O, "var", Path, true, Out.Var))
    return E;
  if (Error E = getString(**O, "kind", Path, true, Out.Kind))
    return E;
  if (Out.Kind != "created" && Out.Kind != "view" && Out.Kind != "inplace")
    return fail(child(Path, "kind"),
                "expected \"created\", \"view\" or \"inplace\", not \"" +
                    Out.Kind + "\"");
  if (Error E = getInt32(**O, "input", Path, false, Out.Input))
    return E;
  // A view names the input it shares: the simulation needs it.
  if (Out.Kind != "created" &&
      (Out.Input < 0 || size_t(Out.Input) >= NumInputs))
    return fail(child(Path, "input"), "expected the position of one of the " +
                                          Twine(NumInputs) + " input_vars");
  if (Error E = getUInt(**O, "bytes", Path, true, Out.Bytes))
    return E;
  if ((*O)->get("shape"))
    if (Error E = readIntegers(**O, "shape", Path, true, Out.Shape))
      return E;
  if (Error E = getBool(**O, "allocated", Path, false, Out.Allocated))
    return E;
  if (Error E = getInt32(**O, "storage", Path, false, Out.Storage))
    return E;
  if (Out.Storage < -1)
    return fail(child(Path, "storage"),
                "expected a storage number, or -1 for none");
  return Error::success();
}

Error ProfileReader::readApplyMemory(const json::Object &O,
                                     const std::string &Path,
                                     ApplyProfile &Out) const {
  if (Error E = readIntegers(O, "input_vars", Path, false, Out.InputVars))
    return E;
  if (Error E = readArray(
          O, "outputs_memory", Path, false, Out.OutputMem,
          [&](const json::Value &V, const std::string &MPath, OutputMemory &M) {
            return readOutputMemory(V, MPath, Out.InputVars.size(), M);
          }))
    return E;
  return getFields(O, Path, false, &ProfileReader::getUInt,
                   {{"allocated_bytes", &Out.AllocatedBytes},
                    {"allocations", &Out.Allocations}});
}

Error ProfileReader::readMemory(const json::Object &O, const std::string &Path,
                                FunctionMemory &Out) const {
  return readObject(
      O, "memory", Path, [&](const json::Object &M, const std::string &MPath) {
        if (Error E = getBool(M, "recorded", MPath, true, Out.Recorded))
          return E;
        if (Error E = getBool(M, "allow_gc", MPath, false, Out.AllowGC))
          return E;
        if (Error E = readIntegers(M, "kept_vars", MPath, false, Out.KeptVars))
          return E;
        return getFields(M, MPath, false, &ProfileReader::getUInt,
                         {{"measured_peak", &Out.MeasuredPeak},
                          {"calls", &Out.Calls},
                          {"allocations", &Out.Allocations}});
      });
}

Error ProfileReader::readApply(const json::Value &V, const std::string &Path,
                               ApplyProfile &Out) const {
  auto O = asObject(V, Path);
  if (!O)
    return O.takeError();
  uint64_t Id = 0;
  if (Error E = getUInt(**O, "id", Path, true, Id))
    return E;
  if (Id > UINT32_MAX)
    return fail(child(Path, "id"), "expected an id below 2^32");
  Out.Id = unsigned(Id);
  if (Error E = getFields(
          **O, Path, true, &ProfileReader::getString,
          {{"name", &Out.Name}, {"op", &Out.Op}, {"op_class", &Out.OpClass}}))
    return E;
  if (Error E = getString(**O, "loc", Path, false, Out.Loc))
    return E;
  std::string Type;
  if (Error E = getString(**O, "type", Path, true, Type))
    return E;
  if (Type != "C" && Type != "Py")
    return fail(child(Path, "type"),
                "expected \"C\" or \"Py\", not \"" + Type + "\"");
  Out.Compiled = Type == "C";
  if (Error E = getUInt(**O, "calls", Path, true, Out.Calls))
    return E;
  if (Error E = getSeconds(**O, "seconds", Path, true, Out.Seconds))
    return E;
  if (Error E = getFields(**O, Path, false, &ProfileReader::getSeconds,
                          {{"flops_per_call", &Out.FlopsPerCall},
                           {"bytes_per_call", &Out.BytesPerCall}}))
    return E;
  if (Error E = readTensors(**O, "inputs", Path, Out.Inputs))
    return E;
  if (Error E = readTensors(**O, "outputs", Path, Out.Outputs))
    return E;
  if (FileVersion >= 3) {
    if (Error E = readStrings(**O, "rewrites", Path, Out.Rewrites))
      return E;
    if (Error E = readStrings(**O, "source_locs", Path, Out.SourceLocs))
      return E;
    if (Error E = getBool(**O, "on_device", Path, false, Out.OnDevice))
      return E;
    if (Error E = readStrings(**O, "terms", Path, Out.Terms))
      return E;
    if (Error E = getBool(**O, "gradient", Path, false, Out.Gradient))
      return E;
    if (Error E = getOptionalSeconds(**O, "first_call_seconds", Path,
                                     Out.FirstCallSeconds))
      return E;
    if (Error E = readObject(
            **O, "distribution", Path,
            [&](const json::Object &D, const std::string &DPath) -> Error {
              TimeDistribution T;
              if (Error E = getUInt(D, "calls", DPath, true, T.Calls))
                return E;
              for (auto [Key, Field] : DistributionFields)
                if (Error E = getSeconds(D, Key, DPath, true, T.*Field))
                  return E;
              if (Error E = readArray(
                      D, "buckets", DPath, false, T.Buckets,
                      [&](const json::Value &V, const std::string &BPath,
                          TimeBucket &B) -> Error {
                        const json::Array *A = V.getAsArray();
                        std::optional<double> Lo, Hi;
                        std::optional<uint64_t> N;
                        if (A && A->size() == 3) {
                          Lo = (*A)[0].getAsNumber();
                          Hi = (*A)[1].getAsNumber();
                          N = (*A)[2].getAsUINT64();
                        }
                        if (!Lo || !Hi || !N || !(*Lo >= 0) || !(*Hi >= *Lo) ||
                            !std::isfinite(*Hi))
                          return fail(BPath, "expected [lower seconds, upper "
                                             "seconds, count], 0 <= lower <= "
                                             "upper");
                        B = {*Lo, *Hi, *N};
                        return Error::success();
                      }))
                return E;
              if (Error E = readArray(
                      D, "run_medians", DPath, false, T.RunMedians,
                      [&](const json::Value &V, const std::string &MPath,
                          double &M) -> Error {
                        std::optional<double> N = V.getAsNumber();
                        if (!N || !(*N >= 0) || !std::isfinite(*N))
                          return fail(MPath, "expected seconds, >= 0");
                        M = *N;
                        return Error::success();
                      }))
                return E;
              Out.Distribution = T;
              return Error::success();
            }))
      return E;
  }
  if (FileVersion < 2) // Version 1 had no memory.
    return Error::success();
  return readApplyMemory(**O, Path, Out);
}

Error ProfileReader::readFunction(const json::Value &V, const std::string &Path,
                                  FunctionProfile &Out) const {
  auto O = asObject(V, Path);
  if (!O)
    return O.takeError();
  if (Error E = getString(**O, "name", Path, true, Out.Name))
    return E;
  if (Error E = getString(**O, "file", Path, false, Out.File))
    return E;
  if (Error E = getUInt(**O, "calls", Path, true, Out.Calls))
    return E;
  if (Error E = getFields(**O, Path, true, &ProfileReader::getSeconds,
                          {{"call_seconds", &Out.CallSeconds},
                           {"driver_seconds", &Out.DriverSeconds}}))
    return E;
  if (Error E = readCompile(**O, Path, Out.Compile))
    return E;
  if (Error E = getFields(**O, Path, false, &ProfileReader::getString,
                          {{"linker", &Out.Linker},
                           {"clock", &Out.Clock},
                           {"inner_of", &Out.InnerOf}}))
    return E;
  if (Error E = getSeconds(**O, "instrumentation_ns_per_apply", Path, false,
                           Out.InstrumentationNsPerApply))
    return E;
  if (Error E = getOptionalSeconds(**O, "first_call_seconds", Path,
                                   Out.FirstCallSeconds))
    return E;
  if (Error E = getBool(**O, "first_call_in_totals", Path, false,
                        Out.FirstCallInTotals))
    return E;
  if (FileVersion >= 2)
    if (Error E = readMemory(**O, Path, Out.Memory))
      return E;
  if (FileVersion >= 3) {
    if (Error E = readOptimizer(**O, Path, Out.Optimizer))
      return E;
    if (Error E = getString(**O, "device", Path, false, Out.Device))
      return E;
    if (Error E = readStrings(**O, "host_only", Path, Out.HostOnly))
      return E;
    if (Error E =
            getFields(**O, Path, false, &ProfileReader::getUInt,
                      {{"gpu_peak_bytes", &Out.GpuPeakBytes},
                       {"gpu_peak_reserved_bytes", &Out.GpuPeakReservedBytes}}))
      return E;
  }
  DenseSet<unsigned> Ids;
  return readArray(**O, "applies", Path, /*Required=*/true, Out.Applies,
                   [&](const json::Value &AV, const std::string &APath,
                       ApplyProfile &A) -> Error {
                     if (Error E = readApply(AV, APath, A))
                       return E;
                     if (!Ids.insert(A.Id).second)
                       return fail(child(APath, "id"), "duplicate id " +
                                                           Twine(A.Id) +
                                                           " in this function");
                     return Error::success();
                   });
}

Expected<Profile> ProfileReader::read(const json::Value &Root) {
  auto O = asObject(Root, "");
  if (!O)
    return O.takeError();
  const json::Value *Version = (*O)->get("graphjit_profile");
  if (!Version)
    return fail("", "not a graphjit profile: no \"graphjit_profile\" version");
  std::optional<int64_t> N = Version->getAsInteger();
  if (!N)
    return fail("graphjit_profile", "expected an integer");
  if (*N < OldestProfileJSONVersion || *N > ProfileJSONVersion)
    return fail("graphjit_profile",
                "version " + Twine(*N) +
                    " is not supported (this build reads versions " +
                    Twine(OldestProfileJSONVersion) + " to " +
                    Twine(ProfileJSONVersion) + ")");
  FileVersion = *N;
  Profile P;
  if (Error E = getString(**O, "machine", "", false, P.Machine))
    return E;
  if (Error E = readArray(**O, "functions", "", /*Required=*/true, P.Functions,
                          [&](auto &&...A) { return readFunction(A...); }))
    return E;
  return P;
}

} // namespace

Expected<Profile> readProfileJSON(StringRef Text, StringRef FileName) {
  Expected<json::Value> Root = json::parse(Text);
  if (!Root) {
    // json::ParseError logs "[LINE:COL, byte=N]: MESSAGE"; say it as
    // "FILE:LINE:COL: invalid JSON: MESSAGE".
    std::string Msg = toString(Root.takeError());
    SmallVector<StringRef, 4> Groups;
    Regex Located("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
    if (Located.match(Msg, &Groups))
      return createStringError(inconvertibleErrorCode(),
                               FileName + ":" + Groups[1] + ":" + Groups[2] +
                                   ": invalid JSON: " + Groups[3]);
    return createStringError(inconvertibleErrorCode(),
                             FileName + ": invalid JSON: " + Msg);
  }
  return ProfileReader(FileName).read(*Root);
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
