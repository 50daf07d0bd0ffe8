//===- ElemwiseLowering.cpp - placeholder until the lowering lands -------===//
#include "lower/ThunkEmitter.h"
void graphjit::registerElemwiseLowerings() {}
