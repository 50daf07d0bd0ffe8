//===- NodeRunner.cpp - Running one Apply outside JIT code ---------------===//

#include "link/call/NodeRunner.h"

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

NodeRunner::NodeRunner(llvm::ArrayRef<Apply *> Nodes) : ByNode(Nodes.size()) {
  for (const Apply *N : Nodes) {
    ByNode[N->id()].In.resize(N->inputs().size());
    ByNode[N->id()].Out.resize(N->outputs().size());
  }
}

NodeRunner::Args &NodeRunner::argsFor(const Apply &N,
                                      const std::vector<NDArray> &Values) {
  Args &A = ByNode[N.id()];
  // An op may have resized its outputs on an earlier run.
  A.In.resize(N.inputs().size());
  A.Out.resize(N.outputs().size());
  // The values outlive the run, so the op may borrow them; borrowing into
  // arrays that kept their capacity allocates nothing and touches no
  // reference count.
  for (unsigned I = 0; I < A.In.size(); ++I)
    A.In[I].borrow(Values[N.inputs()[I]->id()]);
  return A;
}

Error NodeRunner::run(const Apply &N, NodeStep Step,
                      std::vector<NDArray> &Values, const ExecContext &Ctx) {
  Args &A = argsFor(N, Values);
  for (NDArray &Out : A.Out)
    Out.dropBuffer(); // Outputs arrive null.
  ExecContext NodeCtx = Ctx;
  NodeCtx.Node = &N;
  Error E = Step == NodeStep::Perform ? N.op().perform(A.In, A.Out, NodeCtx)
                                      : N.op().prepare(A.In, A.Out, NodeCtx);
  if (!E)
    E = checkOutputs(N, A.Out, Values);
  else
    E = nodeError(N, Values, llvm::toString(std::move(E)));
  if (!E)
    for (unsigned I = 0; I < A.Out.size(); ++I) {
      // An output that is (a view of) a borrowed input must own its memory
      // as the input's value does.
      if (A.Out[I].isBorrowed())
        for (const Variable *In : N.inputs())
          A.Out[I].reown(Values[In->id()]);
      std::swap(Values[N.output(I)->id()], A.Out[I]);
    }
  // Hold no buffer past the run: allow_gc frees values by dropping them.
  for (NDArray &In : A.In)
    In.dropBuffer();
  for (NDArray &Out : A.Out)
    Out.dropBuffer();
  return E;
}

Error NodeRunner::compute(const Apply &N, std::vector<NDArray> &Values,
                          const ExecContext &Ctx) {
  Args &A = argsFor(N, Values);
  for (unsigned I = 0; I < A.Out.size(); ++I)
    A.Out[I].borrow(Values[N.output(I)->id()]);
  Error E = N.op().compute(A.In, A.Out, Ctx);
  if (E)
    E = nodeError(N, Values, llvm::toString(std::move(E)));
  for (NDArray &In : A.In)
    In.dropBuffer();
  for (NDArray &Out : A.Out)
    Out.dropBuffer();
  return E;
}
