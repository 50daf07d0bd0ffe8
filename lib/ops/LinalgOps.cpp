//===- LinalgOps.cpp - placeholder until the family lands -----------------===//
#include "graphjit/OpRegistry.h"
void graphjit::registerLinalgOps(OpRegistry &R) { (void)R; }
