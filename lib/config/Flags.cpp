//===- Flags.cpp - GRAPHJIT_FLAGS, Theano's flags ------------------------===//

#include "graphjit/Flags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <mutex>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
enum class Kind { Bool, Unsigned, String };
struct FlagInfo {
  const char *Name;
  Kind K;
  void *(*Field)(Flags &);
};
} // namespace

static const FlagInfo Known[] = {
    {"profile", Kind::Bool, [](Flags &F) -> void * { return &F.Profile; }},
    {"profile_memory", Kind::Bool,
     [](Flags &F) -> void * { return &F.ProfileMemory; }},
    {"profile_optimizer", Kind::Bool,
     [](Flags &F) -> void * { return &F.ProfileOptimizer; }},
    {"allow_gc", Kind::Bool, [](Flags &F) -> void * { return &F.AllowGC; }},
    {"profiling__n_apply", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.ProfilingNApply; }},
    {"profiling__n_ops", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.ProfilingNOps; }},
    {"profiling__destination", Kind::String,
     [](Flags &F) -> void * { return &F.ProfilingDestination; }},
    {"profiling__debugprint", Kind::Bool,
     [](Flags &F) -> void * { return &F.ProfilingDebugprint; }},
    {"profiling__ignore_first_call", Kind::Bool,
     [](Flags &F) -> void * { return &F.ProfilingIgnoreFirstCall; }},
    {"profiling__mode", Kind::String,
     [](Flags &F) -> void * { return &F.ProfilingMode; }},
    {"profiling__sample_us", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.ProfilingSampleUs; }},
    {"profiling__distributions", Kind::Bool,
     [](Flags &F) -> void * { return &F.ProfilingDistributions; }},
    {"profiling__trace", Kind::String,
     [](Flags &F) -> void * { return &F.ProfilingTrace; }},
    {"profiling__trace_events", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.ProfilingTraceEvents; }},
    {"profiling__min_memory_size", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.ProfilingMinMemorySize; }},
    {"optimizer", Kind::String,
     [](Flags &F) -> void * { return &F.Optimizer; }},
    {"optimizer_excluding", Kind::String,
     [](Flags &F) -> void * { return &F.OptimizerExcluding; }},
    {"optimizer_including", Kind::String,
     [](Flags &F) -> void * { return &F.OptimizerIncluding; }},
    {"device", Kind::String, [](Flags &F) -> void * { return &F.Device; }},
    {"compiledir", Kind::String,
     [](Flags &F) -> void * { return &F.CompileDir; }},
    {"compile_threads", Kind::Unsigned,
     [](Flags &F) -> void * { return &F.CompileThreads; }},
    {"llvm_pipeline", Kind::Bool,
     [](Flags &F) -> void * { return &F.LLVMPipeline; }},
};

// PyTensor's and Theano's flags that mean nothing to graphjit: a script's
// PYTENSOR_FLAGS or THEANO_FLAGS string copied into GRAPHJIT_FLAGS works,
// with a warning for each of these.
static const std::pair<const char *, const char *> NotApplicable[] = {
    {"floatX", "the graph's types say each dtype"},
    {"warn_float64", "the graph's types say each dtype"},
    {"cast_policy", "literals take their operands' dtype (docs/graph-format.md)"},
    {"cxx", "graphjit compiles with LLVM, not a C++ compiler"},
    {"gcc__cxxflags", "graphjit compiles with LLVM, not a C++ compiler"},
    {"blas__ldflags", "graphjit calls the BLAS it was built with"},
    {"openmp", "graphjit's code is single-threaded per call"},
    {"linker", "graphjit's linker is chosen per function (linker=)"},
    {"config", "graphjit reads no configuration file"},
    {"base_compiledir", "use compiledir"},
    {"compile__wait", "the compile cache has no lock to wait for"},
    {"compile__timeout", "the compile cache has no lock to wait for"},
    {"exception_verbosity", "errors always name the Apply and its shapes"},
    {"traceback__limit", "errors always name the Apply and its shapes"},
    {"on_opt_error", "a failing rewrite is always an error"},
    {"optimizer_verbose", "use profile_optimizer"},
    {"print_global_stats", "use profile"},
    {"deterministic", "graphjit's ops are deterministic"},
    {"profiling__time_thunks", "the instrumentation always times thunks"},
    {"profiling__output_line_width",
     "graphjit's report does not cut its lines"},
    {"profiling__min_peak_memory",
     "the memory profile always shows the best order's peak"},
    {"profiling__ignore_first_call_of_compile",
     "use profiling__ignore_first_call"},
};

