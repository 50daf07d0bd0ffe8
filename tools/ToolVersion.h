//===- ToolVersion.h - What --version prints --------------------*- C++ -*-===//
//
// graphjit's version first, then the LLVM it was built with and the host
// CPU the JIT compiles for, as `graphjit --version` and
// `graphjit-prof --version` print them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_UTILS_TOOLVERSION_H
#define GRAPHJIT_UTILS_TOOLVERSION_H

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

namespace graphjit {

inline void setToolVersionPrinter(const char *Tool) {
  static const char *Name = Tool;
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << Name << " (graphjit) version " << GRAPHJIT_VERSION << "\n"
       << "  LLVM version " << LLVM_VERSION_STRING << "\n"
       << "  Host CPU: " << llvm::sys::getHostCPUName() << "\n";
  });
}

} // namespace graphjit

#endif
