//===- KernelLibrary.cpp - The scalar kernels, linked into JIT modules ---===//

#include "KernelLibrary.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Function.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace graphjit;

// The libraries, one per dtype, that lib/CMakeLists.txt embeds.
#define GJ_EMBEDDED(DT)                                                        \
  extern const unsigned char GraphjitScalarKernels_##DT[];                     \
  extern const unsigned long GraphjitScalarKernels_##DT##_size;
GJ_EMBEDDED(bool)
GJ_EMBEDDED(i8)
GJ_EMBEDDED(i16)
GJ_EMBEDDED(i32)
GJ_EMBEDDED(i64)
GJ_EMBEDDED(u8)
GJ_EMBEDDED(f32)
GJ_EMBEDDED(f64)
#undef GJ_EMBEDDED

namespace {
struct EmbeddedLibrary {
  llvm::StringRef DType;
  llvm::StringRef Name; ///< The parsed module's.
  const unsigned char *Bytes;
  const unsigned long &Size;
};
#define GJ_LIBRARY(DT)                                                         \
  {#DT, "graphjit-scalar-kernels-" #DT, GraphjitScalarKernels_##DT,          \
   GraphjitScalarKernels_##DT##_size}
const EmbeddedLibrary Embedded[KernelLibrary::NumLibraries] = {
    GJ_LIBRARY(bool), GJ_LIBRARY(i8),  GJ_LIBRARY(i16), GJ_LIBRARY(i32),
    GJ_LIBRARY(i64),  GJ_LIBRARY(u8),  GJ_LIBRARY(f32), GJ_LIBRARY(f64)};
#undef GJ_LIBRARY
} // namespace

KernelLibrary::~KernelLibrary() = default;

// gj_scalar_<op>_<dtype> is in its dtype's library, gj_convert_<to>_<from>
// in <to>'s.
std::optional<unsigned> KernelLibrary::libraryOf(llvm::StringRef Name) {
  llvm::StringRef DType;
  if (Name.consume_front("gj_scalar_"))
    DType = Name.rsplit('_').second;
  else if (Name.consume_front("gj_convert_"))
    DType = Name.split('_').first;
  for (unsigned I = 0; I < NumLibraries; ++I)
    if (Embedded[I].DType == DType)
      return I;
  return std::nullopt;
}

llvm::Expected<llvm::Module *> KernelLibrary::library(unsigned I) {
  if (Libraries[I])
    return Libraries[I].get();
  llvm::MemoryBufferRef Ref(
      llvm::StringRef(reinterpret_cast<const char *>(Embedded[I].Bytes),
                      Embedded[I].Size),
      Embedded[I].Name);
  // Lazily: only the kernels a module uses are read (the linker
  // materializes them), which keeps lowering a small function fast.
  auto Lib = llvm::getLazyBitcodeModule(Ref, M.getContext());
  if (!Lib)
    return Lib.takeError();
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  Libraries[I] = std::move(*Lib);
  return Libraries[I].get();
}

llvm::Expected<llvm::Function *> KernelLibrary::get(llvm::StringRef Name) {
  auto NoSuchKernel = [&] {
    return llvm::createStringError("no scalar kernel named '" + Name + "'");
  };
  std::optional<unsigned> I = libraryOf(Name);
  if (!I)
    return NoSuchKernel();
  llvm::Expected<llvm::Module *> Library = library(*I);
  if (!Library)
    return Library.takeError();
  llvm::Function *Def = (*Library)->getFunction(Name);
  if (!Def || Def->isDeclaration())
    return NoSuchKernel();
  if (llvm::Function *F = M.getFunction(Name))
    return F;
  llvm::Function *Decl = llvm::Function::Create(
      Def->getFunctionType(), llvm::GlobalValue::ExternalLinkage, Name, M);
  Decl->setAttributes(Def->getAttributes());
  return Decl;
}

llvm::Error KernelLibrary::linkUsed() {
  std::vector<std::string> Used;
  for (llvm::Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic())
      if (std::optional<unsigned> I = libraryOf(F.getName());
          I && Libraries[*I] && Libraries[*I]->getFunction(F.getName()))
        Used.push_back(F.getName().str());
  for (std::unique_ptr<llvm::Module> &Library : Libraries)
    if (Library && llvm::Linker::linkModules(M, std::move(Library),
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
