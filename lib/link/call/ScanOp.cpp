//===- ScanOp.cpp - PyTensor's Scan over a compiled body ------------------===//
//
// The loop of PyTensor's Scan.perform, over a body graphjit compiled: the
// same buffers (a tap output's buffer may be shorter than the steps, a
// circular buffer PyTensor's save-memory rewrite asks for, put in order at
// the end), the same positions, taps and stop condition, and the same
// errors. Per step it wraps the rows the body reads (no copies), calls the
// body's JIT code into outputs kept from step to step (no allocation), and
// copies the step's values into the buffers.
//
//===----------------------------------------------------------------------===//

#include "link/call/ScanOp.h"
#include "graphjit/Function.h"
#include "link/call/StepCall.h"
#include "ops/StructuralUtil.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Casting.h"
#include <cstring>

using namespace graphjit;
using llvm::ArrayRef;
using llvm::Error;
using llvm::Expected;

// Where each group of values sits among the outer inputs and outputs and
// the body's inputs and outputs (ScanSpec's order).
struct ScanOp::Layout {
  unsigned NumMitMot, NumTapOuts; // mit_mot + mit_sot + sit_sot
  /// Per tap output: the taps it reads; its oldest tap (PyTensor's
  /// mintaps, 0 for a nit_sot).
  std::vector<std::vector<int64_t>> InTaps;
  std::vector<int64_t> MinTap;
  // Outer inputs.
  unsigned FirstSeq = 1, FirstTapBuffer, FirstNitLength, FirstUntracedIn,
           FirstNonSeqIn, NumOuterIns;
  // Body inputs: sequence rows first, then each tap output's taps.
  unsigned FirstTapIn, FirstUntracedBodyIn, FirstNonSeqBodyIn, NumBodyIns;
  // Body outputs.
  unsigned FirstTapBodyOut, FirstNitBodyOut, FirstUntracedBodyOut,
      NumBodyOuts;

  explicit Layout(const ScanSpec &S) {
    NumMitMot = S.MitMotInTaps.size();
    for (const auto *Group : {&S.MitMotInTaps, &S.MitSotTaps, &S.SitSotTaps})
      for (const std::vector<int64_t> &T : *Group)
        InTaps.push_back(T);
    NumTapOuts = InTaps.size();
    for (const std::vector<int64_t> &T : InTaps)
      MinTap.push_back(T.empty() ? 0 : *llvm::min_element(T));
    MinTap.resize(NumTapOuts + S.NumNitSot, 0);

    FirstTapBuffer = FirstSeq + S.NumSequences;
    FirstNitLength = FirstTapBuffer + NumTapOuts;
    FirstUntracedIn = FirstNitLength + S.NumNitSot;
    FirstNonSeqIn = FirstUntracedIn + S.NumUntraced;
    NumOuterIns = FirstNonSeqIn + S.NumNonSequences;

    FirstTapIn = S.NumSequences;
    unsigned NumTaps = 0;
    for (const std::vector<int64_t> &T : InTaps)
      NumTaps += T.size();
    FirstUntracedBodyIn = FirstTapIn + NumTaps;
    FirstNonSeqBodyIn = FirstUntracedBodyIn + S.NumUntraced;
    NumBodyIns = FirstNonSeqBodyIn + S.NumNonSequences;

    unsigned NumMitMotOuts = 0;
    for (const std::vector<int64_t> &T : S.MitMotOutTaps)
      NumMitMotOuts += T.size();
    FirstTapBodyOut = NumMitMotOuts; // then mit_sot and sit_sot, one each
    FirstNitBodyOut = FirstTapBodyOut + (NumTapOuts - NumMitMot);
    FirstUntracedBodyOut = FirstNitBodyOut + S.NumNitSot;
    NumBodyOuts = FirstUntracedBodyOut + S.NumUntraced + unsigned(S.AsWhile);
  }
};

