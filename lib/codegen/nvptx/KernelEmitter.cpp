//===- KernelEmitter.cpp - GPU kernels as LLVM IR, for NVPTX or the host -===//
//
// One module per call, one entry point per spec. The entry computes the
// work items' range for its target (the grid-stride loop of a CUDA grid,
// or every item in order on the host) and calls the spec's item function
// for each. Elemwise and Fill items come in two versions, chosen once per
// launch by a uniform test at the top of the entry: flat addressing when
// every operand is C-contiguous over the iteration space or broadcast over
// all of it (the common case: fresh outputs, whole inputs, scalars), and
// an index unravelled with i64 division otherwise. The scalar kernels the
// items call are linked in last, retargeted to the module's target.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"
#include "codegen/KernelLibrary.h"
#include "codegen/StructuralLoweringUtil.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace graphjit;
using namespace llvm;

//===--- KernelArgs and KernelItem ----------------------------------------===//

Value *KernelArgs::base(IRBuilder<> &B, unsigned K) const {
  return B.CreateIntToPtr(Args[firstOf(K)], B.getPtrTy(), "op" + Twine(K));
}

Value *KernelArgs::isContiguous(IRBuilder<> &B, unsigned K) const {
  // C order: the last dim's stride is the element size, each earlier one
  // the next one's times its dim. Dims of 1 take any stride.
  Value *Ok = B.getTrue();
  Value *Expected = B.getInt64(dtypeSize(Spec.Operands[K]));
  for (unsigned D = Spec.Rank; D-- > 0;) {
    Value *Fits = B.CreateOr(B.CreateICmpEQ(dim(D), B.getInt64(1)),
                             B.CreateICmpEQ(stride(K, D), Expected));
    Ok = B.CreateAnd(Ok, Fits);
    Expected = B.CreateMul(Expected, dim(D));
  }
  return Ok;
}

Value *KernelArgs::isBroadcast(IRBuilder<> &B, unsigned K) const {
  Value *Ok = B.getTrue();
  for (unsigned D = 0; D < Spec.Rank; ++D)
    Ok = B.CreateAnd(Ok,
                     B.CreateOr(B.CreateICmpEQ(dim(D), B.getInt64(1)),
                                B.CreateICmpEQ(stride(K, D), B.getInt64(0))));
  return Ok;
}

static SmallVector<Value *, 16> argValues(llvm::Function *F, unsigned From) {
  SmallVector<Value *, 16> V;
  for (unsigned I = From; I < F->arg_size(); ++I)
    V.push_back(F->getArg(I));
  return V;
}

KernelItem::KernelItem(ThunkEmitter &E, const KernelSpec &S, llvm::Function *F,
                       bool Flat)
    : E(E), B(E.B), Spec(S), Args(S, argValues(F, 1)), Flat(Flat),
      Item(F->getArg(0)) {}

SmallVector<unsigned, 8>
KernelItem::dimsWhere(function_ref<bool(unsigned)> Keep) const {
  SmallVector<unsigned, 8> Dims;
  for (unsigned D = 0; D < Spec.Rank; ++D)
    if (Keep(D))
      Dims.push_back(D);
  return Dims;
}

SmallVector<Value *, 8> KernelItem::unravel(ArrayRef<unsigned> Dims) {
  SmallVector<Value *, 8> Index(Dims.size());
  Value *Rest = Item;
  for (size_t I = Dims.size(); I-- > 0;) {
    Value *Dim = Args.dim(Dims[I]);
    if (I == 0) { // What is left is the outermost index.
      Index[I] = Rest;
      break;
    }
    // Items exist only when every dim is positive: no division by zero.
    Index[I] = B.CreateURem(Rest, Dim, "idx" + Twine(Dims[I]));
    Rest = B.CreateUDiv(Rest, Dim);
  }
  return Index;
}

SmallVector<Value *, 8> KernelItem::strides(unsigned K,
                                            ArrayRef<unsigned> Dims) {
  SmallVector<Value *, 8> S;
  for (unsigned D : Dims)
    S.push_back(Args.stride(K, D));
  return S;
}

Value *KernelItem::address(unsigned K, ArrayRef<unsigned> Dims,
                           ArrayRef<Value *> At) {
  return advance(E, Args.base(B, K), At, strides(K, Dims));
}

Value *KernelItem::elementAddress(unsigned K) {
  if (Flat) {
    Value *Size = B.getInt64(dtypeSize(Spec.Operands[K]));
    Value *Step = B.CreateSelect(Args.isBroadcast(B, K), B.getInt64(0), Size);
    return E.offset(Args.base(B, K), Item, Step);
  }
  SmallVector<unsigned, 8> All = dimsWhere([](unsigned) { return true; });
  if (Index.empty() && !All.empty())
    Index = unravel(All);
  return address(K, All, Index);
}

