//===- ViewOp.h - Ops whose output views their first input ------*- C++ -*-===//
//
// DimShuffle, Reshape and Subtensor return a view of input 0 (Theano's
// view_map {0: [0]}). The view is all there is to compute, so perform() is
// prepare(), for the JIT too (as Theano's C DimShuffle only computes
// strides), and a view moves no bytes unless the op says otherwise
// (Reshape copies where the strides allow no view).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_VIEWOP_H
#define GRAPHJIT_OPS_VIEWOP_H

#include "graphjit/Op.h"

namespace graphjit {

class ViewOp : public Op {
public:
  using Op::Op;

  OutputAlias outputAlias(unsigned) const final {
    return OutputAlias::viewOf(0);
  }
  double bytesMoved(llvm::ArrayRef<NDArray>,
                    llvm::ArrayRef<NDArray>) const override {
    return 0;
  }
  llvm::Error perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &Ctx) const final {
    return prepare(In, Out, Ctx);
  }
};

} // namespace graphjit

#endif
