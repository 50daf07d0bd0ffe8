//===- ops/ElemwiseKernelCall.cpp - Calling JIT loop kernels from C++ -----===//

#include "ops/ElemwiseKernelCall.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include <array>
#include <utility>

using namespace graphjit;

namespace {

template <size_t> using Ptr = void *;

/// Calls a kernel of K inputs, K the length of the index sequence.
template <size_t... I>
void callWith(uint64_t Kernel, char *Out, int64_t N, char *const *In,
              std::index_sequence<I...>) {
  using Fn = void (*)(void *, int64_t, Ptr<I>...);
  reinterpret_cast<Fn>(Kernel)(Out, N, In[I]...);
}

template <size_t K>
void callArity(uint64_t Kernel, char *Out, int64_t N, char *const *In) {
  callWith(Kernel, Out, N, In, std::make_index_sequence<K>());
}

template <size_t... K>
constexpr std::array<KernelCaller, sizeof...(K)>
callers(std::index_sequence<K...>) {
  return {&callArity<K>...};
}

constexpr std::array<KernelCaller, ElemwiseRuntimeMaxInputs + 1> Callers =
    callers(std::make_index_sequence<ElemwiseRuntimeMaxInputs + 1>());

} // namespace

KernelCaller graphjit::kernelCaller(unsigned K, const char *Who) {
  if (K > ElemwiseRuntimeMaxInputs)
    llvm::report_fatal_error(llvm::Twine(Who) +
                             ": a kernel of too many inputs");
  return Callers[K];
}
