//===- CompositePerform.h - A scalar program over arrays --------*- C++ -*-===//
//
// The reference perform of fused and in-place Elemwise Applies: the steps
// of a CompositeScalar applied to broadcast, strided inputs a chunk of a
// row at a time, each step's operands converted into small scratch arrays
// and its result kept in one. No array (Buffer) is allocated: the memory
// profile counts Buffers, and the simulated peak counts only outputs. The
// output may be one of the inputs (in place): every element of a chunk is
// read before the chunk is written.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_COMPOSITEPERFORM_H
#define GRAPHJIT_OPS_COMPOSITEPERFORM_H

#include "ops/composite/CompositeScalar.h"
#include "graphjit/NDArray.h"

namespace graphjit {

/// Fills Out (the broadcast shape of Inputs, of the last step's output
/// dtype) with C applied to Inputs element by element; Sigs are the steps'
/// signatures for the inputs' dtypes (compositeSignatures). Each step
/// converts and computes exactly as a single Elemwise's perform does, so
/// the result is bit for bit that of the unfused chain. Integer pow steps
/// must have been refused (they are by compositeSignatures).
void performComposite(const CompositeScalar &C,
                      llvm::ArrayRef<ScalarSignature> Sigs,
                      llvm::ArrayRef<NDArray> Inputs, const NDArray &Out);

} // namespace graphjit

#endif
