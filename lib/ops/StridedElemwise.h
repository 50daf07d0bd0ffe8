//===- ops/StridedElemwise.h - Strided element-wise loops -*- C++ -*-===//
//
// gj_ew_strided, which JIT code calls for an Elemwise whose inputs are not
// all laid out as its output (broadcast, transposed, sliced: the strided
// path of lib/codegen/ElemwiseLowering.cpp). It walks the output's rows
// and runs the Apply's loop kernel on each: on the row itself where every
// input steps one element at a time along it, else on chunks of the row
// with the strided inputs gathered into buffers on the stack first. The
// JIT module keeps one vectorized kernel per signature and no loop nest
// or scalar loop of its own: those had been two fifths of a module's
// kernel compile time (docs/BENCHMARKS.md, issue 17).
//
// The call's record is an array of 8-byte words, built on the JIT code's
// stack. With R the output's rank and K the kernel's inputs:
//   [0] the kernel for a row written over an overwritten input (in place:
//       the `.io` kernel, which reads that input through the output
//       pointer), [1] the kernel for any other row
//   [2] the output, [3] bytes per output element, [4] K, [5] R
//   [6] the overwritten input's index plus one (0: not in place)
//   [7] 1 where an input other than the overwritten one shares the
//       output's memory: every element is then computed in order, its
//       inputs copied out before it is written
//   [8, 8+R) the output's dims, [8+R, 8+2R) its byte strides
//   then per input, R + 3 words: its data (null: unread), bytes per
//   element, 1 if the kernel reads one element for the whole row (a
//   row-invariant input), and its byte stride along each output dim (0
//   where it is broadcast)
// The output is C-contiguous: its rows step one element at a time.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRIDEDELEMWISE_H
#define GRAPHJIT_OPS_STRIDEDELEMWISE_H

#include "ops/ElemwiseKernelCall.h"
#include "runtime/ProfileRuntime.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>

extern "C" {
/// Runs the record's kernel over every row of the output (see above).
void gj_ew_strided(const uint64_t *Record);
}

namespace graphjit {

/// The record's length for an output of rank R and K kernel inputs.
constexpr unsigned stridedRecordWords(unsigned R, unsigned K) {
  return 8 + 2 * R + K * (R + 3);
}

/// gj_ew_strided by name, for binding in the JIT.
llvm::ArrayRef<RuntimeSymbol> stridedElemwiseSymbols();

} // namespace graphjit

#endif
