//===- PartsTestUtil.h - For the tests of compiling in parts ----*- C++ -*-===//
//
// What the tests of compiling in parts share: the module of an IR text,
// which of a list of object files defines each symbol, and the objects
// linked and run.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TEST_UNIT_PARTSTESTUTIL_H
#define GRAPHJIT_TEST_UNIT_PARTSTESTUTIL_H

#include "jit/JitEngine.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace graphjit {

/// The module IR describes (a parse error is a test failure, and null).
inline std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx,
                                             llvm::StringRef IR) {
  llvm::SMDiagnostic Diag;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Diag, Ctx);
  EXPECT_TRUE(M) << Diag.getMessage().str();
  return M;
}

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

/// The relocations in Objects that reach a symbol of another object
/// directly, in 32 bits (ELF x86-64's PC32, 32 and 32S), as "name (type)":
/// the objects are allocated apart, possibly 2 GB or more, so such a
/// reference may not fit; calls (PLT32) and GOT loads get JITLink's stubs
/// and GOT entries instead (jit/ObjectLinkage.h).
inline std::vector<std::string> directReferencesAcrossObjects(
    const std::vector<std::unique_ptr<llvm::MemoryBuffer>> &Objects) {
  std::map<std::string, std::set<size_t>> Defined = definedIn(Objects);
  std::vector<std::string> Direct;
  for (size_t I = 0; I < Objects.size(); ++I) {
    auto Obj = llvm::object::ObjectFile::createObjectFile(
        Objects[I]->getMemBufferRef());
    if (!Obj) {
      ADD_FAILURE() << llvm::toString(Obj.takeError());
      continue;
    }
    for (const llvm::object::SectionRef &Sec : (*Obj)->sections())
      for (const llvm::object::RelocationRef &R : Sec.relocations()) {
        uint64_t Type = R.getType();
        if (Type != llvm::ELF::R_X86_64_PC32 &&
            Type != llvm::ELF::R_X86_64_32 && Type != llvm::ELF::R_X86_64_32S)
          continue;
        auto Sym = R.getSymbol();
        if (Sym == (*Obj)->symbol_end())
          continue;
        auto Name = Sym->getName();
        if (!Name) {
          llvm::consumeError(Name.takeError());
          continue;
        }
        auto It = Defined.find(Name->str());
        if (It != Defined.end() && !It->second.count(I))
          Direct.push_back(Name->str() + " (type " + std::to_string(Type) +
                           ")");
      }
  }
  return Direct;
}

/// entry(X) for each of Xs, entry being `i64 entry(i64)` in Objects
/// linked into Engine (and released again); empty, and a test failure, if
/// they do not link.
inline std::vector<int64_t> runEntry(JitEngine &Engine, ObjectFiles Objects,
                                     std::initializer_list<int64_t> Xs) {
  auto Code = Engine.link(std::move(Objects), "entry", false);
  if (!Code) {
    ADD_FAILURE() << llvm::toString(Code.takeError());
    return {};
  }
  auto *Entry = reinterpret_cast<int64_t (*)(int64_t)>(Code->Driver);
  std::vector<int64_t> Results;
  for (int64_t X : Xs)
    Results.push_back(Entry(X));
  Engine.release(*Code);
  return Results;
}

} // namespace graphjit

#endif
