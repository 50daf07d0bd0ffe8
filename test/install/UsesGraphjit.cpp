//===- UsesGraphjit.cpp - A program built against an installed graphjit --===//
//
// Parses a graph, JIT-compiles it with the profiler on, calls it, and
// checks the result against the same sum computed here. Only the installed
// public headers are used.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Function.h"
#include "graphjit/Initialize.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace graphjit;

static int fail(llvm::Error E) {
  llvm::errs() << "uses-graphjit: " << llvm::toString(std::move(E)) << "\n";
  return 1;
}

int main() {
  initialize();
  auto M = parseGraph("func f(x: f64[4]) -> (y) {\n"
                      "  y = sum(mul(exp(x), 2.0))\n"
                      "}\n",
                      "installed.graph");
  if (!M)
    return fail(M.takeError());
  CompileOptions Opts;
  Opts.Profile = true;
  auto Fn = Function::compile(*(*M)->lookupFunction("f"), Opts);
  if (!Fn)
    return fail(Fn.takeError());
  double X[4] = {0.5, -1.0, 2.0, 0.25};
  NDArray In = NDArray::wrap(X, DType::F64, {4}, {8});
  auto Out = (*Fn)->call({In});
  if (!Out)
    return fail(Out.takeError());
  double Got = *(*Out)[0].dataAs<double>(), Want = 0;
  for (double V : X)
    Want += std::exp(V) * 2.0;
  llvm::outs() << "y = " << Got << " (expected " << Want << ")\n";
  if (std::fabs(Got - Want) > 1e-12 * std::fabs(Want))
    return 1;
  // The profile is there too: one call of one function.
  (*Fn)->profile()->summary(llvm::outs());
  return 0;
}
