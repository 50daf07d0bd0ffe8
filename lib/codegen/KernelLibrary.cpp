//===- KernelLibrary.cpp - The scalar kernels, linked into JIT modules ---===//

#include "KernelLibrary.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Function.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace graphjit;

extern const unsigned char GraphjitScalarKernels[];
extern const unsigned long GraphjitScalarKernels_size;

KernelLibrary::~KernelLibrary() = default;

llvm::Error KernelLibrary::load() {
  llvm::MemoryBufferRef Ref(
      llvm::StringRef(reinterpret_cast<const char *>(GraphjitScalarKernels),
                      GraphjitScalarKernels_size),
      "graphjit-scalar-kernels");
  // Lazily: only the kernels a module uses are read (the linker
  // materializes them), which keeps lowering a small function fast.
  auto Lib = llvm::getLazyBitcodeModule(Ref, M.getContext());
  if (!Lib)
    return Lib.takeError();
  Library = std::move(*Lib);
  Library->setTargetTriple(M.getTargetTriple());
  Library->setDataLayout(M.getDataLayout());
  return llvm::Error::success();
}

llvm::Expected<llvm::Function *> KernelLibrary::get(llvm::StringRef Name) {
  if (!Library)
    if (llvm::Error E = load())
      return E;
  llvm::Function *Def = Library->getFunction(Name);
  if (!Def || Def->isDeclaration())
    return llvm::createStringError("no scalar kernel named '" + Name + "'");
  if (llvm::Function *F = M.getFunction(Name))
    return F;
  llvm::Function *Decl = llvm::Function::Create(
      Def->getFunctionType(), llvm::GlobalValue::ExternalLinkage, Name, M);
  Decl->setAttributes(Def->getAttributes());
  return Decl;
}

llvm::Error KernelLibrary::linkUsed() {
  if (!Library)
    return llvm::Error::success();
  std::vector<std::string> Used;
  for (llvm::Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() &&
        Library->getFunction(F.getName()))
      Used.push_back(F.getName().str());
  if (llvm::Linker::linkModules(M, std::move(Library),
                                llvm::Linker::LinkOnlyNeeded))
    return llvm::createStringError("linking the scalar kernels failed");
  for (llvm::Function &F : M) {
    // Only what clang compiled says "target-cpu". The module's target
    // decides the instruction set, not clang's default; and functions whose
    // target attributes differ each cost the code generator a subtarget
    // (about 2 M instructions apiece), so clang's vector-width hint goes too.
    if (!F.hasFnAttribute("target-cpu"))
      continue;
    for (llvm::StringRef A :
         {"target-cpu", "target-features", "tune-cpu", "min-legal-vector-width"})
      F.removeFnAttr(A);
  }
  for (const std::string &Name : Used) {
    llvm::Function *F = M.getFunction(Name);
    F->setLinkage(llvm::GlobalValue::InternalLinkage);
    F->removeFnAttr(llvm::Attribute::NoInline);
    F->removeFnAttr(llvm::Attribute::OptimizeNone);
    F->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return llvm::Error::success();
}
