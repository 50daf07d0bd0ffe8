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
  return key(StringRef(Bits.data(), Bits.size()));
}

std::string CompileCache::key(StringRef Bytes) {
  XXH128_hash_t H = xxh3_128bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
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

// An entry is the objects one after another, then a trailer: each
// object's size, their count, a magic word and a hash of all that comes
// before it, so that a truncated or damaged file reads as a miss.
static constexpr char TrailerMagic[8] = {'g', 'j', 'o', 'b', 'j', 'v', '0', '2'};
static constexpr size_t TrailerSize = 24; // count, magic, hash

static uint64_t contentHash(StringRef Bytes) {
  return xxh3_64bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
}

static uint64_t readWord(StringRef Bytes, size_t At) {
  uint64_t W;
  memcpy(&W, Bytes.data() + At, 8);
  return W;
}

ObjectFiles CompileCache::lookup(StringRef Key) const {
  if (!enabled())
    return {};
  auto Buf = MemoryBuffer::getFile(pathOf(Key), /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf || (*Buf)->getBufferSize() <= TrailerSize)
    return {};
  StringRef All = (*Buf)->getBuffer();
  StringRef Hashed = All.drop_back(8);
  size_t End = All.size() - TrailerSize;
  uint64_t Count = readWord(All, End);
  if (StringRef(All.data() + End + 8, 8) != StringRef(TrailerMagic, 8) ||
      readWord(All, All.size() - 8) != contentHash(Hashed) || Count == 0 ||
      Count > End / 8)
    return {};
  size_t SizesAt = End - 8 * Count, At = 0;
  ObjectFiles Objects;
  for (uint64_t I = 0; I < Count; ++I) {
    uint64_t Size = readWord(All, SizesAt + 8 * I);
    if (Size == 0 || Size > SizesAt - At)
      return {};
    Objects.push_back(MemoryBuffer::getMemBufferCopy(
        All.substr(At, Size), "graphjit-cached-object"));
    At += Size;
  }
  if (At != SizesAt)
    return {};
  return Objects;
}

void CompileCache::remove(StringRef Key) const {
  if (enabled())
    sys::fs::remove(pathOf(Key));
}

Error CompileCache::store(StringRef Key, const ObjectFiles &Objects) const {
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
    SmallVector<char, 0> Entry;
    auto Word = [&](uint64_t W) {
      Entry.append(reinterpret_cast<const char *>(&W),
                   reinterpret_cast<const char *>(&W) + 8);
    };
    for (const auto &Object : Objects)
      Entry.append(Object->getBufferStart(), Object->getBufferEnd());
    for (const auto &Object : Objects)
      Word(Object->getBufferSize());
    Word(Objects.size());
    Entry.append(TrailerMagic, TrailerMagic + 8);
    Word(contentHash(StringRef(Entry.data(), Entry.size())));
    OS << StringRef(Entry.data(), Entry.size());
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
