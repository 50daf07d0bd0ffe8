//===- StandardOps.h - Registering graphjit's op families -------*- C++ -*-===//
//
// Each op family registers its ops from its own file; registerStandardOps
// calls them all. Only the top layer calls it (graphjit::initialize(),
// lib/link/compile/Initialize.cpp), so the IR layer's registry never calls up.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STANDARDOPS_H
#define GRAPHJIT_OPS_STANDARDOPS_H

namespace graphjit {

class OpRegistry;

void registerElemwiseOps(OpRegistry &R);
void registerShapeOps(OpRegistry &R);
void registerIndexingOps(OpRegistry &R);
void registerGatherOps(OpRegistry &R);
void registerCumulativeOps(OpRegistry &R);
void registerReductionOps(OpRegistry &R);
void registerLinalgOps(OpRegistry &R);
void registerLapackOps(OpRegistry &R);
void registerSpectralOps(OpRegistry &R);
void registerCheckOps(OpRegistry &R);
void registerArrayFnOps(OpRegistry &R);
void registerScalarLoopOps(OpRegistry &R);
void registerNNOps(OpRegistry &R);

/// Every family above, into R.
void registerStandardOps(OpRegistry &R);

} // namespace graphjit

#endif
