//===- graphjit/OpRegistry.h - Ops by their graph-format name --*- C++ -*-===//
//
// The table from a graph-format op name ("add", "sum", "dimshuffle") to a
// factory that makes the Op from its attributes. The parser and the C++
// builder both go through it, so both accept exactly the same ops. Each op
// family registers itself from its own file (lib/ops/).
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
  /// The registry with every op family registered.
  static const OpRegistry &get();

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

// Each op family's registration, defined next to the family in lib/ops/.
void registerElemwiseOps(OpRegistry &R);
void registerShapeOps(OpRegistry &R);
void registerIndexingOps(OpRegistry &R);
void registerGatherOps(OpRegistry &R);
void registerCumulativeOps(OpRegistry &R);
void registerReductionOps(OpRegistry &R);
void registerLinalgOps(OpRegistry &R);
void registerNNOps(OpRegistry &R);

} // namespace graphjit

#endif
