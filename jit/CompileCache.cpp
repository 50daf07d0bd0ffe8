//===- CompileCache.cpp - Compiled objects kept on disk ------------------===//

#include "CompileCache.h"
#include "graphjit/Flags.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cstdlib>
#include <cstring>

using namespace graphjit;
using namespace llvm;

std::string CompileCache::defaultDirectory() {
  if (const char *Dir = std::getenv("GRAPHJIT_CACHE_DIR"))
    return Dir;
  // GRAPHJIT_FLAGS=compiledir=DIR, Theano's name for it.
  if (Expected<const Flags &> F = processFlags()) {
    if (!F->CompileDir.empty())
      return F->CompileDir;
  } else {
    consumeError(F.takeError());
  }
  SmallString<256> Path;
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    Path = Xdg;
  else if (const char *Home = std::getenv("HOME"); Home && *Home)
    sys::path::append(Path, Home, ".cache");
  else
    return "";
  sys::path::append(Path, "graphjit");
  return std::string(Path);
}

std::string CompileCache::key(const Module &M, StringRef Config) {
  // Bitcode is a faithful and quick serialization of the module.
  SmallVector<char, 0> Bits;
  raw_svector_ostream OS(Bits);
  WriteBitcodeToFile(M, OS);
  Bits.append(Config.begin(), Config.end());
  XXH128_hash_t H = xxh3_128bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(Bits.data()), Bits.size()));
  std::string Key;
  raw_string_ostream KS(Key);
  KS << format_hex_no_prefix(H.high64, 16) << format_hex_no_prefix(H.low64, 16);
  return Key;
}

std::string CompileCache::pathOf(StringRef Key) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, Key + ".o");
  return std::string(Path);
}

// An entry is the object followed by a trailer: a magic word and the
// object's hash, so that a truncated or damaged file reads as a miss.
static constexpr char TrailerMagic[8] = {'g', 'j', 'o', 'b', 'j', 'v', '0', '1'};
static constexpr size_t TrailerSize = 16;

static uint64_t contentHash(StringRef Bytes) {
  return xxh3_64bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
}

std::unique_ptr<MemoryBuffer> CompileCache::lookup(StringRef Key) const {
  if (!enabled())
    return nullptr;
  auto Buf = MemoryBuffer::getFile(pathOf(Key), /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf || (*Buf)->getBufferSize() <= TrailerSize)
    return nullptr;
  StringRef All = (*Buf)->getBuffer();
  StringRef Object = All.drop_back(TrailerSize);
  StringRef Trailer = All.take_back(TrailerSize);
  uint64_t Hash;
  memcpy(&Hash, Trailer.data() + 8, 8);
  if (Trailer.take_front(8) != StringRef(TrailerMagic, 8) ||
      Hash != contentHash(Object))
    return nullptr;
  return MemoryBuffer::getMemBufferCopy(Object, "graphjit-cached-object");
}

void CompileCache::remove(StringRef Key) const {
  if (enabled())
    sys::fs::remove(pathOf(Key));
}

Error CompileCache::store(StringRef Key, const MemoryBuffer &Object) const {
  if (!enabled())
    return Error::success();
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError("cannot create the compile cache '" + Dir +
                             "': " + EC.message());
  SmallString<256> Temp;
  int FD;
  if (std::error_code EC = sys::fs::createUniqueFile(
          pathOf(Key) + ".tmp-%%%%%%%%", FD, Temp))
    return createStringError("cannot write to the compile cache '" + Dir +
                             "': " + EC.message());
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    uint64_t Hash = contentHash(Object.getBuffer());
    OS << Object.getBuffer() << StringRef(TrailerMagic, 8)
       << StringRef(reinterpret_cast<const char *>(&Hash), 8);
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Temp);
      return createStringError("cannot write to the compile cache '" + Dir +
                               "'");
    }
  }
  if (std::error_code EC = sys::fs::rename(Temp, pathOf(Key))) {
    sys::fs::remove(Temp);
    return createStringError("cannot write to the compile cache '" + Dir +
                             "': " + EC.message());
  }
  return Error::success();
}
