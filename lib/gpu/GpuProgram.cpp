//===- GpuProgram.cpp - Compiling and running a function's GPU Applies ---===//

#include "GpuProgram.h"
#include "DeviceCodeCache.h"
#include "DevicePool.h"
#include "jit/JitEngine.h"
#include "ops/gpu/GpuOps.h"
#include "ops/shape/ShapeOps.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "llvm/ADT/ScopeExit.h"
#include <chrono>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

static Error gpuError(const llvm::Twine &Msg) {
  return llvm::createStringError(Msg);
}

//===-- Making the program -------------------------------------------------===//

GpuProgram::~GpuProgram() {
  if (!HostCode || !HostCode->Dylib)
    return;
  if (auto Engine = JitEngine::get())
    Engine->release(*HostCode);
  else
    llvm::consumeError(Engine.takeError());
}

Expected<std::unique_ptr<GpuProgram>>
GpuProgram::create(const FunctionGraph &F, Device &D, DevicePool &Pool,
                   bool Profile) {
  if (Error E = checkPlacement(F))
    return E;
  auto Start = std::chrono::steady_clock::now();
  std::unique_ptr<GpuProgram> P(new GpuProgram(D, Pool, Profile));
  P->Plan = KernelPlan::of(F);
  std::vector<std::string> Names;
  for (const KernelSpec &S : P->Plan.Specs)
    Names.push_back(S.Name);
  KernelImage Image;
  if (!Names.empty()) {
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    Expected<JitEngine &> Engine = JitEngine::get();
    if (!Engine)
      return Engine.takeError();
    Expected<std::unique_ptr<llvm::Module>> M = emitKernels(
        P->Plan.Specs, *Ctx,
        D.isEmulated() ? KernelTarget::Host : KernelTarget::NVPTX,
        HostTarget{Engine->triple(), &Engine->dataLayout()});
    if (!M)
      return M.takeError();
    if (D.isEmulated()) {
      Expected<CompiledCode> C =
          Engine->compile(std::move(*M), std::move(Ctx), Names.front(),
                          Optimization{});
      if (!C)
        return C.takeError();
      P->HostCode = std::make_unique<CompiledCode>(*C);
      Image.HostLookup = [Engine = &*Engine,
                          Code = P->HostCode.get()](llvm::StringRef Name) {
        Expected<void *> A = Engine->lookup(*Code, Name);
        if (!A) {
          llvm::consumeError(A.takeError());
          return static_cast<void *>(nullptr);
        }
        return *A;
      };
    } else {
      CompileCache Cache(deviceCodeDirectory(Engine->cacheDirectory()));
      Expected<DeviceCode> Code =
          deviceCodeFor(std::move(*M), D.arch(), Cache, &D);
      if (!Code)
        return Code.takeError();
      P->PtxFromCache = Code->PtxFromCache;
      P->BinaryFromCache = Code->BinaryFromCache;
      Image.Ptx = std::move(Code->Ptx);
      Image.Binary = std::move(Code->Binary);
    }
    Expected<std::vector<KernelHandle>> K = D.loadKernels(Image, Names);
    if (!K)
      return K.takeError();
    P->Kernels = std::move(*K);
  }
  P->CompileSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
  return P;
}

//===-- Running ------------------------------------------------------------===//

Error GpuProgram::run(const Apply &N, llvm::ArrayRef<NDArray> In,
                      std::vector<NDArray> &Out, const ExecContext &Ctx) {
  TimerMark Before = 0;
  if (Profile) {
    // One mark between consecutive Applies: each one's time runs from
    // the end of the device work queued before it, so a call's Applies
    // add up to its time on the device, at one event per Apply.
    if (!TimedApplies.empty()) {
      Before = TimedApplies.back().To;
    } else {
      if (HostNow)
        FirstMarkHost = HostNow();
      Expected<TimerMark> M = Dev.mark();
      if (!M)
        return M.takeError();
      Before = *M;
    }
  }
  Error E = Error::success();
  if (transferDirection(N.op())) {
    E = runTransfer(N, In, Out);
  } else {
    const GpuOp &G = *gpuOpOf(N.op());
    for (const NDArray &X : In)
      if (!X.onDevice())
        return gpuError("internal error: an input of " + G.name() +
                        " is not on the device");
    switch (G.role()) {
    case GpuRole::Kernel: E = runKernel(N, In, Out, Ctx); break;
    case GpuRole::View: E = runView(N, In, Out, Ctx); break;
    case GpuRole::Blas: E = runBlas(N, In, Out); break;
    case GpuRole::None: E = gpuError("internal error: no GPU role"); break;
    }
  }
  if (E || !Profile)
    return E;
  Expected<TimerMark> After = Dev.mark();
  if (!After)
    return After.takeError();
  TimedApplies.push_back({N.id(), Before, *After});
  return Error::success();
}