//===--- Entry points -----------------------------------------------------===//

namespace {

/// Writes the module's functions for one spec.
class SpecEmitter {
public:
  SpecEmitter(Module &M, KernelLibrary &Lib, KernelTarget Target,
              const KernelSpec &S)
      : M(M), Lib(Lib), Target(Target), S(S), Ctx(M.getContext()),
        I64(Type::getInt64Ty(Ctx)) {}

  Error emit();

private:
  Module &M;
  KernelLibrary &Lib;
  KernelTarget Target;
  const KernelSpec &S;
  LLVMContext &Ctx;
  Type *I64;

  bool hasFlatPath() const {
    return S.K == KernelSpec::Elemwise || S.K == KernelSpec::Fill;
  }
  Error check() const;
  /// `void NAME.item[.flat](i64 Item, i64 a0, ..., i64 aK)`.
  Expected<llvm::Function *> emitItem(bool Flat);
  /// The entry: computes every argument, the first item and the step,
  /// then loops.
  void emitEntry(llvm::Function *General, llvm::Function *FlatItem);
  Error fail(const Twine &Why) const {
    return createStringError("kernel " + S.Name + ": " + Why);
  }
};

} // namespace

Error SpecEmitter::check() const {
  if (!S.Node)
    return fail("no Apply");
  if (S.Operands.empty())
    return fail("no operands");
  // CUDA's classic limit on a kernel's parameters: 4 KiB.
  if (kernelArgCount(S) * 8 > 4096)
    return fail("rank " + Twine(S.Rank) + " and " + Twine(S.Operands.size()) +
                " operands take more than 4 KiB of kernel parameters");
  switch (S.K) {
  case KernelSpec::Elemwise:
    if (!S.ElemOp)
      return fail("an Elemwise kernel without its op");
    return Error::success();
  case KernelSpec::Fill:
    if (S.Operands.size() != 1)
      return fail("a fill takes one operand");
    return Error::success();
  case KernelSpec::Reduce:
    if (S.Operands.size() != 2 || S.Reduction.Reduced.size() != S.Rank)
      return fail("a reduction takes an output and an input, and a "
                  "reduced flag per dim");
    return Error::success();
  case KernelSpec::Softmax:
    if (S.Operands.size() != 2 || S.SoftmaxParams.Axis >= S.Rank)
      return fail("a softmax takes an output and an input, and an axis "
                  "below the rank");
    return Error::success();
  }
  return fail("unknown kind");
}

static Error emitKindItem(KernelItem &K) {
  switch (K.Spec.K) {
  case KernelSpec::Elemwise:
    return emitElemwiseItem(K);
  case KernelSpec::Fill:
    return emitFillItem(K);
  case KernelSpec::Reduce:
    return emitReduceItem(K);
  case KernelSpec::Softmax:
    return emitSoftmaxItem(K);
  }
  return createStringError("unknown kind");
}

Expected<llvm::Function *> SpecEmitter::emitItem(bool Flat) {
  SmallVector<Type *, 16> Params(1 + kernelArgCount(S), I64);
  auto *F = llvm::Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), Params, false),
      GlobalValue::InternalLinkage, S.Name + (Flat ? ".item.flat" : ".item"),
      M);
  F->addFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  ThunkEmitter E = ThunkEmitter::forKernel(B, M, *S.Node, Lib);
  KernelItem K(E, S, F, Flat);
  if (Error Err = emitKindItem(K))
    return fail(toString(std::move(Err)));
  B.CreateRetVoid();
  return F;
}

