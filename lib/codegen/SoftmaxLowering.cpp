//===- SoftmaxLowering.cpp - JIT code for softmax and log_softmax --------===//
//
// gj_prepare has checked the axis and created the output; the thunk loops
// over every dim but the axis and makes three passes along each row,
// exactly as the reference's softmaxRow: the maximum (the first NaN wins;
// found with the reductions' row kernels), the sum of exp(x - max), then
// exp(x - max) / sum or x - max - log(sum), rounded to the output dtype; in
// double, but for float32 to float32, whose exps are in float. Into its
// compute dtype, the exps of rows of SoftmaxKeepExpsFrom elements or more
// are kept in the output and summed pairwise (the reductions' kernel);
// softmax multiplies them by the sum's reciprocal, log_softmax overwrites
// them. Otherwise the sum is in order. Shorter rows (a softmax over a few
// categories, of many rows) go through a buffer of many rows at a time
// (ShortRows), whose exps are one vectorized loop.
// exp and log are the scalar kernels, i.e. the same libm calls, which
// the loop vectorizer replaces with libmvec's.
//
//===----------------------------------------------------------------------===//

#include "ReduceLoweringKernels.h"
#include "StructuralLoweringUtil.h"
#include "ops/StructuralParams.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// One row of the softmax: its elements in and out (Row[0], Row[1]), N of
/// them, computed in C (float for float32 to float32, else double).
struct SoftmaxRow {
  ThunkEmitter &E;
  SoftmaxInfo Info;
  ArrayRef<RowOperand> Row;
  Value *N;
  DType C;
  AllocaInst *SumA;

  DType inT() const { return Row[0].T; }
  DType outT() const { return Row[1].T; }
  Value *converted(Value *Ptr) {
    return E.convert(E.loadElement(inT(), Ptr), inT(), C);
  }
  Value *wide(Value *V) { return E.convert(V, C, DType::F64); }
  Value *exp(Value *V) {
    return E.callKernel(
        C == DType::F32 ? "gj_scalar_exp_f32" : "gj_scalar_exp_f64", {V});
  }

  void emit();
  void emitPasses(Value *Max, bool KeepExp);
};

/// Rows shorter than SoftmaxKeepExpsFrom (non-empty), as many as there
/// are: each row's x - max goes into a buffer of ShortRowBuffer elements;
/// once it is full (and at the end) one loop the vectorizer takes computes
/// the exps of all the buffered rows, then each row sums its exps in order
/// in double (and one more loop takes the sums' logs), and is written out,
/// exp / sum or x - max - log(sum). Rows of a few elements thus pay
/// neither a libm call per exp nor each exp twice, as the reference's
/// short rows do; the exps and logs are libmvec's, within its ulps of the
/// reference's.
struct ShortRows {
  static constexpr unsigned ShortRowBuffer = 256;
  // A multiple of the vector exp loop's elements per iteration (4 lanes
  // of double, 8 of float, times the vectorizer's interleave of 4).
  static constexpr unsigned ExpBlock = 32;
  static_assert(ShortRowBuffer % ExpBlock == 0, "padding stays inside");
  ThunkEmitter &E;
  SoftmaxInfo Info;
  ArrayRef<RowOperand> Rows; // the arrays' first elements, axis strides
  Value *N;
  DType C;
  AllocaInst *SumA;
  AllocaInst *Diffs = nullptr, *Exps = nullptr, *Sums = nullptr;
  AllocaInst *OutRows = nullptr;
  AllocaInst *Pending = nullptr, *MaxA = nullptr; // rows in the buffer

  /// Elements in the buffer: its rows are N long.
  Value *filled() {
    return E.B.CreateMul(E.B.CreateLoad(E.B.getInt64Ty(), Pending), N);
  }