Error GpuProgram::endCall(
    llvm::function_ref<void(unsigned ApplyId, double Start, double Seconds)>
        Sink) {
  auto Reset = llvm::make_scope_exit([&] {
    TimedApplies.clear();
    Dev.resetMarks();
  });
  if (Error E = Dev.synchronize())
    return E;
  for (const Timed &T : TimedApplies) {
    Expected<double> S = Dev.elapsedSeconds(T.From, T.To);
    if (!S)
      return S.takeError();
    // Where it started is asked only for a timeline (setHostClock).
    Expected<double> Start =
        HostNow ? Dev.elapsedSeconds(TimedApplies.front().From, T.From) : 0.0;
    if (!Start)
      return Start.takeError();
    Sink(T.Apply, *Start, *S);
  }
  return Error::success();
}

Error GpuProgram::runTransfer(const Apply &N, llvm::ArrayRef<NDArray> In,
                              std::vector<NDArray> &Out) {
  const NDArray &X = In[0];
  if (*transferDirection(N.op()) == TransferDirection::ToHost) {
    if (!X.onDevice())
      return gpuError("internal error: host_from_gpu of a host array");
    Expected<NDArray> C = contiguous(X);
    if (!C)
      return C.takeError();
    Expected<NDArray> H = NDArray::empty(X.dtype(), X.shape());
    if (!H)
      return H.takeError();
    if (H->numBytes())
      if (Error E = Dev.copyToHost(H->data(), uint64_t(C->data()),
                                   H->numBytes()))
        return E;
    Out[0] = std::move(*H);
    return Error::success();
  }
  if (X.onDevice())
    return gpuError("internal error: gpu_from_host of a device array");
  // A constant is copied once, on the first call.
  bool IsConstant = N.inputs()[0]->kind() == Variable::Constant;
  if (IsConstant)
    if (auto It = ConstantCopies.find(N.id()); It != ConstantCopies.end()) {
      Out[0] = It->second;
      return Error::success();
    }
  NDArray Host = X.contiguous();
  Expected<NDArray> D = Pool.empty(X.dtype(), X.shape());
  if (!D)
    return D.takeError();
  if (Host.numBytes())
    if (Error E = Dev.copyToDevice(uint64_t(D->data()), Host.data(),
                                   Host.numBytes()))
      return E;
  if (IsConstant)
    ConstantCopies[N.id()] = *D;
  Out[0] = std::move(*D);
  return Error::success();
}

Error GpuProgram::launch(
    int Spec, uint64_t WorkItems, const Shape &Dims,
    llvm::ArrayRef<std::pair<const NDArray *, Shape>> Ops) {
  if (WorkItems == 0)
    return Error::success();
  const KernelSpec &S = Plan.Specs[Spec];
  llvm::SmallVector<uint64_t, 32> Args;
  Args.push_back(WorkItems);
  for (int64_t D : Dims)
    Args.push_back(uint64_t(D));
  for (const auto &[A, Strides] : Ops) {
    Args.push_back(uint64_t(A->data()));
    for (int64_t St : Strides)
      Args.push_back(uint64_t(St));
  }
  if (Args.size() != kernelArgCount(S))
    return gpuError("internal error: kernel " + S.Name + " takes " +
                    llvm::Twine(kernelArgCount(S)) + " arguments, not " +
                    llvm::Twine(Args.size()));
  return Dev.launch(Kernels[Spec], WorkItems, Args);
}

/// X's byte strides over an iteration space of shape Dims, X broadcast
/// against its trailing dims (NumPy's rule); nullopt if it does not fit.
static std::optional<Shape> stridesOver(const NDArray &X,
                                        const Shape &Dims) {
  if (X.rank() > Dims.size())
    return std::nullopt;
  unsigned Off = Dims.size() - X.rank();
  for (unsigned D = 0; D < X.rank(); ++D)
    if (X.dim(D) != 1 && X.dim(D) != Dims[Off + D])
      return std::nullopt;
  return broadcastStrides(X, Dims);
}

Error GpuProgram::copyInto(const NDArray &Dst, const NDArray &Src) {
  std::optional<Shape> St = stridesOver(Src, Dst.shape());
  if (!St)
    return gpuError("cannot broadcast shape " + shapeStr(Src.shape()) +
                    " to " + shapeStr(Dst.shape()));
  auto It = Plan.CopySpecs.find({Dst.dtype(), Dst.rank()});
  if (It == Plan.CopySpecs.end() || Src.dtype() != Dst.dtype())
    return gpuError("internal error: no copy kernel for " +
                    dtypeName(Dst.dtype()) + " of rank " +
                    llvm::Twine(Dst.rank()));
  return launch(It->second, Dst.numElements(), Dst.shape(),
                {{&Dst, Dst.strides()}, {&Src, *St}});
}

