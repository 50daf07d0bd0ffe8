//===- OpRegistry.cpp - Ops by their graph-format name -------------------===//

#include "graphjit/OpRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

using namespace graphjit;

OpRegistry &OpRegistry::process() {
  static OpRegistry R;
  return R;
}

const OpRegistry &OpRegistry::get() { return process(); }

void OpRegistry::add(OpSpec Spec) {
  std::string Name = Spec.Name;
  Specs[Name] = std::move(Spec);
}

const OpSpec *OpRegistry::lookup(llvm::StringRef Name) const {
  auto It = Specs.find(Name);
  return It == Specs.end() ? nullptr : &It->second;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> R;
  for (const auto &E : Specs)
    R.push_back(E.getKey().str());
  std::sort(R.begin(), R.end());
  return R;
}

llvm::Expected<OpRef> OpRegistry::make(llvm::StringRef Name,
                                       const AttrMap &Attrs,
                                       unsigned NumInputs) const {
  const OpSpec *S = lookup(Name);
  if (!S) {
    std::string Msg = "unknown op '" + Name.str() + "'";
    // Suggest the closest name when it is close enough to be a typo.
    std::string Best;
    unsigned BestDist = 3;
    for (const auto &E : Specs) {
      unsigned D = Name.edit_distance(E.getKey(), true, BestDist);
      if (D < BestDist) {
        BestDist = D;
        Best = E.getKey().str();
      }
    }
    if (!Best.empty())
      Msg += "; did you mean '" + Best + "'?";
    if (Specs.empty())
      Msg += " (no op is registered: call graphjit::initialize() first)";
    return llvm::createStringError(Msg);
  }
  bool TooFew = NumInputs < S->MinInputs;
  bool TooMany = S->MaxInputs >= 0 && NumInputs > unsigned(S->MaxInputs);
  if (TooFew || TooMany) {
    std::string Expect;
    if (S->MaxInputs < 0)
      Expect = "at least " + std::to_string(S->MinInputs);
    else if (unsigned(S->MaxInputs) == S->MinInputs)
      Expect = std::to_string(S->MinInputs);
    else
      Expect = std::to_string(S->MinInputs) + " to " +
               std::to_string(S->MaxInputs);
    return llvm::createStringError(
        "op '" + Name.str() + "' takes " + Expect + " input" +
        (Expect == "1" ? "" : "s") + ", got " + std::to_string(NumInputs));
  }
  return S->Make(Attrs, NumInputs);
}
