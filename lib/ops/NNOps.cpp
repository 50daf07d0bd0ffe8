//===- NNOps.cpp - placeholder until the family lands -----------------===//
#include "graphjit/OpRegistry.h"
void graphjit::registerNNOps(OpRegistry &R) { (void)R; }