static AttrMap attrsOf(const ScanSpec &S, const Function &Body) {
  auto Lists = [](const std::vector<std::vector<int64_t>> &V) {
    std::vector<AttrValue> L;
    for (const std::vector<int64_t> &T : V)
      L.push_back(AttrValue::intList(T));
    return AttrValue::list(std::move(L));
  };
  AttrMap A;
  A["body"] = AttrValue::ident(Body.graph().name());
  A["n_seqs"] = AttrValue::integer(S.NumSequences);
  A["mit_mot_in"] = Lists(S.MitMotInTaps);
  A["mit_mot_out"] = Lists(S.MitMotOutTaps);
  A["mit_sot"] = Lists(S.MitSotTaps);
  A["sit_sot"] = Lists(S.SitSotTaps);
  A["n_nit_sot"] = AttrValue::integer(S.NumNitSot);
  A["n_untraced"] = AttrValue::integer(S.NumUntraced);
  A["n_non_seqs"] = AttrValue::integer(S.NumNonSequences);
  A["as_while"] = AttrValue::boolean(S.AsWhile);
  return A;
}

ScanOp::ScanOp(ScanSpec S, std::shared_ptr<Function> B, std::string N,
               AttrMap Attrs)
    : ComputedOp("scan", std::move(Attrs), OpKind::Scan), Spec(std::move(S)),
      Body(std::move(B)), Name(std::move(N)),
      L(std::make_unique<Layout>(Spec)) {
  NumOuts = L->NumTapOuts + Spec.NumNitSot + Spec.NumUntraced;
}

ScanOp::~ScanOp() = default;

Error ScanOp::checkBody(const ScanSpec &S, const Function &Body) {
  Layout L(S);
  const FunctionGraph &G = Body.graph();
  if (G.inputs().size() != L.NumBodyIns)
    return opError("scan: the spec gives the body " +
                   llvm::Twine(L.NumBodyIns) + " inputs, '" + G.name() +
                   "' has " + llvm::Twine(G.inputs().size()));
  if (G.outputs().size() != L.NumBodyOuts)
    return opError("scan: the spec gives the body " +
                   llvm::Twine(L.NumBodyOuts) + " outputs, '" + G.name() +
                   "' has " + llvm::Twine(G.outputs().size()));
  if (S.MitMotOutTaps.size() != S.MitMotInTaps.size())
    return opError("scan: mit_mot input and output taps differ in number");
  for (const std::vector<int64_t> &T : L.InTaps)
    if (T.empty())
      return opError("scan: a recurrent output reads no tap");
  if (S.AsWhile && G.outputs().back()->type().rank() != 0)
    return opError("scan: the stop condition is " +
                   G.outputs().back()->type().str() + ", not a scalar");
  return Error::success();
}

Expected<OpRef> graphjit::makeScanOp(ScanSpec Spec,
                                     std::shared_ptr<Function> Body,
                                     std::string Name) {
  if (!Body)
    return opError("scan: no body");
  if (Error E = ScanOp::checkBody(Spec, *Body))
    return E;
  if (Name.empty())
    Name = "Scan{" + Body->graph().name() + "}";
  AttrMap A = attrsOf(Spec, *Body);
  return std::make_shared<ScanOp>(std::move(Spec), std::move(Body),
                                  std::move(Name), std::move(A));
}

const Function *graphjit::scanBodyOf(const Op &O) {
  if (const auto *S = llvm::dyn_cast<ScanOp>(&O))
    return &S->body();
  return nullptr;
}

//===- Types ---------------------------------------------------------------===//

// The outer type of a body value of type T with a leading dim of steps:
// the body's symbolic dims mean nothing outside it.
static TensorType outerOf(const TensorType &T, std::optional<Dim> Lead) {
  std::vector<Dim> Dims;
  if (Lead)
    Dims.push_back(*Lead);
  for (const Dim &D : T.Dims)
    Dims.push_back(D.isKnown() ? D : Dim::unknown());
  return TensorType(T.Dtype, std::move(Dims));
}

static Error mismatch(llvm::StringRef What, const TensorType &Outer,
                      const TensorType &Body) {
  return opError("scan: " + What + " is " + Outer.str() +
                 ", which does not hold the body's " + Body.str());
}

