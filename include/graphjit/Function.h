//===- graphjit/Function.h - Compiled, callable functions ------*- C++ -*-===//
//
// A Function is a FunctionGraph made callable by a linker: `py` runs every
// Apply through its Op's reference perform(), node by node, in schedule
// order; `c|py` and `c` run JIT-compiled code. A call binds and checks the
// inputs (dtypes, ranks, static and symbolic dims), runs the nodes, frees
// each intermediate after its last use when allow_gc is on, and then
// applies the shared-variable updates, all computed from the values before
// the call.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FUNCTION_H
#define GRAPHJIT_FUNCTION_H

#include "graphjit/Graph.h"
#include "graphjit/NDArray.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>

namespace graphjit {

enum class LinkerKind { Py, CPy, C };

/// "py", "c|py" (also "cpy", which needs no quoting in a shell), "c".
llvm::Expected<LinkerKind> parseLinker(llvm::StringRef Name);
llvm::StringRef linkerName(LinkerKind K);

/// Where the optional IR and assembly dumps go (empty: not written).
struct EmitOptions {
  std::string LLVM;          ///< The module as lowered.
  std::string LLVMOptimized; ///< After the optimization pipeline.
  std::string Asm;           ///< The host assembly.
};

/// Seconds spent in each step of compiling one function.
struct CompileTimes {
  double Rewrite = 0;  ///< The graph optimizer (none yet).
  double Lower = 0;    ///< FunctionGraph -> LLVM IR.
  double Optimize = 0; ///< The LLVM optimization pipeline.
  double Codegen = 0;  ///< Machine code generation and JIT linking.
  double total() const { return Rewrite + Lower + Optimize + Codegen; }
};

struct CompileOptions {
  LinkerKind Linker = LinkerKind::CPy;
  /// Free every intermediate after its last use (Theano's allow_gc).
  bool AllowGC = true;
  /// The LLVM optimization level, 0 to 3.
  unsigned OptLevel = 2;
  EmitOptions Emit;
};

/// The order in which a function's Applies run, and when each variable
/// dies: the input of the linkers and, later, of the memory profile.
struct Schedule {
  std::vector<Apply *> Order;
  /// For each Variable id, the position in Order after which it is no longer
  /// needed; -1 for variables that must outlive the call (outputs, update
  /// values, inputs, constants, shared reads).
  std::vector<int> LastUse;
};

Schedule makeSchedule(const FunctionGraph &F);

class Function {
public:
  static llvm::Expected<std::unique_ptr<Function>>
  compile(FunctionGraph &F, const CompileOptions &Opts = {});
  ~Function();

  /// Calls the function on caller-owned arrays (not copied). Returns the
  /// outputs in the order of the function's header. On error nothing is
  /// updated and the function can be called again. Given holds sizes of
  /// symbolic dims that no input determines (used by reshape and alloc).
  llvm::Expected<std::vector<NDArray>> call(llvm::ArrayRef<NDArray> Inputs,
                                            const DimBindings &Given = {});

  const FunctionGraph &graph() const { return Graph; }
  const CompileTimes &compileTimes() const { return Times; }
  /// Whether Apply ApplyId runs JIT code ("C") or its op's perform ("Py").
  bool isCompiled(unsigned ApplyId) const;
  const CompileOptions &options() const { return Opts; }
  const Schedule &schedule() const { return Sched; }

  /// Checks the inputs against the function's input types and returns the
  /// sizes of the symbolic dims: those in Given, and those the inputs bind
  /// (which must agree with Given).
  llvm::Expected<DimBindings> bindInputs(llvm::ArrayRef<NDArray> Inputs,
                                         const DimBindings &Given = {}) const;

private:
  struct JitCode;
  Function(FunctionGraph &F, const CompileOptions &Opts);
  llvm::Error jitCompile();
  llvm::Error runNodes(std::vector<NDArray> &Values, const ExecContext &Ctx);

  FunctionGraph &Graph;
  CompileOptions Opts;
  Schedule Sched;
  CompileTimes Times;
  std::vector<Apply *> ById; ///< Applies by id.
  std::unique_ptr<JitCode> Jit; ///< Null for the py linker.
};

} // namespace graphjit

#endif
