//===- Lexer.cpp - Tokens of the .graph format ----------------------------===//

#include "Lexer.h"
#include "Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

using namespace graphjit;
using namespace graphjit::format;

llvm::StringRef format::tokenKindName(Token::Kind K) {
  switch (K) {
  case Token::Eof:
    return "end of file";
  case Token::Error:
    return "invalid token";
  case Token::Ident:
    return "a name";
  case Token::Int:
    return "an integer";
  case Token::Float:
    return "a number";
  case Token::String:
    return "a string";
  case Token::LParen:
    return "'('";
  case Token::RParen:
    return "')'";
  case Token::LBrace:
    return "'{'";
  case Token::RBrace:
    return "'}'";
  case Token::LBracket:
    return "'['";
  case Token::RBracket:
    return "']'";
  case Token::Comma:
    return "','";
  case Token::Colon:
    return "':'";
  case Token::Equal:
    return "'='";
  case Token::Arrow:
    return "'->'";
  }
  return "token";
}

std::string format::describeToken(const Token &T) {
  switch (T.K) {
  case Token::Eof:
    return "end of file";
  case Token::String:
    return "a string";
  default:
    break;
  }
  // Long names and numbers are cut so that a message stays one line.
  llvm::StringRef S = T.Text;
  if (S.size() > 40)
    return "'" + S.take_front(40).str() + "...'";
  return "'" + S.str() + "'";
}

static bool isIdentStart(char C) { return llvm::isAlpha(C) || C == '_'; }
static bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

bool format::isIdentifier(llvm::StringRef S) {
  if (S.empty() || !isIdentStart(S[0]))
    return false;
  for (char C : S.drop_front())
    if (!isIdentChar(C))
      return false;
  return true;
}

namespace {

class Lexer {
public:
  explicit Lexer(llvm::StringRef Buf) : Buf(Buf), Pos(0) {}
  std::vector<Token> run();

private:
  llvm::StringRef Buf;
  size_t Pos;
  bool AtLineStart = true;

  char peek(size_t Ahead = 0) const {
    return Pos + Ahead < Buf.size() ? Buf[Pos + Ahead] : '\0';
  }
  bool has(size_t Ahead = 0) const { return Pos + Ahead < Buf.size(); }
  void skipSpaceAndComments();
  Token make(Token::Kind K, size_t Start) const {
    Token T;
    T.K = K;
    T.Text = Buf.slice(Start, Pos);
    return T;
  }
  Token error(size_t Start, size_t At, std::string Msg) const {
    Token T = make(Token::Error, Start);
    T.Value = std::move(Msg);
    T.ErrLoc = llvm::SMLoc::getFromPointer(Buf.data() + At);
    return T;
  }
  Token lexNumber(size_t Start);
  Token lexString(size_t Start);
  Token lexStray(size_t Start);
  Token next();
};

} // namespace

void Lexer::skipSpaceAndComments() {
  while (has()) {
    char C = peek();
    if (C == '\n') {
      AtLineStart = true;
      ++Pos;
    } else if (C == ' ' || C == '\t' || C == '\r') {
      ++Pos;
    } else if (C == '#') {
      while (has() && peek() != '\n')
        ++Pos;
    } else {
      return;
    }
  }
}

// Digits, an optional fraction and exponent; a leading '-' is part of the
// literal. A number running into letters ("12abc", "0x1f", "1e") is one bad
// token rather than a number and a name.
Token Lexer::lexNumber(size_t Start) {
  bool IsFloat = false;
  if (peek() == '-')
    ++Pos;
  while (llvm::isDigit(peek()))
    ++Pos;
  if (peek() == '.') {
    IsFloat = true;
    ++Pos;
    while (llvm::isDigit(peek()))
      ++Pos;
  }
  if (peek() == 'e' || peek() == 'E') {
    size_t Digit = (peek(1) == '+' || peek(1) == '-') ? 2 : 1;
    if (llvm::isDigit(peek(Digit))) {
      IsFloat = true;
      Pos += Digit;
      while (llvm::isDigit(peek()))
        ++Pos;
    }
  }
  if (has() && (isIdentChar(peek()) || peek() == '.')) {
    while (has() && (isIdentChar(peek()) || peek() == '.'))
      ++Pos;
    return error(Start, Start,
                 "invalid number '" + Buf.slice(Start, Pos).str() + "'");
  }
  return make(IsFloat ? Token::Float : Token::Int, Start);
}

