//===- ShapeOps.cpp - placeholder until the family lands -----------------===//
#include "graphjit/OpRegistry.h"
void graphjit::registerShapeOps(OpRegistry &R) { (void)R; }