  void emit(ArrayRef<Value *> Outer,
            ArrayRef<SmallVector<Value *, 8>> Strides);
  void emitBuffered(Value *InRow, Value *OutRow);
  void emitFlush();
  /// Fills Buffer (of T) from Used up to a multiple of ExpBlock with Fill;
  /// returns that multiple.
  Value *emitPadding(AllocaInst *Buffer, DType T, Value *Used, double Fill);
  /// Out[I] = Kernel(In[I]) for I < Count, in a loop the vectorizer takes.
  void emitVectorCall(AllocaInst *In, AllocaInst *Out, DType T, Value *Count,
                      StringRef Kernel);
  Value *slot(AllocaInst *Buffer, Value *I) {
    return E.B.CreateInBoundsGEP(E.memoryType(C), Buffer, I);
  }
};

void ShortRows::emit(ArrayRef<Value *> Outer,
                     ArrayRef<SmallVector<Value *, 8>> Strides) {
  IRBuilder<> &B = E.B;
  Type *CT = E.memoryType(C);
  Diffs = entryAlloca(E, ArrayType::get(CT, ShortRowBuffer), "short.diffs");
  Exps = entryAlloca(E, ArrayType::get(CT, ShortRowBuffer), "short.exps");
  // One sum per row; rows have an element at least.
  Sums = entryAlloca(E, ArrayType::get(B.getDoubleTy(), ShortRowBuffer),
                     "short.sums");
  OutRows = entryAlloca(E, ArrayType::get(B.getPtrTy(), ShortRowBuffer),
                        "short.rows");
  Pending = entryAlloca(E, B.getInt64Ty(), "short.pending");
  MaxA = entryAlloca(E, CT, "short.max");
  AllocaInst *Left = entryAlloca(E, B.getInt64Ty(), "short.left");
  B.CreateStore(E.constI64(0), Pending);
  Value *Count = E.constI64(1);
  for (Value *D : Outer)
    Count = B.CreateMul(Count, D);
  B.CreateStore(Count, Left);
  // One flush in the code, after the row that fills the buffer (the next
  // would not fit) or the last row: it is most of the code to compile.
  emitStridedNest(
      E, Outer, {Rows[0].Base, Rows[1].Base}, Strides,
      [&](ArrayRef<Value *> P) {
        emitBuffered(P[0], P[1]);
        Value *Rest = B.CreateSub(B.CreateLoad(B.getInt64Ty(), Left),
                                  E.constI64(1));
        B.CreateStore(Rest, Left);
        Value *Full = B.CreateICmpSGT(B.CreateAdd(filled(), N),
                                      E.constI64(ShortRowBuffer));
        emitIf(E, B.CreateOr(Full, B.CreateICmpEQ(Rest, E.constI64(0))),
               [&] { emitFlush(); });
      });
}

void ShortRows::emitBuffered(Value *InRow, Value *OutRow) {
  IRBuilder<> &B = E.B;
  const DType InT = Rows[0].T, OutT = Rows[1].T;
  // The reference's running maximum, inline: for rows this short a call
  // of the reductions' row kernel costs more than the row. A NaN beats
  // everything (which NaN does not matter: the row becomes the quiet NaN).
  auto Load = [&](Value *J) {
    return E.convert(E.loadElement(InT, E.offset(InRow, J, Rows[0].Stride)),
                     InT, C);
  };
  B.CreateStore(Load(E.constI64(0)), MaxA);
  emitRowLoop(
      E, N, {}, // from 0 (the first element against itself: no change)
      [&](Value *J, ArrayRef<Value *>) {
        Value *V = Load(J), *M = B.CreateLoad(E.memoryType(C), MaxA);
        Value *Beats = B.CreateOr(B.CreateFCmpUNO(V, V), B.CreateFCmpOGT(V, M));
        B.CreateStore(B.CreateSelect(Beats, V, M), MaxA);
      },
      /*Versioned=*/false);
  Value *Max = B.CreateLoad(E.memoryType(C), MaxA);
  emitIfElse(
      E, B.CreateFCmpUNO(Max, Max), "short.nan",
      [&] { // the quiet NaN, as in the reference
        E.emitLoop(N, "short.nan", [&](Value *J) {
          E.storeElement(OutT, ConstantFP::getQNaN(E.valueType(OutT)),
                         E.offset(OutRow, J, Rows[1].Stride));
        });
      },
      [&] {
        Value *At = filled();
        E.emitLoop(N, "short.diff", [&](Value *J) {
          E.storeElement(C, B.CreateFSub(Load(J), Max),
                         slot(Diffs, B.CreateAdd(At, J)));
        });
        Value *Row = B.CreateLoad(B.getInt64Ty(), Pending);
        B.CreateStore(OutRow, B.CreateInBoundsGEP(B.getPtrTy(), OutRows, Row));
        B.CreateStore(B.CreateAdd(Row, E.constI64(1)), Pending);
      });
}