std::string graphjit::knownFlagNames() {
  std::string Names;
  for (const FlagInfo &I : Known)
    Names += (Names.empty() ? "" : ", ") + std::string(I.Name);
  return Names;
}

static Error badValue(StringRef Name, StringRef Value, StringRef Want) {
  return llvm::createStringError("GRAPHJIT_FLAGS: " + Name + "=" + Value +
                                 ": expected " + Want);
}

Expected<Flags> graphjit::parseFlags(StringRef Text, Flags Base) {
  llvm::SmallVector<StringRef, 8> Items;
  Text.split(Items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Item : Items) {
    Item = Item.trim();
    if (Item.empty())
      continue;
    auto [Name, Value] = Item.split('=');
    Name = Name.trim();
    Value = Value.trim();
    // Theano spells section flags with a dot as well: profiling.n_apply.
    std::string Canonical;
    for (char C : Name)
      Canonical += C == '.' ? std::string("__") : std::string(1, C);
    // mode: Theano's presets of the optimizer.
    if (Canonical == "mode" && Item.contains('=')) {
      if (Value == "FAST_RUN" || Value == "FAST_COMPILE")
        Base.Optimizer = Value.lower();
      else
        Base.Warnings.push_back(
            "mode=" + Value.str() + " does not apply to graphjit (FAST_RUN "
            "and FAST_COMPILE set its optimizer); ignored");
      continue;
    }
    const auto *Foreign = llvm::find_if(NotApplicable, [&](const auto &P) {
      return Canonical == P.first;
    });
    if (Foreign != std::end(NotApplicable) && Item.contains('=')) {
      Base.Warnings.push_back(Name.str() + " does not apply to graphjit (" +
                              Foreign->second + "); ignored");
      continue;
    }
    const FlagInfo *Info = llvm::find_if(
        Known, [&](const FlagInfo &I) { return Canonical == I.Name; });
    if (Info == std::end(Known))
      return llvm::createStringError("GRAPHJIT_FLAGS: unknown flag '" + Name +
                                     "' (known: " + knownFlagNames() + ")");
    if (!Item.contains('='))
      return badValue(Name, "", "NAME=VALUE");
    void *Field = Info->Field(Base);
    switch (Info->K) {
    case Kind::Bool: {
      std::string Lower = Value.lower();
      if (Lower == "true" || Lower == "1")
        *static_cast<bool *>(Field) = true;
      else if (Lower == "false" || Lower == "0")
        *static_cast<bool *>(Field) = false;
      else
        return badValue(Name, Value, "True or False");
      break;
    }
    case Kind::Unsigned: {
      unsigned N;
      if (Value.getAsInteger(10, N))
        return badValue(Name, Value, "a non-negative integer");
      *static_cast<unsigned *>(Field) = N;
      break;
    }
    case Kind::String:
      if (Value.empty())
        return badValue(Name, Value, "a value");
      *static_cast<std::string *>(Field) = Value.str();
      break;
    }
  }
  return Base;
}

namespace {
struct ProcessFlags {
  std::mutex Lock;
  bool Parsed = false;
  Flags Value;
  std::string Error;
};
} // namespace

static ProcessFlags &state() {
  static ProcessFlags S;
  return S;
}

Expected<const Flags &> graphjit::processFlags() {
  ProcessFlags &S = state();
  std::lock_guard<std::mutex> Guard(S.Lock);
  if (!S.Parsed) {
    S.Parsed = true;
    if (const char *Env = std::getenv("GRAPHJIT_FLAGS")) {
      Expected<Flags> F = parseFlags(Env);
      if (F) {
        S.Value = *F;
        for (const std::string &W : F->Warnings)
          llvm::errs() << "graphjit: warning: GRAPHJIT_FLAGS: " << W << "\n";
      } else {
        S.Error = llvm::toString(F.takeError());
      }
    }
  }
  if (!S.Error.empty())
    return llvm::createStringError(S.Error);
  return S.Value;
}

void graphjit::setProcessFlags(const Flags &F) {
  ProcessFlags &S = state();
  std::lock_guard<std::mutex> Guard(S.Lock);
  S.Parsed = true;
  S.Error.clear();
  S.Value = F;
}