// Outer holds rows of Body's type (Rows) or values of it.
static Error checkHolds(llvm::StringRef What, const TensorType &Outer,
                        const TensorType &Body, bool Rows) {
  if (Outer.Dtype != Body.Dtype || Outer.rank() != Body.rank() + Rows)
    return mismatch(What, Outer, Body);
  return Error::success();
}

Expected<std::vector<TensorType>>
ScanOp::inferTypes(ArrayRef<TensorType> In) const {
  const FunctionGraph &G = Body->graph();
  auto BodyIn = [&](unsigned I) { return G.inputs()[I]->type(); };
  auto BodyOut = [&](unsigned I) { return G.outputs()[I]->type(); };
  if (In.size() != L->NumOuterIns)
    return opError("scan: expected " + llvm::Twine(L->NumOuterIns) +
                   " inputs, got " + llvm::Twine(In.size()));
  auto IsCount = [](const TensorType &T) {
    return T.rank() == 0 && isInteger(T.Dtype);
  };
  if (!IsCount(In[0]))
    return opError("scan: the number of steps is " + In[0].str() +
                   ", not an integer scalar");
  for (unsigned S = 0; S < Spec.NumSequences; ++S)
    if (Error E = checkHolds("sequence " + std::to_string(S),
                             In[L->FirstSeq + S], BodyIn(S), true))
      return E;
  std::vector<TensorType> Out;
  unsigned BodyTapIn = L->FirstTapIn, MitMotOut = 0;
  for (unsigned K = 0; K < L->NumTapOuts; ++K) {
    const TensorType &Buf = In[L->FirstTapBuffer + K];
    std::string What = "the buffer of recurrent output " + std::to_string(K);
    for (size_t T = 0; T < L->InTaps[K].size(); ++T)
      if (Error E = checkHolds(What, Buf, BodyIn(BodyTapIn++), true))
        return E;
    if (K < L->NumMitMot) {
      for (size_t T = 0; T < Spec.MitMotOutTaps[K].size(); ++T)
        if (Error E = checkHolds(What, Buf, BodyOut(MitMotOut++), true))
          return E;
    } else if (Error E = checkHolds(What, Buf,
                                    BodyOut(L->FirstTapBodyOut + K -
                                            L->NumMitMot),
                                    true)) {
      return E;
    }
    TensorType T = Buf;
    // A while loop that stops early returns a shorter buffer.
    if (Spec.AsWhile && K >= L->NumMitMot)
      T.Dims[0] = Dim::unknown();
    Out.push_back(T);
  }
  for (unsigned J = 0; J < Spec.NumNitSot; ++J) {
    if (!IsCount(In[L->FirstNitLength + J]))
      return opError("scan: the length of nit_sot " + llvm::Twine(J) +
                     " is " + In[L->FirstNitLength + J].str() +
                     ", not an integer scalar");
    Out.push_back(outerOf(BodyOut(L->FirstNitBodyOut + J), Dim::unknown()));
  }
  for (unsigned U = 0; U < Spec.NumUntraced; ++U) {
    const TensorType &Init = In[L->FirstUntracedIn + U];
    std::string What = "untraced value " + std::to_string(U);
    if (Error E = checkHolds(What, Init, BodyIn(L->FirstUntracedBodyIn + U),
                             false))
      return E;
    if (Error E = checkHolds(What, Init,
                             BodyOut(L->FirstUntracedBodyOut + U), false))
      return E;
    Out.push_back(outerOf(Init, std::nullopt));
  }
  for (unsigned N = 0; N < Spec.NumNonSequences; ++N)
    if (Error E = checkHolds("non-sequence " + std::to_string(N),
                             In[L->FirstNonSeqIn + N],
                             BodyIn(L->FirstNonSeqBodyIn + N), false))
      return E;
  return Out;
}

//===- The loop ------------------------------------------------------------===//

// Python's modulo, whose result has the divisor's sign.
static int64_t wrapIndex(int64_t I, int64_t N) {
  int64_t R = I % N;
  return R < 0 ? R + N : R;
}

