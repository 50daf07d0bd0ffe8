//===- FileReader.cpp - Reading a file no further than its format allows -===//

#include "ir/FileReader.h"

using namespace graphjit;
namespace fs = llvm::sys::fs;

llvm::Expected<FileReader> FileReader::open(llvm::StringRef Path,
                                            llvm::StringRef Verb) {
  auto Fail = [&](std::error_code EC) {
    return llvm::createStringError(EC, "cannot " + Verb + " '" + Path +
                                           "': " + EC.message());
  };
  fs::file_t F;
  bool Owned = Path != "-";
  if (Owned) {
    llvm::Expected<fs::file_t> Opened = fs::openNativeFileForRead(Path);
    if (!Opened)
      return Fail(llvm::errorToErrorCode(Opened.takeError()));
    F = *Opened;
  } else {
    F = fs::getStdinHandle();
  }
  fs::file_status St;
  std::optional<uint64_t> Size;
  if (!fs::status(F, St)) {
    if (St.type() == fs::file_type::directory_file) {
      if (Owned)
        fs::closeFile(F);
      return Fail(std::make_error_code(std::errc::is_a_directory));
    }
    if (St.type() == fs::file_type::regular_file)
      Size = St.getSize();
  }
  return FileReader(Path.str(), F, Owned, Size);
}

FileReader::FileReader(FileReader &&O)
    : Path(std::move(O.Path)), F(O.F), Owned(O.Owned), Size(O.Size) {
  O.Owned = false;
}

FileReader::~FileReader() {
  if (Owned)
    fs::closeFile(F);
}

llvm::Expected<uint64_t> FileReader::read(char *Dst, uint64_t N) {
  uint64_t Got = 0;
  while (Got < N) {
    llvm::Expected<size_t> R = fs::readNativeFile(
        F, llvm::MutableArrayRef<char>(Dst + Got,
                                       size_t(std::min<uint64_t>(N - Got,
                                                                 1 << 20))));
    if (!R)
      return llvm::createStringError(
          "cannot read '" + Path +
          "': " + llvm::toString(R.takeError()));
    if (*R == 0)
      break;
    Got += *R;
  }
  return Got;
}

llvm::Error FileReader::append(std::string &Out, uint64_t N) {
  size_t Old = Out.size();
  Out.resize(Old + N);
  llvm::Expected<uint64_t> Got = read(Out.data() + Old, N);
  if (!Got)
    return Got.takeError();
  Out.resize(Old + *Got);
  return llvm::Error::success();
}