Value *ShortRows::emitPadding(AllocaInst *Buffer, DType T, Value *Used,
                              double Fill) {
  IRBuilder<> &B = E.B;
  Value *Padded = B.CreateAnd(B.CreateAdd(Used, E.constI64(ExpBlock - 1)),
                              E.constI64(-int64_t(ExpBlock)));
  emitRowLoop(
      E, B.CreateSub(Padded, Used), {},
      [&](Value *J, ArrayRef<Value *>) {
        E.storeElement(T, ConstantFP::get(E.valueType(T), Fill),
                       B.CreateInBoundsGEP(E.memoryType(T), Buffer,
                                           B.CreateAdd(Used, J)));
      },
      /*Versioned=*/false);
  return Padded;
}

void ShortRows::emitVectorCall(AllocaInst *In, AllocaInst *Out, DType T,
                               Value *Count, StringRef Kernel) {
  const RowOperand Buffers[] = {{In, E.constI64(int64_t(dtypeSize(T))), T},
                                {Out, E.constI64(int64_t(dtypeSize(T))), T}};
  emitRowLoop(E, Count, Buffers, [&](Value *, ArrayRef<Value *> At) {
    E.storeElement(T, E.callKernel(Kernel, {E.loadElement(T, At[0])}), At[1]);
  });
}

void ShortRows::emitFlush() {
  IRBuilder<> &B = E.B;
  Type *I64 = B.getInt64Ty(), *DoubleTy = B.getDoubleTy();
  const DType OutT = Rows[1].T;
  // Every exp and log a vector one (padded: the vectorizer's remainder
  // loop would call libm), so that a row's values do not depend on where
  // in the buffer it fell.
  Value *Exped = emitPadding(Diffs, C, filled(), 0.0);
  emitVectorCall(Diffs, Exps, C, Exped,
                 C == DType::F32 ? "gj_scalar_exp_f32" : "gj_scalar_exp_f64");
  auto Wide = [&](Value *V) { return E.convert(V, C, DType::F64); };
  auto Sum = [&](Value *R) {
    return B.CreateInBoundsGEP(DoubleTy, Sums, R);
  };
  Value *Count = B.CreateLoad(I64, Pending);
  E.emitLoop(Count, "short.sum", [&](Value *R) {
    Value *First = B.CreateMul(R, N);
    B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
    emitRowLoop(
        E, N, {},
        [&](Value *J, ArrayRef<Value *>) {
          Value *X = E.loadElement(C, slot(Exps, B.CreateAdd(First, J)));
          B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA), Wide(X)),
                        SumA);
        },
        /*Versioned=*/false);
    B.CreateStore(B.CreateLoad(DoubleTy, SumA), Sum(R));
  });
  if (Info.Log) // the sums' logs, in place
    emitVectorCall(Sums, Sums, DType::F64,
                   emitPadding(Sums, DType::F64, Count, 1.0),
                   "gj_scalar_log_f64");
  E.emitLoop(Count, "short.out", [&](Value *R) {
    Value *First = B.CreateMul(R, N);
    Value *OutRow =
        B.CreateLoad(B.getPtrTy(), B.CreateInBoundsGEP(B.getPtrTy(), OutRows, R));
    Value *Total = B.CreateLoad(DoubleTy, Sum(R)); // or its log
    emitRowLoop(
        E, N, {},
        [&](Value *J, ArrayRef<Value *>) {
          Value *K = B.CreateAdd(First, J);
          Value *V =
              Info.Log
                  ? B.CreateFSub(Wide(E.loadElement(C, slot(Diffs, K))), Total)
                  : B.CreateFDiv(Wide(E.loadElement(C, slot(Exps, K))), Total);
          E.storeElement(OutT, E.convert(V, DType::F64, OutT),
                         E.offset(OutRow, J, Rows[1].Stride));
        },
        /*Versioned=*/false);
  });
  B.CreateStore(E.constI64(0), Pending);
}

} // namespace

