//===- PythonOp.cpp - Ops whose perform is a Python callable --------------===//
#include "PythonOp.h"

using namespace graphjit;
using namespace graphjit::python;

/// The class names graphjit's own ops use: rewrites, lowerings and the GPU
/// path find an op's class by its name and cast to it, so a Python op must
/// never take one (until op kinds are tested with isa<>, issue 16).
static bool isGraphjitClassName(llvm::StringRef Name) {
  static const char *const Reserved[] = {
      "Alloc",   "Argmax",  "CAReduce", "DimShuffle", "Dot",     "Elemwise",
      "Gemm",    "Join",    "LogSoftmax", "MaxAndArgmax", "Mean", "Reshape",
      "Shape_i", "Softmax", "Subtensor"};
  for (const char *R : Reserved)
    if (Name == R)
      return true;
  return Name.starts_with("Gpu") || Name.ends_with("FromGpu") ||
         Name.ends_with("FromHost");
}

namespace {
class PythonOp final : public Op {
public:
  explicit PythonOp(PythonOpSpec S)
      : Op("python", AttrMap{{"name", AttrValue::ident(S.Name)}}),
        Spec(std::move(S)) {
    Py_XINCREF(Spec.Perform);
    if (isGraphjitClassName(Spec.ClassName))
      Spec.ClassName += "_py";
  }
  ~PythonOp() override {
    // The last graph holding the op may die on any thread.
    if (!Py_IsInitialized())
      return;
    PyGILState_STATE G = PyGILState_Ensure();
    Py_XDECREF(Spec.Perform);
    PyGILState_Release(G);
  }

  std::string name() const override { return Spec.Name; }
  llvm::StringRef className() const override { return Spec.ClassName; }
  unsigned numOutputs() const override { return Spec.Outputs.size(); }
  bool mayLower() const override { return false; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType>) const override {
    return Spec.Outputs;
  }

  llvm::Error perform(llvm::ArrayRef<NDArray> Inputs,
                      std::vector<NDArray> &Outputs,
                      const ExecContext &) const override {
    return runPythonPerform(Spec, Inputs, Outputs);
  }

  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape>) const override {
    return Spec.Flops;
  }

private:
  PythonOpSpec Spec;
};
} // namespace

OpRef graphjit::python::makePythonOp(PythonOpSpec Spec) {
  return std::make_shared<PythonOp>(std::move(Spec));
}
