//===- FileReader.h - Reading no further than a format allows --*- C++ -*-===//
//
// MemoryBuffer reads a file whole before anyone looks at it, so an endless
// stream (/dev/zero, /dev/urandom, a pipe) exhausts memory. The readers of
// .graph and .npy files read in pieces instead and stop where the format
// says: a graph at its size limit or at a NUL byte, an .npy file after its
// header's data.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_GRAPH_FILEREADER_H
#define GRAPHJIT_GRAPH_FILEREADER_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include <optional>
#include <string>

namespace graphjit {

class FileReader {
public:
  /// Opens Path ("-": standard input). Errors: "cannot VERB 'P': why".
  static llvm::Expected<FileReader> open(llvm::StringRef Path,
                                         llvm::StringRef Verb = "open");
  FileReader(FileReader &&O);
  FileReader &operator=(FileReader &&) = delete;
  ~FileReader();

  /// The size of a regular file; none for a stream or a device.
  std::optional<uint64_t> regularSize() const { return Size; }
  /// Reads up to N bytes into Dst; fewer only at the end of the file.
  llvm::Expected<uint64_t> read(char *Dst, uint64_t N);
  /// Appends up to N bytes to Out (as read()).
  llvm::Error append(std::string &Out, uint64_t N);

private:
  FileReader(std::string Path, llvm::sys::fs::file_t F, bool Owned,
             std::optional<uint64_t> Size)
      : Path(std::move(Path)), F(F), Owned(Owned), Size(Size) {}
  std::string Path;
  llvm::sys::fs::file_t F;
  bool Owned;
  std::optional<uint64_t> Size;
};

} // namespace graphjit

#endif
