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
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(Buf.getError(),
                                   "cannot open '" + Path +
                                       "': " + Buf.getError().message());
  return parseGraph((*Buf)->getBuffer(), Path);
}
