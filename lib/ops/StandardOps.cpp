//===- StandardOps.cpp - Registering graphjit's op families ---------------===//

#include "ops/StandardOps.h"

void graphjit::registerStandardOps(OpRegistry &R) {
  registerElemwiseOps(R);
  registerShapeOps(R);
  registerIndexingOps(R);
  registerGatherOps(R);
  registerCumulativeOps(R);
  registerReductionOps(R);
  registerLinalgOps(R);
  registerLapackOps(R);
  registerSpectralOps(R);
  registerCheckOps(R);
  registerArrayFnOps(R);
  registerScalarLoopOps(R);
  registerNNOps(R);
}