void SpecEmitter::emitEntry(llvm::Function *General, llvm::Function *FlatItem) {
  const unsigned NumArgs = kernelArgCount(S);
  llvm::Function *F;
  SmallVector<Value *, 16> Args;
  Value *First, *Step;
  if (Target == KernelTarget::NVPTX) {
    SmallVector<Type *, 16> Params(NumArgs, I64);
    F = llvm::Function::Create(
        FunctionType::get(Type::getVoidTy(Ctx), Params, false),
        GlobalValue::ExternalLinkage, S.Name, M);
    F->setCallingConv(CallingConv::PTX_Kernel);
    for (unsigned I = 0; I < NumArgs; ++I) {
      F->getArg(I)->setName("a" + Twine(I));
      Args.push_back(F->getArg(I));
    }
  } else {
    F = llvm::Function::Create(FunctionType::get(Type::getVoidTy(Ctx),
                                                 {PointerType::get(Ctx, 0)},
                                                 false),
                               GlobalValue::ExternalLinkage, S.Name, M);
    F->getArg(0)->setName("args");
  }
  F->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  if (Target == KernelTarget::NVPTX) {
    // The sregs are 32-bit; their products are not.
    auto Sreg = [&](Intrinsic::ID ID) {
      return B.CreateZExt(B.CreateIntrinsic(ID, {}, {}), I64);
    };
    Value *Tid = Sreg(Intrinsic::nvvm_read_ptx_sreg_tid_x);
    Value *Ntid = Sreg(Intrinsic::nvvm_read_ptx_sreg_ntid_x);
    Value *Ctaid = Sreg(Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    Value *Nctaid = Sreg(Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
    First = B.CreateAdd(B.CreateMul(Ctaid, Ntid), Tid, "first");
    Step = B.CreateMul(Nctaid, Ntid, "step");
  } else {
    for (unsigned I = 0; I < NumArgs; ++I)
      Args.push_back(
          B.CreateLoad(I64, B.CreateConstInBoundsGEP1_64(I64, F->getArg(0), I),
                       "a" + Twine(I)));
    First = B.getInt64(0);
    Step = B.getInt64(1);
  }
  Value *WorkItems = Args[0];
  BasicBlock *Exit = BasicBlock::Create(Ctx, "exit", F);
  // A grid-stride loop calling Item.
  auto Loop = [&](llvm::Function *Item, const Twine &Name) {
    BasicBlock *Pre = B.GetInsertBlock();
    BasicBlock *Head = BasicBlock::Create(Ctx, Name + ".head", F);
    BasicBlock *Body = BasicBlock::Create(Ctx, Name + ".body", F);
    B.CreateBr(Head);
    B.SetInsertPoint(Head);
    PHINode *I = B.CreatePHI(I64, 2, Name);
    I->addIncoming(First, Pre);
    B.CreateCondBr(B.CreateICmpULT(I, WorkItems), Body, Exit);
    B.SetInsertPoint(Body);
    SmallVector<Value *, 17> CallArgs = {I};
    CallArgs.append(Args.begin(), Args.end());
    B.CreateCall(Item, CallArgs);
    I->addIncoming(B.CreateAdd(I, Step, Name + ".next"), B.GetInsertBlock());
    B.CreateBr(Head);
  };
  if (FlatItem) {
    KernelArgs A(S, Args);
    Value *Flat = B.getTrue();
    for (unsigned K = 0; K < S.Operands.size(); ++K)
      Flat = B.CreateAnd(Flat,
                         B.CreateOr(A.isContiguous(B, K), A.isBroadcast(B, K)));
    BasicBlock *FlatBB = BasicBlock::Create(Ctx, "flat", F);
    BasicBlock *GeneralBB = BasicBlock::Create(Ctx, "general", F);
    B.CreateCondBr(Flat, FlatBB, GeneralBB);
    B.SetInsertPoint(FlatBB);
    Loop(FlatItem, "f");
    B.SetInsertPoint(GeneralBB);
  }
  Loop(General, "i");
  B.SetInsertPoint(Exit);
  B.CreateRetVoid();
}

Error SpecEmitter::emit() {
  if (Error E = check())
    return E;
  if (M.getFunction(S.Name))
    return fail("the name is taken");
  Expected<llvm::Function *> General = emitItem(/*Flat=*/false);
  if (!General)
    return General.takeError();
  llvm::Function *FlatItem = nullptr;
  if (hasFlatPath()) {
    Expected<llvm::Function *> F = emitItem(/*Flat=*/true);
    if (!F)
      return F.takeError();
    FlatItem = *F;
  }
  emitEntry(*General, FlatItem);
  return Error::success();
}

//===--- emitKernels ------------------------------------------------------===//

Expected<std::unique_ptr<Module>>
graphjit::emitKernels(ArrayRef<KernelSpec> Specs, LLVMContext &Ctx,
                      KernelTarget Target, const HostTarget &Host) {
  auto M = std::make_unique<Module>(Target == KernelTarget::NVPTX
                                        ? "graphjit.gpu.kernels"
                                        : "graphjit.gpu.host-kernels",
                                    Ctx);
  // Before the kernel library is used: it takes the module's target.
  if (Target == KernelTarget::NVPTX) {
    Expected<std::unique_ptr<TargetMachine>> TM =
        createNvptxTargetMachine("sm_80");
    if (!TM)
      return TM.takeError();
    M->setTargetTriple((*TM)->getTargetTriple().str());
    M->setDataLayout((*TM)->createDataLayout());
  } else {
    if (!Host.Layout)
      return createStringError(
          "kernels for the host need the host JIT's triple and data layout");
    M->setTargetTriple(Host.Triple);
    M->setDataLayout(*Host.Layout);
  }
  KernelLibrary Lib(*M);
  for (const KernelSpec &S : Specs)
    if (Error E = SpecEmitter(*M, Lib, Target, S).emit())
      return E;
  if (Error E = Lib.linkUsed())
    return E;
  std::string Problems;
  raw_string_ostream OS(Problems);
  if (verifyModule(*M, &OS))
    return createStringError("the GPU kernels do not verify: " + Problems);
  return M;
}
