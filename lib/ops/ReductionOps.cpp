//===- ReductionOps.cpp - placeholder until the family lands -----------------===//
#include "graphjit/OpRegistry.h"
void graphjit::registerReductionOps(OpRegistry &R) { (void)R; }
