//===- Op.cpp - Defaults shared by all ops -------------------------------===//

#include "graphjit/Op.h"

using namespace graphjit;

Op::~Op() = default;
DeviceRunner::~DeviceRunner() = default;

llvm::Error Op::prepare(llvm::ArrayRef<NDArray> Inputs,
                        std::vector<NDArray> &Outputs,
                        const ExecContext &Ctx) const {
  (void)Inputs;
  (void)Outputs;
  (void)Ctx;
  return llvm::createStringError("op " + name() +
                                 " has no JIT lowering to prepare for");
}

llvm::Error Op::compute(llvm::ArrayRef<NDArray> Inputs,
                        llvm::ArrayRef<NDArray> Outputs,
                        const ExecContext &Ctx) const {
  (void)Inputs;
  (void)Outputs;
  (void)Ctx;
  return llvm::createStringError("op " + name() +
                                 " has no library code to compute with");
}

int64_t graphjit::numElementsOf(const Shape &S) {
  // A 0 dim anywhere means no elements, even if the other dims' product
  // would overflow.
  for (int64_t D : S)
    if (D == 0)
      return 0;
  int64_t N = 1;
  for (int64_t D : S)
    if (__builtin_mul_overflow(N, D, &N))
      return INT64_MAX; // Only reachable for shapes never allocated.
  return N;
}

double Op::flops(llvm::ArrayRef<Shape> Inputs,
                 llvm::ArrayRef<Shape> Outputs) const {
  (void)Inputs;
  (void)Outputs;
  return 0;
}

double Op::bytesMoved(llvm::ArrayRef<NDArray> Inputs,
                      llvm::ArrayRef<NDArray> Outputs) const {
  double Bytes = 0;
  for (const NDArray &A : Inputs)
    Bytes += A.numBytes();
  for (unsigned I = 0; I < Outputs.size(); ++I)
    if (outputAlias(I).K != OutputAlias::View)
      Bytes += Outputs[I].numBytes();
  return Bytes;
}
