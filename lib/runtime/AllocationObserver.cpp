//===- AllocationObserver.cpp - The thread's allocation observer ----------===//

#include "runtime/AllocationObserver.h"

using namespace graphjit;

thread_local AllocationObserver *graphjit::ThreadAllocationObserver = nullptr;

AllocationObserver::~AllocationObserver() = default;