void SoftmaxRow::emit() {
  IRBuilder<> &B = E.B;
  // The maximum of the converted values is the converted maximum:
  // conversions keep order, NaNs and zeros' signs.
  Value *Max = E.convert(
      emitRowExtreme(E, inT(), true, Row[0].Base, Row[0].Stride, N), inT(), C);
  // A NaN anywhere makes the whole row the quiet NaN, as in the reference
  // (whatever payloads vector and scalar exps would give).
  emitIfElse(
      E, B.CreateFCmpUNO(Max, Max), "row.nan",
      [&] {
        emitRowLoop(E, N, Row, [&](Value *, ArrayRef<Value *> At) {
          E.storeElement(outT(), ConstantFP::getQNaN(E.valueType(outT())),
                         At[1]);
        });
      },
      [&] {
        // Into the compute dtype (these rows are long enough for vector
        // exps: SoftmaxKeepExpsFrom), the exps are kept in the output
        // until the sum is known: one exp per element, in a loop the
        // vectorizer takes.
        emitPasses(Max, outT() == C);
      });
}

void SoftmaxRow::emitPasses(Value *Max, bool KeepExp) {
  IRBuilder<> &B = E.B;
  Type *DoubleTy = B.getDoubleTy();
  if (KeepExp) {
    emitRowLoop(E, N, Row, [&](Value *, ArrayRef<Value *> At) {
      E.storeElement(C, exp(B.CreateFSub(converted(At[0]), Max)), At[1]);
    });
    // Summed pairwise in double, by the reference's own kernel.
    B.CreateStore(B.CreateCall(pairwiseSumFunction(E, DType::F64, C),
                               {Row[1].Base, Row[1].Stride, N}),
                  SumA);
  } else {
    // In order: the sum's additions keep this loop scalar.
    B.CreateStore(ConstantFP::get(DoubleTy, 0.0), SumA);
    emitRowLoop(
        E, N, Row,
        [&](Value *, ArrayRef<Value *> At) {
          Value *Exp = exp(B.CreateFSub(converted(At[0]), Max));
          B.CreateStore(B.CreateFAdd(B.CreateLoad(DoubleTy, SumA), wide(Exp)),
                        SumA);
        },
        /*Versioned=*/false);
  }
  Value *Sum = B.CreateLoad(DoubleTy, SumA);
  Value *LogSum = Info.Log ? E.callKernel("gj_scalar_log_f64", {Sum}) : nullptr;
  // The kept exps times the sum's reciprocal, as the reference.
  Value *Inverse = KeepExp && !Info.Log
                       ? B.CreateFDiv(ConstantFP::get(DoubleTy, 1.0), Sum)
                       : nullptr;
  emitRowLoop(
      E, N, Row,
      [&](Value *, ArrayRef<Value *> At) {
        Value *V;
        if (Info.Log) // over the kept exp, if any
          V = B.CreateFSub(wide(B.CreateFSub(converted(At[0]), Max)), LogSum);
        else if (KeepExp)
          V = B.CreateFMul(wide(E.loadElement(C, At[1])), Inverse);
        else
          V = B.CreateFDiv(wide(exp(B.CreateFSub(converted(At[0]), Max))), Sum);
        E.storeElement(outT(), E.convert(V, DType::F64, outT()), At[1]);
      },
      // Without KeepExp (an output dtype other than the compute dtype:
      // float32 from bool or small integers) each exp is computed again
      // and must be libm's scalar one, the one the sum above added.
      /*Versioned=*/KeepExp);
}