// Buffer's row Row as Out: caller memory, no reference to the buffer.
static void wrapRow(NDArray &Out, const NDArray &Buffer, int64_t Row) {
  NDArray::wrapInto(Out, Buffer.data() + Row * Buffer.strides()[0],
                    Buffer.dtype(), ArrayRef<int64_t>(Buffer.shape()).drop_front(),
                    ArrayRef<int64_t>(Buffer.strides()).drop_front());
}

static bool overlaps(const NDArray &A, const NDArray &B) {
  if (A.isNull() || B.isNull() || A.numBytes() == 0 || B.numBytes() == 0)
    return false;
  // Conservative bounds from the first element and the byte extent.
  auto Range = [](const NDArray &X) {
    int64_t Lo = 0, Hi = int64_t(X.elementSize());
    for (unsigned D = 0; D < X.rank(); ++D) {
      int64_t Span = (X.dim(D) - 1) * X.strides()[D];
      (Span < 0 ? Lo : Hi) += Span;
    }
    return std::make_pair(X.data() + Lo, X.data() + Hi);
  };
  auto [ALo, AHi] = Range(A);
  auto [BLo, BHi] = Range(B);
  return ALo < BHi && BLo < AHi;
}

// NumPy's `Buffer[Row] = Value`: Value broadcast into the row. Step > 0
// words a mismatch as PyTensor does (the body's output changed shape).
static Error storeRow(const NDArray &Value, const NDArray &Buffer, int64_t Row,
                      int64_t Step) {
  ArrayRef<int64_t> RowShape = ArrayRef<int64_t>(Buffer.shape()).drop_front();
  char *Dst = Buffer.data() + Row * Buffer.strides()[0];
  if (Value.dtype() == Buffer.dtype() && ArrayRef<int64_t>(Value.shape()) == RowShape &&
      Value.isContiguous() && Buffer.isContiguous()) {
    if (Value.data() != Dst)
      std::memmove(Dst, Value.data(), Value.numBytes());
    return Error::success();
  }
  bool Broadcasts = Value.rank() <= RowShape.size();
  for (unsigned D = 0; Broadcasts && D < Value.rank(); ++D) {
    int64_t V = Value.dim(Value.rank() - 1 - D);
    Broadcasts = V == 1 || V == RowShape[RowShape.size() - 1 - D];
  }
  if (!Broadcasts) {
    if (Step > 0)
      return opError("An output of the Scan has changed shape: " +
                     compactShapeStr(Value.shape()) + " at step " +
                     llvm::Twine(Step) + ", rows of " +
                     compactShapeStr(RowShape) + " before");
    return opError("could not broadcast the body's output of shape " +
                   compactShapeStr(Value.shape()) + " into a row of shape " +
                   compactShapeStr(RowShape));
  }
  NDArray Target = Buffer.view(Shape(RowShape.begin(), RowShape.end()),
                               Shape(Buffer.strides().begin() + 1,
                                     Buffer.strides().end()),
                               Row * Buffer.strides()[0]);
  // The value may be a view of the buffer being written (a tap passed
  // through): copy it first.
  if (overlaps(Value, Target))
    copyConvert(Value.copy(), Target);
  else
    copyConvert(Value, Target);
  return Error::success();
}

// The state of one run of the loop.
struct ScanOp::Loop {
  const ScanOp &Op;
  const Layout &L;
  ArrayRef<NDArray> In;
  std::vector<NDArray> &Out;
  std::vector<int64_t> Store, Pos;
  std::vector<NDArray> BodyIn, BodyOut, Untraced;
  int64_t NSteps = 0, Step = 0;

  Loop(const ScanOp &Op, ArrayRef<NDArray> In, std::vector<NDArray> &Out)
      : Op(Op), L(*Op.L), In(In), Out(Out) {}

  Error run();
  Error start();
  Error finishEmpty();
  void wrapBodyInputs();
  Error storeStep();
  Error putInOrder();
};

