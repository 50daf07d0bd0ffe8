//===- PythonOp.cpp - Ops whose perform is a Python callable --------------===//
#include "PythonOp.h"

using namespace graphjit;
using namespace graphjit::python;

namespace {
class PythonOp final : public Op {
public:
  explicit PythonOp(PythonOpSpec S)
      : Op("python", AttrMap{{"name", AttrValue::ident(S.Name)}}),
        Spec(std::move(S)) {
    Py_XINCREF(Spec.Perform);
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
