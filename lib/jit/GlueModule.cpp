//===- GlueModule.cpp - Long drivers compiled apart, at O0 ---------------===//

#include "GlueModule.h"
#include "ObjectLinkage.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

static bool isGlue(const GlobalValue &GV) {
  const auto *F = dyn_cast<Function>(&GV);
  return F && !F->isDeclaration() && F->hasOptNone();
}

std::unique_ptr<Module> graphjit::splitGlue(Module &M) {
  bool AnyGlue = false, AnyOther = false;
  for (const Function &F : M)
    if (!F.isDeclaration())
      (isGlue(F) ? AnyGlue : AnyOther) = true;
  if (!AnyGlue || !AnyOther)
    return nullptr;

  // Either side may name what the other defines: nothing stays local.
  for (GlobalValue &GV : M.global_values()) {
    if (GV.isDeclaration() || !GV.hasLocalLinkage())
      continue;
    if (!GV.hasName())
      GV.setName("gj.local");
    shareAcrossObjects(GV);
  }
  ValueToValueMapTy Map;
  std::unique_ptr<Module> Rest = CloneModule(
      M, Map, [](const GlobalValue *GV) { return !isGlue(*GV); });
  // What Rest defines, M only declares; appending arrays (llvm.used and
  // the like) stay with Rest.
  for (GlobalVariable &GV : make_early_inc_range(M.globals())) {
    if (GV.getName().starts_with("llvm.")) {
      GV.eraseFromParent();
      continue;
    }
    GV.setInitializer(nullptr);
    GV.setLinkage(GlobalValue::ExternalLinkage);
    GV.setComdat(nullptr);
  }
  for (Function &F : M)
    if (!F.isDeclaration() && !isGlue(F))
      F.deleteBody();
  for (GlobalAlias &A : make_early_inc_range(M.aliases()))
    A.eraseFromParent();
  return Rest;
}
