//===- DeviceCodeCache.cpp - GPU kernels kept on disk --------------------===//

#include "DeviceCodeCache.h"
#include "codegen/nvptx/KernelSpec.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace graphjit;
using namespace llvm;

/// Bumped whenever compileToPtx's pipeline changes what it makes of a
/// module.
static constexpr unsigned PtxPipelineVersion = 1;

std::string graphjit::deviceCodeDirectory(StringRef CacheDir) {
  if (CacheDir.empty())
    return "";
  SmallString<256> Path(CacheDir);
  sys::path::append(Path, "kernels");
  return std::string(Path);
}

static std::string readEntry(const CompileCache &Cache, StringRef Key) {
  ObjectFiles Entry = Cache.lookup(Key);
  return Entry.size() == 1 ? Entry.front()->getBuffer().str() : "";
}

static void storeEntry(const CompileCache &Cache, StringRef Key,
                       StringRef Bytes) {
  ObjectFiles Entry;
  Entry.push_back(MemoryBuffer::getMemBuffer(Bytes, "", false));
  // A read-only or full disk only costs the next process a compile.
  consumeError(Cache.store(Key, Entry));
}

Expected<DeviceCode> graphjit::deviceCodeFor(std::unique_ptr<Module> M,
                                             StringRef Arch,
                                             const CompileCache &Cache,
                                             Device *Binary) {
  DeviceCode Code;
  std::string PtxKey;
  if (Cache.enabled()) {
    // libdevice's size stands for its version: it is linked into the PTX.
    uint64_t LibdeviceSize = 0;
    (void)sys::fs::file_size(libdevicePath(), LibdeviceSize);
    PtxKey = CompileCache::key(
        *M, (Twine("ptx ") + Arch + " LLVM " + LLVM_VERSION_STRING +
             " pipeline " + Twine(PtxPipelineVersion) + " graphjit " +
             GRAPHJIT_VERSION + " libdevice " + Twine(LibdeviceSize))
                .str());
    Code.Ptx = readEntry(Cache, PtxKey);
    Code.PtxFromCache = !Code.Ptx.empty();
  }
  if (Code.Ptx.empty()) {
    Expected<std::string> Ptx = compileToPtx(std::move(M), Arch);
    if (!Ptx)
      return Ptx.takeError();
    Code.Ptx = std::move(*Ptx);
    if (Cache.enabled())
      storeEntry(Cache, PtxKey, Code.Ptx);
  }
  // Without a cache the driver's own load of the PTX does the same work.
  if (!Binary || !Cache.enabled() || Binary->binaryKey().empty())
    return Code;
  std::string BinaryKey =
      CompileCache::key(PtxKey + " on " + Binary->binaryKey());
  Code.Binary = readEntry(Cache, BinaryKey);
  Code.BinaryFromCache = !Code.Binary.empty();
  if (Code.Binary.empty()) {
    Expected<std::string> Made = Binary->compileBinary(Code.Ptx);
    if (!Made)
      return Made.takeError();
    Code.Binary = std::move(*Made);
    if (!Code.Binary.empty())
      storeEntry(Cache, BinaryKey, Code.Binary);
  }
  return Code;
}
