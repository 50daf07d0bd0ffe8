//===- Lexer.h - Tokens of the .graph format --------------------*- C++ -*-===//
//
// Splits a .graph buffer into tokens: names, numbers (with their spelling),
// strings, punctuation. Comments (`#` to the end of the line) and whitespace
// are skipped. Anything the format does not allow becomes an Error token
// carrying the message, so the parser reports it in its place and recovers
// like after any other syntax error.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FORMAT_LEXER_H
#define GRAPHJIT_FORMAT_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <string>
#include <vector>

namespace graphjit {
namespace format {

struct Token {
  enum Kind {
    Eof,
    Error,
    Ident,
    Int,   ///< 12, -1 (the sign is part of the literal)
    Float, ///< 2.0, .5, 1e-3, -0.5
    String,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Equal,
    Arrow,
  };
  Kind K = Eof;
  llvm::StringRef Text;    ///< The spelling in the buffer.
  bool StartsLine = false; ///< First token on its line.
  std::string Value;       ///< String: the unescaped contents. Error: message.
  llvm::SMLoc ErrLoc;      ///< Error: where the problem is.

  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(Text.data()); }
  bool is(Kind Other) const { return K == Other; }
  bool isIdent(llvm::StringRef S) const { return K == Ident && Text == S; }
};

/// How a token kind is named in "expected X" messages.
llvm::StringRef tokenKindName(Token::Kind K);
/// How a token is quoted in "got Y" messages.
std::string describeToken(const Token &T);

/// All tokens of Buffer, ending with one Eof token. Buffer must stay alive
/// (tokens point into it).
std::vector<Token> lex(llvm::StringRef Buffer);

/// Whether S is a name in the format's sense: [A-Za-z_][A-Za-z0-9_]*.
bool isIdentifier(llvm::StringRef S);

} // namespace format
} // namespace graphjit

#endif
