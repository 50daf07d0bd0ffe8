//===- ElemwiseLowering.cpp - The Elemwise op's JIT lowering -------------===//
//
// Not registered yet: the IR lowering of Elemwise is being finished and
// checked (see the JIT issue); until it lands, Elemwise nodes run their
// reference perform inside the JIT driver (the "Py" path of c|py).
//
//===----------------------------------------------------------------------===//
#include "lower/ThunkEmitter.h"
void graphjit::registerElemwiseLowerings() {}