// "..." with \" and \\ as the only escapes; it must end on its line.
Token Lexer::lexString(size_t Start) {
  ++Pos; // the opening quote
  std::string Value;
  size_t BadEscape = 0;
  bool HasBadEscape = false;
  while (has() && peek() != '"' && peek() != '\n') {
    if (peek() == '\\' && has(1) && peek(1) != '\n') {
      char E = peek(1);
      if (E != '"' && E != '\\' && !HasBadEscape) {
        HasBadEscape = true;
        BadEscape = Pos;
      }
      Value += E;
      Pos += 2;
      continue;
    }
    Value += peek();
    ++Pos;
  }
  if (!has() || peek() != '"')
    return error(Start, Start,
                 "unterminated string (a string ends with '\"' "
                 "on the same line)");
  ++Pos;
  if (HasBadEscape)
    return error(Start, BadEscape,
                 "unknown escape '\\" + std::string(1, Buf[BadEscape + 1]) +
                     "' in string; only \\\" and \\\\ are allowed");
  Token T = make(Token::String, Start);
  T.Value = std::move(Value);
  return T;
}

// A character the format has no use for. A run of non-ASCII bytes (one
// UTF-8 character, say) is one error, not one per byte.
Token Lexer::lexStray(size_t Start) {
  unsigned char C = peek();
  ++Pos;
  if (C >= 0x80) {
    while (has() && static_cast<unsigned char>(peek()) >= 0x80)
      ++Pos;
    std::string Bytes;
    for (char B : Buf.slice(Start, Pos).take_front(8))
      Bytes += quoteChar(B).substr(1, 4);
    return error(Start, Start,
                 "unexpected non-ASCII character '" + Bytes +
                     "'; the format is ASCII outside comments");
  }
  if (C == 0)
    return error(Start, Start, "unexpected NUL byte");
  if (C == '-')
    return error(Start, Start,
                 "unexpected '-' (a negative number is written without a "
                 "space, as in -1, and '->' introduces the outputs)");
  return error(Start, Start, "unexpected character " + quoteChar(C));
}

Token Lexer::next() {
  size_t Start = Pos;
  char C = peek();
  if (isIdentStart(C)) {
    while (has() && isIdentChar(peek()))
      ++Pos;
    return make(Token::Ident, Start);
  }
  if (llvm::isDigit(C) || (C == '.' && llvm::isDigit(peek(1))) ||
      (C == '-' &&
       (llvm::isDigit(peek(1)) || (peek(1) == '.' && llvm::isDigit(peek(2))))))
    return lexNumber(Start);
  if (C == '-' && peek(1) == '>') {
    Pos += 2;
    return make(Token::Arrow, Start);
  }
  if (C == '"')
    return lexString(Start);
  Token::Kind K;
  switch (C) {
  case '(':
    K = Token::LParen;
    break;
  case ')':
    K = Token::RParen;
    break;
  case '{':
    K = Token::LBrace;
    break;
  case '}':
    K = Token::RBrace;
    break;
  case '[':
    K = Token::LBracket;
    break;
  case ']':
    K = Token::RBracket;
    break;
  case ',':
    K = Token::Comma;
    break;
  case ':':
    K = Token::Colon;
    break;
  case '=':
    K = Token::Equal;
    break;
  default:
    return lexStray(Start);
  }
  ++Pos;
  return make(K, Start);
}

std::vector<Token> Lexer::run() {
  std::vector<Token> Tokens;
  for (;;) {
    skipSpaceAndComments();
    if (!has()) {
      Token T;
      T.K = Token::Eof;
      T.Text = Buf.substr(Buf.size());
      T.StartsLine = true;
      Tokens.push_back(T);
      return Tokens;
    }
    Token T = next();
    T.StartsLine = AtLineStart;
    AtLineStart = false;
    Tokens.push_back(std::move(T));
  }
}

std::vector<Token> format::lex(llvm::StringRef Buffer) {
  return Lexer(Buffer).run();
}
