//===- Builder.cpp - Building graphs from C++ ----------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/OpRegistry.h"
#include <cmath>
#include <limits>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

DType graphjit::literalDType(bool LiteralIsFloat,
                             llvm::ArrayRef<DType> Others) {
  if (Others.empty())
    return LiteralIsFloat ? DType::F64 : DType::I64;
  DType T = Others[0];
  for (DType O : Others.drop_front())
    T = promote(T, O);
  if (LiteralIsFloat && !isFloat(T))
    return DType::F64;
  if (!LiteralIsFloat && isBool(T))
    return DType::I64;
  return T;
}

// Whether literal L (still in its f64/i64 form) fits dtype T.
static Error checkLiteralFits(const Variable *L, DType T) {
  const NDArray &V = L->constantValue();
  std::string Spelling =
      L->literalText().empty() ? V.str() : L->literalText();
  if (isFloat(T)) {
    // Out of range only when rounding to f32 overflows: values up to half
    // an ulp above f32's maximum round down to it (NumPy prints that
    // maximum as 3.4028235e+38, above it in double). The tie rounds to
    // even, which is up: 2^128 - 2^103 is the first value that overflows.
    const double F32Overflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    double D = V.getDouble(0);
    if (T == DType::F32 && std::isfinite(D) && std::fabs(D) >= F32Overflow)
      return llvm::createStringError("literal " + Spelling +
                                     " is out of range for f32");
    return Error::success();
  }
  int64_t I = V.getInt(0);
  int64_t Lo = 0, Hi = 0;
  switch (T) {
  case DType::I8: Lo = INT8_MIN, Hi = INT8_MAX; break;
  case DType::I16: Lo = INT16_MIN, Hi = INT16_MAX; break;
  case DType::I32: Lo = INT32_MIN, Hi = INT32_MAX; break;
  case DType::U8: Lo = 0, Hi = UINT8_MAX; break;
  default: return Error::success();
  }
  if (I < Lo || I > Hi)
    return llvm::createStringError("literal " + Spelling +
                                   " does not fit in " +
                                   dtypeName(T).str());
  return Error::success();
}

FunctionBuilder::FunctionBuilder(GraphModule &M, std::string Name,
                                 SourceLoc Loc)
    : M(M), F(M.addFunction(std::move(Name))) {
  F->setLoc(std::move(Loc));
}

Variable *FunctionBuilder::input(std::string Name, TensorType T,
                                 SourceLoc Loc) {
  return F->addInput(std::move(Name), std::move(T), std::move(Loc));
}

Variable *FunctionBuilder::literal(double V, std::string Spelling,
                                   SourceLoc Loc) {
  if (Spelling.empty())
    Spelling = formatFloatLiteral(V);
  return F->addConstant(NDArray::scalar(DType::F64, V), std::move(Spelling),
                        /*Weak=*/true, std::move(Loc));
}

Variable *FunctionBuilder::literal(int64_t V, std::string Spelling,
                                   SourceLoc Loc) {
  if (Spelling.empty())
    Spelling = std::to_string(V);
  NDArray A = NDArray::zeros(DType::I64, {});
  *A.dataAs<int64_t>() = V;
  return F->addConstant(std::move(A), std::move(Spelling), /*Weak=*/true,
                        std::move(Loc));
}

Variable *FunctionBuilder::constant(NDArray Value, SourceLoc Loc) {
  return F->addConstant(std::move(Value), "", /*Weak=*/false, std::move(Loc));
}

Expected<Variable *> FunctionBuilder::shared(llvm::StringRef Name,
                                             SourceLoc Loc) {
  SharedVariable *S = M.lookupShared(Name);
  if (!S)
    return llvm::createStringError("no shared variable named '" + Name +
                                   "'");
  return F->addSharedRead(S, std::move(Loc));
}

