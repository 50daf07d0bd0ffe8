//===- GraphHandles.h - Graphs as Python sees them --------------*- C++ -*-===//
//
// Python holds graphs through handles that share their GraphModule: a
// Variable, a FunctionGraph or a compiled Function stays valid for as long
// as any handle to its module lives.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PYTHON_GRAPHHANDLES_H
#define GRAPHJIT_PYTHON_GRAPHHANDLES_H

#include "graphjit/Builder.h"
#include "graphjit/Function.h"
#include "graphjit/Graph.h"
#include <memory>
#include <string>

namespace graphjit::python {

struct ModuleHandle {
  std::shared_ptr<GraphModule> Module;
};

struct VariableHandle {
  std::shared_ptr<GraphModule> Module;
  Variable *Var;
};

struct GraphHandle {
  std::shared_ptr<GraphModule> Module;
  FunctionGraph *Graph;
};

struct BuilderHandle {
  std::shared_ptr<GraphModule> Module;
  std::unique_ptr<FunctionBuilder> Builder;
  FunctionGraph *Finished = nullptr;
};

/// F as .graph text, or as Theano's debugprint tree when Debug.
std::string graphText(const FunctionGraph &F, bool Debug);

/// Function::compile(F, O) with the GIL released (a compile takes long,
/// and runs no Python); its error raised as a Python exception.
std::unique_ptr<Function> compileWithoutGil(FunctionGraph &F,
                                            const CompileOptions &O);

} // namespace graphjit::python

#endif
