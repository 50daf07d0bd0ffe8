//===- SharedInit.cpp - First values of shared variables -----------------===//

#include "graphjit/Graph.h"
#include "graphjit/Npy.h"
#include "graphjit/Random.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace graphjit;

static llvm::Expected<NDArray> initialValue(const SharedVariable &S,
                                            llvm::StringRef GraphFile) {
  Shape Dims;
  for (const Dim &D : S.Type.Dims)
    Dims.push_back(D.Size);
  const SharedInit &I = S.Init;
  if (I.K == SharedInit::Npy) {
    llvm::SmallString<256> Path(I.Path);
    if (llvm::sys::path::is_relative(Path)) {
      Path = llvm::sys::path::parent_path(GraphFile);
      llvm::sys::path::append(Path, I.Path);
    }
    llvm::Expected<NDArray> A = readNpy(Path);
    if (!A)
      return A.takeError();
    if (A->dtype() != S.Type.Dtype || A->shape() != Dims)
      return llvm::createStringError(
          "'" + Path.str() + "' holds " + dtypeName(A->dtype()).str() +
          " of shape " + shapeStr(A->shape()) + ", but '" + S.Name +
          "' is declared " + S.Type.str());
    return A;
  }
  llvm::Expected<NDArray> A = NDArray::create(S.Type.Dtype, Dims);
  if (!A)
    return A.takeError();
  Rng R(I.Seed);
  switch (I.K) {
  case SharedInit::Zeros: break;
  case SharedInit::Ones: fillConstant(*A, 1); break;
  case SharedInit::Number: fillConstant(*A, I.A); break;
  case SharedInit::Uniform: fillUniform(*A, I.A, I.B, R); break;
  case SharedInit::Normal: fillNormal(*A, I.A, I.B, R); break;
  case SharedInit::Npy: break;
  }
  return A;
}

llvm::Error GraphModule::initShared() {
  for (auto &S : Shared) {
    llvm::Expected<NDArray> V = initialValue(*S, fileName());
    if (!V)
      // Laid out as the parser's errors: FILE:LINE:COL: error: ...
      return llvm::createStringError(
          S->Loc.str() + ": error: shared variable '" + S->Name +
          "': " + llvm::toString(V.takeError()));
    S->Value = std::move(*V);
  }
  return llvm::Error::success();
}
