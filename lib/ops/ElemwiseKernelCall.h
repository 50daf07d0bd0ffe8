//===- ops/ElemwiseKernelCall.h - Calling JIT loop kernels -*- C++ -*-===//
//
// The runtime's element-wise loops (gj_ew_flat) call an Elemwise's JIT
// loop kernel, `void (ptr out, i64 n, ptr in...)`, whose arity is its
// number of inputs: a table of callers, one per arity, instantiated here
// once for every loop of the runtime that takes kernels.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISEKERNELCALL_H
#define GRAPHJIT_OPS_ELEMWISEKERNELCALL_H

#include <cstdint>

namespace graphjit {

/// The most kernel inputs the runtime's loops take; JIT code runs a
/// kernel with more on its own (ElemwiseLowering.cpp).
constexpr unsigned ElemwiseRuntimeMaxInputs = 16;

/// Calls the kernel at address Kernel over N elements, writing Out and
/// reading In[0..K).
using KernelCaller = void (*)(uint64_t Kernel, char *Out, int64_t N,
                              char *const *In);

/// The caller of kernels of K inputs; a fatal error (a malformed record
/// from JIT code) past ElemwiseRuntimeMaxInputs. Who names the function
/// goes into the message.
KernelCaller kernelCaller(unsigned K, const char *Who);

} // namespace graphjit

#endif