Expected<NDArray> GpuProgram::contiguous(const NDArray &X) {
  if (X.isContiguous())
    return X;
  Expected<NDArray> C = Pool.empty(X.dtype(), X.shape());
  if (!C)
    return C.takeError();
  if (Error E = copyInto(*C, X))
    return E;
  return C;
}

/// The NumPy broadcast of the shapes of In, with the host's wording.
static Expected<Shape> broadcastShape(llvm::ArrayRef<NDArray> In,
                                      unsigned Rank) {
  std::vector<Shape> Shapes;
  for (const NDArray &X : In)
    Shapes.push_back(X.shape());
  Expected<Shape> S = broadcastShapes(Shapes);
  if (S && S->size() < Rank) // Inputs of lower rank than the output.
    S->insert(S->begin(), Rank - S->size(), 1);
  return S;
}

Error GpuProgram::runKernel(const Apply &N, llvm::ArrayRef<NDArray> In,
                            std::vector<NDArray> &Out,
                            const ExecContext &Ctx) {
  int Spec = Plan.SpecOfApply[N.id()];
  const KernelSpec &S = Plan.Specs[Spec];
  DType OutType = N.output(0)->type().Dtype;
  auto Make = [&](const Shape &Sh) -> Error {
    Expected<NDArray> A = Pool.empty(OutType, Sh);
    if (!A)
      return A.takeError();
    Out[0] = std::move(*A);
    return Error::success();
  };
  switch (S.K) {
  case KernelSpec::Elemwise: {
    // The host's checks and words: NumPy's broadcast, or alloc's own.
    const Op &H = gpuOpOf(N.op())->hostOp();
    Expected<Shape> Sh = allocFill(H) ? allocShape(H, In[0], Ctx)
                                      : broadcastShape(In, S.Rank);
    if (!Sh)
      return Sh.takeError();
    if (Error E = Make(*Sh))
      return E;
    std::vector<std::pair<const NDArray *, Shape>> Ops = {
        {&Out[0], Out[0].strides()}};
    for (const NDArray &X : In)
      Ops.push_back({&X, broadcastStrides(X, *Sh)});
    return launch(Spec, Out[0].numElements(), *Sh, Ops);
  }

  case KernelSpec::Fill:
    if (Error E = Make(In[0].shape()))
      return E;
    return launch(Spec, Out[0].numElements(), Out[0].shape(),
                  {{&Out[0], Out[0].strides()}});
  case KernelSpec::Reduce: {
    const NDArray &X = In[0];
    Shape OutShape;
    uint64_t Items = 1;
    for (unsigned D = 0; D < X.rank(); ++D) {
      if (!S.Reduction.Reduced[D]) {
        OutShape.push_back(X.dim(D));
        Items *= X.dim(D);
      } else if (S.Reduction.KeepDims) {
        OutShape.push_back(1);
      }
    }
    // As NumPy: max and min of nothing fail, unless nothing is asked for.
    uint64_t Reduced = 1;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (S.Reduction.Reduced[D])
        Reduced *= X.dim(D);
    if (Reduced == 0 && Items > 0 &&
        (S.Reduction.K == ReductionInfo::Max ||
         S.Reduction.K == ReductionInfo::Min))
      return gpuError(std::string("zero-size array to reduction operation ") +
                      (S.Reduction.K == ReductionInfo::Max ? "maximum"
                                                           : "minimum") +
                      " which has no identity");
    if (Error E = Make(OutShape))
      return E;
    Expected<bool> Split = splitReduce(N, X, Out[0], Items);
    if (!Split || *Split)
      return Split.takeError();
    Shape OutStrides(X.rank(), 0);
    for (unsigned D = 0, O = 0; D < X.rank(); ++D) {
      if (!S.Reduction.Reduced[D])
        OutStrides[D] = Out[0].strides()[O];
      if (!S.Reduction.Reduced[D] || S.Reduction.KeepDims)
        ++O;
    }
    return launch(Spec, Items, X.shape(),
                  {{&Out[0], OutStrides}, {&X, X.strides()}});
  }
  case KernelSpec::Softmax: {
    const NDArray &X = In[0];
    if (Error E = Make(X.shape()))
      return E;
    uint64_t Rows = 1;
    for (unsigned D = 0; D < X.rank(); ++D)
      if (D != S.SoftmaxParams.Axis)
        Rows *= X.dim(D);
    return launch(Spec, Rows, X.shape(),
                  {{&Out[0], Out[0].strides()}, {&X, X.strides()}});
  }
  }
  return gpuError("internal error: unknown kernel kind");
}