static Error emitSoftmax(ThunkEmitter &E) {
  const Variable *X = E.Node.inputs()[0], *Y = E.Node.output(0);
  const unsigned Rank = X->type().rank();
  std::optional<SoftmaxInfo> Info = softmaxInfo(E.Node.op(), Rank);
  if (!Info)
    return createStringError("no softmax lowering for " + E.Node.op().name());
  const DType InT = X->type().Dtype, OutT = Y->type().Dtype;
  ArrayValues In = loadArray(E, X), Out = loadArray(E, Y);
  SmallVector<Value *, 8> Outer;
  SmallVector<SmallVector<Value *, 8>, 2> Strides(2);
  for (unsigned D = 0; D < Rank; ++D) {
    if (D == Info->Axis)
      continue;
    Outer.push_back(In.Dims[D]);
    Strides[0].push_back(In.Strides[D]);
    Strides[1].push_back(Out.Strides[D]);
  }
  Value *N = In.Dims[Info->Axis];
  AllocaInst *SumA = entryAlloca(E, E.B.getDoubleTy(), "sum");
  // float32 to float32 computes each exp in float (NNOps.cpp's softmaxRow),
  // the sum and the division in double; everything else in double.
  const DType C =
      InT == DType::F32 && OutT == DType::F32 ? DType::F32 : DType::F64;
  const RowOperand Rows[] = {{In.Data, In.Strides[Info->Axis], InT},
                             {Out.Data, Out.Strides[Info->Axis], OutT}};
  // An empty row has nothing to read, not even its first element.
  emitIf(E, E.B.CreateICmpSGT(N, E.constI64(0)), [&] {
    emitIfElse(
        E, E.B.CreateICmpSLT(N, E.constI64(SoftmaxKeepExpsFrom)), "short",
        [&] { ShortRows{E, *Info, Rows, N, C, SumA}.emit(Outer, Strides); },
        [&] {
          emitStridedNest(
              E, Outer, {In.Data, Out.Data}, Strides,
              [&](ArrayRef<Value *> P) {
                // Loops over contiguous rows get typed addresses the
                // vectorizer reads (emitRowLoop's versions).
                const RowOperand Row[] = {{P[0], Rows[0].Stride, InT},
                                          {P[1], Rows[1].Stride, OutT}};
                SoftmaxRow{E, *Info, Row, N, C, SumA}.emit();
              });
        });
  });
  return Error::success();
}

static bool supportsSoftmax(const Apply &N) {
  return softmaxInfo(N.op(), N.inputs()[0]->type().rank()).has_value() &&
         isFloat(N.output(0)->type().Dtype);
}

// The input's shape (its axis was checked against its rank statically).
static void emitSoftmaxDims(ThunkEmitter &E, OutputDims &Dims) {
  const Variable *In = E.Node.inputs()[0];
  for (unsigned D = 0; D < In->type().rank(); ++D)
    Dims[0].push_back(E.dim(In, D));
}

void graphjit::registerSoftmaxLowerings() {
  Lowering L{/*NeedsPrepare=*/true, emitSoftmax, supportsSoftmax};
  L.EmitOutputDims = emitSoftmaxDims;
  registerLowering(OpKind::Softmax, L); // Softmax and LogSoftmax
}
