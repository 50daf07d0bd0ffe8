//===- StructuralOps.h - Registration of the structural op files -*- C++ -*-===//
//
// The shape, indexing, reduction, linear-algebra and nn families are split
// over several files; the public register*Ops functions (ops/StandardOps.h) call
// these for the files that have no entry of their own there.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRUCTURALOPS_H
#define GRAPHJIT_OPS_STRUCTURALOPS_H

namespace graphjit {

class OpRegistry;

/// alloc, zeros_like, ones_like (AllocOps.cpp).
void registerAllocOps(OpRegistry &R);
/// max_and_argmax, argmax, argmin (ArgReductionOps.cpp).
void registerArgReductionOps(OpRegistry &R);

} // namespace graphjit

#endif