Error FunctionBuilder::settleLiterals(llvm::ArrayRef<Variable *> Inputs,
                                     unsigned NumConditions) {
  std::vector<DType> Others;
  for (Variable *V : Inputs.drop_front(NumConditions))
    if (!V->isWeakLiteral())
      Others.push_back(V->type().Dtype);
  for (unsigned I = 0; I < Inputs.size(); ++I) {
    Variable *V = Inputs[I];
    if (!V->isWeakLiteral() || V->isSettledLiteral())
      continue;
    DType T = literalDType(V->isFloatLiteral(),
                           I < NumConditions ? llvm::ArrayRef<DType>()
                                             : llvm::ArrayRef(Others));
    if (Error E = checkLiteralFits(V, T))
      return E;
    F->retypeLiteral(V, T);
  }
  return Error::success();
}

Expected<std::vector<Variable *>>
FunctionBuilder::applyMulti(llvm::StringRef OpName,
                            llvm::ArrayRef<Variable *> Inputs,
                            const AttrMap &Attrs, SourceLoc Loc) {
  Expected<OpRef> TheOp =
      OpRegistry::get().make(OpName, Attrs, Inputs.size());
  if (!TheOp)
    return TheOp.takeError();
  return applyOp(std::move(*TheOp), Inputs, std::move(Loc));
}

Expected<std::vector<Variable *>>
FunctionBuilder::applyOp(OpRef TheOp, llvm::ArrayRef<Variable *> Inputs,
                         SourceLoc Loc) {
  // A literal already settled by another Apply keeps its dtype; literals
  // written in the source are used once, so this only matters for the API.
  if (Error E = settleLiterals(Inputs, TheOp->numConditionInputs()))
    return E;
  std::vector<TensorType> InTypes;
  for (Variable *V : Inputs)
    InTypes.push_back(V->type());
  Expected<std::vector<TensorType>> OutTypes = TheOp->inferTypes(InTypes);
  if (!OutTypes)
    return OutTypes.takeError();
  Apply *N = F->addApply(std::move(TheOp), Inputs.vec(), *OutTypes,
                         std::move(Loc));
  return N->outputs().vec();
}

Expected<Variable *> FunctionBuilder::apply(llvm::StringRef OpName,
                                            llvm::ArrayRef<Variable *> Inputs,
                                            const AttrMap &Attrs,
                                            SourceLoc Loc) {
  Expected<std::vector<Variable *>> Outs =
      applyMulti(OpName, Inputs, Attrs, std::move(Loc));
  if (!Outs)
    return Outs.takeError();
  if (Outs->size() != 1)
    return llvm::createStringError("op '" + OpName + "' has " +
                                   std::to_string(Outs->size()) +
                                   " outputs; name each of them");
  return (*Outs)[0];
}

bool graphjit::storableIn(const TensorType &From, const TensorType &To) {
  if (From.Dtype != To.Dtype || From.rank() != To.rank())
    return false;
  for (unsigned I = 0; I < From.rank(); ++I)
    if (From.Dims[I].isKnown() && To.Dims[I].isKnown() &&
        From.Dims[I].Size != To.Dims[I].Size)
      return false;
  return true;
}

Error FunctionBuilder::update(llvm::StringRef SharedName, Variable *V,
                              SourceLoc Loc) {
  SharedVariable *S = M.lookupShared(SharedName);
  if (!S)
    return llvm::createStringError("'" + SharedName +
                                   "' is not a shared variable; only shared "
                                   "variables can be updated");
  for (const Update &U : F->updates())
    if (U.Target == S)
      return llvm::createStringError("shared variable '" + SharedName +
                                     "' is updated twice");
  if (V->isWeakLiteral() && !V->isSettledLiteral()) {
    if (Error E = checkLiteralFits(V, S->Type.Dtype))
      return E;
    F->retypeLiteral(V, S->Type.Dtype);
  }
  if (!storableIn(V->type(), S->Type))
    return llvm::createStringError("update of '" + SharedName + "' has type " +
                                   V->type().str() +
                                   ", but the shared variable is " +
                                   S->Type.str());
  F->addUpdate(S, V, std::move(Loc));
  return Error::success();
}

Expected<FunctionGraph *> FunctionBuilder::finish() {
  if (F->outputs().empty() && F->updates().empty())
    return llvm::createStringError("function '" + F->name() +
                                   "' has no outputs and no updates");
  return F;
}