Error ScanOp::Loop::start() {
  const ScanSpec &S = Op.Spec;
  NSteps = In[0].getInt(0);
  if (NSteps < 0)
    return opError("IndexError: Scan was asked to run for negative number "
                   "of step " +
                   llvm::Twine(NSteps));
  for (unsigned Q = 0; Q < S.NumSequences; ++Q) {
    const NDArray &Seq = In[L.FirstSeq + Q];
    if (Seq.dim(0) < NSteps)
      return opError("Sequence " + llvm::Twine(Q) + " has shape " +
                     compactShapeStr(Seq.shape()) +
                     " but the Scan's required number of steps is " +
                     llvm::Twine(NSteps));
  }
  Out.resize(Op.NumOuts);
  for (unsigned K = 0; K < L.NumTapOuts; ++K) {
    const NDArray &Init = In[L.FirstTapBuffer + K];
    Store.push_back(Init.dim(0));
    Out[K] = Init.copy();
  }
  for (unsigned J = 0; J < S.NumNitSot; ++J) {
    int64_t N = In[L.FirstNitLength + J].getInt(0);
    if (N < 0)
      return opError("scan: nit_sot " + llvm::Twine(J) +
                     " is to keep a negative number of steps, " +
                     llvm::Twine(N));
    Store.push_back(N);
  }
  for (unsigned U = 0; U < S.NumUntraced; ++U)
    Untraced.push_back(In[L.FirstUntracedIn + U]);
  if (NSteps == 0)
    return Error::success();
  for (size_t K = 0; K < Store.size(); ++K) {
    if (Store[K] == 0)
      return opError("scan: output " + llvm::Twine(K) +
                     " keeps no step (a buffer of length 0)");
    Pos.push_back(wrapIndex(-L.MinTap[K], Store[K]));
  }
  BodyIn.resize(L.NumBodyIns);
  for (unsigned N = 0; N < S.NumNonSequences; ++N)
    BodyIn[L.FirstNonSeqBodyIn + N] = In[L.FirstNonSeqIn + N];
  return Error::success();
}

// PyTensor's result of no steps: the initial buffers, empty nit_sots.
Error ScanOp::Loop::finishEmpty() {
  const FunctionGraph &G = Op.Body->graph();
  for (unsigned J = 0; J < Op.Spec.NumNitSot; ++J) {
    const TensorType &T = G.outputs()[L.FirstNitBodyOut + J]->type();
    if (Error E = createOutput(Out[L.NumTapOuts + J], T.Dtype,
                               Shape(T.rank() + 1, 0)))
      return E;
  }
  for (unsigned U = 0; U < Op.Spec.NumUntraced; ++U)
    Out[L.NumTapOuts + Op.Spec.NumNitSot + U] = Untraced[U].copy();
  return Error::success();
}

void ScanOp::Loop::wrapBodyInputs() {
  for (unsigned Q = 0; Q < Op.Spec.NumSequences; ++Q)
    wrapRow(BodyIn[Q], In[L.FirstSeq + Q], Step);
  unsigned I = L.FirstTapIn;
  for (unsigned K = 0; K < L.NumTapOuts; ++K)
    for (int64_t T : L.InTaps[K])
      wrapRow(BodyIn[I++], Out[K], wrapIndex(Pos[K] + T, Store[K]));
  for (unsigned U = 0; U < Op.Spec.NumUntraced; ++U)
    BodyIn[L.FirstUntracedBodyIn + U] = Untraced[U];
}

