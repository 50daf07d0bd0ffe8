//===- ParseGraph.cpp - parseGraph and parseGraphFile ---------------------===//
//
// The entry points of the .graph reader: lex, parse the syntax, build the
// module, and hand back either the module or every diagnostic at once.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"
#include "GraphBuilder.h"
#include "Lexer.h"
#include "SyntaxParser.h"
#include "graphjit/Parser.h"
#include "ir/FileReader.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace graphjit;
using namespace graphjit::format;

char ParseError::ID = 0;

llvm::Expected<std::unique_ptr<GraphModule>>
graphjit::parseGraph(llvm::StringRef Text, llvm::StringRef FileName) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text, FileName),
                        llvm::SMLoc());
  llvm::StringRef Buf = SM.getMemoryBuffer(SM.getMainFileID())->getBuffer();
  Diagnostics Diags(SM);
  std::vector<Token> Tokens = lex(Buf);
  ModuleAST AST = parseSyntax(Tokens, Diags);
  auto M = std::make_unique<GraphModule>(FileName.str());
  buildModule(AST, SM, Diags, *M);
  if (Diags.hasErrors())
    return Diags.takeError();
  return M;
}

llvm::Expected<std::unique_ptr<GraphModule>>
graphjit::parseGraphFile(llvm::StringRef Path) {
  // Read in pieces and checked as read, so that a stream is never read
  // whole: an endless or binary one (/dev/zero, /dev/urandom) is refused
  // at its first NUL byte, any input at the size limit. (A regular file's
  // stray NUL bytes are the lexer's to point at.)
  constexpr uint64_t Chunk = 1 << 20, MaxBytes = uint64_t(256) << 20;
  llvm::Expected<FileReader> R = FileReader::open(Path);
  if (!R)
    return R.takeError();
  auto TooLarge = [&] {
    return llvm::createStringError("'" + Path +
                                   "' is larger than 256 MiB, the most a "
                                   "graph file may be");
  };
  std::optional<uint64_t> Size = R->regularSize();
  if (Size && *Size > MaxBytes)
    return TooLarge();
  std::string Text;
  while (true) {
    size_t Old = Text.size();
    if (llvm::Error E = R->append(Text, Chunk))
      return E;
    size_t Nul = Size ? llvm::StringRef::npos
                      : llvm::StringRef(Text).find('\0', Old);
    if (Nul != llvm::StringRef::npos)
      return llvm::createStringError(
          "'" + Path + "' is not a graph file: it has a NUL byte at offset " +
          llvm::Twine(Nul) + " (a binary stream?)");
    if (Text.size() > MaxBytes)
      return TooLarge();
    if (Text.size() - Old < Chunk)
      break;
  }
  return parseGraph(Text, Path);
}
