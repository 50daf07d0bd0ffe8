//===- DeviceCodeCache.h - GPU kernels kept on disk ------------*- C++ -*-===//
//
// A GPU program's kernels cost two compiles in every process: LLVM's NVPTX
// back end makes PTX, then the driver makes the device's own code (a
// cubin) from it, together 0.3-0.8 s. Both are kept in the compile cache's
// directory (CompileCache.h), under kernels/: the PTX keyed by the kernel
// module as emitted, the target and LLVM's version; the cubin keyed by that
// PTX's key, the device's compute capability and the driver's version. A
// second process then loads the cubin in milliseconds.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GPU_DEVICECODECACHE_H
#define GRAPHJIT_GPU_DEVICECODECACHE_H

#include "Device.h"
#include "jit/CompileCache.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace graphjit {

/// A program's kernels as the device loads them, and where they came from.
struct DeviceCode {
  std::string Ptx;
  /// The device's own code for Ptx; empty where the device has none
  /// (compileBinary answered empty) or its driver could not make it.
  std::string Binary;
  bool PtxFromCache = false;
  bool BinaryFromCache = false;
};

/// The kernels directory under the compile cache's directory CacheDir
/// (empty: none, no caching).
std::string deviceCodeDirectory(llvm::StringRef CacheDir);

/// M's kernels as PTX for Arch (from Cache, else compileToPtx, stored),
/// and, with Binary set, Binary's own code for them (likewise). A cache
/// that cannot be written costs the next process a compile, nothing else.
llvm::Expected<DeviceCode> deviceCodeFor(std::unique_ptr<llvm::Module> M,
                                         llvm::StringRef Arch,
                                         const CompileCache &Cache,
                                         Device *Binary);

} // namespace graphjit

#endif
