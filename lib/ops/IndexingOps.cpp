//===- IndexingOps.cpp - placeholder until the family lands -----------------===//
#include "graphjit/OpRegistry.h"
void graphjit::registerIndexingOps(OpRegistry &R) { (void)R; }