Error ScanOp::Loop::storeStep() {
  const ScanSpec &S = Op.Spec;
  // mit_mot: each output tap at its offset from the position, no wrap.
  unsigned O = 0;
  for (unsigned K = 0; K < L.NumMitMot; ++K)
    for (int64_t T : S.MitMotOutTaps[K]) {
      int64_t Row = T + Pos[K];
      if (Row < 0 || Row >= Store[K])
        return opError("scan: mit_mot " + llvm::Twine(K) + " writes row " +
                       llvm::Twine(Row) + " of a buffer of " +
                       llvm::Twine(Store[K]));
      if (Error E = storeRow(BodyOut[O++], Out[K], Row, Step))
        return E;
    }
  for (unsigned K = L.NumMitMot; K < L.NumTapOuts; ++K)
    if (Error E = storeRow(BodyOut[L.FirstTapBodyOut + K - L.NumMitMot],
                           Out[K], Pos[K], Step))
      return E;
  for (unsigned J = 0; J < S.NumNitSot; ++J) {
    const NDArray &V = BodyOut[L.FirstNitBodyOut + J];
    NDArray &Buf = Out[L.NumTapOuts + J];
    if (Step == 0) {
      Shape Sh{Store[L.NumTapOuts + J]};
      Sh.insert(Sh.end(), V.shape().begin(), V.shape().end());
      if (Error E = createOutput(Buf, V.dtype(), Sh))
        return E;
    }
    if (Error E = storeRow(V, Buf, Pos[L.NumTapOuts + J], Step))
      return E;
  }
  // Untraced values: the body's memory is reused by the next step.
  for (unsigned U = 0; U < S.NumUntraced; ++U) {
    const NDArray &V = BodyOut[L.FirstUntracedBodyOut + U];
    NDArray &Keep = Untraced[U];
    bool Own = Step > 0 && Keep.shape() == V.shape() && !overlaps(Keep, V);
    if (Own)
      copyConvert(V, Keep);
    else
      Keep = V.copy();
  }
  for (size_t K = 0; K < Pos.size(); ++K)
    Pos[K] = (Pos[K] + 1) % Store[K];
  return Error::success();
}

// PyTensor's step 6: a circular buffer rotated so that its oldest row
// comes first; a loop that stopped early zeroes the rows it did not
// reach, and a while loop's buffer is cut to the steps it ran.
Error ScanOp::Loop::putInOrder() {
  for (size_t K = L.NumMitMot; K < Store.size(); ++K) {
    NDArray &Buf = Out[K];
    int64_t Reached = Step - L.MinTap[K];
    if (Store[K] < Reached && Pos[K] < Store[K]) {
      if (Pos[K] == 0)
        continue;
      NDArray Rotated;
      if (Error E = createOutput(Rotated, Buf.dtype(), Buf.shape()))
        return E;
      int64_t RowBytes = Buf.strides()[0], P = Pos[K];
      std::memcpy(Rotated.data(), Buf.data() + P * RowBytes,
                  (Store[K] - P) * RowBytes);
      std::memcpy(Rotated.data() + (Store[K] - P) * RowBytes, Buf.data(),
                  P * RowBytes);
      Buf = std::move(Rotated);
    } else if (Store[K] > Reached) {
      Shape Rest = Buf.shape();
      Rest[0] = Store[K] - Reached;
      fillWith(Buf.view(Rest, Buf.strides(), Reached * Buf.strides()[0]), 0);
      if (Step < NSteps) {
        Shape Kept = Buf.shape();
        Kept[0] = Store[K] - (NSteps - Step);
        Buf = Buf.view(Kept, Buf.strides());
      }
    }
  }
  for (unsigned U = 0; U < Op.Spec.NumUntraced; ++U)
    Out[L.NumTapOuts + Op.Spec.NumNitSot + U] = Untraced[U];
  return Error::success();
}

Error ScanOp::Loop::run() {
  if (Error E = start())
    return E;
  if (NSteps == 0)
    return finishEmpty();
  const unsigned Cond = L.NumBodyOuts - 1;
  // The body's JIT code called directly, step after step (StepCall.h);
  // a profiled or interpreted body takes the general call.
  std::optional<StepCall> Fast;
  if (StepCall::supports(*Op.Body))
    Fast.emplace(*Op.Body);
  for (Step = 0; Step < NSteps; ++Step) {
    wrapBodyInputs();
    if (Error E = Fast ? Fast->run(BodyIn, BodyOut)
                       : Op.Body->callInto(BodyIn, BodyOut))
      return llvm::createStringError(
          "in step " + std::to_string(Step) + " of the scan's body '" +
          Op.Body->graph().name() + "': " + llvm::toString(std::move(E)));
    bool Stop = Op.Spec.AsWhile && BodyOut[Cond].getDouble(0) != 0;
    if (Error E = storeStep())
      return E;
    if (Stop) {
      ++Step;
      break;
    }
  }
  return putInOrder();
}

Error ScanOp::prepare(ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const {
  Loop Run(*this, In, Out);
  return Run.run();
}
