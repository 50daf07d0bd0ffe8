//===- CompileCache.h - Compiled objects kept on disk ----------*- C++ -*-===//
//
// Theano kept compiled thunks in its compiledir; graphjit keeps each
// function's object files (one, or two with a long driver's glue), keyed by a hash of the module as lowered and of
// everything else that decides the machine code: the optimization level,
// the host CPU and its features, the LLVM version and the JIT pipeline's
// version. A hit skips LLVM optimization and code generation: a fresh
// process then compiles a function in the time it takes to lower it and
// link the object. Entries are written to a temporary file and renamed, so
// concurrent processes never see half an object, and carry a checksum, so
// that a damaged entry is recompiled rather than run.
//
// The directory is $GRAPHJIT_CACHE_DIR if set (empty: no cache), else
// $XDG_CACHE_HOME/graphjit, else $HOME/.cache/graphjit.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_COMPILECACHE_H
#define GRAPHJIT_JIT_COMPILECACHE_H

#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <vector>

namespace graphjit {

/// The machine code of one module: its object files (two where a long
/// driver was compiled apart, GlueModule.h), linked together.
using ObjectFiles = std::vector<std::unique_ptr<llvm::MemoryBuffer>>;

class CompileCache {
public:
  /// The directory named by the environment (see above); empty if none.
  static std::string defaultDirectory();

  /// Dir empty: disabled.
  explicit CompileCache(std::string Dir) : Dir(std::move(Dir)) {}
  bool enabled() const { return !Dir.empty(); }
  const std::string &directory() const { return Dir; }

  /// The key of M (as lowered) compiled under Config (level, CPU, ...).
  static std::string key(const llvm::Module &M, llvm::StringRef Config);
  /// The key of other content (the GPU's PTX and its device code).
  static std::string key(llvm::StringRef Bytes);
  /// The objects stored under Key, or none.
  ObjectFiles lookup(llvm::StringRef Key) const;
  /// Forgets the entry under Key (one that failed to load).
  void remove(llvm::StringRef Key) const;
  /// Stores Objects under Key. A cache that cannot be written is not an
  /// error for the compile: the reason is returned for a warning.
  llvm::Error store(llvm::StringRef Key, const ObjectFiles &Objects) const;

private:
  std::string Dir;
  std::string pathOf(llvm::StringRef Key) const;
};

} // namespace graphjit

#endif
