//===- Libdevice.cpp - Math for NVPTX modules: libdevice's __nv_* --------===//
//
// The scalar kernels are host bitcode: their math is LLVM's math
// intrinsics (llvm.exp.f64, ...), libm calls (erf, expm1f, ...) and frem.
// The NVPTX backend cannot select most of these (llvm.sin is a fatal
// "Cannot select", llvm.tanh a call of an undefined tanhf) and lowers frem
// to x - trunc(x / y) * y, which is not fmod. Each becomes a call of
// libdevice's function of the same name and type (`__nv_expf`, `__nv_exp`,
// `__nv_fmod`), and libdevice is linked in, only what is called, read
// lazily. Intrinsics the backend lowers exactly (sqrt, fabs, floor, ceil,
// copysign, minnum/maxnum, fma, integer min/max/abs) stay. The module flag
// nvvm-reflect-ftz = 0 keeps denormals, as the host does.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdlib>

using namespace graphjit;
using namespace llvm;

std::string graphjit::libdevicePath() {
  if (const char *P = std::getenv("GRAPHJIT_LIBDEVICE"); P && *P)
    return P;
  return "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc";
}

/// The math intrinsics the NVPTX backend has no exact lowering for, by
/// their name without "llvm." and the type suffix.
static bool needsLibdevice(StringRef Base) {
  static const char *Names[] = {
      "exp",  "exp2", "exp10", "log",   "log2", "log10", "sin",  "cos", "tan",
      "asin", "acos", "atan",  "atan2", "sinh", "cosh",  "tanh", "pow"};
  return llvm::is_contained(Names, Base);
}

/// libdevice's name for float or double math Base: `__nv_expf`, `__nv_exp`.
static std::string libdeviceName(StringRef Base, Type *Ty) {
  return ("__nv_" + Base + (Ty->isFloatTy() ? "f" : "")).str();
}

/// What libdevice calls math intrinsic F (a math intrinsic on f32 or f64
/// that needs it), else "".
static std::string intrinsicReplacement(const llvm::Function &F) {
  if (!F.isIntrinsic())
    return "";
  Type *Ty = F.getReturnType();
  if (!Ty->isFloatTy() && !Ty->isDoubleTy())
    return "";
  // "llvm.exp.f32" -> "exp"
  StringRef Name = F.getName();
  if (!Name.consume_front("llvm."))
    return "";
  StringRef Base = Name.rsplit('.').first;
  return needsLibdevice(Base) ? libdeviceName(Base, Ty) : "";
}

/// Whether M calls anything libdevice must supply: a math intrinsic NVPTX
/// cannot lower, an external function (libm), or frem.
static bool callsLibdevice(const Module &M) {
  for (const llvm::Function &F : M) {
    if (F.isDeclaration() && !F.use_empty() &&
        (F.isIntrinsic() ? !intrinsicReplacement(F).empty() : true))
      return true;
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        if (I.getOpcode() == Instruction::FRem)
          return true;
  }
  return false;
}

Error graphjit::linkLibdevice(Module &M) {
  // Kernels without math need no CUDA toolkit: only the driver.
  if (!callsLibdevice(M))
    return Error::success();
  std::string Path = libdevicePath();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError("cannot read libdevice '" + Path +
                             "': " + Buf.getError().message() +
                             " (set GRAPHJIT_LIBDEVICE)");
  Expected<std::unique_ptr<Module>> Lib =
      getOwningLazyBitcodeModule(std::move(*Buf), M.getContext());
  if (!Lib)
    return createStringError("cannot read libdevice '" + Path +
                             "': " + toString(Lib.takeError()));
  Module &L = **Lib;
  // Its own triple and layout are older spellings of the same target.
  L.setTargetTriple(M.getTargetTriple());
  L.setDataLayout(M.getDataLayout());

  // The callee every math function of M is to call instead.
  auto Replacement = [&](llvm::Function &F, StringRef Name) -> Error {
    llvm::Function *Nv = L.getFunction(Name);
    if (!Nv || Nv->getFunctionType() != F.getFunctionType())
      return createStringError("no libdevice function " + Name + " for " +
                               F.getName());
    FunctionCallee Decl = M.getOrInsertFunction(Name, F.getFunctionType());
    F.replaceAllUsesWith(Decl.getCallee());
    return Error::success();
  };
  for (llvm::Function &F : make_early_inc_range(M)) {
    if (!F.isDeclaration() || F.use_empty() || F.getName().starts_with("__nv_"))
      continue;
    if (F.isIntrinsic()) {
      std::string Nv = intrinsicReplacement(F);
      if (Nv.empty())
        continue;
      if (Error E = Replacement(F, Nv))
        return E;
    } else if (L.getFunction(("__nv_" + F.getName()).str())) {
      // A libm function: erf, expm1f, log1p, ...
      if (Error E = Replacement(F, ("__nv_" + F.getName()).str()))
        return E;
    } else {
      continue;
    }
    F.eraseFromParent();
  }
  // frem is fmod: x - trunc(x / y) * y, NVPTX's lowering, is not exact.
  SmallVector<Instruction *, 8> Frems;
  for (llvm::Function &F : M)
    for (Instruction &I : instructions(F))
      if (I.getOpcode() == Instruction::FRem)
        Frems.push_back(&I);
  for (Instruction *I : Frems) {
    Type *Ty = I->getType();
    if (!Ty->isFloatTy() && !Ty->isDoubleTy())
      return createStringError("frem of a vector or an unusual float type");
    FunctionCallee Fmod = M.getOrInsertFunction(
        libdeviceName("fmod", Ty), FunctionType::get(Ty, {Ty, Ty}, false));
    CallInst *C = CallInst::Create(Fmod, {I->getOperand(0), I->getOperand(1)},
                                   "", I->getIterator());
    C->takeName(I);
    I->replaceAllUsesWith(C);
    I->eraseFromParent();
  }

  if (Linker::linkModules(M, std::move(*Lib), Linker::LinkOnlyNeeded))
    return createStringError("linking libdevice '" + Path + "' failed");
  // Only the kernels are entry points: libdevice's functions and tables
  // become internal, inlined or dropped.
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && F.getCallingConv() != CallingConv::PTX_Kernel)
      F.setLinkage(GlobalValue::InternalLinkage);
  for (GlobalVariable &G : M.globals())
    if (!G.isDeclaration())
      G.setLinkage(GlobalValue::InternalLinkage);
  M.addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return Error::success();
}
