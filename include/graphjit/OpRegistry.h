//===- graphjit/OpRegistry.h - Ops by their graph-format name --*- C++ -*-===//
//
// The table from a graph-format op name ("add", "sum", "dimshuffle") to a
// factory that makes the Op from its attributes. The parser and the C++
// builder both go through it, so both accept exactly the same ops. The
// registry lives in the IR layer and knows no op: graphjit::initialize()
// (graphjit/Initialize.h), called from the top, registers the standard op
// families (lib/ops/StandardOps.h), as LLVM's tools call
// InitializeAllTargets().
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPREGISTRY_H
#define GRAPHJIT_OPREGISTRY_H

#include "graphjit/Op.h"
#include "llvm/ADT/StringMap.h"
#include <functional>
#include <vector>

namespace graphjit {

struct OpSpec {
  std::string Name;
  unsigned MinInputs = 1;
  int MaxInputs = 1; ///< -1: any number from MinInputs on.
  /// Makes the op; errors about attributes are AttrErrors. NumInputs is
  /// already checked against the arity.
  std::function<llvm::Expected<OpRef>(const AttrMap &Attrs,
                                      unsigned NumInputs)>
      Make;
  /// One line for `graphjit -list-ops` and docs.
  std::string Summary;
};

class OpRegistry {
public:
  /// The process's registry: empty until graphjit::initialize().
  static const OpRegistry &get();
  /// The same, to add ops to (initialize(), and programs with ops of their
  /// own); not while another thread reads it.
  static OpRegistry &process();

  void add(OpSpec Spec);
  const OpSpec *lookup(llvm::StringRef Name) const;
  /// Names in alphabetical order.
  std::vector<std::string> names() const;

  /// Looks the op up, checks the arity and makes it. Errors: unknown op
  /// (with a close match if there is one), wrong arity, AttrErrors.
  llvm::Expected<OpRef> make(llvm::StringRef Name, const AttrMap &Attrs,
                             unsigned NumInputs) const;

private:
  llvm::StringMap<OpSpec> Specs;
};

} // namespace graphjit

#endif
