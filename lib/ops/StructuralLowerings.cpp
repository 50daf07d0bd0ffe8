//===- StructuralLowerings.cpp - placeholder until the lowerings land ----===//
#include "lower/ThunkEmitter.h"
void graphjit::registerStructuralLowerings() {}
