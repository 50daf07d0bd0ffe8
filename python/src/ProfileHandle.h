//===- ProfileHandle.h - graphjit.ProfileStats's native half ----*- C++ -*-===//
#ifndef GRAPHJIT_PYTHON_PROFILEHANDLE_H
#define GRAPHJIT_PYTHON_PROFILEHANDLE_H

#include "graphjit/ProfileStats.h"
#include <memory>
#include <string>

namespace graphjit::python {

/// A ProfileStats shared with the functions that report into it.
struct ProfileHandle {
  std::shared_ptr<ProfileStats> Stats;
  std::string Name;
};

} // namespace graphjit::python

#endif