/// A reduction over few outputs, each of many elements, leaves most of a
/// GPU idle (one thread per output): it is split in two steps when its
/// first reduced dim, of size S, has a divisor P in [4, 256] with S/P >= 16.
/// Step one reduces chunks of S/P (P times more work items), step two the
/// P partial results. Mean splits as means of equal chunks. Results agree
/// with one step to rounding.
static constexpr uint64_t SplitMinReduced = 256, SplitMaxItems = 1 << 16;

Expected<bool> GpuProgram::splitReduce(const Apply &N, const NDArray &X,
                                       NDArray &Out, uint64_t Items) {
  auto [One, Two] = Plan.SplitOfApply[N.id()];
  if (One < 0 || Items == 0 || Items > SplitMaxItems)
    return false;
  const std::vector<bool> &Mask = Plan.Specs[One].Reduction.Reduced;
  // Mask has the P dim inserted before the first reduced one.
  unsigned First = std::find(Mask.begin(), Mask.end(), true) - Mask.begin() - 1;
  uint64_t Reduced = 1;
  for (unsigned D = 0; D < X.rank(); ++D)
    if (Mask[D < First ? D : D + 1])
      Reduced *= X.dim(D);
  int64_t S = X.dim(First), P = 0;
  for (int64_t C = std::min<int64_t>(256, S / 16); C >= 4 && !P; --C)
    if (S % C == 0)
      P = C;
  if (Reduced < SplitMinReduced || P == 0)
    return false;
  // Step one: X viewed with dim First as (P, S/P).
  Shape Dims = X.shape(), Strides = X.strides();
  Dims[First] = S / P;
  Dims.insert(Dims.begin() + First, P);
  Strides.insert(Strides.begin() + First, Strides[First] * (S / P));
  Shape PartialShape;
  for (unsigned D = 0; D < Dims.size(); ++D)
    if (!Mask[D])
      PartialShape.push_back(Dims[D]);
  Expected<NDArray> Partial = Pool.empty(Out.dtype(), PartialShape);
  if (!Partial)
    return Partial.takeError();
  Shape PartialStrides(Dims.size(), 0);
  for (unsigned D = 0, O = 0; D < Dims.size(); ++D)
    if (!Mask[D])
      PartialStrides[D] = Partial->strides()[O++];
  if (Error E = launch(One, Items * P, Dims,
                       {{&*Partial, PartialStrides}, {&X, Strides}}))
    return E;
  // Step two: the P partials of each output, into Out (whose dims are the
  // kept ones, maybe with 1s for the reduced ones: keepdims).
  const std::vector<bool> &Mask2 = Plan.Specs[Two].Reduction.Reduced;
  unsigned PPos = std::find(Mask2.begin(), Mask2.end(), true) - Mask2.begin();
  Shape OutStrides(PartialShape.size(), 0);
  bool KeepDims = Plan.Specs[Plan.SpecOfApply[N.id()]].Reduction.KeepDims;
  for (unsigned D = 0, J = 0, O = 0; D < X.rank(); ++D) {
    bool IsReduced = Mask[D < First ? D : D + 1];
    if (!IsReduced) {
      if (J == PPos)
        ++J; // the P dim
      OutStrides[J++] = Out.strides()[O];
    }
    if (!IsReduced || KeepDims)
      ++O;
  }
  if (Error E = launch(Two, Items, PartialShape,
                       {{&Out, OutStrides}, {&*Partial, Partial->strides()}}))
    return E;
  return true;
}

Error GpuProgram::runView(const Apply &N, llvm::ArrayRef<NDArray> In,
                          std::vector<NDArray> &Out, const ExecContext &Ctx) {
  const Op &H = gpuOpOf(N.op())->hostOp();
  // The host op makes the view; it would copy a non-contiguous array on
  // the host, so Reshape gets a contiguous one.
  std::vector<NDArray> Args(In.begin(), In.end());
  if (llvm::isa<ReshapeOp>(H)) {
    Expected<NDArray> C = contiguous(In[0]);
    if (!C)
      return C.takeError();
    Args[0] = std::move(*C);
  }
  if (Error E = H.prepare(Args, Out, Ctx))
    return E;
  for (const NDArray &O : Out)
    if (!O.onDevice() || !O.sharesBufferWith(Args[0]))
      return gpuError("internal error: " + H.name() +
                      " made no view on the device");
  return Error::success();
}
