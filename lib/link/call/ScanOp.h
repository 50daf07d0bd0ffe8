//===- ScanOp.h - PyTensor's Scan over a compiled body ----------*- C++ -*-===//
//
// Declares ScanOp (OpKind::Scan). Its outputs depend on values only the
// loop computes (a nit_sot's row shape is the body's output's), so
// prepare() runs the whole loop and makes the outputs; compute() has
// nothing left to do. The JIT calls the two as it calls every library op
// (StructuralLowerings.cpp), so a scan is compiled code: the body's JIT
// code called from this loop.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_SCANOP_H
#define GRAPHJIT_LINK_SCANOP_H

#include "graphjit/Scan.h"
#include "ops/ComputedOp.h"

namespace graphjit {

class ScanOp final : public ComputedOp {
public:
  ScanOp(ScanSpec Spec, std::shared_ptr<Function> Body, std::string Name,
         AttrMap Attrs);
  ~ScanOp() override;

  static bool classof(const Op *O) { return O->kind() == OpKind::Scan; }

  std::string name() const override { return Name; }
  llvm::StringRef className() const override { return "Scan"; }
  unsigned numOutputs() const override { return NumOuts; }

  llvm::Expected<std::vector<TensorType>>
  inferTypes(llvm::ArrayRef<TensorType> In) const override;

  llvm::Error prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const override;
  llvm::Error compute(llvm::ArrayRef<NDArray>, llvm::ArrayRef<NDArray>,
                      const ExecContext &) const override {
    return llvm::Error::success();
  }

  /// The body's work is counted in the body's own profile.
  double flops(llvm::ArrayRef<Shape>, llvm::ArrayRef<Shape>) const override {
    return 0;
  }

  const ScanSpec &spec() const { return Spec; }
  const Function &body() const { return *Body; }
  std::shared_ptr<Function> sharedBody() const { return Body; }

  /// Checks Spec against Body's inputs and outputs.
  static llvm::Error checkBody(const ScanSpec &Spec, const Function &Body);

private:
  struct Layout;
  struct Loop;

  ScanSpec Spec;
  std::shared_ptr<Function> Body;
  std::string Name;
  unsigned NumOuts;
  std::unique_ptr<const Layout> L;
};

} // namespace graphjit

#endif
