//===- NodeRunner.cpp - Running one Apply outside JIT code ---------------===//

#include "NodeRunner.h"

using namespace graphjit;
using llvm::Error;

// "f64 (3,), f64 (4, 1)" for an Apply's input values.
static std::string inputShapes(const Apply &N,
                               const std::vector<NDArray> &Values) {
  std::string S;
  for (Variable *In : N.inputs()) {
    if (!S.empty())
      S += ", ";
    const NDArray &A = Values[In->id()];
    S += A.isNull() ? "?"
                    : dtypeName(A.dtype()).str() + " " + shapeStr(A.shape());
  }
  return S;
}

Error graphjit::nodeError(const Apply &N, const std::vector<NDArray> &Values,
                          const llvm::Twine &Why) {
  return llvm::createStringError(
      N.loc().str() + ": error: Apply node " + std::to_string(N.id()) + ", " +
      N.displayName() + ", with inputs " + inputShapes(N, Values) + ": " + Why);
}

// Checks what an op produced against the types inferred statically, so
// that a wrong op is caught where it happens.
static Error checkOutputs(const Apply &N, const std::vector<NDArray> &Outs,
                          const std::vector<NDArray> &Values) {
  if (Outs.size() != N.outputs().size())
    return nodeError(N, Values, "internal error: the op made " +
                                    llvm::Twine(Outs.size()) + " outputs");
  for (unsigned I = 0; I < Outs.size(); ++I) {
    const TensorType &T = N.output(I)->type();
    const NDArray &A = Outs[I];
    bool Ok = !A.isNull() && A.dtype() == T.Dtype && A.rank() == T.rank();
    for (unsigned D = 0; Ok && D < T.rank(); ++D)
      Ok = !T.Dims[D].isKnown() || T.Dims[D].Size == A.dim(D);
    if (!Ok)
      return nodeError(N, Values,
                       "internal error: output " + llvm::Twine(I) + " is " +
                           (A.isNull() ? std::string("missing")
                                       : dtypeName(A.dtype()).str() + " " +
                                             shapeStr(A.shape())) +
                           ", its type says " + T.str());
  }
  return Error::success();
}

Error graphjit::runNode(const Apply &N, NodeStep Step,
                        std::vector<NDArray> &Values, const ExecContext &Ctx) {
  std::vector<NDArray> In, Out(N.outputs().size());
  for (Variable *V : N.inputs())
    In.push_back(Values[V->id()]);
  Error E = Step == NodeStep::Perform ? N.op().perform(In, Out, Ctx)
                                      : N.op().prepare(In, Out, Ctx);
  if (E)
    return nodeError(N, Values, llvm::toString(std::move(E)));
  if (Error E = checkOutputs(N, Out, Values))
    return E;
  for (unsigned I = 0; I < Out.size(); ++I)
    Values[N.output(I)->id()] = std::move(Out[I]);
  return Error::success();
}
