//===- ObjectSymbolsTestUtil.h - Which object defines which symbol -*- C++ -*-===//
//
// For the tests of compiling in parts (SplitCodegenTest, CompileInParts
// Test): each symbol a list of object files defines, and in which of them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_UNIT_OBJECTSYMBOLSTESTUTIL_H
#define GRAPHJIT_TEST_UNIT_OBJECTSYMBOLSTESTUTIL_H

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace graphjit {

/// Symbol name -> the indices of the objects that define it (a failed
/// read is a test failure).
inline std::map<std::string, std::set<size_t>>
definedIn(const std::vector<std::unique_ptr<llvm::MemoryBuffer>> &Objects) {
  std::map<std::string, std::set<size_t>> Defined;
  for (size_t I = 0; I < Objects.size(); ++I) {
    auto Obj =
        llvm::object::ObjectFile::createObjectFile(Objects[I]->getMemBufferRef());
    if (!Obj) {
      ADD_FAILURE() << llvm::toString(Obj.takeError());
      continue;
    }
    for (const llvm::object::SymbolRef &Sym : (*Obj)->symbols()) {
      auto Name = Sym.getName();
      auto Flags = Sym.getFlags();
      if (!Name || !Flags) {
        ADD_FAILURE() << "a symbol without a name or flags";
        llvm::consumeError(Name.takeError());
        llvm::consumeError(Flags.takeError());
        continue;
      }
      if (!(*Flags & llvm::object::SymbolRef::SF_Undefined))
        Defined[Name->str()].insert(I);
    }
  }
  return Defined;
}

} // namespace graphjit

#endif
